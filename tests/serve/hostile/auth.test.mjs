// Requests without a valid credential are refused from their header alone: 403
// AuthenticationFailed at once whether a body is announced, sent or neither, with Connection:
// close, after which the server closes the connection. Nothing they ask for happens.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Conn, DEV_ACCOUNT, MiB, assertRefusal, exchange, request, withServer } from "./wire.mjs";

test("UnsignedAndBadlySignedRequestsAre403AndClosed", async () => {
  await withServer({}, async (server) => {
    const wrongKey = { key: Buffer.alloc(32, 7).toString("base64") };
    const create = JSON.stringify({ TableName: "denied" });
    const cases = [
      ["unsigned GET", request("GET", `/${DEV_ACCOUNT}/Tables`, { signAs: null })],
      ["wrongly signed GET", request("GET", `/${DEV_ACCOUNT}/Tables`, { signAs: wrongKey })],
      ["unsigned DELETE", request("DELETE", `/${DEV_ACCOUNT}/Tables('denied')`, { signAs: null })],
      ["unsigned POST with its body", request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: null, body: create })],
      ["wrongly signed POST with its body", request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: wrongKey, body: create })],
      ["unsigned POST announcing 4 MiB, none sent",
       request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: null, contentLength: 4 * MiB })],
    ];
    // Every case is tried; the failures are reported together.
    const failures = [];
    for (const [what, bytes] of cases) {
      const conn = await Conn.open(server.port);
      try {
        await conn.write(bytes);
        const r = await conn.readResponse(2000, `the 403 to an ${what}`);
        assertRefusal(assert, r, 403, "AuthenticationFailed", what);
        await conn.waitClosed(4000, `the server closing the connection after refusing an ${what}`);
        assert.equal(conn.buf.length, 0, `bytes after the 403 to an ${what}: ${conn.buf.toString("latin1")}`);
      } catch (err) {
        failures.push(err.message.split(/\r?\n/)[0]);
      } finally {
        conn.destroy();
      }
    }
    assert.deepEqual(failures, []);
    const r = await exchange(server.port, request("GET", `/${DEV_ACCOUNT}/Tables`));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).value, [], "a refused request created a table");
  });
});
