// The hostile-client suite's view of `partkv serve`: a server it starts itself (so it knows the
// pid, for /proc/PID/status and signals), requests built byte by byte on a net.Socket, and a
// response reader that parses what comes back (status line, header fields, Content-Length
// body) without trusting the server to behave. Every wait here has a deadline and fails with a
// message saying what did not happen.

import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEV_ACCOUNT, DEV_KEY } from "../harness.mjs";

export { DEV_ACCOUNT, DEV_KEY };
export const MiB = 1 << 20;

const live = new Set();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

export function binary() {
  const bin = process.env.PARTKV_BIN;
  if (!bin) throw new Error("PARTKV_BIN must name the partkv binary");
  return bin;
}

// Rejects with `what` unless `promise` settles within `ms`.
export function within(ms, promise, what) {
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

// Starts `partkv serve --store DIR/store --port 0 ...args` over a fresh temporary directory and
// resolves once it prints its listening line. `wrap(argv)` may return [file, args] to run the
// server under another program that execs it (the pid stays the server's).
export async function startServer({ args = [], wrap, dir: given } = {}) {
  const dir = given ?? mkdtempSync(join(tmpdir(), "partkv-hostile-"));
  const store = join(dir, "store");
  const argv = [binary(), "serve", "--store", store, "--port", "0", ...args];
  const [file, fileArgs] = wrap ? wrap(argv) : [argv[0], argv.slice(1)];
  const child = spawn(file, fileArgs, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() })));
  const port = await within(60000, new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      const m = stdout.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(Number(m[1]));
    });
    exited.then(({ code, signal }) =>
      reject(new Error(`partkv serve exited (${code ?? signal}) before listening: ${stderr}`)));
  }), `partkv serve printing its listening line (stderr: ${stderr})`);
  const server = {
    pid: child.pid,
    port,
    dir,
    store,
    endpoint: `http://127.0.0.1:${port}/${DEV_ACCOUNT}`,
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};` +
      `TableEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`,
    exited,
    stderr: () => stderr,
    running: () => child.exitCode === null && child.signalCode === null,
    signal(name) {
      child.kill(name);
    },
    // SIGTERM, then the exit status; SIGKILL and a failure if it does not exit within `ms`.
    async stop({ ms = 15000 } = {}) {
      if (server.running()) child.kill("SIGTERM");
      try {
        return await within(ms, exited, `partkv serve exiting after SIGTERM (stderr: ${stderr})`);
      } catch (err) {
        child.kill("SIGKILL");
        throw err;
      } finally {
        live.delete(child);
        if (!given) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return server;
}

// Runs `body(server)` against a server started with `options`, and always stops it; the server
// must then exit 0 (a clean shutdown is part of every test).
export async function withServer(options, body) {
  const server = await startServer(options);
  let failed = false;
  try {
    return await body(server);
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    const result = await server.stop();
    if (!failed && (result.code !== 0 || result.signal)) {
      throw new Error(`partkv serve exited with ${result.code ?? result.signal}: ${server.stderr()}`);
    }
  }
}

// ---- memory ---------------------------------------------------------------------------------

export function memoryKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))[1]);
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

// Starts a peak-RSS measurement: resets the process's high-water mark where the kernel allows
// (clear_refs "5"), so VmHWM afterwards is the peak since now. Returns a function giving the
// growth in bytes of the peak over the resident size at the start.
export function measurePeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Without the reset VmHWM may include the start-up peak: the growth is overestimated, never
    // hidden.
  }
  const base = memoryKiB(pid).rss;
  return () => (memoryKiB(pid).hwm - base) * 1024;
}

// ---- requests ---------------------------------------------------------------------------------

// SharedKeyLite: the date, a newline, then "/" + account + the path as sent (+ "?comp=...").
export function sign(account, key, target, date) {
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const comp = q < 0 ? null : new URLSearchParams(target.slice(q + 1)).get("comp");
  const resource = `/${account}${path}${comp !== null ? `?comp=${comp}` : ""}`;
  const sig = createHmac("sha256", Buffer.from(key, "base64")).update(`${date}\n${resource}`, "utf8")
    .digest("base64");
  return `SharedKeyLite ${account}:${sig}`;
}

// The bytes of one request. `target` is the full path ("/account/Tables?x=1"). `signAs`
// {account, key} signs it (default: the development account; null = unsigned). `headers` is a
// list of [name, value] pairs sent in order after the standard ones; `body` a string or Buffer
// (Content-Length is set for it unless `contentLength` says otherwise or `chunked`).
export function request(method, target, { body, headers = [], signAs = {}, contentLength,
                                          chunked = false, date = new Date().toUTCString(),
                                          id } = {}) {
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", `x-ms-date: ${date}`,
                 "x-ms-version: 2019-02-02", "Accept: application/json;odata=nometadata",
                 "DataServiceVersion: 3.0"];
  if (id !== undefined) lines.push(`x-ms-client-request-id: ${id}`);
  if (signAs !== null) {
    const account = signAs.account ?? DEV_ACCOUNT;
    const key = signAs.key ?? DEV_KEY;
    lines.push(`Authorization: ${sign(signAs.signer ?? account, key, target, date)}`);
  }
  const bodyBytes = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  if (body !== undefined || contentLength !== undefined || chunked) lines.push("Content-Type: application/json");
  if (chunked) {
    lines.push("Transfer-Encoding: chunked");
  } else if (contentLength !== undefined) {
    lines.push(`Content-Length: ${contentLength}`);
  } else if (body !== undefined) {
    lines.push(`Content-Length: ${bodyBytes.length}`);
  }
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return Buffer.concat([Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1"), bodyBytes]);
}

export const tablePath = (table, account = DEV_ACCOUNT) => `/${account}/${table}`;
export const entityPath = (table, pk, rk, account = DEV_ACCOUNT) =>
  `/${account}/${table}(PartitionKey='${encodeURIComponent(pk)}',RowKey='${encodeURIComponent(rk)}')`;

// ---- connections ------------------------------------------------------------------------------

// One client connection. Received bytes accumulate; responses are parsed from them on demand.
export class Conn {
  static async open(port, { ms = 5000 } = {}) {
    const conn = new Conn(net.connect({ host: "127.0.0.1", port }));
    await within(ms, conn.connected, `connecting to 127.0.0.1:${port}`);
    return conn;
  }

  constructor(socket) {
    this.socket = socket;
    this.buf = Buffer.alloc(0);
    this.received = 0;  // bytes ever received
    this.sent = 0;      // bytes handed to the kernel (write callbacks run)
    this.error = null;
    this.closedAt = null;  // performance.now() when the server's FIN or a reset arrived
    this.waiters = new Set();
    this.connected = new Promise((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    this.connected.catch(() => {});
    socket.setNoDelay(true);
    socket.on("data", (d) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      this.received += d.length;
      this.wake();
    });
    const closed = () => {
      if (this.closedAt === null) this.closedAt = performance.now();
      this.wake();
    };
    socket.on("end", closed);
    socket.on("close", closed);
    socket.on("error", (err) => {
      this.error = err;
      closed();
    });
  }

  wake() {
    for (const w of [...this.waiters]) w();
  }

  get closed() {
    return this.closedAt !== null;
  }

  // Resolves when `ready()` returns a value other than undefined, rejecting after `ms`.
  until(ready, ms, what) {
    let check;
    const settled = new Promise((resolve, reject) => {
      check = () => {
        let v;
        try {
          v = ready();
        } catch (err) {
          this.waiters.delete(check);
          reject(err);
          return;
        }
        if (v !== undefined) {
          this.waiters.delete(check);
          resolve(v);
        }
      };
      this.waiters.add(check);
      check();
    });
    return within(ms, settled, what).finally(() => this.waiters.delete(check));
  }

  // Writes `data`; resolves once the kernel has taken it (or the connection failed: `false`).
  write(data) {
    if (this.socket.destroyed || this.socket.writableEnded) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.socket.write(data, (err) => {
        if (!err) this.sent += data.length;
        resolve(!err);
      });
    });
  }

  // The next complete response (1xx included), removed from the buffer; fails after `ms` or if
  // the connection closes first.
  readResponse(ms = 5000, what = "a response") {
    return this.until(() => {
      const r = parseResponse(this.buf);
      if (r) {
        this.buf = this.buf.subarray(r.length);
        return r;
      }
      if (this.closed) {
        throw new Error(`connection closed before ${what} was complete; received: ` +
                        JSON.stringify(this.buf.toString("latin1").slice(0, 300)) +
                        (this.error ? ` (${this.error.code})` : ""));
      }
      return undefined;
    }, ms, what);
  }

  // Resolves with the time the server closed the connection (FIN or reset).
  waitClosed(ms, what = "the server closing the connection") {
    return this.until(() => (this.closed ? this.closedAt : undefined), ms, what);
  }

  destroy() {
    this.socket.destroy();
  }
}

// Parses one response at the start of `buf`; null when incomplete. The server always sends
// Content-Length; 1xx and 204/304 have no body.
export function parseResponse(buf) {
  const end = buf.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = buf.subarray(0, end).toString("latin1").split("\r\n");
  const m = head[0].match(/^HTTP\/1\.1 (\d{3}) ?(.*)$/);
  if (!m) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(head[0])}`);
  const status = Number(m[1]);
  const headers = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let bodyLength = 0;
  if (status >= 200 && status !== 204 && status !== 304) {
    if (headers["content-length"] === undefined) {
      throw new Error(`response ${status} has no Content-Length: ${head.join(" | ")}`);
    }
    bodyLength = Number(headers["content-length"]);
  }
  const total = end + 4 + bodyLength;
  if (buf.length < total) return null;
  const body = Buffer.from(buf.subarray(end + 4, total));
  return { status, reason: m[2], headers, body, text: body.toString("utf8"), length: total,
           head: buf.subarray(0, end).toString("latin1") };
}

