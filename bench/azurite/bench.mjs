// partkv serve vs Azurite: the same @azure/data-tables workload against both servers, in one run,
// on loopback (docs/serve.md "Tests and benchmark"). Not part of CI.
//
//   npm ci && node bench.mjs PATH/TO/partkv [--scale 1]
//
// Per phase it reports the end-to-end rate seen by the SDK and the server's CPU seconds per
// 1,000 operations (utime + stime of the server process from /proc), and each server's peak RSS
// (VmHWM). --scale multiplies the entity counts (1 = the full workload: 100,000 entities in the
// selective filter's partitions, 110,000 in the no-match filter's table). The two filter phases
// have a rate target against Azurite (the "target" column); each runs its query five times and
// reports the median, with the first run (read right after the writes) in rows of its own.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { TableClient, TableServiceClient } from "@azure/data-tables";

const here = dirname(fileURLToPath(import.meta.url));
const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const partkvBin = process.argv[2];
if (!partkvBin) {
  console.error("usage: node bench.mjs PATH/TO/partkv [--scale N]");
  process.exit(2);
}
const scaleAt = process.argv.indexOf("--scale");
const scale = scaleAt > 0 ? Number(process.argv[scaleAt + 1]) : 1;
const n = (count) => Math.max(100, Math.round(count * scale / 100) * 100);

const CLK_TCK = 100;  // Linux USER_HZ
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;  // utime + stime
}
function peakRssMiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/);
  return Number(m[1]) / 1024;
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function waitForOutput(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 60 s: ${out}`)), 60000);
    const onData = (d) => {
      out += d;
      const m = out.match(pattern);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${what} exited with ${code}: ${out}`)));
  });
}

async function startPartkv(dir) {
  const child = spawn(partkvBin, ["serve", "--store", join(dir, "store"), "--port", "0"],
                      { stdio: ["ignore", "pipe", "pipe"] });
  const m = await waitForOutput(child, /listening on http:\/\/127\.0\.0\.1:(\d+)\//, "partkv serve");
  return { name: "partkv serve", child, endpoint: `http://127.0.0.1:${m[1]}/devstoreaccount1` };
}

async function startAzurite(dir) {
  const port = await freePort();
  const main = join(here, "node_modules/azurite/dist/src/table/main.js");
  const child = spawn(process.execPath, [main, "--tableHost", "127.0.0.1", "--tablePort", String(port),
                                         "--location", dir, "--skipApiVersionCheck", "--disableProductStyleUrl"],
                      { stdio: ["ignore", "pipe", "pipe"] });
  await waitForOutput(child, /successfully started/i, "Azurite");
  return { name: "Azurite", child, endpoint: `http://127.0.0.1:${port}/devstoreaccount1` };
}

function connectionString(endpoint) {
  return `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};TableEndpoint=${endpoint};`;
}

function payload(i) {
  return { name: `customer ${i}`, city: ["Oslo", "Lima", "Pune", "Kobe"][i % 4], amount: i * 1.25,
           count: i, flag: i % 1000 === 7 ? "yes" : "no" };
}

async function inParallel(count, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await fn(next++);
  }));
}

