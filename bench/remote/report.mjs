// The report of bench/remote/run.sh: reads the JSON documents partkv-remote-bench and
// sdk_bench.mjs printed, round by round, and prints one Markdown table on stdout and writes the
// same figures as CSV.
//
//   node report.mjs --csv FILE [--load "before / after"] partkv-1.json sdk-1.json [partkv-2.json ...]
//
// Per phase: each client's rate (operations per second of wall time) and CPU per operation (the
// client process's own, every thread), the median over the rounds; the ratios partkv / SDK are
// the medians of each round's ratio (a round runs both clients back to back, so a noisy moment
// of the machine falls on one ratio, not on every figure of one client). Targets: rate >= 1x,
// CPU per operation <= 0.5x. partkv's peak RSS during each phase is the largest over the rounds;
// its query10k / query100k peaks tell whether paging holds a page or the whole result.

import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values: args, positionals: files } = parseArgs({
  options: { csv: { type: "string" }, load: { type: "string", default: "" } },
  allowPositionals: true,
});
if (!args.csv || files.length === 0) {
  console.error("usage: node report.mjs --csv FILE [--load TEXT] RESULT.json...");
  process.exit(2);
}

const RATE_TARGET = 1.0;
const CPU_TARGET = 0.5;

const docs = files.map((f) => JSON.parse(readFileSync(f, "utf8")));
const partkvRuns = docs.filter((d) => d.client === "partkv");
const sdkRuns = docs.filter((d) => d.client !== "partkv");
if (partkvRuns.length === 0 || partkvRuns.length !== sdkRuns.length) {
  console.error(`report: ${partkvRuns.length} partkv and ${sdkRuns.length} SDK results; need a pair per round`);
  process.exit(2);
}

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}
const rate = (p) => p.ops / p.seconds;
const cpuPerOp = (p) => p.cpu_seconds / p.ops;

const rows = partkvRuns[0].phases.map((first, index) => {
  const ours = partkvRuns.map((d) => d.phases[index]);
  const theirs = sdkRuns.map((d) => d.phases[index]);
  for (const p of [...ours, ...theirs]) {
    if (p.id !== first.id || p.ops !== first.ops) {
      console.error(`report: phase ${index} is ${p.id} (${p.ops} ops) in one result, ${first.id} (${first.ops}) in another`);
      process.exit(2);
    }
  }
  return {
    id: first.id,
    name: first.name,
    ops: first.ops,
    sdkName: theirs[0].name,
    partkvRate: median(ours.map(rate)),
    sdkRate: median(theirs.map(rate)),
    rateRatio: median(ours.map((p, r) => rate(p) / rate(theirs[r]))),
    partkvCpuUs: median(ours.map(cpuPerOp)) * 1e6,
    sdkCpuUs: median(theirs.map(cpuPerOp)) * 1e6,
    cpuRatio: median(ours.map((p, r) => cpuPerOp(p) / cpuPerOp(theirs[r]))),
    partkvRss: Math.max(...ours.map((p) => p.peak_rss_mib)),
    partkvReceived: median(ours.map((p) => p.entities_received ?? 0)),
    sdkReceived: median(theirs.map((p) => p.entities_received ?? 0)),
    sdkRss: Math.max(...theirs.map((p) => p.peak_rss_mib)),
  };
});

const c = partkvRuns[0].config;
const n = (x, digits = 0) => x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const verdict = (ok) => (ok ? "met" : "missed");
console.log(`partkv remote client vs ${sdkRuns[0].client} (Node ${sdkRuns[0].config.node}), one partkv serve on loopback`);
console.log(`machine: ${c.cores} cores, ${c.cpu}, ${c.memory}; partkv ${c["build type"]}, g++ ${c.compiler}; ` +
            `${c.date}; ${partkvRuns.length} round(s), scale ${c.scale}` + (args.load ? `; load ${args.load}` : ""));
if (!c.rss_reset) console.log("note: /proc/self/clear_refs was refused: each peak RSS is the process's so far");
console.log("");
console.log("| phase (operations) | partkv ops/s | SDK ops/s | rate partkv/SDK (≥ 1×) | partkv CPU µs/op | SDK CPU µs/op | CPU/op partkv/SDK (≤ 0.5×) | partkv peak RSS | SDK peak RSS |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.id}: ${r.name.replace(" (entities)", "")} (${n(r.ops)}${r.name.includes("(entities)") ? " entities" : ""}) | ` +
              `${n(r.partkvRate)} | ${n(r.sdkRate)} | ${n(r.rateRatio, 2)}× ${verdict(r.rateRatio >= RATE_TARGET)} | ` +
              `${n(r.partkvCpuUs, 1)} | ${n(r.sdkCpuUs, 1)} | ${n(r.cpuRatio, 2)}× ${verdict(r.cpuRatio <= CPU_TARGET)} | ` +
              `${n(r.partkvRss, 1)} MiB | ${n(r.sdkRss, 1)} MiB |`);
}
const q10 = rows.find((r) => r.id === "query10k");
const q100 = rows.find((r) => r.id === "query100k");
if (q10 && q100) {
  console.log("");
  console.log(`partkv peak RSS paging ${n(q10.ops)} vs ${n(q100.ops)} entities: ${n(q10.partkvRss, 1)} vs ` +
              `${n(q100.partkvRss, 1)} MiB (${n(q100.partkvRss / q10.partkvRss, 2)}×; the SDK's ` +
              `${n(q10.sdkRss, 1)} vs ${n(q100.sdkRss, 1)} MiB)`);
}

// Queries that fetched more rows than they returned (a sharded read asks each shard for more
// than its share of a page).
for (const r of rows) {
  if (r.name.includes("(entities)") && (r.partkvReceived > r.ops * 1.05 || r.sdkReceived > r.ops * 1.05)) {
    console.log(`${r.id}: entities the service sent for ${n(r.ops)} returned: partkv ${n(r.partkvReceived)}, ` +
                `SDK ${n(r.sdkReceived)}`);
  }
}

const header = ["phase", "name", "sdk_name", "operations", "rounds", "partkv_ops_per_s", "sdk_ops_per_s",
                "rate_ratio", "partkv_cpu_us_per_op", "sdk_cpu_us_per_op", "cpu_ratio",
                "partkv_peak_rss_mib", "sdk_peak_rss_mib", "partkv_entities_received",
                "sdk_entities_received"];
const quote = (s) => `"${String(s).replaceAll('"', '""')}"`;
const lines = [header.join(",")];
for (const r of rows) {
  lines.push([r.id, quote(r.name), quote(r.sdkName), r.ops, partkvRuns.length, r.partkvRate.toFixed(1),
              r.sdkRate.toFixed(1), r.rateRatio.toFixed(3), r.partkvCpuUs.toFixed(2), r.sdkCpuUs.toFixed(2),
              r.cpuRatio.toFixed(3), r.partkvRss.toFixed(1), r.sdkRss.toFixed(1), r.partkvReceived,
              r.sdkReceived].join(","));
}
writeFileSync(args.csv, lines.join("\n") + "\n");
