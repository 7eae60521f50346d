// How much of a partition query's time is the client's own: lists a 10,000-entity partition
// through `partkv serve` with @azure/data-tables (pages of 1,000), three times, and prints each
// page's wall time, the listing's wall time and the CPU the client process used meanwhile
// (README, "partkv serve against Azurite"). Not part of CI.
//
//   npm ci && node client_cpu.mjs PATH/TO/partkv

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient, TableServiceClient } from "@azure/data-tables";

const KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const partkvBin = process.argv[2];
if (!partkvBin) {
  console.error("usage: node client_cpu.mjs PATH/TO/partkv");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "partkv-client-cpu-"));
const server = spawn(partkvBin, ["serve", "--store", join(dir, "store"), "--port", "0"],
                     { stdio: ["ignore", "pipe", "pipe"] });
const port = await new Promise((resolve, reject) => {
  let out = "";
  const onData = (d) => {
    out += d;
    const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
    if (m) resolve(m[1]);
  };
  server.stdout.on("data", onData);
  server.stderr.on("data", onData);
  server.on("exit", (code) => reject(new Error(`partkv serve exited with ${code}: ${out}`)));
});
try {
  const cs = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};` +
             `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`;
  const options = { allowInsecureConnection: true };
  await TableServiceClient.fromConnectionString(cs, options).createTable("bench");
  const client = TableClient.fromConnectionString(cs, "bench", options);
  for (let b = 0; b < 100; b++) {
    const actions = [];
    for (let i = 0; i < 100; i++) {
      actions.push(["create", { partitionKey: "big", rowKey: String(b * 100 + i).padStart(8, "0"),
                                name: `customer ${i}`, city: "Oslo", amount: i * 1.25, count: i, flag: "no" }]);
    }
    await client.submitTransaction(actions);
  }
  for (let run = 1; run <= 3; run++) {
    const cpu0 = process.cpuUsage();
    const start = process.hrtime.bigint();
    let last = start;
    const pages = [];
    let entities = 0;
    const listing = client.listEntities({ queryOptions: { filter: "PartitionKey eq 'big'" } });
    for await (const page of listing.byPage({ maxPageSize: 1000 })) {
      const now = process.hrtime.bigint();
      pages.push((Number(now - last) / 1e6).toFixed(1));
      last = now;
      entities += page.length;
    }
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    console.log(`run ${run}: ${entities} entities, pages (ms) ${pages.join(" ")}; wall ${wallMs.toFixed(0)} ms, ` +
                `client CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
  }
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.on("exit", r));
  rmSync(dir, { recursive: true, force: true });
}
