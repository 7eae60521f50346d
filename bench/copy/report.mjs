// The report of bench/copy/run.sh: reads the measurements run.sh made (one line per timed step:
// id, rows, wall microseconds, peak RSS KiB, CPU seconds, the step's stdout), prints on stdout a
// Markdown table of every step's rate, CPU (the step's process alone, not the servers') and peak
// RSS and one of the ratios against their targets, and writes copy_bench.csv (the steps, then
// the ratios) and copy_bench.json (the run's settings, machine, steps and ratios) into --out.
//
//   node report.mjs --measures FILE --out DIR --rows N --row-bytes B --partitions P
//                   --parallel N|default [--load TEXT] [--sdk-only]

import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    measures: { type: "string" },
    out: { type: "string" },
    rows: { type: "string" },
    "row-bytes": { type: "string" },
    partitions: { type: "string" },
    parallel: { type: "string", default: "default" },
    load: { type: "string", default: "" },
    "sdk-only": { type: "boolean", default: false },
  },
});
if (!args.measures || !args.out) {
  console.error("usage: node report.mjs --measures FILE --out DIR --rows N --row-bytes B ...");
  process.exit(2);
}

const STEPS = {
  import: "partkv import, file -> local",
  copy_local_local: "partkv copy, local -> local",
  sdk_list_s0: "SDK listEntities alone, served source (S0)",
  sdk_local_serve: "SDK copy, served source (S0) -> serve (S1)",
  copy_local_serve: "partkv copy, local -> serve (S1)",
  copy_serve_local: "partkv copy, serve (S1) -> local",
  sdk_list_s1: "SDK listEntities alone, serve (S1)",
  sdk_serve_serve: "SDK copy, serve (S1) -> serve (S2)",
};
const RATIOS = [
  { id: "copy_vs_import", name: "partkv copy local -> local / partkv import", of: "copy_local_local",
    to: "import", target: 0.8 },
  { id: "local_serve_vs_sdk", name: "local -> serve: partkv copy / SDK copy", of: "copy_local_serve",
    to: "sdk_local_serve", target: 3 },
  { id: "serve_local_vs_sdk", name: "serve -> local: partkv copy / SDK copy serve -> serve",
    of: "copy_serve_local", to: "sdk_serve_serve", target: 3 },
  { id: "local_serve_vs_sdk_list", name: "local -> serve: partkv copy / SDK listing alone",
    of: "copy_local_serve", to: "sdk_list_s0", target: null },
  { id: "serve_local_vs_sdk_list", name: "serve -> local: partkv copy / SDK listing alone",
    of: "copy_serve_local", to: "sdk_list_s1", target: null },
];

const steps = {};
for (const line of readFileSync(args.measures, "utf8").split("\n")) {
  if (!line) continue;
  const [id, rows, micros, rssKiB, cpuSeconds, outFile] = line.split("\t");
  let doc = {};
  try {
    doc = JSON.parse(readFileSync(outFile, "utf8"));
  } catch {
    // partkv import prints no document
  }
  const seconds = Number(micros) / 1e6;
  steps[id] = {
    id,
    description: STEPS[id] ?? id,
    rows: Number(rows),
    wall_seconds: seconds,
    rows_per_second: Number(rows) / seconds,
    peak_rss_mib: Number(rssKiB) / 1024,
    own_seconds: typeof doc.seconds === "number" ? doc.seconds : null,
    cpu_seconds: cpuSeconds ? Number(cpuSeconds) : null,
    transactions: doc.transactions ?? null,
  };
}
const ratios = RATIOS.map((r) => {
  const a = steps[r.of];
  const b = steps[r.to];
  const value = a && b ? a.rows_per_second / b.rows_per_second : null;
  return { id: r.id, name: r.name, value, target: r.target,
           met: value === null || r.target === null ? null : value >= r.target };
});

const n = (x, digits = 0) =>
  x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const cpu = os.cpus()[0]?.model ?? "unknown CPU";
const machine = { cores: os.availableParallelism(), cpu, memory_gib: os.totalmem() / 2 ** 30,
                  node: process.version, date: new Date().toISOString(), load: args.load };
const config = { rows: Number(args.rows), row_bytes: Number(args["row-bytes"]),
                 partitions: Number(args.partitions), parallel: args.parallel,
                 sdk: "@azure/data-tables 13.3.2", sdk_in_flight: 16, sdk_only: args["sdk-only"] };

console.log(`partkv copy vs partkv import and a copy written with ${config.sdk} (${config.sdk_in_flight} ` +
            `transactions in flight), partkv serve on loopback`);
console.log(`${n(config.rows)} rows of ${n(config.row_bytes)} bytes over ${n(config.partitions)} ` +
            `partitions; partkv copy --parallel ${config.parallel}; ${machine.cores} cores, ${cpu}, ` +
            `${n(machine.memory_gib, 1)} GiB; Node ${machine.node}; ${machine.date}` +
            (args.load ? `; load ${args.load}` : ""));
if (config.sdk_only) console.log("--sdk-only: partkv copy was not run");
console.log("");
console.log("| step | rows/s | wall s | CPU s | peak RSS |");
console.log("|---|---:|---:|---:|---:|");
for (const id of Object.keys(STEPS)) {
  const s = steps[id];
  if (!s) {
    console.log(`| ${STEPS[id]} | not run | | | |`);
    continue;
  }
  console.log(`| ${s.description} | ${n(s.rows_per_second)} | ${n(s.wall_seconds, 2)} | ` +
              `${s.cpu_seconds === null ? "" : n(s.cpu_seconds, 2)} | ${n(s.peak_rss_mib, 1)} MiB |`);
}
console.log("");
console.log("| ratio of rates | value | target |");
console.log("|---|---:|---|");
for (const r of ratios) {
  const value = r.value === null ? "not run" : `${n(r.value, 2)}×`;
  const target = r.target === null ? "none (the SDK only reads)" : `≥ ${r.target}× ${r.met === null ? "" : r.met ? "met" : "missed"}`;
  console.log(`| ${r.name} | ${value} | ${target.trim()} |`);
}
const ll = steps.copy_local_local;
console.log("");
console.log(ll ? `peak RSS of partkv copy local -> local: ${n(ll.peak_rss_mib, 1)} MiB`
               : "peak RSS of partkv copy local -> local: not run");

const quote = (s) => `"${String(s).replaceAll('"', '""')}"`;
// One line per step, then one per ratio, in the same columns.
const lines = ["kind,id,description,rows,wall_seconds,rows_per_second,peak_rss_mib,own_seconds,cpu_seconds,ratio,target"];
for (const s of Object.values(steps)) {
  lines.push(["step", s.id, quote(s.description), s.rows, s.wall_seconds.toFixed(3),
              s.rows_per_second.toFixed(1), s.peak_rss_mib.toFixed(1),
              s.own_seconds === null ? "" : s.own_seconds.toFixed(3),
              s.cpu_seconds === null ? "" : s.cpu_seconds.toFixed(3), "", ""].join(","));
}
for (const r of ratios) {
  lines.push(["ratio", r.id, quote(r.name), "", "", "", "", "", "", r.value === null ? "" : r.value.toFixed(3),
              r.target ?? ""].join(","));
}
writeFileSync(join(args.out, "copy_bench.csv"), lines.join("\n") + "\n");
writeFileSync(join(args.out, "copy_bench.json"),
              JSON.stringify({ config, machine, steps: Object.values(steps), ratios }, null, 2) + "\n");
