// Get/Set Table Service Properties through TableServiceClient and on the wire: Azure's defaults,
// what a Set keeps and replaces, Azure's canonical XML, its validation (400 InvalidXmlDocument,
// nothing changed), durability across a restart, and which SAS may read or set them.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { TableServiceClient, AzureSASCredential, generateAccountSas } from "@azure/data-tables";
import { startServer, serviceClient, failure, signedRequest, keyCredential,
         clientOptions } from "./harness.mjs";

let server;
let svc;
before(async () => {
  server = await startServer();
  svc = serviceClient(server);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

const BOM = "\uFEFF";
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const OFF = { version: "1.0", enabled: false, retentionPolicy: { enabled: false } };

// The properties as the SDK returns them, without the response's own headers and without the
// members the SDK sets to undefined for elements that are absent.
async function properties(client = svc) {
  const { logging, hourMetrics, minuteMetrics, cors } = await client.getProperties();
  return JSON.parse(JSON.stringify({ logging, hourMetrics, minuteMetrics, cors }));
}

// Runs first (node:test runs a file's tests in order): the server has never been set.
test("NeverSetPropertiesAreAzuresAnalyticsOff", async () => {
  assert.deepEqual(await properties(), {
    logging: { version: "1.0", delete: false, read: false, write: false, retentionPolicy: { enabled: false } },
    hourMetrics: OFF,
    minuteMetrics: OFF,
    cors: [],
  });
  // Byte for byte what Azure returns for such an account (recorded live responses).
  const r = await signedRequest(server, "GET", "?restype=service&comp=properties");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/xml");
  assert.equal(r.text, BOM + DECLARATION + "<StorageServiceProperties><Logging><Version>1.0</Version>" +
    "<Read>false</Read><Write>false</Write><Delete>false</Delete><RetentionPolicy><Enabled>false" +
    "</Enabled></RetentionPolicy></Logging><HourMetrics><Version>1.0</Version><Enabled>false</Enabled>" +
    "<RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics><MinuteMetrics>" +
    "<Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled>" +
    "</RetentionPolicy></MinuteMetrics><Cors /></StorageServiceProperties>");
});

test("SetPropertiesAreReturnedAndSurviveARestart", async () => {
  const wanted = {
    logging: { version: "1.0", delete: true, read: false, write: true, retentionPolicy: { enabled: true, days: 7 } },
    hourMetrics: { version: "1.0", enabled: true, includeAPIs: true, retentionPolicy: { enabled: true, days: 5 } },
    minuteMetrics: { version: "1.0", enabled: true, includeAPIs: false, retentionPolicy: { enabled: false } },
    cors: [
      { allowedOrigins: "www.xyz.com", allowedMethods: "GET", allowedHeaders: "", exposedHeaders: "",
        maxAgeInSeconds: 0 },
      { allowedOrigins: "www.xyz.com,www.ab.com", allowedMethods: "GET,PUT",
        allowedHeaders: "x-ms-meta-xyz,x-ms-meta-data*", exposedHeaders: "x-ms-meta-abc",
        maxAgeInSeconds: 500 },
    ],
  };
  const r = await svc.setProperties(wanted);
  assert.equal(r.requestId !== undefined, true);
  assert.deepEqual(await properties(), wanted);

  await server.stop({ keepStore: true });
  server = await startServer({ storeDir: server.store });
  svc = serviceClient(server);
  assert.deepEqual(await properties(), wanted);
});

test("OmittedElementsKeepTheirSettingsAndCorsIsReplacedWhole", async () => {
  const before = await properties();
  await svc.setProperties({ cors: [] });
  const after = await properties();
  assert.deepEqual(after, { ...before, cors: [] });
  await svc.setProperties({ minuteMetrics: OFF });
  assert.deepEqual(await properties(), { ...before, cors: [], minuteMetrics: OFF });
});

test("CanonicalFormOrdersRuleElementsAndPrefixedHeadersAsAzure", async () => {
  // Azure returns a CorsRule's methods before its origins, and the defined headers before the
  // prefixed ones (recorded live responses); disabled metrics lose IncludeAPIs and retention Days.
  const body = DECLARATION + "<StorageServiceProperties><HourMetrics><Version>1.0</Version>" +
    "<Enabled>false</Enabled><IncludeAPIs>true</IncludeAPIs><RetentionPolicy><Enabled>false</Enabled>" +
    "<Days>3</Days></RetentionPolicy></HourMetrics><Cors><CorsRule><AllowedOrigins>a.com, b.com" +
    "</AllowedOrigins><AllowedMethods>GET,MERGE</AllowedMethods><AllowedHeaders>x-ms-meta-data*," +
    "x-ms-meta-target*,x-ms-meta-xyz,x-ms-meta-foo</AllowedHeaders><ExposedHeaders /><MaxAgeInSeconds>" +
    "60</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>";
  const put = await signedRequest(server, "PUT", "?restype=service&comp=properties",
                                  { body, headers: { "Content-Type": "application/xml" } });
  assert.equal(put.status, 202, put.text);
  const r = await signedRequest(server, "GET", "?restype=service&comp=properties");
  assert.ok(r.text.includes("<HourMetrics><Version>1.0</Version><Enabled>false</Enabled>" +
                            "<RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics>"), r.text);
  assert.ok(r.text.includes("<Cors><CorsRule><AllowedMethods>GET,MERGE</AllowedMethods>" +
    "<AllowedOrigins>a.com,b.com</AllowedOrigins><AllowedHeaders>x-ms-meta-xyz,x-ms-meta-foo," +
    "x-ms-meta-data*,x-ms-meta-target*</AllowedHeaders><ExposedHeaders /><MaxAgeInSeconds>60" +
    "</MaxAgeInSeconds></CorsRule></Cors>"), r.text);
});

test("InvalidDocumentsAre400InvalidXmlDocumentAndChangeNothing", async () => {
  const before = await properties();
  const rule = { allowedOrigins: "www.xyz.com", allowedMethods: "GET", allowedHeaders: "",
                 exposedHeaders: "", maxAgeInSeconds: 0 };
  const bad = [
    { cors: Array(6).fill(rule) },  // at most 5 rules
    { minuteMetrics: { version: "1.0", enabled: true, includeAPIs: true, retentionPolicy: { enabled: true, days: 366 } } },
    { hourMetrics: { version: "1.0", enabled: true, includeAPIs: true, retentionPolicy: { enabled: true, days: 0 } } },
    { cors: [{ ...rule, allowedMethods: "GET,FETCH" }] },
    { cors: [{ ...rule, allowedOrigins: "" }] },
    { cors: [{ ...rule, allowedHeaders: "x-a*,x-b*,x-c*" }] },  // at most 2 prefixed headers
    { cors: [{ ...rule, allowedOrigins: "o".repeat(257) }] },
  ];
  for (const props of bad) {
    const f = await failure(() => svc.setProperties(props));
    assert.equal(f.status, 400, JSON.stringify(props));
    assert.equal(f.err.response.headers.get("x-ms-error-code"), "InvalidXmlDocument");
  }
  for (const body of ["<StorageServiceProperties><Logging>", "<Other/>",
                      "<StorageServiceProperties><Logging><Version>1.0</Version></Logging></StorageServiceProperties>",
                      "<StorageServiceProperties><HourMetrics><Version>2.0</Version><Enabled>false</Enabled>" +
                      "<RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics></StorageServiceProperties>",
                      '<!DOCTYPE x [<!ENTITY a "aaaa">]><StorageServiceProperties/>']) {
    const r = await signedRequest(server, "PUT", "?restype=service&comp=properties", { body });
    assert.equal(r.status, 400, body);
    assert.equal(r.headers.get("x-ms-error-code"), "InvalidXmlDocument");
    assert.equal(r.headers.get("content-type"), "application/xml");
    assert.match(r.text, /^<\?xml version="1\.0" encoding="utf-8"\?><m:error xmlns:m="http:\/\/schemas\.microsoft\.com\/ado\/2007\/08\/dataservices\/metadata"><m:code>InvalidXmlDocument<\/m:code><m:message xml:lang="en-US">XML specified is not syntactically valid\.\n/);
  }
  assert.deepEqual(await properties(), before);
});

test("OnlyAnAccountSasForTheServiceMayReadOrSetProperties", async () => {
  const hour = new Date(Date.now() + 3600 * 1000);
  const sasService = (token) =>
    new TableServiceClient(server.endpoint, new AzureSASCredential(token), clientOptions);
  const reader = sasService(generateAccountSas(keyCredential(), {
    expiresOn: hour, permissions: { query: true }, resourceTypes: "s" }));
  assert.deepEqual(await properties(reader), await properties());
  const f = await failure(() => reader.setProperties({ cors: [] }));
  assert.equal(f.status, 403);
  assert.equal(f.err.response.headers.get("x-ms-error-code"), "AuthorizationPermissionMismatch");

  const containers = sasService(generateAccountSas(keyCredential(), {
    expiresOn: hour, permissions: { query: true, write: true }, resourceTypes: "co" }));
  const g = await failure(() => containers.getProperties());
  assert.equal(g.status, 403);
  assert.equal(g.err.response.headers.get("x-ms-error-code"), "AuthorizationResourceTypeMismatch");

  const writer = sasService(generateAccountSas(keyCredential(), {
    expiresOn: hour, permissions: { write: true }, resourceTypes: "s" }));
  await writer.setProperties({ cors: [] });
});
