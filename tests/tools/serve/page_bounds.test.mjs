// A query page's bounds (docs/serve.md "Limits and timeouts"): by time (--scan-time-ms, 5 s by
// default, as Azure's service bounds a page) and by bytes (--page-bytes), never by rows examined.
// One store of 110,000 entities over 1,100 PartitionKeys is served three ways: with the defaults,
// a filter matching nothing answers in one page; with a 1 ms time bound, pages end early and every
// match still arrives once, in order; with a 1-byte bound, a page holds one entity.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, serviceClient, tableClient } from "./harness.mjs";

const kPartitions = 1100;
const kRows = 100;  // per PartitionKey: 110,000 entities
const kTable = "bounds";
let dir;

const isMatch = (n) => n % 1000 === 7;  // 110 of the 110,000

async function withServer(args, body) {
  const server = await startServer({ args, storeDir: join(dir, "store") });
  try {
    return await body(tableClient(server, kTable));
  } finally {
    assert.equal((await server.stop()).code, 0, server.stderr());
  }
}

// Pages of a query as the SDK follows them: their sizes and every entity's n.
async function pages(client, filter, select = ["n"]) {
  const sizes = [];
  const seen = [];
  for await (const page of client.listEntities({ queryOptions: { filter, select } }).byPage()) {
    sizes.push(page.length);
    seen.push(...page.map((e) => e.n));
  }
  return { sizes, seen };
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "partkv-serve-bounds-"));
  const server = await startServer({ storeDir: join(dir, "store") });
  try {
    await serviceClient(server).createTable(kTable);
    const client = tableClient(server, kTable);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < kPartitions) {
        const b = next++;
        const actions = [];
        for (let i = 0; i < kRows; i++) {
          const n = b * kRows + i;
          actions.push(["create", { partitionKey: `w${String(b).padStart(5, "0")}`,
                                    rowKey: String(i).padStart(4, "0"), n, flag: isMatch(n) ? "yes" : "no" }]);
        }
        await client.submitTransaction(actions);
      }
    }));
  } finally {
    assert.equal((await server.stop()).code, 0, server.stderr());
  }
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test("NoMatchFilterOver110000EntitiesAnswersInOnePage", async () => {
  // A bound of 100,000 rows examined would answer an empty page and a continuation first.
  await withServer([], async (client) => {
    const { sizes } = await pages(client, "flag eq 'never'");
    assert.deepEqual(sizes, [0]);
  });
});

test("ScanTimeMsEndsPagesEarlyAndEveryMatchStillArrivesOnce", async () => {
  await withServer(["--scan-time-ms", "1"], async (client) => {
    // 110,000 rows are not read in 1 ms: the query takes several pages, some of them empty.
    const { sizes, seen } = await pages(client, "flag eq 'yes'");
    assert.ok(sizes.length > 1, `one page of ${sizes[0]} under a 1 ms bound`);
    const expected = Array.from({ length: kPartitions * kRows }, (_, n) => n).filter(isMatch);
    assert.deepEqual(seen, expected);
  });
});

test("PageBytesEndsAPageAfterTheEntityThatReachesIt", async () => {
  await withServer(["--page-bytes", "1"], async (client) => {
    const { sizes, seen } = await pages(client, "PartitionKey eq 'w00003'");
    assert.ok(sizes.every((s) => s <= 1), `pages of ${sizes}`);
    assert.deepEqual(seen, Array.from({ length: kRows }, (_, i) => 3 * kRows + i));
  });
});
