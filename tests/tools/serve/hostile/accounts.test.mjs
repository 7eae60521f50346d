// Two accounts on one server, each with a store of its own (DIR/alpha, DIR/beta). Beta, signing
// correctly for itself, finds alpha's table exactly as it finds a table that does not exist:
// it cannot list, read, overwrite or delete it, not even through $batch sub-requests that name
// alpha's URLs; and a request to alpha signed with beta's key is refused. Alpha's data is
// unchanged at the end.

import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { assertAzureError, createTable, entityPath, exchange, request, withServer } from "./wire.mjs";

const alpha = { account: "alpha", key: randomBytes(32).toString("base64") };
const beta = { account: "beta", key: randomBytes(48).toString("base64") };

function batchBody(port, ops, { changeset = true } = {}) {
  const batch = `batch_${randomUUID()}`;
  const cs = `changeset_${randomUUID()}`;
  const boundary = changeset ? cs : batch;
  const parts = ops.map(([method, url, entity, extra = ""]) =>
    `--${boundary}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n` +
    `${method} http://127.0.0.1:${port}${url} HTTP/1.1\r\n` +
    `Content-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n${extra}` +
    `\r\n${entity ? JSON.stringify(entity) : ""}\r\n`);
  const body = changeset
    ? `--${batch}\r\nContent-Type: multipart/mixed; boundary=${cs}\r\n\r\n${parts.join("")}--${cs}--\r\n--${batch}--\r\n`
    : `${parts.join("")}--${batch}--\r\n`;
  return { body, headers: [["Content-Type", `multipart/mixed; boundary=${batch}`]] };
}

// The status of a $batch answer if it is a refusal, else the first sub-response's status.
function batchOutcome(r) {
  if (r.status !== 202) return r.status;
  const sub = r.text.match(/HTTP\/1\.1 (\d{3}) /);
  assert.ok(sub, `a 202 batch answer without sub-responses: ${r.text}`);
  return Number(sub[1]);
}

test("AccountsAreIsolatedStores", async () => {
  const args = ["--account", `alpha=${alpha.key}`, "--account", `beta=${beta.key}`];
  await withServer({ args }, async (server) => {
    const port = server.port;
    const send = (method, target, signAs, options = {}) =>
      exchange(port, request(method, target, { signAs, ...options }));
    const original = { PartitionKey: "a", RowKey: "1", v: "orig" };
    const alphaEntity = entityPath("shared", "a", "1", "alpha");
    const alphaRead = async () => {
      const r = await send("GET", alphaEntity, alpha);
      assert.equal(r.status, 200, `alpha reading its own entity: ${r.text}`);
      return JSON.parse(r.text).v;
    };

    await createTable(port, "shared", alpha);
    let r = await send("POST", "/alpha/shared", alpha, { body: JSON.stringify(original) });
    assert.equal(r.status, 201, r.text);
    for (const name of ["alpha", "beta"]) {
      const dir = join(server.store, name);
      assert.ok(existsSync(dir) && statSync(dir).isDirectory(), `no store directory ${dir}`);
    }

    // Beta lists no tables, and meets alpha's table as one that does not exist.
    r = await send("GET", "/beta/Tables", beta);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).value, []);
    const asBeta = [
      ["read", "GET", (t) => entityPath(t, "a", "1", "beta"), {}],
      ["query", "GET", (t) => `/beta/${t}()`, {}],
      ["overwrite", "PUT", (t) => entityPath(t, "a", "1", "beta"), { body: JSON.stringify({ v: "beta" }) }],
      ["merge", "PATCH", (t) => entityPath(t, "a", "1", "beta"),
       { body: JSON.stringify({ v: "beta" }), headers: [["If-Match", "*"]] }],
      ["delete entity", "DELETE", (t) => entityPath(t, "a", "1", "beta"), { headers: [["If-Match", "*"]] }],
      ["delete table", "DELETE", (t) => `/beta/Tables('${t}')`, {}],
    ];
    for (const [what, method, target, options] of asBeta) {
      const theirs = await send(method, target("shared"), beta, options);
      const none = await send(method, target("nosuchtable"), beta, options);
      assert.equal(theirs.status, 404, `beta's ${what} of alpha's table: ${theirs.status} ${theirs.text}`);
      assert.equal(theirs.status, none.status, what);
      assert.equal(theirs.headers["x-ms-error-code"], none.headers["x-ms-error-code"], what);
      assert.ok(!theirs.text.includes("orig"), `${what} leaked alpha's data: ${theirs.text}`);
    }
    assert.equal(await alphaRead(), "orig");

    // Alpha's URLs signed with beta's key, or signed by beta.
    for (const signAs of [{ account: "alpha", key: beta.key }, { account: "beta", key: beta.key }]) {
      for (const [method, target, options] of [["GET", "/alpha/Tables", {}], ["GET", alphaEntity, {}],
                                               ["DELETE", alphaEntity, { headers: [["If-Match", "*"]] }]]) {
        r = await send(method, target, signAs, options);
        // Isolation only: that a refusal closes its connection is auth.test.mjs's to prove.
        assertAzureError(assert, r, 403, "AuthenticationFailed");
      }
    }

    // Beta gets a table of the same name: its own, empty.
    await createTable(port, "shared", beta);
    r = await send("GET", "/beta/shared()", beta);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).value, []);

    // $batch to /beta naming alpha's URLs: a changeset that overwrites, one that deletes, a query.
    const batches = [
      ["overwrite", batchBody(port, [["PUT", alphaEntity, { PartitionKey: "a", RowKey: "1", v: "beta" }]])],
      ["insert", batchBody(port, [["POST", "/alpha/shared", { PartitionKey: "a", RowKey: "2", v: "beta" }]])],
      ["delete", batchBody(port, [["DELETE", alphaEntity, null, "If-Match: *\r\n"]])],
      ["query", batchBody(port, [["GET", alphaEntity, null]], { changeset: false })],
    ];
    for (const [what, { body, headers }] of batches) {
      r = await send("POST", "/beta/$batch", beta, { body, headers });
      const outcome = batchOutcome(r);
      assert.ok(outcome >= 400 && outcome < 500, `beta's ${what} batch on alpha's entity: ${outcome}\n${r.text}`);
      assert.ok(!r.text.includes("orig"), `beta's ${what} batch leaked alpha's data: ${r.text}`);
    }
    assert.equal(await alphaRead(), "orig");
    r = await send("GET", "/alpha/shared()", alpha);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).value.map((e) => [e.RowKey, e.v]), [["1", "orig"]]);
    r = await send("GET", "/beta/shared()", beta);
    assert.deepEqual(JSON.parse(r.text).value, [], `beta's batches wrote to beta's table: ${r.text}`);
    r = await send("GET", "/alpha/Tables", alpha);
    assert.deepEqual(JSON.parse(r.text).value.map((t) => t.TableName), ["shared"]);
  });
});
