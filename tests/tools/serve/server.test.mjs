// The server process: a clean SIGTERM loses no acknowledged write; throttling answers 503
// ServerBusy with a retry hint.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { startServer, serviceClient, tableClient, uniqueTable, DEV_ACCOUNT, DEV_KEY } from "./harness.mjs";

test("SigtermDuringWritesLosesNothingAcknowledged", async () => {
  const first = await startServer();
  const table = uniqueTable("durable");
  await serviceClient(first).createTable(table);
  const client = tableClient(first, table);
  const acknowledged = [];
  let stopping = false;
  // 8 writers keep inserting until the server goes away; SIGTERM arrives mid-stream.
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; ; i++) {
      try {
        await client.createEntity({ partitionKey: `w${w}`, rowKey: String(i).padStart(6, "0") });
        acknowledged.push([`w${w}`, String(i).padStart(6, "0")]);
      } catch (err) {
        if (stopping) return;
        throw err;
      }
    }
  });
  while (acknowledged.length < 400) await new Promise((r) => setImmediate(r));
  stopping = true;
  const { code } = await first.stop({ keepStore: true });
  await Promise.all(writers);
  assert.equal(code, 0);

  const second = await startServer({ storeDir: first.store });
  try {
    const again = tableClient(second, table);
    for (const [pk, rk] of acknowledged) assert.equal((await again.getEntity(pk, rk)).rowKey, rk);
  } finally {
    assert.equal((await second.stop()).code, 0);
    first.removeStore();
  }
});

test("ThrottledPartitionAnswers503ServerBusy", async () => {
  const server = await startServer({ args: ["--throttling"] });
  try {
    const table = uniqueTable("hot");
    await serviceClient(server).createTable(table);
    // Azure's budget is about 2,000 entities/s per partition with one second of burst: batches
    // of 100 to one partition, 16 in flight, run over it. The bodies are made up front so that
    // the client is not what limits the rate.
    const bodies = [];
    for (let b = 0; b < 400; b++) {
      const rows = Array.from({ length: 100 }, (_, i) => ({ PartitionKey: "hot", RowKey: `${b}-${i}` }));
      bodies.push(batchBody(server, table, rows));
    }
    let throttled = null;
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (!throttled && next < bodies.length) {
        const r = await signedPost(server, "$batch", bodies[next++]);
        if (r.status === 503) throttled = r;
        else assert.equal(r.status, 202);
      }
    }));
    assert.ok(throttled, "a hot partition must be throttled");
    assert.equal(throttled.headers.get("x-ms-error-code"), "ServerBusy");
    assert.ok(Number(throttled.headers.get("x-ms-retry-after-ms")) > 0);
    assert.ok(Number(throttled.headers.get("retry-after")) >= 1);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

function batchBody(server, table, rows) {
  const batch = `batch_${randomUUID()}`, cs = `changeset_${randomUUID()}`;
  const parts = rows.map((row) =>
    `--${cs}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n` +
    `POST ${server.endpoint}/${table} HTTP/1.1\r\nContent-Type: application/json\r\n` +
    `Prefer: return-no-content\r\n\r\n${JSON.stringify(row)}\r\n`);
  return { contentType: `multipart/mixed; boundary=${batch}`,
           body: `--${batch}\r\nContent-Type: multipart/mixed; boundary=${cs}\r\n\r\n${parts.join("")}--${cs}--\r\n--${batch}--\r\n` };
}

async function signedPost(server, path, { body, contentType }) {
  const url = new URL(`${server.endpoint}/${path}`);
  const date = new Date().toUTCString();
  const sig = createHmac("sha256", Buffer.from(DEV_KEY, "base64"))
    .update(`${date}\n/${DEV_ACCOUNT}${url.pathname}`, "utf8").digest("base64");
  const res = await fetch(url, { method: "POST", body, headers: { "x-ms-date": date, "x-ms-version": "2019-02-02",
    "Content-Type": contentType, Authorization: `SharedKeyLite ${DEV_ACCOUNT}:${sig}` } });
  await res.text();
  return res;
}
