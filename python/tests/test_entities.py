"""Entities of every EDM type round-trip through a table with the SDK's Python types."""

import math
import uuid
from datetime import datetime, timedelta, timezone
from enum import Enum

import pytest

import partkv
from partkv import EdmType, EntityProperty, TableEntity, TablesEntityDatetime

UTC = timezone.utc


def roundtrip(table, props, pk="p", rk="r"):
    entity = dict(props, PartitionKey=pk, RowKey=rk)
    table.create_entity(entity)
    return table.get_entity(pk, rk)


def test_every_type_round_trips(table):
    guid = uuid.UUID("c9da6455-213d-42c9-9a79-3e9149a57833")
    when = datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    got = roundtrip(table, {
        "Text": "héllo wörld ✓ 𝄞", "Blob": bytes(range(256)), "Flag": True, "Off": False,
        "When": when, "Ratio": 2.5, "Whole": 3.0, "Id": guid, "Count": 42,
        "Big": EntityProperty(9007199254740993, EdmType.INT64), "Empty": "", "NoBytes": b"",
    })
    assert isinstance(got, TableEntity)
    assert got["PartitionKey"] == "p" and got["RowKey"] == "r"
    assert got["Text"] == "héllo wörld ✓ 𝄞"
    assert got["Blob"] == bytes(range(256)) and type(got["Blob"]) is bytes
    assert got["Flag"] is True and got["Off"] is False
    assert got["When"] == when and isinstance(got["When"], TablesEntityDatetime)
    assert got["Ratio"] == 2.5 and type(got["Whole"]) is float and got["Whole"] == 3.0
    assert got["Id"] == guid and isinstance(got["Id"], uuid.UUID)
    assert got["Count"] == 42 and type(got["Count"]) is int
    assert got["Big"] == EntityProperty(9007199254740993, EdmType.INT64)
    assert got["Empty"] == "" and got["NoBytes"] == b""
    assert "Timestamp" not in got and "odata.etag" not in got


def test_int64_extremes(table):
    lo, hi = -(2 ** 63), 2 ** 63 - 1
    got = roundtrip(table, {"Lo": EntityProperty(lo, EdmType.INT64), "Hi": (hi, "Edm.Int64"),
                            "Zero": EntityProperty(0, EdmType.INT64)})
    assert got["Lo"] == EntityProperty(lo, EdmType.INT64)
    assert got["Hi"].value == hi and got["Hi"].edm_type is EdmType.INT64
    assert got["Zero"].value == 0
    # Read back and written again: the type stays Int64.
    table.upsert_entity(got, mode=partkv.UpdateMode.REPLACE)
    assert table.get_entity("p", "r")["Hi"] == EntityProperty(hi, EdmType.INT64)


def test_int32_extremes_and_plain_ints_beyond_them(table):
    got = roundtrip(table, {"Lo": -(2 ** 31), "Hi": 2 ** 31 - 1})
    assert got["Lo"] == -(2 ** 31) and got["Hi"] == 2 ** 31 - 1
    # As azure-data-tables: a Python int maps to Int32; a larger one needs EntityProperty(INT64).
    with pytest.raises(TypeError, match="Int32.*'Huge'"):
        table.create_entity({"PartitionKey": "p", "RowKey": "x", "Huge": 2 ** 31})
    with pytest.raises(ValueError):
        table.create_entity({"PartitionKey": "p", "RowKey": "x", "Huge": -(2 ** 31) - 1})
    with pytest.raises(TypeError, match="Int64"):
        table.create_entity({"PartitionKey": "p", "RowKey": "x",
                             "Huge": EntityProperty(2 ** 63, EdmType.INT64)})
    with pytest.raises(partkv.ResourceNotFoundError):
        table.get_entity("p", "x")


