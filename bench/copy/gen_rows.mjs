// The rows of bench/copy/run.sh: N entities as JSON Lines (docs/json.md), each line about B bytes,
// spread round-robin over P PartitionKeys. Deterministic: the same arguments give the same file.
//
//   node gen_rows.mjs --rows N --row-bytes B [--partitions P] > rows.jsonl
//
// Every line holds the keys, typed properties that a copy must carry over exactly — Strings, an
// Int32, an Int64 past 2^53's neighbourhood (annotated), a Double annotated Edm.Double whose value
// is sometimes integral (3.0 must stay a Double), a Boolean, a DateTime with all seven fractional
// digits (annotated) — and one String `pad` of pseudo-random letters that brings the line to B
// bytes (none when the rest is already longer). Prints a summary on stderr.

import { writeSync } from "node:fs";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: "200000" },
    "row-bytes": { type: "string", default: "1000" },
    partitions: { type: "string", default: "1000" },
  },
});
const rows = Number(args.rows);
const rowBytes = Number(args["row-bytes"]);
const partitions = Number(args.partitions);
for (const [name, v] of [["--rows", rows], ["--row-bytes", rowBytes], ["--partitions", partitions]]) {
  if (!Number.isSafeInteger(v) || v < 1) {
    console.error(`gen_rows: ${name} must be a positive integer`);
    process.exit(2);
  }
}
// One String holds at most 64 KiB and a transaction of 100 rows must stay under the 4 MiB body.
if (rowBytes > 30000) {
  console.error("gen_rows: --row-bytes must be at most 30000 (100 rows a transaction, 4 MiB a body)");
  process.exit(2);
}

// xorshift32: a fixed stream of pseudo-random numbers.
let state = 0x9e3779b9;
function next() {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return state >>> 0;
}
// 1 MiB of letters and digits; each pad is a slice of it at a pseudo-random offset, so pads differ
// from row to row and do not compress to nothing.
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const POOL_BYTES = 1 << 20;
let pool = "";
{
  const chars = new Array(POOL_BYTES);
  for (let i = 0; i < POOL_BYTES; i++) chars[i] = ALPHABET[next() % ALPHABET.length];
  pool = chars.join("");
}
const CITIES = ["Oslo", "Lima", "Pune", "Kobe", "Quito", "Accra", "Hanoi", "Perth"];
const BASE_MS = Date.UTC(2026, 0, 1);
const keyWidth = Math.max(4, String(partitions - 1).length);

const out = [];
let outBytes = 0;
let total = 0;
function flush() {
  const buf = Buffer.from(out.join(""), "utf8");
  for (let off = 0; off < buf.length;) off += writeSync(1, buf, off);
  out.length = 0;
  outBytes = 0;
}

for (let i = 0; i < rows; i++) {
  const pk = `p${String(i % partitions).padStart(keyWidth, "0")}`;
  const rk = `r${String(i).padStart(10, "0")}`;
  const r = next();
  // A DateTime on a 100 ns tick: whole seconds from BASE plus seven fractional digits.
  const seconds = new Date(BASE_MS + i * 1000).toISOString().slice(0, 19);
  const ticks = String(r % 10000000).padStart(7, "0");
  const amount = i % 10 === 0 ? `${i % 5000}.0` : String((i % 100000) / 8 + 0.03125);
  const head =
    `{"PartitionKey":"${pk}","RowKey":"${rk}","name":"customer ${i}","city":"${CITIES[r % 8]}",` +
    `"count":${i % 100000},"seq@odata.type":"Edm.Int64","seq":"${9007199254740000 + i}",` +
    `"amount@odata.type":"Edm.Double","amount":${amount},"active":${r % 3 === 0},` +
    `"created@odata.type":"Edm.DateTime","created":"${seconds}.${ticks}Z","pad":"`;
  const padLength = Math.max(0, rowBytes - head.length - 3);  // `"}` and the newline
  const at = next() % (POOL_BYTES - padLength);
  const line = `${head}${pool.slice(at, at + padLength)}"}\n`;
  out.push(line);
  outBytes += line.length;
  total += line.length;
  if (outBytes >= 4 << 20) flush();
}
flush();
console.error(`gen_rows: ${rows} rows, ${partitions} partitions, ${(total / rows).toFixed(0)} bytes a line`);
