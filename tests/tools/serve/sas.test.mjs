// SAS tokens made by the SDK's generateTableSas / generateAccountSas: honoured within their
// scope (permissions, table, key range, resource types, time) and refused outside it with 403,
// changing nothing.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TableClient, TableServiceClient, AzureSASCredential, generateTableSas,
         generateAccountSas } from "@azure/data-tables";
import { startServer, serviceClient, tableClient, uniqueTable, failure, keyCredential,
         clientOptions } from "./harness.mjs";

let server;
let table;
let owner;
before(async () => {
  server = await startServer();
  table = uniqueTable("sas");
  await serviceClient(server).createTable(table);
  owner = tableClient(server, table);
  for (const pk of ["a", "b", "c"]) {
    for (const rk of ["1", "2", "3"]) await owner.createEntity({ partitionKey: pk, rowKey: rk });
  }
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

function sasClient(name, token) {
  return new TableClient(server.endpoint, name, new AzureSASCredential(token), clientOptions);
}

async function keys(client) {
  const out = [];
  for await (const e of client.listEntities()) out.push(e.partitionKey + e.rowKey);
  return out;
}

const hour = () => new Date(Date.now() + 3600 * 1000);

test("ReadOnlyTableSasReadsButCannotWrite", async () => {
  const c = sasClient(table, generateTableSas(table, keyCredential(), { permissions: { query: true }, expiresOn: hour() }));
  assert.equal((await keys(c)).length, 9);
  assert.equal((await c.getEntity("a", "1")).rowKey, "1");
  const f = await failure(() => c.createEntity({ partitionKey: "a", rowKey: "new" }));
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthorizationPermissionMismatch");
  assert.equal((await failure(() => owner.getEntity("a", "new"))).status, 404);
  const d = await failure(() => c.deleteEntity("a", "1"));
  assert.equal(d.status, 403);
});

test("TableSasWritesWithAddUpdateDelete", async () => {
  const c = sasClient(table, generateTableSas(table, keyCredential(), {
    permissions: { query: true, add: true, update: true, delete: true }, expiresOn: hour() }));
  await c.createEntity({ partitionKey: "w", rowKey: "1", v: 1 });
  await c.updateEntity({ partitionKey: "w", rowKey: "1", v: 2 }, "Merge");
  await c.upsertEntity({ partitionKey: "w", rowKey: "2" }, "Replace");
  await c.submitTransaction([["create", { partitionKey: "w", rowKey: "3" }], ["delete", { partitionKey: "w", rowKey: "2" }]]);
  assert.equal((await owner.getEntity("w", "1")).v, 2);
  await c.deleteEntity("w", "1");
  await c.deleteEntity("w", "3");
});

test("TableSasKeyRangeIsEnforced", async () => {
  const c = sasClient(table, generateTableSas(table, keyCredential(), {
    permissions: { query: true, add: true }, expiresOn: hour(),
    startPartitionKey: "a", startRowKey: "2", endPartitionKey: "b", endRowKey: "2" }));
  assert.deepEqual(await keys(c), ["a2", "a3", "b1", "b2"]);
  await c.getEntity("b", "1");
  for (const [pk, rk] of [["a", "1"], ["b", "3"], ["c", "1"]]) {
    const f = await failure(() => c.getEntity(pk, rk));
    assert.equal(f.status, 403, pk + rk);
    assert.equal(f.code, "AuthorizationFailure");
  }
  const f = await failure(() => c.createEntity({ partitionKey: "c", rowKey: "9" }));
  assert.equal(f.status, 403);
  assert.equal((await failure(() => owner.getEntity("c", "9"))).status, 404);
});

test("TableSasForAnotherTableIsRefused", async () => {
  const other = uniqueTable("sasother");
  await serviceClient(server).createTable(other);
  const c = sasClient(table, generateTableSas(other, keyCredential(), { permissions: { query: true }, expiresOn: hour() }));
  const f = await failure(() => c.getEntity("a", "1"));
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthorizationFailure");
});

test("ExpiredAndNotYetValidSasAreRefused", async () => {
  const expired = generateTableSas(table, keyCredential(), { permissions: { query: true },
    expiresOn: new Date(Date.now() - 60000) });
  let f = await failure(() => sasClient(table, expired).getEntity("a", "1"));
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthenticationFailed");
  const future = generateTableSas(table, keyCredential(), { permissions: { query: true },
    startsOn: new Date(Date.now() + 3600 * 1000), expiresOn: new Date(Date.now() + 7200 * 1000) });
  f = await failure(() => sasClient(table, future).getEntity("a", "1"));
  assert.equal(f.status, 403);
});

test("TamperedSasIsRefused", async () => {
  const token = generateTableSas(table, keyCredential(), { permissions: { query: true }, expiresOn: hour() });
  const widened = token.replace(/sp=r/, "sp=raud");
  assert.notEqual(widened, token);
  const f = await failure(() => sasClient(table, widened).createEntity({ partitionKey: "t", rowKey: "1" }));
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthenticationFailed");
});

test("AccountSasHonoursResourceTypesAndPermissions", async () => {
  const objectsRead = generateAccountSas(keyCredential(), { expiresOn: hour(),
    permissions: { query: true, list: true }, resourceTypes: "o" });
  const c = sasClient(table, objectsRead);
  assert.equal((await c.getEntity("a", "1")).rowKey, "1");
  const svc = new TableServiceClient(server.endpoint, new AzureSASCredential(objectsRead), clientOptions);
  const f = await failure(async () => { for await (const _ of svc.listTables()); });
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthorizationResourceTypeMismatch");
  const w = await failure(() => c.createEntity({ partitionKey: "acct", rowKey: "1" }));
  assert.equal(w.status, 403);

  const all = generateAccountSas(keyCredential(), { expiresOn: hour(), resourceTypes: "sco",
    permissions: { query: true, write: true, delete: true, list: true, add: true, update: true } });
  const svcAll = new TableServiceClient(server.endpoint, new AzureSASCredential(all), clientOptions);
  const created = uniqueTable("acctsas");
  await svcAll.createTable(created);
  const names = [];
  for await (const t of svcAll.listTables()) names.push(t.name);
  assert.ok(names.includes(created));
  await sasClient(created, all).createEntity({ partitionKey: "p", rowKey: "r" });
  await svcAll.deleteTable(created);
});
