// Readability.js on every page named, in one process, for bench/article/run.
// Usage: node readability.mjs OUTDIR FILE...
// For each page: jsdom parses the file's bytes and Readability parses the document (both
// timed; reading the file is not); the article's textContent goes to OUTDIR/<n>.txt and its
// title to OUTDIR/<n>.title. Prints `file<TAB>ms<TAB>ok` (or the error) a page.
import { readFileSync, writeFileSync } from "node:fs";
import { JSDOM, VirtualConsole } from "jsdom";
import { Readability } from "@mozilla/readability";

const [outDir, ...files] = process.argv.slice(2);
const quiet = new VirtualConsole();  // pages' CSS and script errors are not ours to print
files.forEach((file, i) => {
  const bytes = readFileSync(file);
  const start = process.hrtime.bigint();
  let text = "";
  let title = "";
  let status = "ok";
  try {
    const dom = new JSDOM(bytes, { url: "http://fakehost/test/page.html", virtualConsole: quiet });
    const article = new Readability(dom.window.document).parse();
    if (article) {
      text = article.textContent || "";
      title = article.title || "";
    } else {
      status = "no article";
    }
    dom.window.close();
  } catch (e) {
    status = String(e.message || e).replace(/\s+/g, " ");
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  writeFileSync(`${outDir}/${i}.txt`, text);
  writeFileSync(`${outDir}/${i}.title`, title);
  process.stdout.write(`${file}\t${ms.toFixed(3)}\t${status}\n`);
});
