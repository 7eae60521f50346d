"""The Python half of partkv-python-bench (python_bench.cc embeds the interpreter and calls it).

Three workloads over the same entities, each in its own fresh directory:

  * TablesWorkload: an azure-data-tables-style package (partkv's, or any module with the same
    API such as python/tests/fake_azure_tables.py): submit_transaction batches of 100 "create"
    operations on dict entities, and list_entities(results_per_page=1000).by_page() paging that
    touches every property of every entity.
  * LmdbWorkload (Debian's python3-lmdb) and PlyvelWorkload (python3-plyvel, LevelDB): the same
    entities serialised as JSON under b"PartitionKey\\0RowKey", written in batches of 100 (one
    write transaction / one WriteBatch each) and read back by one ordered scan that decodes each
    value and touches every property.

The entities are those of bench/bench_common.cc's MakeEntity(n), value for value: PartitionKey
"device-%05d" of n // 100, RowKey "%012d" of n, and 8 typed properties (Active Boolean, Count Int32,
DeviceId Guid, Location and Notes String, Reading Double, Sequence Int64, Updated DateTime).

Timing: only the calls under test are timed (time.perf_counter around each submit_transaction,
each page fetched and walked, each write transaction with its JSON encoding, the scan with its
decoding); building the entities is not. Every method returns the seconds it timed, so the C++
driver can interleave its own chunks with these and compare rates measured in the same moments.
"""

import datetime as _dt
import json
import os
import time
import uuid

ENTITIES_PER_PARTITION_KEY = 100
_MASK = (1 << 64) - 1
_WORDS = ("ok", "warm", "cold", "door", "open", "fan", "idle", "busy", "reset", "low", "high",
          "net", "lamp", "beep", "fine", "check", "sync", "delay", "dust", "soft")
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


