// Every EDM type round-tripped through the SDK: written, read back by point read and by query,
// with the exact wire values (disableTypeConversion shows what the server sent).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { odata } from "@azure/data-tables";
import { startServer, serviceClient, tableClient, uniqueTable, failure } from "./harness.mjs";

let server;
let client;
before(async () => {
  server = await startServer();
  const table = uniqueTable("types");
  await serviceClient(server).createTable(table);
  client = tableClient(server, table);
});
after(async () => {
  assert.equal((await server.stop()).code, 0);
});

const guid = "c9da6455-213d-42c9-9a79-3e9149a57833";
const entity = {
  partitionKey: "types",
  rowKey: "all",
  str: "héllo \"quoted\" \n line",
  int32: -2147483648,
  int64: { value: "-9223372036854775808", type: "Int64" },
  bigint: 9007199254740993n,
  dt: { value: "2013-08-22T01:12:06.2608595Z", type: "DateTime" },
  dtMin: { value: "1601-01-01T00:00:00.0000000Z", type: "DateTime" },
  dtFraction: { value: "2020-09-17T00:00:00.99999Z", type: "DateTime" },
  dtTenth: { value: "2020-09-17T00:00:00.1000000Z", type: "DateTime" },
  guid: { value: guid, type: "Guid" },
  bin: new Uint8Array([0, 1, 2, 253, 254, 255]),
  emptyBin: new Uint8Array([]),
  bool: true,
  dbl: 0.1,
  dblIntegral: { value: 3, type: "Double" },
  dblMax: 1.7976931348623157e308,
  dblTiny: 5e-324,
  dblNeg: -2.5e-10,
  nan: { value: "NaN", type: "Double" },
  inf: { value: "Infinity", type: "Double" },
  ninf: { value: "-Infinity", type: "Double" },
  // A Double sent as a string, as the SDK sends a value that JavaScript numbers cannot carry.
  dblString: { value: "1.23456789012346e+24", type: "Double" },
  dblStringDecimal: { value: "-0.5", type: "Double" },
};

test("EveryEdmTypeRoundTripsExactly", async () => {
  await client.createEntity(entity);
  for (const read of [
    () => client.getEntity("types", "all", { disableTypeConversion: true }),
    async () => {
      for await (const e of client.listEntities({
        queryOptions: { filter: odata`PartitionKey eq 'types'` },
        disableTypeConversion: true,
      })) return e;
    },
  ]) {
    const got = await read();
    assert.equal(got.str.value, entity.str);
    assert.deepEqual(got.int32, { value: "-2147483648", type: "Int32" });
    assert.deepEqual(got.int64, { value: "-9223372036854775808", type: "Int64" });
    assert.deepEqual(got.bigint, { value: "9007199254740993", type: "Int64" });
    assert.deepEqual(got.dt, { value: "2013-08-22T01:12:06.2608595Z", type: "DateTime" });
    // As Azure returns a DateTime: the fraction without its trailing zeros, none for a whole
    // second (the value is the same instant).
    assert.deepEqual(got.dtMin, { value: "1601-01-01T00:00:00Z", type: "DateTime" });
    assert.deepEqual(got.dtFraction, { value: "2020-09-17T00:00:00.99999Z", type: "DateTime" });
    assert.deepEqual(got.dtTenth, { value: "2020-09-17T00:00:00.1Z", type: "DateTime" });
    // Timestamp keeps its 7 digits, as in Azure's responses.
    assert.match(got.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/);
    assert.deepEqual(got.guid, { value: guid, type: "Guid" });
    assert.deepEqual(got.bin, { value: "AAEC/f7/", type: "Binary" });
    assert.deepEqual(got.bool, { value: "true", type: "Boolean" });
    assert.equal(Number(got.dbl.value), 0.1);
    assert.equal(got.dblIntegral.type, "Double");
    assert.equal(Number(got.dblIntegral.value), 3);
    assert.equal(Number(got.dblMax.value), 1.7976931348623157e308);
    assert.equal(Number(got.dblTiny.value), 5e-324);
    assert.equal(Number(got.dblNeg.value), -2.5e-10);
    assert.deepEqual(got.nan, { value: "NaN", type: "Double" });
    assert.deepEqual(got.inf, { value: "Infinity", type: "Double" });
    assert.deepEqual(got.ninf, { value: "-Infinity", type: "Double" });
    assert.equal(got.dblString.type, "Double");
    assert.equal(Number(got.dblString.value), 1.23456789012346e24);
    assert.equal(got.dblStringDecimal.type, "Double");
    assert.equal(Number(got.dblStringDecimal.value), -0.5);
  }
});

test("DoubleStringThatIsNoNumberIs400NamingTheProperty", async () => {
  const f = await failure(() =>
    client.createEntity({ partitionKey: "types", rowKey: "bad", amount: { value: "12,5", type: "Double" } }));
  assert.equal(f.status, 400);
  assert.equal(f.code, "InvalidInput");
  assert.match(f.message, /property 'amount': Edm\.Double value must be a number/);
  assert.equal((await failure(() => client.getEntity("types", "bad"))).status, 404);
});

test("TypedValuesComeBackAsSdkTypes", async () => {
  await client.upsertEntity({ ...entity, rowKey: "sdk" }, "Replace");
  const got = await client.getEntity("types", "sdk");
  assert.equal(got.bigint, 9007199254740993n);
  assert.ok(Buffer.from(got.bin).equals(Buffer.from([0, 1, 2, 253, 254, 255])));
  assert.equal(got.int32, -2147483648);
  assert.equal(got.bool, true);
});
