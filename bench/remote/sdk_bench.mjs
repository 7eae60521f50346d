// The workload of bench/remote/workload.h through @azure/data-tables 13.3.2: the other half of
// bench/remote/run.sh, beside partkv-remote-bench. Every count, key and entity is the one
// workload.h describes; the concurrency is the C++ program's (16 promises where it runs 16
// threads; the sharded read 8 shards at a time, partkv's default fan_out).
//
//   node sdk_bench.mjs --endpoint CONNECTION_STRING [--prefix sdk1] [--scale 1]
//
// Prints one JSON document on stdout in partkv-remote-bench's shape: per phase its operations,
// wall seconds, this process's CPU seconds (process.cpuUsage(): every thread, user + system) and
// its peak RSS during the phase (VmHWM after a reset through /proc/self/clear_refs, as
// phase_meter.h does), and the entities the service sent it. A failed call ends the run: one line on stderr, exit status 2.

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { TableClient, TableServiceClient } from "@azure/data-tables";

const SDK_VERSION = "13.3.2";
const { values: args } = parseArgs({
  options: {
    endpoint: { type: "string" },
    prefix: { type: "string", default: "sdk" },
    scale: { type: "string", default: "1" },
  },
});
if (!args.endpoint) {
  console.error("usage: node sdk_bench.mjs --endpoint CONNECTION_STRING [--prefix P] [--scale S]");
  process.exit(2);
}
const scale = Number(args.scale);
const scaled = (count) => Math.max(100, Math.round((count * scale) / 100) * 100);
const w = {
  inserts: scaled(10000),
  reads: scaled(10000),
  smallPartition: scaled(10000),
  largePartition: scaled(100000),
  sharded: scaled(10000),
  shards: 200,
  inFlight: 16,
  fanOut: 8,
  pageSize: 1000,
};
const SHARD_BASE = "2026-12-03";
const WARM_SHARD_BASE = "warm";  // the untimed warm-up's sharded key
const WARM_UP_CALLS = 1000;
const CITIES = ["Oslo", "Lima", "Pune", "Kobe"];

const rowKeyOf = (i) => String(i).padStart(8, "0");
const insertPartitionOf = (i) => `ins${i % 64}`;
const payload = (i) => ({ name: `customer ${i}`, city: CITIES[i % 4], amount: i + 0.5, count: i,
                          flag: i % 1000 === 7 ? "yes" : "no" });
// hash-suffix(base,id,N,hash=md5): the first 8 bytes of MD5(id) big-endian, mod N, plus 1.
const shardOf = (id) =>
  Number(createHash("md5").update(id).digest().readBigUInt64BE(0) % BigInt(w.shards)) + 1;

// --- measuring (phase_meter.h) ---------------------------------------------------------------
let rssReset = true;
function resetPeak() {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    rssReset = false;
  }
}
function peakRssMiB() {
  const m = readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) / 1024 : 0;
}
// Entities the service sent, as partkv-remote-bench reads from Table::Statistics.
let received = 0;
const phases = [];
async function phase(id, name, ops, fn) {
  if (process.stderr.isTTY) console.error(`  sdk: ${id}`);
  resetPeak();
  const received0 = received;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  phases.push({ id, name, ops, seconds, cpu_seconds: (cpu.user + cpu.system) / 1e6,
                peak_rss_mib: peakRssMiB(), entities_received: received - received0 });
}

// fn(i) for i in 0..count-1, `width` calls in flight.
async function inParallel(count, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await fn(next++);
  }));
}

function die(what) {
  console.error(`sdk_bench: error: ${what}`);
  process.exit(2);
}

// --- the phases ------------------------------------------------------------------------------
const options = { allowInsecureConnection: true };
const service = TableServiceClient.fromConnectionString(args.endpoint, options);
async function create(name) {
  await service.createTable(name, { onResponse: (r) => {
    if (r.status !== 201 && r.status !== 204) die(`create table ${name}: ${r.status}`);
  } });
  return TableClient.fromConnectionString(args.endpoint, name, options);
}

