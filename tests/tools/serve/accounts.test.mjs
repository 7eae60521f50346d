// Several accounts on one server (docs/serve.md "Accounts"): each has a store of its own, at
// DIR/NAME; one account's tables, entities and batches are out of every other account's reach,
// whichever key signs the request and whatever account a $batch sub-request names.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TableClient, TableServiceClient, AzureNamedKeyCredential } from "@azure/data-tables";
import { startServer, clientOptions, uniqueTable, failure } from "./harness.mjs";

const ALPHA = "alpha";
const BETA = "beta";
const ALPHA_KEY = randomBytes(32).toString("base64");
const BETA_KEY = randomBytes(32).toString("base64");

let server;
before(async () => {
  server = await startServer({
    args: ["--account", `${ALPHA}=${ALPHA_KEY}`, "--account", `${BETA}=${BETA_KEY}`],
  });
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

// harness.mjs's clients speak for the development account; these name their own.
function endpoint(account) {
  return `http://127.0.0.1:${server.port}/${account}`;
}
function services(account, key, signer = account) {
  return new TableServiceClient(endpoint(account), new AzureNamedKeyCredential(signer, key),
                                clientOptions);
}
function tables(account, key, table) {
  return new TableClient(endpoint(account), table, new AzureNamedKeyCredential(account, key),
                         clientOptions);
}
async function tableNames(client) {
  const names = [];
  for await (const t of client.listTables()) names.push(t.name);
  return names;
}
async function rows(client) {
  const out = [];
  for await (const e of client.listEntities()) out.push(`${e.partitionKey}/${e.rowKey}=${e.v}`);
  return out.sort();
}

// A request below the SDK, signed with SharedKeyLite for `account` (`path` is below it).
async function signed(account, key, method, path, { body, headers = {} } = {}) {
  const url = new URL(`${endpoint(account)}/${path}`);
  const date = new Date().toUTCString();
  const h = { "x-ms-date": date, "x-ms-version": "2019-02-02", ...headers };
  const sig = createHmac("sha256", Buffer.from(key, "base64"))
    .update(`${date}\n/${account}${url.pathname}`, "utf8")
    .digest("base64");
  h.Authorization = `SharedKeyLite ${account}:${sig}`;
  const res = await fetch(url, { method, headers: h, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// A $batch of beta's holding one sub-request for `target` (a URL, absolute or not).
async function betaBatch(target, { method = "GET", body } = {}) {
  const batch = `batch_${randomBytes(8).toString("hex")}`;
  const changeset = `changeset_${randomBytes(8).toString("hex")}`;
  const request =
    `${method} ${target} HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n` +
    (body ? `Content-Type: application/json\r\n` : "") + `\r\n${body ?? ""}\r\n`;
  const part = "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" + request;
  const payload =
    method === "GET"
      ? `--${batch}\r\n${part}--${batch}--\r\n`
      : `--${batch}\r\nContent-Type: multipart/mixed; boundary=${changeset}\r\n\r\n` +
        `--${changeset}\r\n${part}--${changeset}--\r\n--${batch}--\r\n`;
  return signed(BETA, BETA_KEY, "POST", "$batch", {
    body: payload,
    headers: { "Content-Type": `multipart/mixed; boundary=${batch}` },
  });
}

test("EachAccountHasItsOwnStoreBelowTheDirectory", async () => {
  await services(ALPHA, ALPHA_KEY).createTable(uniqueTable("layout"));
  assert.ok(existsSync(join(server.store, ALPHA, "CURRENT")), "DIR/alpha is a store");
  assert.ok(existsSync(join(server.store, BETA, "CURRENT")), "DIR/beta is a store");
  assert.ok(!existsSync(join(server.store, "CURRENT")), "DIR itself is not a store");
});

test("AlphasTablesAndEntitiesAreInvisibleAndUntouchableToBeta", async () => {
  const name = uniqueTable("alphaonly");
  await services(ALPHA, ALPHA_KEY).createTable(name);
  const alpha = tables(ALPHA, ALPHA_KEY, name);
  await alpha.createEntity({ partitionKey: "p", rowKey: "r", v: 1 });

  assert.ok((await tableNames(services(ALPHA, ALPHA_KEY))).includes(name));
  assert.ok(!(await tableNames(services(BETA, BETA_KEY))).includes(name));

  const beta = tables(BETA, BETA_KEY, name);
  const get = await failure(() => beta.getEntity("p", "r"));
  assert.equal(get.status, 404);
  assert.equal(get.code, "TableNotFound");
  const upsert = await failure(() => beta.upsertEntity({ partitionKey: "p", rowKey: "r", v: 2 }));
  assert.equal(upsert.status, 404);
  const del = await failure(() => beta.deleteEntity("p", "r"));
  assert.equal(del.status, 404);
  const batch = await failure(() =>
    beta.submitTransaction([["upsert", { partitionKey: "p", rowKey: "r", v: 3 }]]));
  assert.equal(batch.status, 404);
  // The SDK's deleteTable takes a 404 for success; the raw request shows it.
  const drop = await signed(BETA, BETA_KEY, "DELETE", `Tables('${name}')`);
  assert.equal(drop.status, 404);
  await services(BETA, BETA_KEY).deleteTable(name);

  assert.ok((await tableNames(services(ALPHA, ALPHA_KEY))).includes(name));
  assert.deepEqual(await rows(alpha), ["p/r=1"]);
});

test("BetaCreatesATableOfTheSameNameIndependently", async () => {
  const name = uniqueTable("shared");
  await services(ALPHA, ALPHA_KEY).createTable(name);
  await services(BETA, BETA_KEY).createTable(name);
  const alpha = tables(ALPHA, ALPHA_KEY, name);
  const beta = tables(BETA, BETA_KEY, name);
  await alpha.createEntity({ partitionKey: "p", rowKey: "a", v: 1 });
  await beta.createEntity({ partitionKey: "p", rowKey: "b", v: 2 });
  await beta.submitTransaction([["create", { partitionKey: "p", rowKey: "c", v: 3 }]]);
  assert.deepEqual(await rows(alpha), ["p/a=1"]);
  assert.deepEqual(await rows(beta), ["p/b=2", "p/c=3"]);

  await services(BETA, BETA_KEY).deleteTable(name);
  assert.deepEqual(await rows(alpha), ["p/a=1"]);
});

test("RequestToAlphaSignedWithBetasKeyIsRefused", async () => {
  // Signed as alpha with beta's key: the signature does not match.
  const wrongKey = await failure(() => tableNames(services(ALPHA, BETA_KEY)));
  assert.equal(wrongKey.status, 403);
  assert.equal(wrongKey.code, "AuthenticationFailed");
  // Signed as beta, correctly, but sent to alpha's path.
  const wrongSigner = await failure(() => tableNames(services(ALPHA, BETA_KEY, BETA)));
  assert.equal(wrongSigner.status, 403);
  assert.equal(wrongSigner.code, "AuthenticationFailed");
  // An account the server does not serve.
  const unknown = await signed("gamma", BETA_KEY, "GET", "Tables");
  assert.equal(unknown.status, 403);
});

test("BatchSubRequestsCannotNameAnotherAccount", async () => {
  const name = uniqueTable("batchiso");
  await services(ALPHA, ALPHA_KEY).createTable(name);
  await services(BETA, BETA_KEY).createTable(name);
  await tables(ALPHA, ALPHA_KEY, name).createEntity({ partitionKey: "p", rowKey: "r", v: 1 });
  const entity = `${name}(PartitionKey='p',RowKey='r')`;

  for (const target of [
    `${endpoint(ALPHA)}/${entity}`,                     // absolute URL of alpha's entity
    `http://alpha.table.core.windows.net/${entity}`,    // host-style: names no account of beta's
    `/${ALPHA}/${entity}`,                              // path only
    `/%61lpha/${entity}`,                               // percent-encoded account name
  ]) {
    const query = await betaBatch(target);
    assert.equal(query.status, 400, `query batch for ${target}: ${query.text}`);
    assert.match(query.text, /InvalidInput/);
    assert.doesNotMatch(query.text, /"v":1/);

    const write = await betaBatch(target, { method: "PUT", body: JSON.stringify({ v: 9 }) });
    assert.equal(write.status, 202, `changeset for ${target}`);
    assert.match(write.text, /HTTP\/1\.1 400 /, `changeset for ${target}: ${write.text}`);
  }
  // The same batches naming beta reach beta's own table.
  const own = await betaBatch(`${endpoint(BETA)}/${entity}`, { method: "PUT", body: JSON.stringify({ v: 2 }) });
  assert.equal(own.status, 202);
  assert.match(own.text, /HTTP\/1\.1 204 /);
  assert.deepEqual(await rows(tables(ALPHA, ALPHA_KEY, name)), ["p/r=1"]);
  assert.deepEqual(await rows(tables(BETA, BETA_KEY, name)), ["p/r=2"]);
});

test("SeveralAccountsRefuseADirectoryThatIsAStore", async () => {
  const dir = mkdtempSync(join(tmpdir(), "partkv-serve-accounts-"));
  try {
    const store = join(dir, "store");
    const single = await startServer({ storeDir: store });
    assert.equal((await single.stop()).code, 0);
    await assert.rejects(
      startServer({
        storeDir: store,
        args: ["--account", `${ALPHA}=${ALPHA_KEY}`, "--account", `${BETA}=${BETA_KEY}`],
      }),
      (err) => err.message.includes(`'${store}' is a partkv store`),
    );
    assert.ok(!existsSync(join(store, ALPHA)), "nothing was created below the store");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("AnAccountNameThatIsNotAzuresIsRefused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "partkv-serve-accounts-"));
  try {
    await assert.rejects(
      startServer({ storeDir: join(dir, "store"), args: ["--account", `../Alpha=${ALPHA_KEY}`] }),
      (err) => err.message.includes("account name '../Alpha'"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
