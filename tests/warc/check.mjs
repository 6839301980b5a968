// Reads a WARC file with warcio.js (Webrecorder's reader, not feeddiff's code) and prints
// what it found as one JSON document, for the export-warc tests to check:
//   records: per record its WARC fields, its HTTP status and headers, its payload's size
//            and SHA-1 (computed here with node's crypto and base32-encode, as a WARC
//            digest is written), and the bytes of its block digest recomputed likewise;
//   cdxj:    the CDXJ index warcio's own indexer makes of the file (offsets, lengths, SURT).
// usage: node check.mjs FILE.warc.gz
import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { basename } from "node:path";
import { Writable } from "node:stream";
import base32Encode from "base32-encode";
import { CDXIndexer, WARCParser } from "warcio";

const file = process.argv[2];
const digest = (bytes) =>
  "sha1:" + base32Encode(createHash("sha1").update(bytes).digest(), "RFC4648");

const records = [];
const parser = new WARCParser(createReadStream(file), { keepHeadersCase: true });
for await (const record of parser) {
  const fields = {};
  for (const [name, value] of record.warcHeaders.headers) fields[name] = value;
  const out = { type: record.warcType, fields, offset: parser.offset };
  if (record.httpHeaders) {
    out.status = Number(record.httpHeaders.statusCode);
    out.statusline = record.httpHeaders.statusline;
    out.http = {};
    for (const [name, value] of record.httpHeaders.headers) out.http[name] = value;
    // toString() gives the status line and headers without the blank line that ends them.
    const head = new TextEncoder().encode(record.httpHeaders.toString() + "\r\n");
    const payload = await record.readFully(false);
    out.payload_size = payload.length;
    out.payload_digest = digest(payload);
    out.payload_text = new TextDecoder().decode(payload);
    out.block_digest = digest(Buffer.concat([head, payload]));
  } else {
    const block = await record.readFully(false);
    out.block_text = new TextDecoder().decode(block);
    out.block_digest = digest(block);
  }
  records.push(out);
}

let cdxj = "";
const sink = new Writable({
  write(chunk, _encoding, done) {
    cdxj += chunk.toString();
    done();
  },
});
await new CDXIndexer({ format: "cdxj" }).writeAll(
  [{ filename: basename(file), reader: createReadStream(file) }],
  sink,
);
process.stdout.write(JSON.stringify({ records, cdxj: cdxj.split("\n").filter((l) => l) }));