def test_datetime_keeps_100ns_ticks(table):
    table.create_entity({"PartitionKey": "p", "RowKey": "r",
                         "T": EntityProperty("2020-09-17T00:00:00.1234567Z", EdmType.DATETIME),
                         "Trimmed": EntityProperty("2020-09-17T00:00:00.99999Z", EdmType.DATETIME),
                         "Min": EntityProperty("0001-01-01T00:00:00Z", EdmType.DATETIME),
                         "Max": EntityProperty("9999-12-31T23:59:59.9999999Z", EdmType.DATETIME)})
    got = table.get_entity("p", "r")
    t = got["T"]
    assert isinstance(t, TablesEntityDatetime) and t.tzinfo is not None
    assert t.tables_service_value == "2020-09-17T00:00:00.1234567Z"
    assert t == datetime(2020, 9, 17, 0, 0, 0, 123456, tzinfo=UTC)
    assert got["Trimmed"].tables_service_value == "2020-09-17T00:00:00.99999Z"
    assert got["Min"] == datetime(1, 1, 1, tzinfo=UTC)
    assert got["Max"].tables_service_value == "9999-12-31T23:59:59.9999999Z"
    # Written back as read: the 7th digit survives (the service text is sent, as the SDK does).
    table.upsert_entity(got, mode=partkv.UpdateMode.REPLACE)
    again = table.get_entity("p", "r")
    assert again["T"].tables_service_value == "2020-09-17T00:00:00.1234567Z"
    assert again["Max"].tables_service_value == "9999-12-31T23:59:59.9999999Z"


def test_datetimes_with_offsets_are_stored_in_utc(table):
    plus2 = timezone(timedelta(hours=2))
    got = roundtrip(table, {"Local": datetime(2024, 5, 1, 12, 0, tzinfo=plus2),
                            "Naive": datetime(2024, 5, 1, 12, 0)})
    assert got["Local"] == datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
    assert got["Local"].utcoffset() == timedelta(0)
    # A naive datetime is local time, as azure-data-tables takes it (astimezone).
    assert got["Naive"] == datetime(2024, 5, 1, 12, 0).astimezone(UTC)


def test_nan_and_infinite_doubles(table):
    got = roundtrip(table, {"N": float("nan"), "P": float("inf"), "M": float("-inf"),
                            "Z": -0.0, "Tiny": 5e-324, "Huge": 1e308})
    assert math.isnan(got["N"])
    assert got["P"] == float("inf") and got["M"] == float("-inf")
    assert math.copysign(1.0, got["Z"]) == -1.0
    assert got["Tiny"] == 5e-324 and got["Huge"] == 1e308


def test_guid_and_binary_edge_values(table):
    zero = uuid.UUID(int=0)
    ones = uuid.UUID(int=2 ** 128 - 1)
    got = roundtrip(table, {"Z": zero, "O": ones, "B": b"\x00\xff" * 1000,
                            "G": EntityProperty("C9DA6455-213D-42C9-9A79-3E9149A57833", EdmType.GUID)})
    assert got["Z"] == zero and got["O"] == ones
    assert got["B"] == b"\x00\xff" * 1000
    assert got["G"] == uuid.UUID("c9da6455-213d-42c9-9a79-3e9149a57833")


def test_unicode_keys_names_and_values(table):
    got = roundtrip(table, {"Größe": "ß", "名前": "東京", "emoji": "😀" * 100},
                    pk="Zürich", rk="行-1")
    assert got["PartitionKey"] == "Zürich" and got["RowKey"] == "行-1"
    assert got["Größe"] == "ß" and got["名前"] == "東京" and got["emoji"] == "😀" * 100


def test_explicit_types_with_entity_property_and_tuples(table):
    got = roundtrip(table, {
        "S": EntityProperty(5, EdmType.STRING), "I": ("7", EdmType.INT32),
        "D": EntityProperty(2, EdmType.DOUBLE), "B": EntityProperty(True, "Edm.Boolean"),
        "X": EntityProperty(b"ab", EdmType.BINARY), "L": EntityProperty("12", EdmType.INT64),
        "Gone": EntityProperty(None, EdmType.STRING)})
    assert got["S"] == "5" and got["I"] == 7 and type(got["D"]) is float and got["D"] == 2.0
    assert got["B"] is True and got["X"] == b"ab" and got["L"] == EntityProperty(12, EdmType.INT64)
    assert "Gone" not in got


