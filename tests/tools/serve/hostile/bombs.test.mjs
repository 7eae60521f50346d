// Requests built to exhaust the server's memory: a gzip body inflating a thousandfold, a chunked
// body that never ends, a header section of 100,000 fields, a request target past 32 KiB. Each is
// refused with its Azure error before the server holds more than a bounded part of it: the
// server's peak resident size grows by at most 16 MiB, and it serves the next client.

import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createGzip } from "node:zlib";
import { Conn, DEV_ACCOUNT, MiB, assertRefusal, assertServes, createTable, exchange, measurePeak,
         request, tablePath, within, withServer } from "./wire.mjs";

const kMaxGrowth = 16 * MiB;
const kBodyLimit = 4 * MiB;

function assertPeak(t, growth, what) {
  t.diagnostic(`${what}: peak RSS growth ${(growth / MiB).toFixed(2)} MiB`);
  assert.ok(growth <= kMaxGrowth,
            `${what}: the server's peak resident size grew by ${(growth / MiB).toFixed(1)} MiB ` +
            `(limit ${kMaxGrowth / MiB} MiB)`);
}

// 1 GiB of zeros, gzip-compressed as a stream: about 1 MB, never the whole GiB in memory.
let bomb;
before(async () => {
  const gz = createGzip({ level: 9, memLevel: 9 });
  const parts = [];
  gz.on("data", (d) => parts.push(d));
  const ended = new Promise((resolve, reject) => {
    gz.on("end", resolve);
    gz.on("error", reject);
  });
  const zeros = Buffer.alloc(MiB);
  for (let i = 0; i < 1024; i++) {
    if (!gz.write(zeros)) await new Promise((resolve) => gz.once("drain", resolve));
  }
  gz.end();
  await ended;
  bomb = Buffer.concat(parts);
  assert.ok(bomb.length < 1.1e6, `the bomb is ${bomb.length} bytes`);
});

async function entityCount(port, table) {
  const r = await exchange(port, request("GET", `${tablePath(table)}()`));
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text).value.length;
}

test("GzipBombIsRefusedWithoutInflating", async (t) => {
  await withServer({}, async (server) => {
    await createTable(server.port, "bombed");
    await assertServes(assert, server.port, "before the attack");
    const peak = measurePeak(server.pid);
    const target = tablePath("bombed");
    const gzip = [["Content-Encoding", "gzip"]];

    // Unsigned: refused from the header alone, the announced body never sent.
    let conn = await Conn.open(server.port);
    await conn.write(request("POST", target, { signAs: null, contentLength: bomb.length, headers: gzip }));
    let r = await conn.readResponse(3000, "the 403 to an unsigned gzip request (body not sent)");
    assertRefusal(assert, r, 403, "AuthenticationFailed");
    await conn.waitClosed(4000, "the server closing the refused connection");
    conn.destroy();

    // Signed: 415 from the header alone, then with the whole bomb sent behind the header.
    conn = await Conn.open(server.port);
    await conn.write(request("POST", target, { contentLength: bomb.length, headers: gzip }));
    r = await conn.readResponse(3000, "the 415 to a signed gzip request (body not sent)");
    assertRefusal(assert, r, 415, "UnsupportedHeader");
    await conn.waitClosed(4000, "the server closing the refused connection");
    conn.destroy();

    conn = await Conn.open(server.port);
    conn.write(Buffer.concat([request("POST", target, { contentLength: bomb.length, headers: gzip }), bomb]));
    r = await conn.readResponse(5000, "the 415 to a signed gzip request (bomb sent)");
    assertRefusal(assert, r, 415, "UnsupportedHeader");
    await conn.waitClosed(5000, "the server closing the refused connection");
    conn.destroy();

    assertPeak(t, peak(), "gzip bomb");
    await assertServes(assert, server.port);
    assert.equal(await entityCount(server.port, "bombed"), 0);
  });
});

test("EndlessChunkedBodyIs413WhileStillSending", async (t) => {
  await withServer({}, async (server) => {
    await createTable(server.port, "chunked");
    await assertServes(assert, server.port, "before the attack");
    const peak = measurePeak(server.pid);
    const conn = await Conn.open(server.port);
    await conn.write(request("POST", tablePath("chunked"), { chunked: true }));
    let answer = null;
    const response = conn.readResponse(30000, "a response to a 64 MiB chunked body").then((r) => {
      answer = { r, sent: conn.sent };
      return r;
    });
    response.catch(() => {});
    const chunk = Buffer.alloc(64 << 10, "a");
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    let decoded = 0;
    await within(30000, (async () => {
      while (decoded < 64 * MiB && answer === null && !conn.closed) {
        if (!(await conn.write(frame))) break;
        decoded += chunk.length;
        // A write the kernel takes at once completes without a turn of the event loop, so a
        // loop of them never reads: the 413 would sit unread until the server, done lingering,
        // resets the connection. A client reads while it sends: let I/O run between frames.
        await new Promise((resolve) => setImmediate(resolve));
      }
    })(), "sending 64 MiB of chunks");
    const r = await response;
    assertRefusal(assert, r, 413, "RequestBodyTooLarge");
    assert.ok(answer.sent < 64 * MiB,
              `the 413 came only after all 64 MiB were sent (decoded bytes sent: ${decoded})`);
    assert.ok(decoded > kBodyLimit, `413 after only ${decoded} decoded bytes (limit ${kBodyLimit})`);
    await conn.waitClosed(5000, "the server closing the refused connection");
    conn.destroy();
    assertPeak(t, peak(), "64 MiB chunked body");
    await assertServes(assert, server.port);
    assert.equal(await entityCount(server.port, "chunked"), 0);
  });
});