async function writePartition(client, pk, count) {
  for (let first = 0; first < count; first += 100) {
    const actions = [];
    for (let i = first; i < Math.min(count, first + 100); i++) {
      actions.push(["create", { partitionKey: pk, rowKey: rowKeyOf(i), ...payload(i) }]);
    }
    await client.submitTransaction(actions);
  }
}

async function pagePartition(client, pk, expected) {
  let seen = 0;
  const pages = client.listEntities({ queryOptions: { filter: `PartitionKey eq '${pk}'` } })
    .byPage({ maxPageSize: w.pageSize });
  for await (const page of pages) seen += page.length;
  received += seen;
  if (seen !== expected) die(`query ${pk} returned ${seen}, not ${expected}`);
}

// Untimed: the sharded key, one batch per shard (split at 100).
async function writeSharded(client, base, count) {
  const byShard = new Map();
  for (let i = 0; i < count; i++) {
    const id = rowKeyOf(i);
    const pk = `${base}.${shardOf(id)}`;
    if (!byShard.has(pk)) byShard.set(pk, []);
    byShard.get(pk).push({ partitionKey: pk, rowKey: id, ...payload(i), base, id });
  }
  for (const entities of byShard.values()) {
    for (let first = 0; first < entities.length; first += 100) {
      await client.submitTransaction(entities.slice(first, first + 100).map((e) => ["create", e]));
    }
  }
}

const shardKeys = (base) => Array.from({ length: w.shards }, (_, i) => `${base}.${i + 1}`);
const byRowKey = (a, b) =>
  a.rowKey < b.rowKey ? -1 : a.rowKey > b.rowKey ? 1 : a.partitionKey < b.partitionKey ? -1 :
  a.partitionKey > b.partitionKey ? 1 : 0;

function checkMerged(rows, count, what) {
  if (rows !== count) die(`${what} returned ${rows}, not ${count}`);
}

// The whole logical key: every shard read to its end, fanOut shards at a time, then one sort by
// (RowKey, PartitionKey) and the result cut into pages.
async function readShardsWhole(client, base, count) {
  const keys = shardKeys(base);
  const perShard = new Array(keys.length);
  await inParallel(keys.length, w.fanOut, async (s) => {
    const rows = [];
    const pages = client.listEntities({ queryOptions: { filter: `PartitionKey eq '${keys[s]}'` } })
      .byPage({ maxPageSize: w.pageSize });
    for await (const page of pages) for (const e of page) rows.push(e);
    received += rows.length;
    perShard[s] = rows;
  });
  const all = perShard.flat().sort(byRowKey);
  let seen = 0;
  for (let first = 0; first < all.length; first += w.pageSize) {
    seen += all.slice(first, first + w.pageSize).length;
  }
  checkMerged(seen, count, "the whole-key read");
}

