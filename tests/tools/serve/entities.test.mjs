// Every entity operation through TableClient, with Azure's status codes, ETags and error codes.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, serviceClient, tableClient, uniqueTable, failure,
         signedRequest } from "./harness.mjs";

let server;
let client;
let table;
before(async () => {
  server = await startServer();
  table = uniqueTable("ent");
  await serviceClient(server).createTable(table);
  client = tableClient(server, table);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

test("InsertThenGetReturnsEntityWithEtagAndTimestamp", async () => {
  const created = await client.createEntity({ partitionKey: "p", rowKey: "r1", name: "x", n: 7 });
  assert.match(created.etag, /^W\/".+"$/);
  const got = await client.getEntity("p", "r1");
  assert.equal(got.name, "x");
  assert.equal(got.n, 7);
  assert.equal(got.etag, created.etag);
  assert.ok(got.timestamp instanceof Date || typeof got.timestamp === "string");
});

test("InsertExistingIs409EntityAlreadyExists", async () => {
  await client.createEntity({ partitionKey: "p", rowKey: "dup" });
  const f = await failure(() => client.createEntity({ partitionKey: "p", rowKey: "dup" }));
  assert.equal(f.status, 409);
  assert.equal(f.code, "EntityAlreadyExists");
});

test("GetMissingIs404ResourceNotFound", async () => {
  const f = await failure(() => client.getEntity("p", "missing"));
  assert.equal(f.status, 404);
  assert.equal(f.code, "ResourceNotFound");
});

test("MissingTableIs404TableNotFound", async () => {
  const other = tableClient(server, "nosuchtable" + process.pid);
  const f = await failure(() => other.createEntity({ partitionKey: "p", rowKey: "r" }));
  assert.equal(f.status, 404);
  assert.equal(f.code, "TableNotFound");
});

test("ReplaceDropsAbsentPropertiesAndChangesEtag", async () => {
  const a = await client.createEntity({ partitionKey: "p", rowKey: "rep", keep: 1, drop: 2 });
  const b = await client.updateEntity({ partitionKey: "p", rowKey: "rep", keep: 3 }, "Replace", { etag: a.etag });
  assert.notEqual(b.etag, a.etag);
  const got = await client.getEntity("p", "rep");
  assert.equal(got.keep, 3);
  assert.equal(got.drop, undefined);
});

test("MergeKeepsOtherProperties", async () => {
  await client.createEntity({ partitionKey: "p", rowKey: "mrg", a: 1, b: 2 });
  await client.updateEntity({ partitionKey: "p", rowKey: "mrg", b: 20, c: 30 }, "Merge");
  const got = await client.getEntity("p", "mrg");
  assert.deepEqual([got.a, got.b, got.c], [1, 20, 30]);
});

test("StaleEtagIs412UpdateConditionNotSatisfiedAndChangesNothing", async () => {
  const a = await client.createEntity({ partitionKey: "p", rowKey: "cc", v: 1 });
  await client.updateEntity({ partitionKey: "p", rowKey: "cc", v: 2 }, "Merge", { etag: a.etag });
  for (const mode of ["Merge", "Replace"]) {
    const f = await failure(() =>
      client.updateEntity({ partitionKey: "p", rowKey: "cc", v: 3 }, mode, { etag: a.etag }));
    assert.equal(f.status, 412);
    assert.equal(f.code, "UpdateConditionNotSatisfied");
  }
  const f = await failure(() => client.deleteEntity("p", "cc", { etag: a.etag }));
  assert.equal(f.status, 412);
  assert.equal((await client.getEntity("p", "cc")).v, 2);
});

test("UpdateMissingIs404", async () => {
  const f = await failure(() =>
    client.updateEntity({ partitionKey: "p", rowKey: "nope", v: 1 }, "Replace", { etag: "*" }));
  assert.equal(f.status, 404);
  assert.equal(f.code, "ResourceNotFound");
});

test("UpsertsCreateAndUpdate", async () => {
  await client.upsertEntity({ partitionKey: "p", rowKey: "up", a: 1, b: 1 }, "Replace");
  await client.upsertEntity({ partitionKey: "p", rowKey: "up", b: 2 }, "Merge");
  let got = await client.getEntity("p", "up");
  assert.deepEqual([got.a, got.b], [1, 2]);
  await client.upsertEntity({ partitionKey: "p", rowKey: "up", c: 3 }, "Replace");
  got = await client.getEntity("p", "up");
  assert.deepEqual([got.a, got.b, got.c], [undefined, undefined, 3]);
  await client.upsertEntity({ partitionKey: "p", rowKey: "up2", z: 9 }, "Merge");
  assert.equal((await client.getEntity("p", "up2")).z, 9);
});

test("DeleteRemovesAndMissingDeleteIs404", async () => {
  await client.createEntity({ partitionKey: "p", rowKey: "del" });
  await client.deleteEntity("p", "del");
  assert.equal((await failure(() => client.getEntity("p", "del"))).status, 404);
  const f = await failure(() => client.deleteEntity("p", "del"));
  assert.equal(f.status, 404);
  assert.equal(f.code, "ResourceNotFound");
});

test("KeysWithSpacesQuotesPercentAndNonAsciiRoundTrip", async () => {
  const keys = ["a b", "O'Brien", "''", "100%", "%41", "Zürich ✓ 東京", "a+b&c=d", "(x),y"];
  for (const [i, k] of keys.entries()) {
    await client.createEntity({ partitionKey: k, rowKey: k + i, i });
    const got = await client.getEntity(k, k + i);
    assert.equal(got.partitionKey, k);
    assert.equal(got.rowKey, k + i);
    assert.equal(got.i, i);
    await client.updateEntity({ partitionKey: k, rowKey: k + i, j: i }, "Merge");
    await client.deleteEntity(k, k + i);
  }
});

test("ForbiddenKeyCharacterIs400InvalidInput", async () => {
  const f = await failure(() => client.createEntity({ partitionKey: "p", rowKey: "a#b" }));
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidInput");
});

test("OversizedPropertyIs400PropertyValueTooLarge", async () => {
  const f = await failure(() =>
    client.createEntity({ partitionKey: "p", rowKey: "big", s: "x".repeat(40000) }));
  assert.equal(f.status, 400);
  assert.equal(f.code, "PropertyValueTooLarge");
});

// Azure's entity ETag: the Timestamp, its colons percent-encoded, with 7 fractional digits.
const AZURE_ETAG = /^W\/"datetime'\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d\.\d{7}Z'"$/;

test("EtagReachesTheClientUnchangedInHeaderBodyAndQueries", async () => {
  const created = await client.createEntity({ partitionKey: "etag", rowKey: "1", v: 1 });
  const path = `${table}(PartitionKey='etag',RowKey='1')`;
  for (const accept of ["application/json;odata=minimalmetadata", "application/json;odata=fullmetadata"]) {
    const r = await signedRequest(server, "GET", path, { headers: { Accept: accept } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("etag"), created.etag, accept);
    assert.equal(JSON.parse(r.text)["odata.etag"], created.etag, accept);
  }
  for await (const e of client.listEntities({ queryOptions: { filter: "PartitionKey eq 'etag'" } })) {
    assert.equal(e.etag, created.etag);
  }
  const updated = await client.updateEntity({ partitionKey: "etag", rowKey: "1", v: 2 }, "Merge",
                                            { etag: created.etag });
  assert.notEqual(updated.etag, created.etag);
  assert.equal((await client.getEntity("etag", "1")).etag, updated.etag);
});

test("IfMatchInAzuresDatetimeFormIsComparedNotRefused", async () => {
  // An entity tag with quotes, apostrophes and %3A inside is well-formed: a stale one is 412
  // UpdateConditionNotSatisfied, never 400.
  await client.createEntity({ partitionKey: "etag", rowKey: "stale", v: 1 });
  const stale = "W/\"datetime'2021-04-06T21%3A03%3A31.9231271Z'\"";
  const f = await failure(() =>
    client.updateEntity({ partitionKey: "etag", rowKey: "stale", v: 2 }, "Replace", { etag: stale }));
  assert.equal(f.status, 412);
  assert.equal(f.code, "UpdateConditionNotSatisfied");
  const r = await signedRequest(server, "DELETE", `${table}(PartitionKey='etag',RowKey='stale')`,
                                { headers: { "If-Match": stale } });
  assert.equal(r.status, 412);
  assert.equal((await client.getEntity("etag", "stale")).v, 1);
});

test("EntityEtagIsAzuresDatetimeOfItsTimestamp", async () => {
  const created = await client.createEntity({ partitionKey: "etag", rowKey: "form" });
  assert.match(created.etag, AZURE_ETAG);
  const r = await signedRequest(server, "GET", `${table}(PartitionKey='etag',RowKey='form')`,
                                { headers: { Accept: "application/json;odata=fullmetadata" } });
  const body = JSON.parse(r.text);
  assert.equal(body["odata.etag"], `W/"datetime'${body.Timestamp.replaceAll(":", "%3A")}'"`);
});
