// Requests sent back to back on one connection, before any answer: each is executed exactly once
// and answered in order (x-ms-client-request-id correlates them), including when a request ends
// exactly on a 4,096-byte boundary. And `Expect: 100-continue`: the interim answer only to a
// signed request, before its body is sent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Conn, assertRefusal, createTable, entityPath, exchange, request, tablePath,
         withServer } from "./wire.mjs";

const insert = (table, rk, id, headers = []) =>
  request("POST", tablePath(table), { id, headers,
                                      body: JSON.stringify({ PartitionKey: "p", RowKey: rk, n: Number(rk.slice(1)) }) });
const read = (table, rk, id) => request("GET", entityPath(table, "p", rk), { id });
const query = (table, id) => request("GET", `${tablePath(table)}()`, { id });

async function rowKeys(port, table) {
  const r = await exchange(port, query(table, "check"));
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text).value.map((e) => e.RowKey);
}

// Reads `expected.length` answers and checks each one's status and request id, in order.
async function assertAnswersInOrder(conn, expected) {
  for (const [i, [id, status]] of expected.entries()) {
    const r = await conn.readResponse(5000, `pipelined answer ${i} (${id})`);
    assert.equal(r.headers["x-ms-client-request-id"], id, `answer ${i} is not to ${id}: ${r.head}`);
    assert.equal(r.status, status, `${id}: ${r.text}`);
  }
}

test("SixPipelinedRequestsAreAnsweredOnceEachInOrder", async () => {
  await withServer({}, async (server) => {
    await createTable(server.port, "piped");
    const conn = await Conn.open(server.port);
    await conn.write(Buffer.concat([
      insert("piped", "e1", "r1"), read("piped", "e1", "r2"),
      insert("piped", "e2", "r3"), read("piped", "e2", "r4"),
      insert("piped", "e3", "r5"), query("piped", "r6"),
    ]));
    await assertAnswersInOrder(conn, [["r1", 201], ["r2", 200], ["r3", 201], ["r4", 200], ["r5", 201]]);
    const last = await conn.readResponse(5000, "pipelined answer 5 (r6)");
    assert.equal(last.headers["x-ms-client-request-id"], "r6");
    assert.equal(last.status, 200, last.text);
    assert.deepEqual(JSON.parse(last.text).value.map((e) => e.RowKey), ["e1", "e2", "e3"]);
    assert.equal(conn.buf.length, 0, `bytes after the sixth answer: ${conn.buf.toString("latin1")}`);
    assert.equal(conn.closed, false, "the connection must stay open");
    conn.destroy();
    assert.deepEqual(await rowKeys(server.port, "piped"), ["e1", "e2", "e3"]);
  });
});

// Two inserts padded (X-Pad) to exactly 4,096 bytes together, then a third request: once in the
// same write, once in a write after the first two were answered.
test("PipelinedRequestsEndingOn4096BytesAreAnsweredInOrder", async () => {
  await withServer({}, async (server) => {
    await createTable(server.port, "edge");
    const pair = (a, b) => {
      const second = insert("edge", b, `${b}-id`);
      const bare = insert("edge", a, `${a}-id`, [["X-Pad", ""]]);
      const pad = 4096 - second.length - bare.length;
      assert.ok(pad >= 0);
      const first = insert("edge", a, `${a}-id`, [["X-Pad", "x".repeat(pad)]]);
      assert.equal(first.length + second.length, 4096);
      return Buffer.concat([first, second]);
    };

    let conn = await Conn.open(server.port);
    await conn.write(Buffer.concat([pair("a1", "a2"), query("edge", "a3-id")]));
    await assertAnswersInOrder(conn, [["a1-id", 201], ["a2-id", 201], ["a3-id", 200]]);
    conn.destroy();

    conn = await Conn.open(server.port);
    await conn.write(pair("b1", "b2"));
    await assertAnswersInOrder(conn, [["b1-id", 201], ["b2-id", 201]]);
    await conn.write(query("edge", "b3-id"));
    const r = await conn.readResponse(5000, "the answer to the request after the 4,096 bytes");
    assert.equal(r.headers["x-ms-client-request-id"], "b3-id");
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).value.map((e) => e.RowKey), ["a1", "a2", "b1", "b2"]);
    conn.destroy();
    assert.deepEqual(await rowKeys(server.port, "edge"), ["a1", "a2", "b1", "b2"]);
  });
});

test("ExpectContinueIsAnsweredOnlyToASignedRequest", async () => {
  await withServer({}, async (server) => {
    await createTable(server.port, "expect");
    const body = JSON.stringify({ PartitionKey: "p", RowKey: "signed" });
    const expect = [["Expect", "100-continue"]];

    let conn = await Conn.open(server.port);
    await conn.write(request("POST", tablePath("expect"), { contentLength: body.length, headers: expect }));
    const interim = await conn.readResponse(3000, "100 Continue to a signed request, before its body");
    assert.equal(interim.status, 100, interim.head);
    assert.equal(interim.head.split("\r\n")[0], "HTTP/1.1 100 Continue");
    await conn.write(Buffer.from(body));
    const final = await conn.readResponse(5000, "the final answer after the body");
    assert.equal(final.status, 201, final.text);
    conn.destroy();

    const unsigned = JSON.stringify({ PartitionKey: "p", RowKey: "unsigned" });
    conn = await Conn.open(server.port);
    await conn.write(request("POST", tablePath("expect"),
                             { signAs: null, contentLength: unsigned.length, headers: expect }));
    const refusal = await conn.readResponse(3000, "the 403 to an unsigned request expecting 100-continue");
    assertRefusal(assert, refusal, 403, "AuthenticationFailed");
    await conn.waitClosed(4000, "the server closing the refused connection");
    conn.destroy();
    assert.deepEqual(await rowKeys(server.port, "expect"), ["signed"]);
  });
});
