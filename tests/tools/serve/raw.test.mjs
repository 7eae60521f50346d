// The wire itself, below the SDK: SharedKey and SharedKeyLite signatures, refusal of unsigned,
// wrongly signed and stale requests (which change nothing), Azure's error body, Prefer, the
// X-HTTP-Method tunnel, the body limit, and $batch rules the SDK never lets a client break.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { TableClient, AzureNamedKeyCredential } from "@azure/data-tables";
import { startServer, serviceClient, tableClient, uniqueTable, failure, DEV_ACCOUNT, DEV_KEY,
         clientOptions } from "./harness.mjs";

let server;
let table;
let client;
before(async () => {
  server = await startServer();
  table = uniqueTable("raw");
  await serviceClient(server).createTable(table);
  client = tableClient(server, table);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

// Sends a request signed with `scheme` ("SharedKey", "SharedKeyLite" or null for unsigned).
async function send(method, path, { body, headers = {}, scheme = "SharedKeyLite", key = DEV_KEY,
                                    date = new Date().toUTCString() } = {}) {
  const url = new URL(`http://127.0.0.1:${server.port}/${DEV_ACCOUNT}/${path}`);
  const h = { "x-ms-date": date, "x-ms-version": "2019-02-02", Accept: "application/json;odata=minimalmetadata",
              DataServiceVersion: "3.0", ...headers };
  if (body !== undefined && !h["Content-Type"]) h["Content-Type"] = "application/json";
  if (scheme) {
    const resource = `/${DEV_ACCOUNT}${url.pathname}`;
    const toSign = scheme === "SharedKeyLite"
      ? `${date}\n${resource}`
      : `${method}\n\n${h["Content-Type"] ?? ""}\n${date}\n${resource}`;
    const sig = createHmac("sha256", Buffer.from(key, "base64")).update(toSign, "utf8").digest("base64");
    h.Authorization = `${scheme} ${DEV_ACCOUNT}:${sig}`;
  }
  const res = await fetch(url, { method, headers: h, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text.startsWith("{") ? JSON.parse(text) : null };
}

async function exists(pk, rk) {
  try {
    await client.getEntity(pk, rk);
    return true;
  } catch (err) {
    if (err.statusCode === 404) return false;
    throw err;
  }
}

test("SharedKeyAndSharedKeyLiteAreAccepted", async () => {
  for (const scheme of ["SharedKey", "SharedKeyLite"]) {
    const r = await send("POST", table, { scheme, body: JSON.stringify({ PartitionKey: "sk", RowKey: scheme }) });
    assert.equal(r.status, 201, r.text);
    assert.ok(await exists("sk", scheme));
  }
});

test("UnsignedWrongAndStaleRequestsAre403AndChangeNothing", async () => {
  const cases = [
    ["unsigned", { scheme: null }],
    ["wrong key", { key: Buffer.alloc(64, 7).toString("base64") }],
    ["stale date", { date: new Date(Date.now() - 20 * 60 * 1000).toUTCString() }],
  ];
  for (const [name, options] of cases) {
    const rk = name.replace(" ", "");
    const r = await send("POST", table, { ...options, body: JSON.stringify({ PartitionKey: "deny", RowKey: rk }) });
    assert.equal(r.status, 403, name);
    assert.equal(r.headers.get("x-ms-error-code"), "AuthenticationFailed", name);
    assert.equal(r.json["odata.error"].code, "AuthenticationFailed", name);
    assert.ok(!(await exists("deny", rk)), `${name} must not write`);
  }
});

test("WronglyKeyedSdkClientIsRefused", async () => {
  const wrong = new TableClient(`http://127.0.0.1:${server.port}/${DEV_ACCOUNT}`, table,
    new AzureNamedKeyCredential(DEV_ACCOUNT, Buffer.alloc(64, 1).toString("base64")), clientOptions);
  const f = await failure(() => wrong.createEntity({ partitionKey: "deny", rowKey: "sdk" }));
  assert.equal(f.status, 403);
  assert.equal(f.code, "AuthenticationFailed");
  assert.ok(!(await exists("deny", "sdk")));
});

test("ErrorBodyHasAzureShape", async () => {
  const r = await send("GET", `${table}(PartitionKey='none',RowKey='none')`);
  assert.equal(r.status, 404);
  const err = r.json["odata.error"];
  assert.equal(err.code, "ResourceNotFound");
  assert.equal(err.message.lang, "en-US");
  assert.match(err.message.value, /^The specified resource does not exist\.\n[\s\S]*RequestId:[0-9a-f-]{36}\nTime:\d{4}-\d\d-\d\dT[\d:.]{16}Z$/);
  assert.equal(r.headers.get("x-ms-request-id"), err.message.value.match(/RequestId:(\S+)/)[1]);
});

test("InsertPreferDecides201Or204", async () => {
  const a = await send("POST", table, { body: JSON.stringify({ PartitionKey: "pref", RowKey: "a", n: 1 }) });
  assert.equal(a.status, 201);
  assert.equal(a.json.n, 1);
  assert.equal(a.json["odata.etag"], a.headers.get("etag"));
  const b = await send("POST", table, { headers: { Prefer: "return-no-content" },
                                        body: JSON.stringify({ PartitionKey: "pref", RowKey: "b" }) });
  assert.equal(b.status, 204);
  assert.equal(b.headers.get("preference-applied"), "return-no-content");
  assert.match(b.headers.get("location"), /\(PartitionKey='pref',RowKey='b'\)$/);
});

test("TimestampHasSevenDigitsAndIsAnnotatedOnlyUnderFullMetadata", async () => {
  // As Azure: DateTime properties without trailing zeros, Timestamp always with 7 digits, and a
  // Timestamp annotation only under full metadata.
  await send("POST", table, { body: JSON.stringify({ PartitionKey: "ts", RowKey: "1",
    When: "2020-09-17T00:00:00.9999900Z", "When@odata.type": "Edm.DateTime" }) });
  for (const [level, annotated] of [["minimalmetadata", false], ["fullmetadata", true]]) {
    const r = await send("GET", `${table}(PartitionKey='ts',RowKey='1')`,
                         { headers: { Accept: `application/json;odata=${level}` } });
    assert.equal(r.status, 200);
    assert.match(r.json.Timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/);
    assert.equal("Timestamp@odata.type" in r.json, annotated, level);
    assert.equal(r.json.When, "2020-09-17T00:00:00.99999Z");
    assert.equal(r.json["When@odata.type"], "Edm.DateTime");
  }
});

test("PostWithXHttpMethodMergeMerges", async () => {
  await client.createEntity({ partitionKey: "tunnel", rowKey: "1", a: 1 });
  const r = await send("POST", `${table}(PartitionKey='tunnel',RowKey='1')`,
    { headers: { "X-HTTP-Method": "MERGE", "If-Match": "*" }, body: JSON.stringify({ b: 2 }) });
  assert.equal(r.status, 204, r.text);
  const got = await client.getEntity("tunnel", "1");
  assert.deepEqual([got.a, got.b], [1, 2]);
});

test("DeleteWithoutIfMatchIs400", async () => {
  await client.createEntity({ partitionKey: "noim", rowKey: "1" });
  const r = await send("DELETE", `${table}(PartitionKey='noim',RowKey='1')`);
  assert.equal(r.status, 400);
  assert.ok(await exists("noim", "1"));
});

test("BodyOverFourMiBIs413RequestBodyTooLarge", async () => {
  const r = await send("POST", table, { body: JSON.stringify({ PartitionKey: "big", RowKey: "1", s: "x".repeat(4 << 20) }) });
  assert.equal(r.status, 413);
  assert.equal(r.json["odata.error"].code, "RequestBodyTooLarge");
  assert.ok(!(await exists("big", "1")));
});

function batchBody(ops) {
  const batch = `batch_${randomUUID()}`, cs = `changeset_${randomUUID()}`;
  const parts = ops.map(([method, path, entity]) =>
    `--${cs}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n` +
    `${method} http://127.0.0.1:${server.port}/${DEV_ACCOUNT}/${path} HTTP/1.1\r\n` +
    `Content-Type: application/json\r\nAccept: application/json;odata=minimalmetadata\r\n` +
    `Prefer: return-no-content\r\n\r\n${entity ? JSON.stringify(entity) : ""}\r\n`);
  const body = `--${batch}\r\nContent-Type: multipart/mixed; boundary=${cs}\r\n\r\n` + parts.join("") +
    `--${cs}--\r\n--${batch}--\r\n`;
  return { body, contentType: `multipart/mixed; boundary=${batch}` };
}

test("CrossPartitionBatchIsRefusedAtItsIndex", async () => {
  const { body, contentType } = batchBody([
    ["POST", table, { PartitionKey: "x1", RowKey: "1" }],
    ["POST", table, { PartitionKey: "x2", RowKey: "2" }],
  ]);
  const r = await send("POST", "$batch", { body, headers: { "Content-Type": contentType } });
  assert.equal(r.status, 202);
  assert.match(r.text, /HTTP\/1.1 400 /);
  assert.match(r.text, /"code":"CommandsInBatchActOnDifferentPartitions"/);
  assert.match(r.text, /"value":"1:/);
  assert.ok(!(await exists("x1", "1")));
});

test("BatchTouchingTwoTablesIsRefused", async () => {
  const { body, contentType } = batchBody([
    ["POST", table, { PartitionKey: "y", RowKey: "1" }],
    ["POST", "othertable", { PartitionKey: "y", RowKey: "2" }],
  ]);
  const r = await send("POST", "$batch", { body, headers: { "Content-Type": contentType } });
  assert.equal(r.status, 202);
  assert.match(r.text, /"value":"1:/);
  assert.ok(!(await exists("y", "1")));
});

test("SelectOnTheWireNamesOnlySelectedMembers", async () => {
  await client.createEntity({ partitionKey: "selwire", rowKey: "1", a: 1, b: "x", c: true });
  const r = await send("GET", `${table}(PartitionKey='selwire',RowKey='1')?$select=c,a,none`);
  assert.equal(r.status, 200, r.text);
  // Members in the entity's order, then the missing ones as null; no keys, no Timestamp.
  assert.deepEqual(Object.keys(r.json), ["odata.metadata", "odata.etag", "a", "c", "none"]);
  assert.equal(r.json.none, null);
  const page = await send("GET", `${table}()?$filter=${encodeURIComponent("PartitionKey eq 'selwire'")}&$select=RowKey,b`);
  assert.equal(page.status, 200, page.text);
  assert.deepEqual(page.json.value.map((e) => Object.keys(e)), [["odata.etag", "RowKey", "b"]]);
});

test("StringsWithEscapesRoundTripOnTheWire", async () => {
  const text = "quote \" backslash \\ tab \t nl \n ctrl \u0001 del \u007f é 😀";
  const rowKey = "say \"hi\" é";
  await client.createEntity({ partitionKey: "esc", rowKey, text });
  const r = await send("GET", `${table}(PartitionKey='esc',RowKey='${encodeURIComponent(rowKey)}')`);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.text, text);
  assert.equal(r.json.RowKey, rowKey);
});