def _mix(x):
    """splitmix64, as bench_common.cc's Mix."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _notes(seed):
    out = ""
    while len(out) < 30:
        seed = _mix(seed)
        if out:
            out += " "
        out += _WORDS[seed % len(_WORDS)]
    return out[:30]


def make_entity(n, sdk):
    """bench_common.cc's MakeEntity(n) as a dict for an azure-data-tables-style package."""
    r = _mix(n)
    g0 = _mix(r)
    g1 = _mix(g0)
    guid = bytes(((g0 >> (8 * i)) & 0xFF) for i in range(8)) + bytes(((g1 >> (8 * i)) & 0xFF) for i in range(8))
    return {
        "PartitionKey": "device-%05d" % (n // ENTITIES_PER_PARTITION_KEY),
        "RowKey": "%012d" % n,
        "Active": (r & 1) != 0,
        "Count": r % 100000,
        "DeviceId": uuid.UUID(bytes=guid),
        "Location": "building-%03d/floor-%02d/room-%04d/r%02d" % (r % 997, (r >> 10) % 60, (r >> 16) % 9973, (r >> 30) % 97),
        "Notes": _notes(r),
        "Reading": (r % 1000003) / 1000.0,
        "Sequence": sdk.EntityProperty(n, sdk.EdmType.INT64),
        "Updated": _EPOCH + _dt.timedelta(microseconds=1_700_000_000_000_000 + n * 1000),
    }


class _PlainTypes:
    """EntityProperty/EdmType stand-ins for the key-value workloads (no SDK there)."""

    class EdmType:
        INT64 = "Edm.Int64"

    @staticmethod
    def EntityProperty(value, edm_type):  # noqa: N802 (the SDK's name)
        return value


def _to_json(entity):
    """An entity as JSON text: what an app storing dicts in a key-value store writes."""
    return json.dumps({
        "PartitionKey": entity["PartitionKey"], "RowKey": entity["RowKey"],
        "Active": entity["Active"], "Count": entity["Count"], "DeviceId": str(entity["DeviceId"]),
        "Location": entity["Location"], "Notes": entity["Notes"], "Reading": entity["Reading"],
        "Sequence": entity["Sequence"], "Updated": entity["Updated"].isoformat(),
    }, separators=(",", ":")).encode()


def _key(entity):
    return (entity["PartitionKey"] + "\0" + entity["RowKey"]).encode()


def _touch(entity):
    """Reads every property value of an entity; returns how many there were."""
    touched = 0
    for value in entity.values():
        if value is not None:
            touched += 1
    return touched


def entity_json_bytes(n=0):
    """The size of entity n as the key-value workloads store it (key, JSON value)."""
    e = make_entity(n, _PlainTypes)
    return len(_key(e)), len(_to_json(e))


class TablesWorkload:
    """One table of an azure-data-tables-style package in a fresh location."""

    def __init__(self, sdk, location, table_name="Bench"):
        self.sdk = sdk
        self.service = sdk.TableServiceClient(location)
        self.table = self.service.create_table(table_name)
        self.pages = None
        self.written = 0
        self.read = 0
        self.touched = 0
        self.page_count = 0

    def write_batches(self, first_batch, count):
        """Batches first_batch .. first_batch+count-1 (100 creates each); the seconds inside
        submit_transaction."""
        seconds = 0.0
        for b in range(first_batch, first_batch + count):
            ops = [("create", make_entity(n, self.sdk))
                   for n in range(b * ENTITIES_PER_PARTITION_KEY, (b + 1) * ENTITIES_PER_PARTITION_KEY)]
            start = time.perf_counter()
            self.table.submit_transaction(ops)
            seconds += time.perf_counter() - start
            self.written += len(ops)
        return seconds

    def start_paging(self, page_size=1000):
        self.pages = self.table.list_entities(results_per_page=page_size).by_page()

    def read_pages(self, count):
        """Up to `count` more pages, every property of every entity touched; (seconds, entities,
        done)."""
        seconds = 0.0
        entities = 0
        for _ in range(count):
            start = time.perf_counter()
            page = next(self.pages, None)
            if page is None:
                seconds += time.perf_counter() - start
                self.read += entities
                return seconds, entities, True
            for entity in page:
                self.touched += _touch(entity)
                entities += 1
            seconds += time.perf_counter() - start
            self.page_count += 1
        self.read += entities
        return seconds, entities, False

    def close(self):
        self.pages = None
        self.table = None
        close = getattr(self.service, "close", None)
        if close:
            close()
        self.service = None


class LmdbWorkload:
    """python3-lmdb: one write transaction per batch of 100; one cursor scan."""

    name = "python3-lmdb"

    def __init__(self, directory, map_size=1 << 30):
        import lmdb  # noqa: WPS433 (imported where used: a missing package fails only this workload)
        os.makedirs(directory, exist_ok=True)
        # sync=False: like partkv's default writes (and plyvel's), no fsync per commit.
        self.env = lmdb.open(directory, map_size=map_size, sync=False, metasync=False)
        self.touched = 0

    def write_batches(self, first_batch, count):
        seconds = 0.0
        for b in range(first_batch, first_batch + count):
            batch = [make_entity(n, _PlainTypes)
                     for n in range(b * ENTITIES_PER_PARTITION_KEY, (b + 1) * ENTITIES_PER_PARTITION_KEY)]
            start = time.perf_counter()
            with self.env.begin(write=True) as txn:
                for entity in batch:
                    txn.put(_key(entity), _to_json(entity))
            seconds += time.perf_counter() - start
        return seconds

    def scan(self):
        """(seconds, entities) of one ordered scan decoding every value."""
        entities = 0
        start = time.perf_counter()
        with self.env.begin() as txn:
            for _, value in txn.cursor():
                self.touched += _touch(json.loads(value))
                entities += 1
        return time.perf_counter() - start, entities

    def close(self):
        self.env.close()


class PlyvelWorkload:
    """python3-plyvel (LevelDB): one WriteBatch per batch of 100; one iterator scan."""

    name = "python3-plyvel"

    def __init__(self, directory):
        import plyvel  # noqa: WPS433
        self.db = plyvel.DB(directory, create_if_missing=True, error_if_exists=True)
        self.touched = 0

    def write_batches(self, first_batch, count):
        seconds = 0.0
        for b in range(first_batch, first_batch + count):
            batch = [make_entity(n, _PlainTypes)
                     for n in range(b * ENTITIES_PER_PARTITION_KEY, (b + 1) * ENTITIES_PER_PARTITION_KEY)]
            start = time.perf_counter()
            with self.db.write_batch() as wb:
                for entity in batch:
                    wb.put(_key(entity), _to_json(entity))
            seconds += time.perf_counter() - start
        return seconds

    def scan(self):
        entities = 0
        start = time.perf_counter()
        for _, value in self.db.iterator():
            self.touched += _touch(json.loads(value))
            entities += 1
        return time.perf_counter() - start, entities

    def close(self):
        self.db.close()


def versions():
    """name -> version text of the Python side's packages (those importable)."""
    import sys
    out = {"python": sys.version.split()[0]}
    try:
        import lmdb
        out["python3-lmdb"] = "{} (LMDB {})".format(lmdb.__version__, ".".join(map(str, lmdb.version())))
    except Exception as error:  # pylint: disable=broad-except
        out["python3-lmdb"] = "not importable: {}".format(error)
    try:
        import plyvel
        out["python3-plyvel"] = "{} (LevelDB {}.{})".format(plyvel.__version__, *plyvel.__leveldb_version__.split(".")[:2]) \
            if hasattr(plyvel, "__leveldb_version__") else plyvel.__version__
    except Exception as error:  # pylint: disable=broad-except
        out["python3-plyvel"] = "not importable: {}".format(error)
    try:
        import cffi
        out["cffi"] = cffi.__version__
    except Exception:  # pylint: disable=broad-except
        pass
    return out


if __name__ == "__main__":
    # A smoke run against the fake SDK and the key-value stores (no partkv, no C++):
    #   python3 bench/python/workload.py [entities]
    import sys
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "python", "tests"))
    import fake_azure_tables as fake
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    batches = count // ENTITIES_PER_PARTITION_KEY
    with tempfile.TemporaryDirectory() as tmp:
        w = TablesWorkload(fake, os.path.join(tmp, "fake"))
        s = w.write_batches(0, batches)
        w.start_paging()
        r, n, _ = w.read_pages(10 ** 9)
        print("fake SDK: writes {:.0f}/s, paging {:.0f}/s ({} entities, {} pages)".format(count / s, n / r, n, w.page_count))
        for cls, sub in ((LmdbWorkload, "lmdb"), (PlyvelWorkload, "plyvel")):
            kv = cls(os.path.join(tmp, sub))
            s = kv.write_batches(0, batches)
            r, n = kv.scan()
            kv.close()
            print("{}: writes {:.0f}/s, scan {:.0f}/s ({} entities)".format(cls.name, count / s, n / r, n))
    print(versions(), entity_json_bytes())