def test_raw_annotated_form_as_the_sdk_accepts(table):
    got = roundtrip(table, {"N": "9007199254740993", "N@odata.type": "Edm.Int64",
                            "T@odata.type": "Edm.DateTime", "T": "2021-01-01T00:00:00Z"})
    assert got["N"] == EntityProperty(9007199254740993, EdmType.INT64)
    assert got["T"] == datetime(2021, 1, 1, tzinfo=UTC)
    assert "N@odata.type" not in got


def test_none_values_are_not_stored_and_enums_store_their_value(table):
    class Color(Enum):
        RED = "red"
        BLUE = 2

    got = roundtrip(table, {"Nothing": None, "C": Color.RED, "D": Color.BLUE})
    assert "Nothing" not in got
    assert got["C"] == "red" and got["D"] == 2


def test_metadata_of_reads_and_writes(table):
    meta = table.create_entity({"PartitionKey": "p", "RowKey": "r", "A": 1})
    assert set(meta) >= {"etag", "date"}
    assert meta["etag"].startswith('W/"datetime\'')
    assert isinstance(meta["date"], datetime) and meta["date"].tzinfo is not None
    got = table.get_entity("p", "r")
    assert got.metadata["etag"] == meta["etag"]
    assert isinstance(got.metadata["timestamp"], TablesEntityDatetime)
    assert abs(got.metadata["timestamp"] - meta["date"]) < timedelta(seconds=1)
    assert TableEntity(A=1).metadata == {}


def test_select_on_get_entity(table):
    table.create_entity({"PartitionKey": "p", "RowKey": "r", "A": 1, "B": "two", "C": 3.0})
    got = table.get_entity("p", "r", select=["B"])
    assert got["B"] == "two" and "A" not in got and "C" not in got
    assert got.metadata["etag"]
    got = table.get_entity("p", "r", select="A,C")
    assert got["A"] == 1 and got["C"] == 3.0 and "B" not in got
    with pytest.raises(partkv.ResourceNotFoundError):
        table.get_entity("p", "missing", select=["A"])


def test_merge_and_replace(table):
    table.create_entity({"PartitionKey": "p", "RowKey": "r", "A": 1, "B": 2})
    table.update_entity({"PartitionKey": "p", "RowKey": "r", "B": 20, "C": 30})
    got = table.get_entity("p", "r")
    assert (got["A"], got["B"], got["C"]) == (1, 20, 30)
    table.update_entity({"PartitionKey": "p", "RowKey": "r", "Z": "z"}, mode=partkv.UpdateMode.REPLACE)
    got = table.get_entity("p", "r")
    assert "A" not in got and got["Z"] == "z"
    table.upsert_entity({"PartitionKey": "p", "RowKey": "r", "Y": 1})  # merge by default
    assert set(table.get_entity("p", "r")) == {"PartitionKey", "RowKey", "Z", "Y"}
    table.upsert_entity({"PartitionKey": "p", "RowKey": "r", "Y": 2}, mode="replace")
    assert set(table.get_entity("p", "r")) == {"PartitionKey", "RowKey", "Y"}
    table.upsert_entity({"PartitionKey": "p", "RowKey": "new", "Y": 3})
    assert table.get_entity("p", "new")["Y"] == 3


def test_timestamp_and_odata_members_in_input_are_ignored(table):
    got = roundtrip(table, {"Timestamp": datetime(2000, 1, 1, tzinfo=UTC), "odata.etag": "x", "A": 1})
    assert "Timestamp" not in got and "odata.etag" not in got
    assert got.metadata["timestamp"].year > 2000


def test_entity_copies_and_pickles_with_metadata(table):
    import copy
    import pickle

    table.create_entity({"PartitionKey": "p", "RowKey": "r", "A": 1})
    got = table.get_entity("p", "r")
    for clone in (copy.copy(got), copy.deepcopy(got), pickle.loads(pickle.dumps(got))):
        assert clone == got and isinstance(clone, TableEntity)
        assert clone.metadata["etag"] == got.metadata["etag"]
