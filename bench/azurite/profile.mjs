// Instruction profile of partkv serve per bench phase: runs the server under callgrind and drives
// a short version of bench.mjs's workload, dumping one callgrind profile per phase. Instruction
// counts repeat from run to run even on a busy machine, unlike CPU seconds. Not part of CI.
//
//   node profile.mjs PATH/TO/partkv [OUT_DIR]
//
// Prints the instructions per operation of each phase; OUT_DIR/callgrind.out.<pid>.<n> hold the
// profiles (callgrind_annotate --inclusive=yes FILE for the call tree).

import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient, TableServiceClient } from "@azure/data-tables";

const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const bin = process.argv[2];
if (!bin) {
  console.error("usage: node profile.mjs PATH/TO/partkv [OUT_DIR]");
  process.exit(2);
}
const out = process.argv[3] ?? mkdtempSync(join(tmpdir(), "partkv-serve-profile-"));
mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), "partkv-serve-profile-store-"));

const child = spawn("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}/callgrind.out.%p`,
                                 bin, "serve", "--store", join(dir, "store"), "--port", "0"],
                    { stdio: ["ignore", "pipe", "pipe"] });
const port = await new Promise((resolve, reject) => {
  let text = "";
  const onData = (d) => {
    text += d;
    const m = text.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
    if (m) resolve(m[1]);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  child.on("exit", (code) => reject(new Error(`partkv serve exited with ${code}: ${text}`)));
});
const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
           `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
const options = { allowInsecureConnection: true };
await TableServiceClient.fromConnectionString(cs, options).createTable("bench");
const client = TableClient.fromConnectionString(cs, "bench", options);

const control = (arg) => execFileSync("callgrind_control", [arg, String(child.pid)], { stdio: "ignore" });
const instructions = (file) => {
  const m = readFileSync(file, "utf8").match(/^(?:summary|totals): (\d+)/m);
  return m ? Number(m[1]) : NaN;
};
const payload = (i) => ({ name: `customer ${i}`, city: ["Oslo", "Lima", "Pune", "Kobe"][i % 4],
                          amount: i * 1.25, count: i, flag: i % 1000 === 7 ? "yes" : "no" });
async function inParallel(count, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await fn(next++);
  }));
}
async function load(pkOf, count) {
  for (let b = 0; b < count / 100; b++) {
    const actions = [];
    for (let i = 0; i < 100; i++) {
      actions.push(["create", { partitionKey: pkOf(b), rowKey: String(b * 100 + i).padStart(8, "0"), ...payload(b * 100 + i) }]);
    }
    await client.submitTransaction(actions);
  }
}
const rows = [];
async function phase(name, ops, fn) {
  control("--zero");
  await fn();
  control(`--dump=${name.replace(/[^A-Za-z0-9]+/g, "_")}`);
  const files = readdirSync(out).filter((f) => f.startsWith(`callgrind.out.${child.pid}.`)).sort(
      (a, b) => Number(a.split(".").pop()) - Number(b.split(".").pop()));
  const file = join(out, files[files.length - 1]);
  rows.push({ name, ops, per: instructions(file) / ops, file });
}

await phase("insert, sequential", 500, async () => {
  for (let i = 0; i < 500; i++) await client.createEntity({ partitionKey: "seq", rowKey: String(i).padStart(8, "0"), ...payload(i) });
});
await phase("point read, 16 in flight", 500, () => inParallel(500, 16, (i) =>
  client.getEntity("seq", String(i).padStart(8, "0"))));
await load(() => "big", 2000);
await phase("partition query (entities)", 2000, async () => {
  let got = 0;
  for await (const _ of client.listEntities({ queryOptions: { filter: "PartitionKey eq 'big'" } })) got++;
  if (got !== 2000) throw new Error(`partition query returned ${got}`);
});
await load((b) => `w${String(b).padStart(5, "0")}`, 10000);
await phase("selective filter (entities scanned)", 10000 + 2500, async () => {
  let got = 0;
  for await (const _ of client.listEntities({ queryOptions: { filter: "flag eq 'yes' and count ge 0" } })) got++;
  if (got < 10) throw new Error(`filter returned ${got}`);
});

child.kill("SIGTERM");
await new Promise((r) => child.on("exit", r));
rmSync(dir, { recursive: true, force: true });
for (const r of rows) console.log(`${r.name} (${r.ops}): ${Math.round(r.per)} instructions/op  ${r.file}`);
