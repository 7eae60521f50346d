// Table ACLs (stored access policies) through TableClient.getAccessPolicy/setAccessPolicy and on
// the wire, and table SAS tokens that name a policy (generateTableSas with an identifier): the
// token takes its start, expiry and permissions from the policy as it is now, so changing the
// policy changes the token and removing it revokes the token.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TableClient, AzureSASCredential, generateTableSas } from "@azure/data-tables";
import { startServer, serviceClient, tableClient, uniqueTable, failure, keyCredential,
         signedRequest, clientOptions } from "./harness.mjs";

let server;
let table;
let owner;
before(async () => {
  server = await startServer();
  table = uniqueTable("acl");
  await serviceClient(server).createTable(table);
  owner = tableClient(server, table);
  await owner.createEntity({ partitionKey: "p", rowKey: "1", v: 1 });
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

const BOM = "\uFEFF";
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const inHours = (h) => new Date(Math.floor(Date.now() / 1000) * 1000 + h * 3600 * 1000);

function sasClient(token) {
  return new TableClient(server.endpoint, table, new AzureSASCredential(token), clientOptions);
}

function errorCodeOf(f) {
  return f.err.response?.headers.get("x-ms-error-code") ?? f.code;
}

test("AccessPoliciesAreSetAndReadBack", async () => {
  const start = new Date("2021-06-08T02:05:09Z");
  const expiry = new Date("2031-06-08T03:10:09Z");
  await owner.setAccessPolicy([
    { id: "reader", accessPolicy: { start, expiry, permission: "r" } },
    { id: "partial", accessPolicy: { permission: "raud" } },
    { id: "bare" },
  ]);
  assert.deepEqual(await owner.getAccessPolicy(), [
    { id: "reader", accessPolicy: { start, expiry, permission: "r" } },
    { id: "partial", accessPolicy: { permission: "raud" } },
    { id: "bare", accessPolicy: {} },
  ]);
  // As Azure writes it: times with 7 fractional digits, no AccessPolicy that says nothing.
  const r = await signedRequest(server, "GET", `${table}?comp=acl`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/xml");
  assert.equal(r.text, BOM + DECLARATION + "<SignedIdentifiers><SignedIdentifier><Id>reader</Id>" +
    "<AccessPolicy><Start>2021-06-08T02:05:09.0000000Z</Start><Expiry>2031-06-08T03:10:09.0000000Z" +
    "</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier><SignedIdentifier><Id>" +
    "partial</Id><AccessPolicy><Permission>raud</Permission></AccessPolicy></SignedIdentifier>" +
    "<SignedIdentifier><Id>bare</Id></SignedIdentifier></SignedIdentifiers>");

  await owner.setAccessPolicy([]);
  assert.deepEqual(await owner.getAccessPolicy(), []);
  const empty = await signedRequest(server, "GET", `${table}?comp=acl`);
  assert.equal(empty.text, BOM + DECLARATION + "<SignedIdentifiers />");
});

test("InvalidAclsAre400InvalidXmlDocumentAndChangeNothing", async () => {
  const kept = [{ id: "kept", accessPolicy: { permission: "r" } }];
  await owner.setAccessPolicy(kept);
  const bad = [
    ["six policies", ["a", "b", "c", "d", "e", "f"].map((id) => ({ id }))],
    ["an id of 65 characters", [{ id: "x".repeat(65) }]],
    ["an id given twice", [{ id: "same" }, { id: "same" }]],
    ["a write permission", [{ id: "w", accessPolicy: { permission: "w" } }]],
    ["a start after the expiry", [{ id: "late", accessPolicy: { start: inHours(2), expiry: inHours(1) } }]],
  ];
  for (const [what, acl] of bad) {
    const f = await failure(() => owner.setAccessPolicy(acl));
    assert.equal(f.status, 400, what);
    assert.equal(errorCodeOf(f), "InvalidXmlDocument", what);
  }
  const r = await signedRequest(server, "PUT", `${table}?comp=acl`, { body: "<SignedIdentifiers><SignedIdentifier>" });
  assert.equal(r.status, 400);
  assert.equal(r.headers.get("x-ms-error-code"), "InvalidXmlDocument");
  assert.match(r.text, /<m:code>InvalidXmlDocument<\/m:code>/);
  assert.deepEqual(await owner.getAccessPolicy(), [{ id: "kept", accessPolicy: { permission: "r" } }]);
});

test("AclOfAMissingTableIs404", async () => {
  const missing = tableClient(server, uniqueTable("nosuch"));
  assert.equal((await failure(() => missing.getAccessPolicy())).status, 404);
  assert.equal((await failure(() => missing.setAccessPolicy([]))).status, 404);
});

test("NoSasMayReadOrSetAnAcl", async () => {
  const all = sasClient(generateTableSas(table, keyCredential(), {
    permissions: { query: true, add: true, update: true, delete: true }, expiresOn: inHours(1) }));
  for (const call of [() => all.getAccessPolicy(), () => all.setAccessPolicy([])]) {
    const f = await failure(call);
    assert.equal(f.status, 403);
    assert.equal(errorCodeOf(f), "AuthorizationFailure");
  }
});

test("SasNamingAPolicyWorksUntilThePolicyIsRemoved", async () => {
  await owner.setAccessPolicy([{ id: "readers", accessPolicy: { expiry: inHours(1), permission: "r" } }]);
  const token = generateTableSas(table, keyCredential(), { identifier: "readers" });
  assert.match(token, /(^|&)si=readers(&|$)/);
  assert.doesNotMatch(token, /(^|&)(sp|se|st)=/);  // everything comes from the policy
  const reader = sasClient(token);
  assert.equal((await reader.getEntity("p", "1")).v, 1);
  // The policy's permissions, not more.
  const w = await failure(() => reader.createEntity({ partitionKey: "p", rowKey: "2" }));
  assert.equal(w.status, 403);
  assert.equal(errorCodeOf(w), "AuthorizationPermissionMismatch");

  // Changing the policy changes what the same token may do.
  await owner.setAccessPolicy([{ id: "readers", accessPolicy: { expiry: inHours(1), permission: "ra" } }]);
  await reader.createEntity({ partitionKey: "p", rowKey: "2" });

  // Removing it revokes the token.
  await owner.setAccessPolicy([]);
  const r = await failure(() => reader.getEntity("p", "1"));
  assert.equal(r.status, 403);
  assert.equal(errorCodeOf(r), "AuthenticationFailed");
});

test("SasNamingAnExpiredPolicyIsRefused", async () => {
  await owner.setAccessPolicy([
    { id: "old", accessPolicy: { start: inHours(-3), expiry: inHours(-2), permission: "r" } },
    { id: "later", accessPolicy: { start: inHours(2), expiry: inHours(3), permission: "r" } },
  ]);
  for (const id of ["old", "later"]) {
    const f = await failure(() => sasClient(generateTableSas(table, keyCredential(), { identifier: id })).getEntity("p", "1"));
    assert.equal(f.status, 403, id);
    assert.equal(errorCodeOf(f), "AuthenticationFailed", id);
  }
});

test("TokenAndPolicyMayEachGiveFieldsButNotTheSameOne", async () => {
  await owner.setAccessPolicy([
    { id: "perm", accessPolicy: { permission: "r" } },
    { id: "full", accessPolicy: { expiry: inHours(1), permission: "r" } },
  ]);
  // Expiry from the token, permissions from the policy.
  const split = sasClient(generateTableSas(table, keyCredential(), { identifier: "perm", expiresOn: inHours(1) }));
  assert.equal((await split.getEntity("p", "1")).v, 1);
  // Neither gives an expiry: not a valid signature.
  const noExpiry = await failure(() =>
    sasClient(generateTableSas(table, keyCredential(), { identifier: "perm" })).getEntity("p", "1"));
  assert.equal(noExpiry.status, 403);
  assert.equal(errorCodeOf(noExpiry), "AuthenticationFailed");
  // Both give permissions (and an expiry): Azure documents 400.
  const both = await failure(() => sasClient(generateTableSas(table, keyCredential(), {
    identifier: "full", permissions: { query: true }, expiresOn: inHours(1) })).getEntity("p", "1"));
  assert.equal(both.status, 400);
});

test("PoliciesSurviveARestartAndGoWithTheirTable", async () => {
  const policy = [{ id: "durable", accessPolicy: { expiry: new Date("2031-01-01T00:00:00Z"), permission: "rd" } }];
  await owner.setAccessPolicy(policy);
  await server.stop({ keepStore: true });
  server = await startServer({ storeDir: server.store });
  owner = tableClient(server, table);
  assert.deepEqual(await owner.getAccessPolicy(), policy);

  const svc = serviceClient(server);
  await svc.deleteTable(table);
  await svc.createTable(table);
  assert.deepEqual(await owner.getAccessPolicy(), []);
  await owner.createEntity({ partitionKey: "p", rowKey: "1", v: 1 });
});
