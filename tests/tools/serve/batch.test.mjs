// submitTransaction: atomic success with one sub-response per operation; failure names the
// failing operation's index and commits nothing; Azure's batch rules.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, serviceClient, tableClient, uniqueTable, failure } from "./harness.mjs";

let server;
let client;
before(async () => {
  server = await startServer();
  const table = uniqueTable("batch");
  await serviceClient(server).createTable(table);
  client = tableClient(server, table);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

async function partition(pk) {
  const out = [];
  for await (const e of client.listEntities({ queryOptions: { filter: `PartitionKey eq '${pk}'` } })) {
    out.push(e);
  }
  return out;
}

test("TransactionOfEveryOperationSucceeds", async () => {
  await client.createEntity({ partitionKey: "b1", rowKey: "upd", v: 1 });
  await client.createEntity({ partitionKey: "b1", rowKey: "mrg", v: 1, keep: true });
  await client.createEntity({ partitionKey: "b1", rowKey: "del" });
  const result = await client.submitTransaction([
    ["create", { partitionKey: "b1", rowKey: "new", v: 1 }],
    ["update", { partitionKey: "b1", rowKey: "upd", v: 2 }, "Replace"],
    ["update", { partitionKey: "b1", rowKey: "mrg", v: 2 }, "Merge"],
    ["upsert", { partitionKey: "b1", rowKey: "ups", v: 3 }, "Merge"],
    ["delete", { partitionKey: "b1", rowKey: "del" }],
  ]);
  assert.equal(result.status, 202);
  assert.deepEqual(result.subResponses.map((r) => r.status), [204, 204, 204, 204, 204]);
  assert.match(result.subResponses[0].etag, /^W\//);
  const rows = Object.fromEntries((await partition("b1")).map((e) => [e.rowKey, e]));
  assert.deepEqual(Object.keys(rows).sort(), ["mrg", "new", "upd", "ups"]);
  assert.equal(rows.upd.v, 2);
  assert.equal(rows.mrg.keep, true);
  assert.equal(rows.ups.v, 3);
});

test("FailedOperationIndexIsReportedAndNothingCommitted", async () => {
  await client.createEntity({ partitionKey: "b2", rowKey: "exists" });
  const f = await failure(() => client.submitTransaction([
    ["create", { partitionKey: "b2", rowKey: "a" }],
    ["create", { partitionKey: "b2", rowKey: "b" }],
    ["create", { partitionKey: "b2", rowKey: "exists" }],
    ["create", { partitionKey: "b2", rowKey: "c" }],
  ]));
  assert.equal(f.status, 409);
  assert.equal(f.code, "EntityAlreadyExists");
  assert.match(f.message, /^2:/);
  assert.deepEqual((await partition("b2")).map((e) => e.rowKey), ["exists"]);
});

test("StaleEtagInTransactionIs412AtItsIndex", async () => {
  const a = await client.createEntity({ partitionKey: "b3", rowKey: "x", v: 1 });
  await client.updateEntity({ partitionKey: "b3", rowKey: "x", v: 2 }, "Merge");
  const f = await failure(() => client.submitTransaction([
    ["create", { partitionKey: "b3", rowKey: "y" }],
    ["update", { partitionKey: "b3", rowKey: "x", v: 9 }, "Merge", { etag: a.etag }],
  ]));
  assert.equal(f.status, 412);
  assert.equal(f.code, "UpdateConditionNotSatisfied");
  assert.match(f.message, /^1:/);
  assert.deepEqual((await partition("b3")).map((e) => [e.rowKey, e.v]), [["x", 2]]);
});

test("DuplicateRowIs400InvalidDuplicateRow", async () => {
  const f = await failure(() => client.submitTransaction([
    ["create", { partitionKey: "b4", rowKey: "same" }],
    ["upsert", { partitionKey: "b4", rowKey: "same" }],
  ]));
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidDuplicateRow");
  assert.match(f.message, /^1:/);
  assert.equal((await partition("b4")).length, 0);
});

test("HundredAndOneOperationsAreRefused", async () => {
  const actions = [];
  for (let i = 0; i < 101; i++) actions.push(["create", { partitionKey: "b6", rowKey: String(i) }]);
  const f = await failure(() => client.submitTransaction(actions));
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidInput");
  assert.equal((await partition("b6")).length, 0);
});

test("SubResponseEtagsAreTheEntitiesEtags", async () => {
  await client.createEntity({ partitionKey: "b9", rowKey: "upd", v: 1 });
  const result = await client.submitTransaction([
    ["create", { partitionKey: "b9", rowKey: "new", v: 1 }],
    ["update", { partitionKey: "b9", rowKey: "upd", v: 2 }, "Merge"],
    ["upsert", { partitionKey: "b9", rowKey: "ups", v: 3 }, "Replace"],
  ]);
  assert.equal(result.status, 202);
  const rows = ["new", "upd", "ups"];
  for (let i = 0; i < rows.length; ++i) {
    assert.equal(result.subResponses[i].etag, (await client.getEntity("b9", rows[i])).etag, rows[i]);
  }
});

test("StaleAzureFormEtagInTransactionIs412", async () => {
  await client.createEntity({ partitionKey: "b10", rowKey: "x", v: 1 });
  const stale = "W/\"datetime'2021-04-06T21%3A03%3A31.9231271Z'\"";
  const f = await failure(() => client.submitTransaction([
    ["create", { partitionKey: "b10", rowKey: "y" }],
    ["update", { partitionKey: "b10", rowKey: "x", v: 2 }, "Replace", { etag: stale }],
  ]));
  assert.equal(f.status, 412);
  assert.equal(f.code, "UpdateConditionNotSatisfied");
  assert.deepEqual((await partition("b10")).map((e) => e.rowKey), ["x"]);
});
