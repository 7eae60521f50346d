// Table operations through TableServiceClient: create, list (with filter and paging), delete,
// and Azure's error codes for each failure.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { odata } from "@azure/data-tables";
import { startServer, serviceClient, uniqueTable, failure } from "./harness.mjs";

let server;
let svc;
before(async () => {
  server = await startServer();
  svc = serviceClient(server);
});
after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0, "partkv serve must exit 0 on SIGTERM");
});

async function names(options) {
  const out = [];
  for await (const t of svc.listTables(options)) out.push(t.name);
  return out;
}

test("CreateListDeleteTable", async () => {
  const name = uniqueTable("life");
  await svc.createTable(name);
  assert.ok((await names()).includes(name));
  await svc.deleteTable(name);
  assert.ok(!(await names()).includes(name));
});

test("CreateExistingTableIs409TableAlreadyExists", async () => {
  const name = uniqueTable("dup");
  await svc.createTable(name);
  // The SDK's createTable swallows TableAlreadyExists; its generated client shows the reply.
  const f = await failure(() => svc.table.create({ name }));
  assert.equal(f.status, 409);
  assert.equal(f.code, "TableAlreadyExists");
});

test("DeleteMissingTableIs404ResourceNotFound", async () => {
  const f = await failure(() => svc.table.delete("nosuchtable" + process.pid));
  assert.equal(f.status, 404);
  assert.equal(f.code, "ResourceNotFound");
});

test("InvalidTableNameIs400InvalidResourceName", async () => {
  const f = await failure(() => svc.createTable("1bad"));
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidResourceName");
});

test("ListTablesFiltersAndPagesWithNextTableName", async () => {
  const prefix = uniqueTable("pg");
  const created = [];
  for (let i = 0; i < 5; i++) {
    created.push(`${prefix}n${i}`);
    await svc.createTable(`${prefix}n${i}`);
  }
  const filter = odata`TableName ge ${prefix} and TableName lt ${prefix + "z"}`;
  assert.deepEqual(await names({ queryOptions: { filter } }), created);
  const pages = [];
  for await (const page of svc.listTables({ queryOptions: { filter } }).byPage({ maxPageSize: 2 })) {
    pages.push(page.map((t) => t.name));
  }
  assert.deepEqual(pages, [created.slice(0, 2), created.slice(2, 4), created.slice(4)]);
});