// One request on a fresh connection; the response.
export async function exchange(port, bytes, ms = 5000) {
  const conn = await Conn.open(port);
  try {
    await conn.write(bytes);
    return await conn.readResponse(ms);
  } finally {
    conn.destroy();
  }
}

// Asserts that `r` is an Azure error: the status, the error code in both the x-ms-error-code
// header and the JSON body, a Content-Length that matches the body.
export function assertAzureError(assert, r, status, code, what = "") {
  const to = what ? ` (${what})` : "";
  assert.equal(r.status, status, `expected ${status} ${code}${to}, got ${r.status}: ${r.head}\n${r.text}`);
  assert.equal(r.headers["x-ms-error-code"], code, `${r.head}${to}`);
  assert.equal(Number(r.headers["content-length"]), r.body.length);
  let json;
  assert.doesNotThrow(() => (json = JSON.parse(r.text)), `the body is not JSON${to}: ${r.text}`);
  assert.equal(json["odata.error"]?.code, code, `${r.text}${to}`);
}

// Asserts that `r` is one of the contract's refusals: an Azure error with Connection: close
// (the caller checks that the server then closes).
export function assertRefusal(assert, r, status, code, what = "") {
  assertAzureError(assert, r, status, code, what);
  assert.equal(r.headers.connection?.toLowerCase(), "close",
               `Connection: close missing${what ? ` (${what})` : ""}: ${r.head}`);
}

