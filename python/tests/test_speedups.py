"""partkv._speedups (the optional C extension) against the pure-Python code it replaces: the same
objects read, the same properties written, the same exceptions raised. Skipped where the extension
is not in use (not built, or PARTKV_PYTHON_PURE=1); the rest of the suite runs both ways (CTest's
python.* and python_pure.* tests)."""

import math
import os
import uuid
from datetime import datetime, timedelta, timezone
from enum import Enum, IntEnum

import pytest

from partkv import EdmType, EntityProperty, TableEntity
from partkv import _codec
from partkv._lib import ffi, lib

UTC = timezone.utc

pytestmark = pytest.mark.skipif(not _codec.SPEEDUPS, reason="partkv._speedups is not in use")


def test_pure_switch_is_honoured():
    assert os.environ.get("PARTKV_PYTHON_PURE", "") in ("", "0")


class Colour(Enum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


class Text(str):
    pass


def _canonical(value):
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    extra = None
    if isinstance(value, datetime):
        extra = (value.tzinfo, getattr(value, "tables_service_value", None))
    if isinstance(value, uuid.UUID):
        extra = (value.int, value.is_safe)
    return (type(value), repr(value), extra)


def _same(a, b):
    assert type(a) is type(b)
    assert list(a.keys()) == list(b.keys())
    assert [_canonical(v) for v in a.values()] == [_canonical(v) for v in b.values()]
    assert a.metadata == b.metadata


SOURCES = [
    {"PartitionKey": "p", "RowKey": "r"},
    {"PartitionKey": "p", "RowKey": "r", "Text": "héllo ✓ 𝄞", "Empty": "", "Count": 42,
     "Neg": -2147483648, "Max": 2147483647, "Ratio": 2.5, "Nan": float("nan"),
     "Inf": float("-inf"), "Flag": True, "Off": False, "Id": uuid.UUID(int=(1 << 128) - 1),
     "Zero": uuid.UUID(int=0), "Big": EntityProperty(-(2 ** 63), EdmType.INT64),
     "Top": EntityProperty(2 ** 63 - 1, EdmType.INT64), "None": None,
     "When": datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC),
     "Min": datetime(1, 1, 1, tzinfo=UTC), "Last": datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
     "Blob": bytes(range(256)), "NoBytes": b"", "Timestamp": "x", "odata.etag": "y"},
    {"PartitionKey": "p", "RowKey": "r", "Big": 2 ** 40, "Enum": Colour.RED, "Level": Level.HIGH,
     "Sub": Text("s"), "Tuple": ("12", EdmType.INT64), "S": EntityProperty(5, EdmType.STRING),
     "Local": datetime(2020, 5, 6, 7, 8, 9), "East": datetime(2020, 5, 6, 7, 8, 9,
                                                             tzinfo=timezone(timedelta(hours=3))),
     "Arr": bytearray(b"ab"), "X": "12", "X@odata.type": "Edm.Int64"},
    {"PartitionKey": "p", "RowKey": "r", "Bad": "\udc80"},
    {"PartitionKey": "p", "RowKey": "r", "Bad": EntityProperty(2 ** 63, EdmType.INT64)},
    {"PartitionKey": "p", "RowKey": "r", "Bad": EntityProperty(True, EdmType.INT64)},
    {"PartitionKey": "p", "RowKey": "r", "Bad": object()},
    {"PartitionKey": "p", "RowKey": "r", 5: 1},
    {"PartitionKey": "p", "RowKey": "r", "Bad\udc80": 1},
    {"PartitionKey": 5, "RowKey": "r"},
    {"PartitionKey": "p\udc80", "RowKey": "r"},
    {"PartitionKey": "p"},
    {"RowKey": "r"},
    {"PartitionKey": None, "RowKey": "r"},
    {"PartitionKey": "p", "RowKey": "r", "A": 1, "Bad": 2 ** 31, "C": "c"},
    TableEntity({"PartitionKey": "p", "RowKey": "r", "T": "t"}),
    [("PartitionKey", "p")],
]


def _fill(fill, source, *flags):
    entity = lib.partkv_entity_create()
    try:
        fill(entity, source, *flags)
    except Exception as exc:  # noqa: BLE001
        outcome = (type(exc), str(exc))
    else:
        outcome = None
    read = _codec._py_entity_from_ptr(entity)
    lib.partkv_entity_destroy(entity)
    return outcome, read


@pytest.mark.parametrize("flags", [(), (False, False), (True, True, True)])
@pytest.mark.parametrize("index", range(len(SOURCES)))
def test_fill_entity_matches_pure(index, flags):
    source = SOURCES[index]
    native_outcome, native = _fill(_codec._native_fill_entity, source, *flags)
    pure_outcome, pure = _fill(_codec._py_fill_entity, source, *flags)
    assert native_outcome == pure_outcome
    _same(native, pure)


def test_read_entity_matches_pure():
    entity = lib.partkv_entity_create()
    try:
        _codec._py_fill_entity(entity, SOURCES[1])
        _codec._py_fill_entity(entity, {"PartitionKey": "p", "RowKey": "r", "Dt": datetime(
            2024, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)})
        lib.partkv_entity_set_etag(entity, b"W/\"1\"", 5)
        lib.partkv_entity_set_timestamp(entity, 638400000001234567)
        native = _codec._native_entity_from_ptr(entity)
        pure = _codec._py_entity_from_ptr(entity)
        _same(native, pure)
        assert native["When"].tables_service_value == "2024-01-02T03:04:05.123456Z"
        assert native["Id"] == uuid.UUID(int=(1 << 128) - 1)
        assert native["Id"].bytes == pure["Id"].bytes and hash(native["Id"]) == hash(pure["Id"])
    finally:
        lib.partkv_entity_destroy(entity)


@pytest.mark.parametrize("select", [None, ["Count"], ["RowKey", "Missing", "Timestamp", "Count"],
                                    ["Text", "Text"], []])
def test_pages_match_pure(table, monkeypatch, select):
    for n in range(30):
        source = dict(SOURCES[1], RowKey="r%03d" % n, Count=n)
        if n % 3:
            del source["Text"]
        table.create_entity(source)
    pages = []

    def both(page, length, select=None):
        native = _codec._native_read_page(page, length, select)
        pure = _codec._py_read_page(page, length, select)
        assert len(native) == len(pure)
        for a, b in zip(native, pure):
            _same(a, b)
        pages.append(len(native))
        return native

    monkeypatch.setattr(_codec, "read_page", both)
    got = list(table.list_entities(results_per_page=7, select=select))
    assert len(got) == 30 and sum(pages) == 30 and len(pages) >= 5
