// What bench/copy/run.sh compares to tell that a copy is whole and exact: `partkv export` of a
// table (JSON Lines in (PartitionKey, RowKey) order) on stdin; on stdout {"rows":N,"sha256":"..."}
// over the lines without what each store sets for itself (`odata.etag`, `Timestamp` and its
// annotation). Two tables with the same entities, every key, type and value, give the same digest.
//
//   partkv --store LOCATION export TABLE | node digest.mjs

import { createHash } from "node:crypto";
import { createInterface } from "node:readline";

const SYSTEM = /^\{"odata\.etag":"(?:[^"\\]|\\.)*",|"Timestamp@odata\.type":"Edm\.DateTime","Timestamp":"[^"]*",/g;
const hash = createHash("sha256");
let rows = 0;
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line.length === 0) continue;
  hash.update(line.replace(SYSTEM, (m) => (m.startsWith("{") ? "{" : "")));
  hash.update("\n");
  rows++;
}
console.log(JSON.stringify({ rows, sha256: hash.digest("hex") }));
