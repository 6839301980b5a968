// Loads a WARC file into ReplayWeb.page (its static build, served on 127.0.0.1 by
// bench/warc/replay) in Debian's chromium, then screenshots the list of archived resources
// and the replay of one URL, for a person to look at.
// usage: node replay.mjs BASE_URL WARC_NAME OUT_DIR URL
import { chromium } from "playwright-core";

const [base, warc, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
const source = `${base}/index.html?source=${encodeURIComponent(`${base}/${warc}`)}`;

// The resources its index lists (URL, date, media type, status), after it has loaded the
// file.
await page.goto(`${source}#view=resources`);
await page.waitForTimeout(15000);
await page.screenshot({ path: `${out}/resources.png` });

// The URL given, replayed (its newest capture, with the count of captures beside the URL).
const url = process.argv[5];
await page.goto(`${source}#view=replay&url=${encodeURIComponent(url)}`);
await page.waitForTimeout(15000);
await page.screenshot({ path: `${out}/replay.png` });
await browser.close();
