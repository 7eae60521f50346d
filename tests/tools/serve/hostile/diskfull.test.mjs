// A write the disk refuses (the store's files may not grow past RLIMIT_FSIZE: with SIGXFSZ
// ignored, such writes fail with EFBIG, as on a full disk) is answered 5xx, and neither the
// answer's body nor its header fields name a path of the server: not the store, not its parent.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Conn, createTable, request, startServer, tablePath } from "./wire.mjs";

const kFileLimit = 1 << 20;

test("FullDiskIs5xxWithoutServerPaths", async () => {
  const server = await startServer({
    wrap: (argv) => ["bash", ["-c", `trap '' XFSZ; exec prlimit --fsize=${kFileLimit} "$@"`, "bash", ...argv]],
  });
  try {
    await createTable(server.port, "filling");
    const conn = await Conn.open(server.port);
    const filler = "f".repeat(30000);
    let failed = null;
    // At most four times what the file limit holds: a store that never fails is a failure.
    const attempts = Math.ceil((4 * kFileLimit) / filler.length);
    for (let i = 0; i < attempts && failed === null; i++) {
      await conn.write(request("POST", tablePath("filling"), {
        body: JSON.stringify({ PartitionKey: "p", RowKey: String(i).padStart(5, "0"), s: filler }),
        headers: [["Prefer", "return-no-content"]],
      }));
      const r = await conn.readResponse(10000, `the answer to write ${i}`);
      if (r.status !== 204) failed = { i, r };
    }
    conn.destroy();
    assert.ok(failed, `${attempts} writes of 30 KB each succeeded under a ${kFileLimit}-byte file limit`);
    const { i, r } = failed;
    assert.ok(r.status >= 500 && r.status < 600, `write ${i} failed with ${r.status}, not 5xx: ${r.text}`);
    assert.ok(r.headers["x-ms-error-code"], `no x-ms-error-code: ${r.head}`);
    for (const path of [server.store, server.dir]) {
      assert.ok(!r.text.includes(path), `the body names ${path}: ${r.text}`);
      assert.ok(!r.head.includes(path), `the header names ${path}: ${r.head}`);
    }
    assert.doesNotMatch(r.text + r.head, /\/tmp\/|\.log\b|\.sst\b|MANIFEST/, "the answer names a file");
  } finally {
    // The store may not close cleanly on a full disk; the process must still exit.
    await server.stop();
  }
});