async function runPhases(server) {
  const options = { allowInsecureConnection: true };
  const cs = connectionString(server.endpoint);
  await TableServiceClient.fromConnectionString(cs, options).createTable("bench");
  const client = TableClient.fromConnectionString(cs, "bench", options);
  const results = [];
  // `target`: the rate ratio against Azurite the phase should reach, if it has one. `repeat`: run
  // `fn` this many times and take the median time (a phase of one ~20 ms request is otherwise one
  // noisy sample); the first run's rate is printed beside it.
  async function phase(name, ops, fn, { target, repeat = 1 } = {}) {
    const cpu0 = cpuSeconds(server.child.pid);
    const times = [];
    let note;
    for (let r = 0; r < repeat; r++) {
      const t0 = process.hrtime.bigint();
      note = await fn();
      times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    const cpu = (cpuSeconds(server.child.pid) - cpu0) / repeat;
    const seconds = [...times].sort((a, b) => a - b)[Math.floor(repeat / 2)];
    results.push({ name, ops, rate: ops / seconds, first: ops / times[0], cpuPer1000: (cpu / ops) * 1000, target, repeat });
    const first = repeat > 1 ? `, median of ${repeat}; first ${(ops / times[0]).toFixed(0)} ops/s` : "";
    console.error(`  ${server.name}: ${name}: ${(ops / seconds).toFixed(0)} ops/s${first}${note ? ` (${note})` : ""}`);
  }
  const seq = n(2000), par = n(5000), batches = n(20000), reads = n(5000), part = n(10000), wide = n(100000),
        nomatch = n(110000);
  await phase("insert, sequential", seq, async () => {
    for (let i = 0; i < seq; i++) await client.createEntity({ partitionKey: "seq", rowKey: String(i).padStart(8, "0"), ...payload(i) });
  });
  await phase("insert, 16 in flight", par, () => inParallel(par, 16, (i) =>
    client.createEntity({ partitionKey: `par${i % 64}`, rowKey: String(i).padStart(8, "0"), ...payload(i) })));
  const batchOf = (prefix, b) => {
    const actions = [];
    for (let i = 0; i < 100; i++) actions.push(["create", { partitionKey: `${prefix}${b}`, rowKey: String(i).padStart(8, "0"), ...payload(i) }]);
    return actions;
  };
  await phase("batch of 100, sequential (entities)", batches, async () => {
    for (let b = 0; b < batches / 100; b++) await client.submitTransaction(batchOf("batch", b));
  });
  await phase("batch of 100, 16 in flight (entities)", batches, () => inParallel(batches / 100, 16, (b) =>
    client.submitTransaction(batchOf("pbatch", b))));
  await phase("point read, sequential", reads, async () => {
    for (let i = 0; i < reads; i++) await client.getEntity("seq", String(i % seq).padStart(8, "0"));
  });
  await phase("point read, 16 in flight", reads, () => inParallel(reads, 16, (i) =>
    client.getEntity(`par${(i % par) % 64}`, String(i % par).padStart(8, "0"))));
  // A 10,000-entity partition, written in batches (not timed), then read whole.
  for (let b = 0; b < part / 100; b++) {
    const actions = [];
    for (let i = 0; i < 100; i++) actions.push(["create", { partitionKey: "big", rowKey: String(b * 100 + i).padStart(8, "0"), ...payload(i) }]);
    await client.submitTransaction(actions);
  }
  await phase("partition query (entities)", part, async () => {
    let got = 0;
    for await (const _ of client.listEntities({ queryOptions: { filter: "PartitionKey eq 'big'" } })) got++;
    if (got !== part) throw new Error(`partition query returned ${got}, expected ${part}`);
  });
  // 100,000 entities over 1,000 partitions; the filter matches 0.1% of them.
  for (let b = 0; b < wide / 100; b++) {
    const actions = [];
    for (let i = 0; i < 100; i++) actions.push(["create", { partitionKey: `w${String(b).padStart(5, "0")}`, rowKey: String(i).padStart(8, "0"), ...payload(b * 100 + i) }]);
    await client.submitTransaction(actions);
  }
  await phase("selective filter, all partitions (entities scanned)", wide, async () => {
    let got = 0;
    for await (const _ of client.listEntities({ queryOptions: { filter: "flag eq 'yes' and count ge 0" } })) got++;
    if (got < wide / 1000) throw new Error(`filter returned ${got}`);
    return `${got} matched`;
  }, { target: 1.5, repeat: 5 });
  // 110,000 entities over 1,100 partitions in a table of their own (written 16 batches at a time,
  // not timed), and a filter on a property that none of them matches: the whole table is read for
  // an empty answer. At full scale that is more than 100,000 rows, so a server bounding a page by
  // rows examined answers empty pages with continuations, where one bounding it by time answers
  // once; the pages are counted.
  await TableServiceClient.fromConnectionString(cs, options).createTable("nomatch");
  const empty = TableClient.fromConnectionString(cs, "nomatch", options);
  await inParallel(nomatch / 100, 16, (b) => {
    const actions = [];
    for (let i = 0; i < 100; i++) actions.push(["create", { partitionKey: `n${String(b).padStart(5, "0")}`, rowKey: String(i).padStart(8, "0"), ...payload(b * 100 + i) }]);
    return empty.submitTransaction(actions);
  });
  await phase("no-match filter, all partitions (entities scanned)", nomatch, async () => {
    let got = 0, pages = 0;
    for await (const page of empty.listEntities({ queryOptions: { filter: "flag eq 'never'" } }).byPage()) {
      pages++;
      got += page.length;
    }
    if (got !== 0) throw new Error(`a filter matching nothing returned ${got}`);
    return `${pages} page${pages === 1 ? "" : "s"}`;
  }, { target: 1.5, repeat: 5 });
  return { results, peakRss: peakRssMiB(server.child.pid) };
}

async function measure(start) {
  const dir = mkdtempSync(join(tmpdir(), "partkv-azurite-bench-"));
  const server = await start(dir);
  try {
    return await runPhases(server);
  } finally {
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.on("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

const partkv = await measure(startPartkv);
const azurite = await measure(startAzurite);
console.log(`partkv serve vs Azurite 3.37.0, @azure/data-tables 13.3.2, Node ${process.version}, scale ${scale}`);
console.log("| phase | partkv ops/s | Azurite ops/s | rate ratio | target | partkv CPU s/1k ops | Azurite CPU s/1k ops | CPU ratio |");
console.log("|---|---:|---:|---:|---|---:|---:|---:|");
for (let i = 0; i < partkv.results.length; i++) {
  const p = partkv.results[i], a = azurite.results[i];
  const ratio = p.rate / a.rate;
  const target = p.target ? `≥ ${p.target}x: ${ratio >= p.target ? "met" : "missed"}` : "";
  const runs = p.repeat > 1 ? `, median of ${p.repeat}` : "";
  console.log(`| ${p.name} (${p.ops}${runs}) | ${p.rate.toFixed(0)} | ${a.rate.toFixed(0)} | ${ratio.toFixed(2)}x | ${target} | ` +
              `${p.cpuPer1000.toFixed(3)} | ${a.cpuPer1000.toFixed(3)} | ${(p.cpuPer1000 / a.cpuPer1000).toFixed(2)}x |`);
}
for (let i = 0; i < partkv.results.length; i++) {
  const p = partkv.results[i], a = azurite.results[i];
  if (p.repeat > 1) {
    console.log(`| ${p.name}: first of ${p.repeat} | ${p.first.toFixed(0)} | ${a.first.toFixed(0)} | ${(p.first / a.first).toFixed(2)}x | | | | |`);
  }
}
console.log(`| peak RSS (MiB) | ${partkv.peakRss.toFixed(0)} | ${azurite.peakRss.toFixed(0)} | ${(partkv.peakRss / azurite.peakRss).toFixed(2)}x | | | | |`);
