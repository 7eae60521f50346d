// Clients that hold connections instead of using them: slow-loris headers trickled a byte at a
// time, a body that stops, a connection that never speaks, one left idle, a reply never read,
// and more connections than the cap. Each is cut off by its deadline (the sweeper's granularity is 0.25 s: 1 s of
// slack) while normal clients keep being served.

import { test } from "node:test";
import assert from "node:assert/strict";
import { BIG_PAGE_ARGS, Conn, DEV_ACCOUNT, assertRefusal, assertReplyCut, assertServes, fillBigTable, request,
         stuckReader, withServer } from "./wire.mjs";

const kSlack = 1000;        // ms past a deadline the server may take
const kGranularity = 250;   // ms before a deadline the server may not act

// Writes `bytes` one byte every `interval` ms until they run out or the connection closes;
// `firstByte` is when the first was written, `written` how many were.
function trickle(conn, bytes, interval = 250) {
  const t = { firstByte: null, written: 0, timer: null };
  const next = () => {
    if (conn.closed || t.written >= bytes.length) {
      clearInterval(t.timer);
      return;
    }
    conn.write(bytes.subarray(t.written, t.written + 1));
    if (t.firstByte === null) t.firstByte = performance.now();
    t.written += 1;
  };
  next();
  t.timer = setInterval(next, interval);
  t.stop = () => clearInterval(t.timer);
  return t;
}

test("SlowLorisHeadersAre408WhileOthersAreServed", async () => {
  const headerTimeout = 2000;
  await withServer({ args: ["--threads", "2", "--header-timeout", "2"] }, async (server) => {
    const slow = [];
    const trickles = [];
    try {
      for (let i = 0; i < 8; i++) {
        const conn = await Conn.open(server.port);
        slow.push(conn);
        trickles.push(trickle(conn, request("GET", `/${DEV_ACCOUNT}/Tables`, { id: `slow-${i}` })));
      }
      // A normal client: 20 signed requests, each on a new connection, one every 100 ms, while
      // the eight hold theirs.
      const lateness = [];
      for (let i = 0; i < 20; i++) {
        const paced = new Promise((resolve) => setTimeout(resolve, 100));
        const start = performance.now();
        const conn = await Conn.open(server.port, { ms: 1000 });
        try {
          await conn.write(request("GET", `/${DEV_ACCOUNT}/Tables`, { id: `normal-${i}` }));
          const r = await conn.readResponse(1000 - (performance.now() - start),
                                            `the answer to normal request ${i} within 1 s`);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.headers["x-ms-client-request-id"], `normal-${i}`);
        } finally {
          conn.destroy();
        }
        lateness.push(performance.now() - start);
        await paced;
      }
      for (const [i, conn] of slow.entries()) {
        const t = trickles[i];
        const deadline = t.firstByte + headerTimeout + kSlack - performance.now();
        const r = await conn.readResponse(Math.max(deadline, 1),
                                          `the 408 to slow connection ${i} within header-timeout + 1 s`);
        const at = performance.now() - t.firstByte;
        assertRefusal(assert, r, 408, "RequestTimeout");
        assert.ok(at >= headerTimeout - kGranularity, `slow connection ${i} got 408 after only ${at} ms`);
        const closed = await conn.waitClosed(Math.max(t.firstByte + headerTimeout + kSlack - performance.now(), 1),
                                             `the server closing slow connection ${i} within header-timeout + 1 s`);
        assert.ok(closed - t.firstByte <= headerTimeout + kSlack);
      }
    } finally {
      for (const t of trickles) t.stop();
      for (const conn of slow) conn.destroy();
    }
  });
});

test("BodyThatStopsIs408AfterBodyTimeout", async () => {
  await withServer({ args: ["--body-timeout", "1"] }, async (server) => {
    const create = JSON.stringify({ TableName: "stalled" });
    const conn = await Conn.open(server.port);
    const head = request("POST", `/${DEV_ACCOUNT}/Tables`, { contentLength: create.length + 100 });
    await conn.write(Buffer.concat([head, Buffer.from(create)]));
    const sent = performance.now();
    const r = await conn.readResponse(1000 + kSlack, "the 408 to a body stopped short, within body-timeout + 1 s");
    const at = performance.now() - sent;
    assertRefusal(assert, r, 408, "RequestTimeout");
    assert.ok(at >= 1000 - kGranularity, `408 after only ${at} ms`);
    await conn.waitClosed(kSlack, "the server closing the timed-out connection");
    conn.destroy();
    const list = await exchangeOk(server.port, request("GET", `/${DEV_ACCOUNT}/Tables`));
    assert.deepEqual(JSON.parse(list.text).value, []);
  });
});