// Page by page: a cursor per shard, kept between pages; each asks for a little more than its
// share of a page first and four times as many each time it runs dry (as QueryShards does); a
// heap of the cursors' heads yields the pages in (RowKey, PartitionKey) order.
async function readShardsPaged(client, base, count) {
  const share = Math.min(w.pageSize, Math.max(16, 2 * Math.ceil(w.pageSize / w.shards)));
  const cursors = shardKeys(base).map((pk) => ({ pk, rows: [], head: 0, token: undefined,
                                             more: true, fetch: share }));
  async function fill(c) {
    while (c.more && c.head >= c.rows.length) {
      const pages = client.listEntities({ queryOptions: { filter: `PartitionKey eq '${c.pk}'` } })
        .byPage({ maxPageSize: c.fetch, continuationToken: c.token });
      const { value: page, done } = await pages.next();
      c.rows = done ? [] : page;
      received += c.rows.length;
      c.head = 0;
      c.token = done ? undefined : page.continuationToken;
      c.more = c.token !== undefined;
      c.fetch = Math.min(c.fetch * 4, w.pageSize);
    }
  }
  await inParallel(cursors.length, w.fanOut, (s) => fill(cursors[s]));
  const heap = [];
  const less = (a, b) => byRowKey(a.rows[a.head], b.rows[b.head]) < 0;
  const push = (c) => {
    heap.push(c);
    for (let i = heap.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!less(heap[i], heap[p])) break;
      [heap[i], heap[p]] = [heap[p], heap[i]];
      i = p;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < heap.length && less(heap[l], heap[m])) m = l;
        if (r < heap.length && less(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
    return top;
  };
  for (const c of cursors) if (c.head < c.rows.length) push(c);
  let seen = 0;
  let last = "";
  while (heap.length > 0) {
    const page = [];
    while (page.length < w.pageSize && heap.length > 0) {
      const c = pop();
      page.push(c.rows[c.head++]);
      await fill(c);
      if (c.head < c.rows.length) push(c);
    }
    for (const e of page) {
      if (e.rowKey <= last) die(`the paged read returned RowKey ${e.rowKey} after ${last}`);
      last = e.rowKey;
    }
    seen += page.length;
  }
  checkMerged(seen, count, "the paged read");
}

try {
  const table = await create(`${args.prefix}bench`);
  // Untimed, as the C++ program's: the JIT compiles the SDK's paths of every phase here.
  await inParallel(WARM_UP_CALLS, w.inFlight, (i) =>
    table.createEntity({ partitionKey: "warm", rowKey: rowKeyOf(i), ...payload(i) }));
  await writePartition(table, "warmb", WARM_UP_CALLS);
  await inParallel(WARM_UP_CALLS, w.inFlight, (i) => table.getEntity("warm", rowKeyOf(i)));
  await pagePartition(table, "warmb", WARM_UP_CALLS);
  await phase("insert16", "single inserts, 16 in flight", w.inserts, () =>
    inParallel(w.inserts, w.inFlight, (i) =>
      table.createEntity({ partitionKey: insertPartitionOf(i), rowKey: rowKeyOf(i), ...payload(i) })));
  await phase("batch100", "batches of 100 (entities)", w.smallPartition + w.largePartition, async () => {
    await writePartition(table, "p10k", w.smallPartition);
    await writePartition(table, "p100k", w.largePartition);
  });
  // The C++ program's scattered order (bench_common.h Permutation).
  let stride = Math.floor(w.inserts * 0.6180339887) | 1;
  const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));
  while (gcd(stride, w.inserts) !== 1) stride += 2;
  await phase("get16", "point reads, 16 in flight", w.reads, () =>
    inParallel(w.reads, w.inFlight, (i) => {
      const n = Number((BigInt(i % w.inserts) * BigInt(stride)) % BigInt(w.inserts));
      received++;
      return table.getEntity(insertPartitionOf(n), rowKeyOf(n));
    }));
  await phase("query10k", "paged query, pages of 1000 (entities)", w.smallPartition, () =>
    pagePartition(table, "p10k", w.smallPartition));
  await phase("query100k", "paged query, pages of 1000 (entities)", w.largePartition, () =>
    pagePartition(table, "p100k", w.largePartition));
  const sharded = await create(`${args.prefix}shards`);
  await writeSharded(sharded, SHARD_BASE, w.sharded);
  // Untimed, as the warm-up above: each sharded path once, on a key of its own as large.
  await writeSharded(sharded, WARM_SHARD_BASE, w.sharded);
  await readShardsWhole(sharded, WARM_SHARD_BASE, w.sharded);
  await readShardsPaged(sharded, WARM_SHARD_BASE, w.sharded);
  await phase("shards_full", "200 shard queries, 8 at once, sorted by RowKey (entities)", w.sharded,
              () => readShardsWhole(sharded, SHARD_BASE, w.sharded));
  await phase("shards_paged", "200 shard cursors, 8 at once, merged page by page (entities)",
              w.sharded, () => readShardsPaged(sharded, SHARD_BASE, w.sharded));
} catch (e) {
  die(e?.message ?? String(e));
}

console.log(JSON.stringify({
  client: `@azure/data-tables ${SDK_VERSION}`,
  config: { node: process.version, fan_out: w.fanOut, in_flight: w.inFlight, scale,
            rss_reset: rssReset },
  phases,
}, null, 2));
