// Requests without a valid credential are refused from their header alone: 403
// AuthenticationFailed at once whether a body is announced, sent or neither. A request with a
// body is answered with Connection: close and the connection closed (its body is never read, so
// the connection cannot carry another request); a request without one leaves the connection
// usable, as Azure does. Nothing they ask for happens.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Conn, DEV_ACCOUNT, MiB, assertAzureError, assertRefusal, exchange, request, withServer } from "./wire.mjs";

test("UnsignedAndBadlySignedRequestsAre403", async () => {
  await withServer({}, async (server) => {
    const wrongKey = { key: Buffer.alloc(32, 7).toString("base64") };
    const create = JSON.stringify({ TableName: "denied" });
    // Without a body: 403, and the same connection then serves a signed request.
    const bodiless = [
      ["unsigned GET", request("GET", `/${DEV_ACCOUNT}/Tables`, { signAs: null })],
      ["wrongly signed GET", request("GET", `/${DEV_ACCOUNT}/Tables`, { signAs: wrongKey })],
      ["unsigned DELETE", request("DELETE", `/${DEV_ACCOUNT}/Tables('denied')`, { signAs: null })],
    ];
    const failures = [];
    for (const [what, bytes] of bodiless) {
      const conn = await Conn.open(server.port);
      try {
        await conn.write(bytes);
        const r = await conn.readResponse(2000, `the 403 to an ${what}`);
        assertAzureError(assert, r, 403, "AuthenticationFailed", what);
        assert.equal(r.headers.connection, undefined, `an ${what} closed the connection: ${r.head}`);
        await conn.write(request("GET", `/${DEV_ACCOUNT}/Tables`));
        const next = await conn.readResponse(2000, `the answer to a signed GET after an ${what}`);
        assert.equal(next.status, 200, `a signed GET after an ${what}: ${next.head}`);
      } catch (err) {
        failures.push(err.message.split(/\r?\n/)[0]);
      } finally {
        conn.destroy();
      }
    }
    // With a body (sent or only announced): 403 with Connection: close, then closed.
    const cases = [
      ["unsigned POST with its body", request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: null, body: create })],
      ["wrongly signed POST with its body", request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: wrongKey, body: create })],
      ["unsigned POST announcing 4 MiB, none sent",
       request("POST", `/${DEV_ACCOUNT}/Tables`, { signAs: null, contentLength: 4 * MiB })],
    ];
    // Every case is tried; the failures are reported together.
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