async function exchangeOk(port, bytes) {
  const conn = await Conn.open(port);
  try {
    await conn.write(bytes);
    const r = await conn.readResponse(5000);
    assert.equal(r.status, 200, r.text);
    return r;
  } finally {
    conn.destroy();
  }
}

test("SilentConnectionIsClosedAfterHeaderTimeoutWithoutBytes", async () => {
  await withServer({ args: ["--header-timeout", "1"] }, async (server) => {
    const conn = await Conn.open(server.port);
    const opened = performance.now();
    const closed = await conn.waitClosed(1000 + kSlack, "the server closing a silent connection within header-timeout + 1 s");
    assert.ok(closed - opened >= 1000 - kGranularity, `closed after only ${closed - opened} ms`);
    assert.equal(conn.received, 0, `a silent connection got bytes: ${conn.buf.toString("latin1")}`);
    conn.destroy();
    await assertServes(assert, server.port);
  });
});

test("IdleKeptAliveConnectionIsClosedAfterIdleTimeoutWithoutBytes", async () => {
  await withServer({ args: ["--idle-timeout", "1"] }, async (server) => {
    const conn = await Conn.open(server.port);
    await conn.write(request("GET", `/${DEV_ACCOUNT}/Tables`));
    const r = await conn.readResponse(5000);
    const answered = performance.now();
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.headers.connection?.toLowerCase(), "close", "a good request must keep the connection");
    const closed = await conn.waitClosed(1000 + kSlack, "the server closing an idle connection within idle-timeout + 1 s");
    assert.ok(closed - answered >= 1000 - kGranularity, `closed after only ${closed - answered} ms idle`);
    assert.equal(conn.buf.length, 0, `an idle connection got bytes: ${conn.buf.toString("latin1")}`);
    conn.destroy();
    await assertServes(assert, server.port);
  });
});

test("ConnectionBeyondTheCapIs503UntilOneCloses", async () => {
  await withServer({ args: ["--max-connections", "4"] }, async (server) => {
    const held = [];
    const get = (id) => request("GET", `/${DEV_ACCOUNT}/Tables`, { id });
    try {
      for (let i = 0; i < 4; i++) {
        const conn = await Conn.open(server.port);
        held.push(conn);
        await conn.write(get(`held-${i}`));
        const r = await conn.readResponse(5000, `the answer to held connection ${i}`);
        assert.equal(r.status, 200, r.text);
      }
      const extra = await Conn.open(server.port);
      await extra.write(get("extra"));
      const r = await extra.readResponse(3000, "the 503 to a fifth connection");
      assertRefusal(assert, r, 503, "ServerBusy");
      await extra.waitClosed(4000, "the server closing the fifth connection");
      extra.destroy();

      // The four are undisturbed.
      for (const [i, conn] of held.entries()) {
        await conn.write(get(`again-${i}`));
        const again = await conn.readResponse(5000, `the second answer on held connection ${i}`);
        assert.equal(again.status, 200, again.text);
      }

      // Once one closes, a new connection is served. The server learns of the close
      // asynchronously: new connections may be refused until it does, for at most 2 s.
      held.shift().destroy();
      const answers = [];
      const deadline = performance.now() + 2000;
      for (;;) {
        const conn = await Conn.open(server.port);
        try {
          await conn.write(get("after"));
          const a = await conn.readResponse(2000, "an answer after one connection closed");
          answers.push(a.status);
          if (a.status === 200) break;
          assertRefusal(assert, a, 503, "ServerBusy");
        } finally {
          conn.destroy();
        }
        assert.ok(performance.now() < deadline,
                  `no new connection served within 2 s of one of the four closing: ${answers}`);
      }
      assert.equal(answers.at(-1), 200, `answers: ${answers}`);
    } finally {
      for (const conn of held) conn.destroy();
    }
  });
});

// A client that stops reading a reply of ~24 MiB holds it for --write-timeout at most: by then
// the server has given up the reply (the client, reading afterwards, finds it cut short and the
// connection closed) and goes on serving.
test("ReaderThatStopsIsCutOffAfterWriteTimeout", async () => {
  await withServer({ args: ["--write-timeout", "1", ...BIG_PAGE_ARGS] }, async (server) => {
    await fillBigTable(server.port, "big");
    const reader = await stuckReader(server.port, "big");
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000 + kSlack));  // the deadline itself
      reader.socket.resume();
      await reader.waitClosed(kSlack, "the stuck reply's connection closed by write-timeout + 1 s");
      assertReplyCut(assert, reader);
    } finally {
      reader.destroy();
    }
    await assertServes(assert, server.port, "after cutting off a stuck reader");
  });
});
