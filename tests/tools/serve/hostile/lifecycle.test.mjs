// The server's start and end under hostile conditions: a second server on a port in use fails
// with one clear line, and SIGTERM ends the server within its grace period however its clients
// behave: one trickling a request byte by byte, one that never reads a reply of many MiB.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { rmSync } from "node:fs";
import net from "node:net";
import { BIG_PAGE_ARGS, Conn, DEV_ACCOUNT, assertReplyCut, assertServes, binary, fillBigTable, freshDir,
         request, startServer, stuckReader, within } from "./wire.mjs";

test("SecondServerOnAPortInUseFailsWithOneLine", async () => {
  const server = await startServer();
  const dir = freshDir();
  try {
    const second = spawn(binary(), ["serve", "--store", join(dir, "store"), "--port", String(server.port)],
                         { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    second.stdout.on("data", (d) => (stdout += d));
    second.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => second.on("close", (code, signal) => resolve({ code, signal })));
    let result;
    try {
      result = await within(5000, exited, `a second server on port ${server.port} exiting`);
    } catch (err) {
      second.kill("SIGKILL");
      throw new Error(`${err.message}; its stdout: ${stdout}`);
    }
    assert.equal(result.signal, null);
    assert.notEqual(result.code, 0, `the second server exited 0; stdout: ${stdout}`);
    const lines = stderr.split("\n").filter((l) => l.length > 0);
    assert.equal(lines.length, 1, `stderr must be one line: ${JSON.stringify(stderr)}`);
    assert.ok(lines[0].includes(`cannot listen on 127.0.0.1:${server.port}`), lines[0]);
    assert.ok(lines[0].includes("in use"), lines[0]);
    assert.doesNotMatch(stdout, /listening/);
    await assertServes(assert, server.port, "after a second server tried its port");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const stopped = await server.stop();
    assert.equal(stopped.code, 0, server.stderr());
  }
});

// After SIGTERM: an idle connection and one trickling a request are closed at once (no answer
// owed to either), no new connection is served, and the process exits 0 within the grace.
test("SigtermIsNotDelayedByATricklingClient", async () => {
  const grace = 2000;
  const server = await startServer({ args: ["--shutdown-grace", "2"] });
  const idle = await Conn.open(server.port);
  const slow = await Conn.open(server.port);
  let timer;
  try {
    await idle.write(request("GET", `/${DEV_ACCOUNT}/Tables`));
    const r = await idle.readResponse(5000);
    assert.equal(r.status, 200, r.text);

    const bytes = request("GET", `/${DEV_ACCOUNT}/Tables`);
    let written = 0;
    let twoWritten;
    const started = new Promise((resolve) => (twoWritten = resolve));
    const next = () => {
      if (slow.closed || written >= bytes.length) return clearInterval(timer);
      slow.write(bytes.subarray(written, written + 1));
      written += 1;
      if (written === 2) twoWritten();
    };
    next();
    timer = setInterval(next, 250);
    await within(2000, started, "the slow client writing its first two bytes");

    const term = performance.now();
    server.signal("SIGTERM");
    const closedIdle = await idle.waitClosed(1000, "the idle connection closed within 1 s of SIGTERM");
    assert.equal(idle.buf.length, 0, `the idle connection got bytes: ${idle.buf.toString("latin1")}`);
    const closedSlow = await slow.waitClosed(1000, "the trickling connection closed within 1 s of SIGTERM");
    assert.ok(closedIdle - term <= 1000 && closedSlow - term <= 1000);

    // Not accepting: a new connection is refused or closed with no answer.
    const late = new Conn(net.connect({ host: "127.0.0.1", port: server.port }));
    late.connected.then(() => late.write(request("GET", `/${DEV_ACCOUNT}/Tables`)), () => {});
    await late.waitClosed(grace + 1000, "a connection made after SIGTERM being refused or closed");
    assert.equal(late.received, 0, `a connection after SIGTERM was answered: ${late.buf.toString("latin1")}`);
    late.destroy();

    const { code, signal, at } = await within(grace + 1000, server.exited,
                                              "partkv serve exiting within the grace period after SIGTERM");
    assert.equal(signal, null);
    assert.equal(code, 0, server.stderr());
    assert.ok(at - term <= grace + 1000, `exited ${at - term} ms after SIGTERM`);
  } finally {
    clearInterval(timer);
    idle.destroy();
    slow.destroy();
    await server.stop();
  }
});

// A reply of ~24 MiB to a client that stops reading after its first bytes: the reply is given
// the grace period, then cut, and the process exits 0 by grace + 1 s.
test("SigtermIsNotDelayedByAClientThatDoesNotRead", async () => {
  const grace = 2000;
  const server = await startServer({ args: ["--shutdown-grace", "2", ...BIG_PAGE_ARGS] });
  let reader;
  try {
    await fillBigTable(server.port, "big");
    reader = await stuckReader(server.port, "big");

    const term = performance.now();
    server.signal("SIGTERM");
    const { code, signal, at } = await within(grace + 1000, server.exited,
                                              "partkv serve exiting within grace + 1 s after SIGTERM");
    assert.equal(signal, null);
    assert.equal(code, 0, server.stderr());
    assert.ok(at - term <= grace + 1000, `exited ${at - term} ms after SIGTERM`);

    // The reply was really stuck: the client, reading now, finds it cut short.
    reader.socket.resume();
    await reader.waitClosed(5000, "the reply's connection closed once the server exited");
    assertReplyCut(assert, reader);
  } finally {
    reader?.destroy();
    await server.stop();
  }
});
