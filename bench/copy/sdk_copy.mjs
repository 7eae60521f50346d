// A table copy written with @azure/data-tables 13.3.2, as a careful user writes one: the other half
// of bench/copy/run.sh, beside `partkv copy`.
//
//   node sdk_copy.mjs --from CONNECTION_STRING --to CONNECTION_STRING --table T [--as NAME]
//                     [--mode insert|upsert|merge] [--in-flight 16] [--page-size 1000]
//   node sdk_copy.mjs --from CONNECTION_STRING --table T --read-only
//
// Reading: one listEntities over the whole source table, page by page (the service's order,
// (PartitionKey, RowKey)), the next page requested while the current one is being submitted.
// disableTypeConversion keeps every value as the service sent it: with the SDK's conversion a
// DateTime becomes a JavaScript Date (milliseconds: the last four of seven fractional digits are
// lost) and a Double with an integral value (3.0) becomes the number 3, which the SDK then sends
// as an Int32. `etag` and `timestamp` are the source's system properties: dropped.
//
// Writing: the destination table is created (createTable ignores one that exists); the entities
// are grouped into transactions of at most 100 consecutive entities of one PartitionKey (a
// partition that spans two pages goes on in the same transaction), submitted with `--in-flight`
// transactions outstanding at once. A transaction is one action per entity: "create" (insert),
// "upsert" Replace (upsert) or "upsert" Merge (merge).
//
// --read-only lists the source and counts its entities, writing nothing: the reading half alone,
// a lower bound on the time of any copy that reads through the SDK.
//
// Prints one JSON document on stdout: rows_read, rows_written, transactions, seconds (wall, from
// the first request to the last reply), cpu_seconds (this process, user + system) and
// peak_rss_mib (VmHWM). A failure ends the run: one line on stderr, exit status 2.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { TableClient } from "@azure/data-tables";

const SDK_VERSION = "13.3.2";
const { values: args } = parseArgs({
  options: {
    from: { type: "string" },
    to: { type: "string" },
    table: { type: "string" },
    as: { type: "string" },
    mode: { type: "string", default: "insert" },
    "in-flight": { type: "string", default: "16" },
    "page-size": { type: "string", default: "1000" },
    "read-only": { type: "boolean", default: false },
  },
});
function die(what) {
  console.error(`sdk_copy: error: ${String(what).split("\n")[0]}`);
  process.exit(2);
}
if (!args.from || !args.table || (!args.to && !args["read-only"])) {
  console.error("usage: node sdk_copy.mjs --from CONN --to CONN --table T [--as NAME] " +
                "[--mode insert|upsert|merge] [--in-flight N] [--page-size N] | --from CONN --table T --read-only");
  process.exit(2);
}
const inFlightMax = Number(args["in-flight"]);
const pageSize = Number(args["page-size"]);
if (!Number.isSafeInteger(inFlightMax) || inFlightMax < 1) die("--in-flight must be a positive integer");
if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 1000) die("--page-size must be 1..1000");
const actionOf = {
  insert: (e) => ["create", e],
  upsert: (e) => ["upsert", e, "Replace"],
  merge: (e) => ["upsert", e, "Merge"],
}[args.mode];
if (!actionOf) die(`--mode must be insert, upsert or merge, not '${args.mode}'`);

const options = { allowInsecureConnection: true };
const source = TableClient.fromConnectionString(args.from, args.table, options);
const destination = args["read-only"]
  ? null
  : TableClient.fromConnectionString(args.to, args.as ?? args.table, options);

// An entity as listEntities gives it, made ready to send: the system properties dropped. With
// disableTypeConversion the SDK hands a Boolean back as { value: "true", type: "Boolean" } and
// sends it so, as "true" annotated Edm.Boolean; Azure's service and Azurite accept that, but
// partkv serve answers 400 InvalidInput, so the value goes back as a JavaScript boolean.
function toSend(entity) {
  const { etag, timestamp, ...rest } = entity;
  for (const [name, v] of Object.entries(rest)) {
    if (v !== null && typeof v === "object" && v.type === "Boolean") rest[name] = v.value === "true";
  }
  return rest;
}

let rowsRead = 0;
let rowsWritten = 0;
let transactions = 0;
let failure = null;
const inFlight = new Set();

function submit(actions) {
  const p = destination.submitTransaction(actions).then(
    (response) => {
      const ok = response.subResponses.filter((r) => r.status >= 200 && r.status < 300).length;
      if (ok !== actions.length) {
        throw new Error(`a transaction of ${actions.length} entities in partition ` +
                        `'${actions[0][1].partitionKey}' reported ${ok} written`);
      }
      rowsWritten += ok;
      transactions++;
    }).catch((e) => { failure ??= e; }).finally(() => inFlight.delete(p));
  inFlight.add(p);
}
// Waits until a transaction may start: fewer than --in-flight outstanding.
async function slot() {
  while (inFlight.size >= inFlightMax) await Promise.race(inFlight);
  if (failure) throw failure;
}

const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
try {
  if (destination) await destination.createTable();
  const pages = source.listEntities({ disableTypeConversion: true }).byPage({ maxPageSize: pageSize });
  let batch = [];
  // A page that fails while not yet awaited is reported where it is awaited, not as unhandled.
  const ahead = () => { const p = pages.next(); p.catch(() => {}); return p; };
  let pending = ahead();
  for (;;) {
    const { value: page, done } = await pending;
    if (done) break;
    pending = ahead();  // the next page is on its way while this one is submitted
    rowsRead += page.length;
    if (!destination) continue;
    for (const entity of page) {
      if (batch.length === 100 || (batch.length > 0 && batch[0][1].partitionKey !== entity.partitionKey)) {
        await slot();
        submit(batch);
        batch = [];
      }
      batch.push(actionOf(toSend(entity)));
    }
  }
  if (batch.length > 0) {
    await slot();
    submit(batch);
  }
  while (inFlight.size > 0) await Promise.race(inFlight);
  if (failure) throw failure;
} catch (e) {
  die(e?.message ?? e);
}
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const hwm = readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+) kB/);

console.log(JSON.stringify({
  client: `@azure/data-tables ${SDK_VERSION}`,
  node: process.version,
  read_only: args["read-only"],
  in_flight: inFlightMax,
  rows_read: rowsRead,
  rows_written: rowsWritten,
  transactions,
  seconds,
  cpu_seconds: (cpu.user + cpu.system) / 1e6,
  peak_rss_mib: hwm ? Number(hwm[1]) / 1024 : null,
}));
