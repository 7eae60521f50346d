// Queries: each filter literal type, select, top, and byPage paging with the continuation
// headers over 2,500 entities (1000/1000/500).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { odata } from "@azure/data-tables";
import { startServer, serviceClient, tableClient, uniqueTable, failure } from "./harness.mjs";

let server;
let client;
before(async () => {
  server = await startServer();
  const table = uniqueTable("query");
  await serviceClient(server).createTable(table);
  client = tableClient(server, table);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

async function rowKeys(filter, extra = {}) {
  const out = [];
  for await (const e of client.listEntities({ queryOptions: { filter, ...extra } })) out.push(e.rowKey);
  return out;
}

test("ByPagePagesOf1000Then500Over2500Entities", async () => {
  for (let batch = 0; batch < 25; batch++) {
    const actions = [];
    for (let i = 0; i < 100; i++) {
      const n = batch * 100 + i;
      actions.push(["create", { partitionKey: "paged", rowKey: String(n).padStart(5, "0"), n }]);
    }
    await client.submitTransaction(actions);
  }
  const sizes = [];
  const seen = [];
  const iter = client.listEntities({ queryOptions: { filter: odata`PartitionKey eq 'paged'` } });
  for await (const page of iter.byPage()) {
    sizes.push(page.length);
    seen.push(...page.map((e) => e.n));
    if (sizes.length < 3) assert.ok(page.continuationToken, "a full page carries a continuation token");
    else assert.equal(page.continuationToken, undefined);
  }
  assert.deepEqual(sizes, [1000, 1000, 500]);
  assert.deepEqual(seen, Array.from({ length: 2500 }, (_, i) => i));
});

test("MaxPageSizeIsTopPerPage", async () => {
  const iter = client.listEntities({ queryOptions: { filter: odata`PartitionKey eq 'paged' and n lt 25` } });
  const sizes = [];
  for await (const page of iter.byPage({ maxPageSize: 10 })) sizes.push(page.length);
  // The filter is applied per page: pages hold at most 10, and all 25 arrive.
  assert.equal(sizes.reduce((a, b) => a + b, 0), 25);
  assert.ok(sizes.every((s) => s <= 10));
});

test("FilterLiteralsOfEveryType", async () => {
  const guid = "a455c695-df98-5678-aaaa-81d3367e5a34";
  await client.createEntity({
    partitionKey: "lit", rowKey: "1", s: "it's", i: 30, l: { value: "8589934592", type: "Int64" },
    d: 100.25, b: true, t: new Date("2008-07-10T00:00:00Z"), g: { value: guid, type: "Guid" },
    x: new Uint8Array([1, 2, 255]),
  });
  await client.createEntity({ partitionKey: "lit", rowKey: "2", s: "other", i: 31, b: false });
  const cases = [
    [odata`PartitionKey eq 'lit' and s eq ${"it's"}`, ["1"]],
    ["PartitionKey eq 'lit' and i eq 30", ["1"]],
    ["PartitionKey eq 'lit' and i ge 30", ["1", "2"]],
    ["PartitionKey eq 'lit' and l eq 8589934592L", ["1"]],
    ["PartitionKey eq 'lit' and d gt 100.0", ["1"]],
    ["PartitionKey eq 'lit' and b eq false", ["2"]],
    ["PartitionKey eq 'lit' and t eq datetime'2008-07-10T00:00:00Z'", ["1"]],
    [`PartitionKey eq 'lit' and g eq guid'${guid}'`, ["1"]],
    ["PartitionKey eq 'lit' and x eq X'0102ff'", ["1"]],
    ["PartitionKey eq 'lit' and not (i eq 30)", ["2"]],
    ["PartitionKey eq 'lit' and (i eq 30 or s eq 'other')", ["1", "2"]],
    ["PartitionKey eq 'lit' and i eq '30'", []],
  ];
  for (const [filter, expected] of cases) {
    assert.deepEqual(await rowKeys(filter), expected, filter);
  }
});

test("SelectReturnsOnlyNamedProperties", async () => {
  await client.createEntity({ partitionKey: "sel", rowKey: "1", a: 1, b: 2, c: 3 });
  const got = [];
  for await (const e of client.listEntities({
    queryOptions: { filter: "PartitionKey eq 'sel'", select: ["a", "c", "missing"] },
  })) got.push(e);
  assert.equal(got.length, 1);
  assert.equal(got[0].a, 1);
  assert.equal(got[0].c, 3);
  assert.equal(got[0].b, undefined);
  assert.ok("missing" in got[0] && got[0].missing === null, "a selected missing property is null");
  // As Azure: the keys and Timestamp come back only when selected.
  assert.equal(got[0].partitionKey, undefined);
  assert.equal(got[0].rowKey, undefined);
  assert.equal(got[0].timestamp, undefined);
  assert.ok(got[0].etag, "the ETag still comes back");
});

test("SelectedKeysAndTimestampComeBack", async () => {
  await client.createEntity({ partitionKey: "selkeys", rowKey: "1", a: 1, b: 2 });
  const got = [];
  for await (const e of client.listEntities({
    queryOptions: { filter: "PartitionKey eq 'selkeys'", select: ["PartitionKey", "RowKey", "Timestamp", "b"] },
  })) got.push(e);
  assert.equal(got.length, 1);
  assert.equal(got[0].partitionKey, "selkeys");
  assert.equal(got[0].rowKey, "1");
  assert.ok(got[0].timestamp, "Timestamp is selected");
  assert.equal(got[0].b, 2);
  assert.equal(got[0].a, undefined);
});

test("PointReadSelectReturnsOnlyNamedProperties", async () => {
  await client.createEntity({ partitionKey: "selget", rowKey: "1", a: 1, b: 2 });
  const e = await client.getEntity("selget", "1", { queryOptions: { select: ["b", "nothere"] } });
  assert.equal(e.b, 2);
  assert.equal(e.a, undefined);
  assert.equal(e.partitionKey, undefined);
  assert.equal(e.rowKey, undefined);
  assert.equal(e.timestamp, undefined);
  assert.ok("nothere" in e && e.nothere === null, "a selected missing property is null");
});

test("BadFilterIs400InvalidInput", async () => {
  const f = await failure(async () => {
    for await (const _ of client.listEntities({ queryOptions: { filter: "a eqq 1" } }));
  });
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidInput");
});

test("TamperedContinuationTokenIs400", async () => {
  const iter = client.listEntities({ queryOptions: { filter: "PartitionKey eq 'paged'" } }).byPage();
  const first = (await iter.next()).value;
  const token = JSON.parse(Buffer.from(first.continuationToken, "base64").toString());
  token.nextPartitionKey = token.nextPartitionKey.slice(0, -2) + "AA";
  const forged = Buffer.from(JSON.stringify(token)).toString("base64");
  const f = await failure(async () => {
    const it = client.listEntities({ queryOptions: { filter: "PartitionKey eq 'paged'" } })
      .byPage({ continuationToken: forged });
    await it.next();
  });
  assert.equal(f.status, 400);
});
