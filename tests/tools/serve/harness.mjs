// Starts and stops `partkv serve` for the tests: one server per test file, on a free loopback
// port (--port 0), over a store in a fresh temporary directory. The server's "listening" line
// says when it is ready; no test sleeps to wait for it.

import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient, TableServiceClient, AzureNamedKeyCredential } from "@azure/data-tables";

export const DEV_ACCOUNT = "devstoreaccount1";
export const DEV_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

const live = new Set();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

function binary() {
  const bin = process.env.PARTKV_BIN;
  if (!bin) throw new Error("PARTKV_BIN must name the partkv binary");
  return bin;
}

// Starts a server; resolves once it prints its listening line (or rejects within 60 s).
export async function startServer({ args = [], storeDir } = {}) {
  const dir = storeDir ? null : mkdtempSync(join(tmpdir(), "partkv-serve-test-"));
  const store = storeDir ?? join(dir, "store");
  const child = spawn(binary(), ["serve", "--store", store, "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const port = await new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no listening line within 60 s; stderr: ${stderr}`)), 60000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`partkv serve exited with ${code} before listening: ${stderr}`));
    });
  });
  const endpoint = `http://127.0.0.1:${port}/${DEV_ACCOUNT}`;
  const server = {
    port,
    endpoint,
    store,
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};` +
      `TableEndpoint=${endpoint};`,
    stderr: () => stderr,
    // SIGTERM, then the exit status (0 = clean shutdown).
    async stop({ keepStore = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const result = await exited;
      live.delete(child);
      if (dir && !keepStore) rmSync(dir, { recursive: true, force: true });
      return result;
    },
    removeStore() {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

// No retries: a test that provokes an error sees it at once.
export const clientOptions = { allowInsecureConnection: true, retryOptions: { maxRetries: 0 } };

export function serviceClient(server) {
  return TableServiceClient.fromConnectionString(server.connectionString, clientOptions);
}

export function tableClient(server, table) {
  return TableClient.fromConnectionString(server.connectionString, table, clientOptions);
}

export function keyCredential() {
  return new AzureNamedKeyCredential(DEV_ACCOUNT, DEV_KEY);
}

let counter = 0;
// A table name unique within the test run.
export function uniqueTable(prefix = "t") {
  counter += 1;
  return `${prefix}${process.pid}x${counter}`;
}

// The Azure error code of a failed SDK call: RestError.code where the SDK sets it (transactions),
// else the odata.error body it parsed.
export function errorCode(err) {
  return err.code ?? err.response?.parsedBody?.odataError?.code;
}

// Runs `fn`, which must fail; returns {status, code, message}.
export async function failure(fn) {
  try {
    await fn();
  } catch (err) {
    return { status: err.statusCode, code: errorCode(err), message: err.message, err };
  }
  throw new Error("the call succeeded but was expected to fail");
}

// Sends a request below the SDK, signed with SharedKeyLite for the development account (the
// canonicalized resource is /account + the path + ?comp= when the query has one). `path` is
// below the account and may carry a query ("mytable?comp=acl"). Returns {status, headers, text}.
export async function signedRequest(server, method, path, { body, headers = {} } = {}) {
  const url = new URL(`http://127.0.0.1:${server.port}/${DEV_ACCOUNT}/${path}`);
  const date = new Date().toUTCString();
  const h = { "x-ms-date": date, "x-ms-version": "2019-02-02", ...headers };
  const comp = url.searchParams.get("comp");
  const resource = `/${DEV_ACCOUNT}${url.pathname}${comp !== null ? `?comp=${comp}` : ""}`;
  const sig = createHmac("sha256", Buffer.from(DEV_KEY, "base64"))
    .update(`${date}\n${resource}`, "utf8")
    .digest("base64");
  h.Authorization = `SharedKeyLite ${DEV_ACCOUNT}:${sig}`;
  const res = await fetch(url, { method, headers: h, body });
  // The raw bytes: a byte order mark must not be lost to text decoding.
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString("utf8") };
}