// Creates `table` with a signed request; asserts 201 (or 204 with return-no-content).
export async function createTable(port, table, signAs = {}) {
  const account = signAs.account ?? DEV_ACCOUNT;
  const r = await exchange(port, request("POST", `/${account}/Tables`,
                                         { body: JSON.stringify({ TableName: table }), signAs }));
  if (r.status !== 201) throw new Error(`creating table ${table}: ${r.status} ${r.text}`);
}

// A signed GET of the table list answers 200: the server still serves.
export async function assertServes(assert, port, what = "after the attack") {
  const r = await exchange(port, request("GET", `/${DEV_ACCOUNT}/Tables`), 5000);
  assert.equal(r.status, 200, `the server does not serve ${what}: ${r.status} ${r.text}`);
}

export function freshDir() {
  return mkdtempSync(join(tmpdir(), "partkv-hostile-"));
}

// The server arguments under which a query of fillBigTable's table answers one page: a page's
// entities are bounded by --page-bytes (4 MiB by default), so it is raised above the table's size.
export const BIG_PAGE_ARGS = ["--page-bytes", String(64 * MiB)];

// Fills `table` with 200 entities of 120 KB (four 30,000-character strings), so that a query of
// the whole table answers one page of about 24 MiB (under BIG_PAGE_ARGS): more than the socket
// buffers hold.
export async function fillBigTable(port, table) {
  await createTable(port, table);
  const conn = await Conn.open(port);
  try {
    const filler = "x".repeat(30000);
    for (let i = 0; i < 200; i++) {
      const entity = { PartitionKey: "p", RowKey: String(i).padStart(4, "0"), a: filler, b: filler, c: filler, d: filler };
      await conn.write(request("POST", `/${DEV_ACCOUNT}/${table}`,
                               { body: JSON.stringify(entity), headers: [["Prefer", "return-no-content"]] }));
      const r = await conn.readResponse(5000, `inserting entity ${i}`);
      if (r.status !== 204) throw new Error(`inserting entity ${i}: ${r.status} ${r.text}`);
    }
  } finally {
    conn.destroy();
  }
}

// Sends a query of all of `table` on a new connection and stops reading after the first bytes of
// the reply; the connection, paused.
export async function stuckReader(port, table) {
  const reader = await Conn.open(port);
  await reader.write(request("GET", `/${DEV_ACCOUNT}/${table}()`));
  await reader.until(() => (reader.received > 0 ? true : undefined), 20000, "the first bytes of the query's reply");
  reader.socket.pause();
  return reader;
}

// After `reader` resumed and closed: asserts the reply was cut short, i.e. the client really
// held the server's write.
export function assertReplyCut(assert, reader) {
  const end = reader.buf.indexOf("\r\n\r\n");
  assert.ok(end > 0, "no header in the reply");
  const length = Number(reader.buf.subarray(0, end).toString("latin1").match(/content-length: (\d+)/i)[1]);
  assert.ok(length > 20 * MiB, `the reply is only ${length} bytes`);
  assert.ok(reader.received < end + 4 + length,
            "the whole reply fit in the socket buffers: the client never held the server's write");
}