// A body of exactly 4 MiB is accepted; one byte more, announced by Content-Length, is refused at
// once, before any of it is sent.
test("ContentLengthOverFourMiBIs413Unread", async () => {
  await withServer({}, async (server) => {
    await createTable(server.port, "limit");
    const entity = JSON.stringify({ PartitionKey: "p", RowKey: "exact" });
    const exact = entity + " ".repeat(kBodyLimit - entity.length);
    let r = await exchange(server.port, request("POST", tablePath("limit"), { body: exact }), 10000);
    assert.equal(r.status, 201, `a body of exactly 4 MiB: ${r.status} ${r.text}`);

    const conn = await Conn.open(server.port);
    await conn.write(request("POST", tablePath("limit"), { contentLength: kBodyLimit + 1 }));
    r = await conn.readResponse(3000, "the 413 to Content-Length 4 MiB + 1 (body not sent)");
    assertRefusal(assert, r, 413, "RequestBodyTooLarge");
    await conn.waitClosed(4000, "the server closing the refused connection");
    conn.destroy();
    assert.equal(await entityCount(server.port, "limit"), 1);
  });
});

test("HundredThousandHeaderFieldsAre431", async (t) => {
  await withServer({}, async (server) => {
    await assertServes(assert, server.port, "before the attack");
    const peak = measurePeak(server.pid);
    const fields = [];
    for (let i = 0; i < 100000; i++) fields.push([`X-Fill-${i}`, "v"]);
    const conn = await Conn.open(server.port);
    conn.write(request("GET", `/${DEV_ACCOUNT}/Tables`, { headers: fields }));
    const r = await conn.readResponse(5000, "the 431 to 100,000 header fields");
    assertRefusal(assert, r, 431, "RequestHeaderFieldsTooLarge");
    await conn.waitClosed(5000, "the server closing the connection (it must stop reading)");
    conn.destroy();
    assertPeak(t, peak(), "100,000 header fields");
    await assertServes(assert, server.port);
  });
});

// The default limits at their edges: 100 fields pass, 101 do not; a header section over 64 KiB
// (one long field) does not.
test("HeaderFieldAndByteLimitsHoldAtTheirEdges", async () => {
  await withServer({}, async (server) => {
    const target = `/${DEV_ACCOUNT}/Tables`;
    const standard = 6;  // Host, x-ms-date, x-ms-version, Accept, DataServiceVersion, Authorization
    const fill = (n) => Array.from({ length: n }, (_, i) => [`X-Fill-${i}`, "v"]);
    let r = await exchange(server.port, request("GET", target, { headers: fill(100 - standard) }));
    assert.equal(r.status, 200, `100 header fields: ${r.status} ${r.text}`);
    r = await exchange(server.port, request("GET", target, { headers: fill(101 - standard) }));
    assertRefusal(assert, r, 431, "RequestHeaderFieldsTooLarge");
    r = await exchange(server.port, request("GET", target, { headers: [["X-Long", "a".repeat(65536)]] }));
    assertRefusal(assert, r, 431, "RequestHeaderFieldsTooLarge");
    await assertServes(assert, server.port);
  });
});

test("HeaderLimitOptionsAreHonoured", async () => {
  await withServer({ args: ["--max-header-fields", "20", "--max-header-bytes", "4096"] }, async (server) => {
    const target = `/${DEV_ACCOUNT}/Tables`;
    const standard = 6;
    const fill = (n) => Array.from({ length: n }, (_, i) => [`X-Fill-${i}`, "v"]);
    let r = await exchange(server.port, request("GET", target, { headers: fill(20 - standard) }));
    assert.equal(r.status, 200, `20 header fields: ${r.status} ${r.text}`);
    r = await exchange(server.port, request("GET", target, { headers: fill(21 - standard) }));
    assertRefusal(assert, r, 431, "RequestHeaderFieldsTooLarge", "21 fields over --max-header-fields 20");
    const sized = (n) => {
      const bare = request("GET", target, { headers: [["X-Pad", ""]] }).length;
      return request("GET", target, { headers: [["X-Pad", "p".repeat(n - bare)]] });
    };
    r = await exchange(server.port, sized(3500));
    assert.equal(r.status, 200, `a 3,500-byte header section: ${r.status} ${r.text}`);
    r = await exchange(server.port, sized(5000));
    assertRefusal(assert, r, 431, "RequestHeaderFieldsTooLarge", "5,000 bytes over --max-header-bytes 4096");
  });
});

test("TargetOver32KiBIs414", async () => {
  await withServer({}, async (server) => {
    const base = `/${DEV_ACCOUNT}/Tables?pad=`;
    const at = (n) => base + "a".repeat(n - base.length);
    let r = await exchange(server.port, request("GET", at(32768)));
    assert.equal(r.status, 200, `a 32 KiB target: ${r.status} ${r.text}`);
    r = await exchange(server.port, request("GET", at(32769)));
    assertRefusal(assert, r, 414, "RequestUriTooLong");
    r = await exchange(server.port, request("GET", at(60000)));
    assertRefusal(assert, r, 414, "RequestUriTooLong");
    await assertServes(assert, server.port);
  });
});
