"""Bad input raises a clear exception, and the table keeps exactly what it held."""

import math
import uuid
from datetime import datetime, timezone

import pytest

import partkv
from partkv import EdmType, EntityProperty, MatchConditions

from conftest import snapshot


@pytest.fixture
def loaded(table):
    """A table holding a few entities of every type."""
    table.create_entity({"PartitionKey": "p", "RowKey": "1", "S": "s", "I": 1, "D": 1.5, "B": True,
                         "T": datetime(2024, 1, 1, tzinfo=timezone.utc), "G": uuid.uuid4(),
                         "X": b"\x00", "L": EntityProperty(2 ** 40, EdmType.INT64), "N": math.nan})
    table.submit_transaction([("create", {"PartitionKey": "q", "RowKey": str(i), "I": i}) for i in range(5)])
    return table


def unchanged(table, before):
    assert snapshot(table) == before


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, {1, 2}, object(), 1j, EntityProperty(1, "Edm.Decimal"),
                                   EntityProperty("x", EdmType.INT64), EntityProperty(1.5, EdmType.BOOLEAN),
                                   EntityProperty("not-a-guid", EdmType.GUID), (1, 2, 3)])
def test_values_of_the_wrong_type_name_the_property(loaded, value):
    before = snapshot(loaded)
    with pytest.raises((TypeError, ValueError)) as info:
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new", "Fine": 1, "Culprit": value})
    assert "Culprit" in str(info.value)
    with pytest.raises((TypeError, ValueError)):
        loaded.upsert_entity({"PartitionKey": "p", "RowKey": "1", "Culprit": value})
    with pytest.raises((TypeError, ValueError)):
        loaded.submit_transaction([("create", {"PartitionKey": "q", "RowKey": "x"}),
                                   ("create", {"PartitionKey": "q", "RowKey": "y", "Culprit": value})])
    unchanged(loaded, before)


def test_unsupported_types_raise_type_error(loaded):
    before = snapshot(loaded)
    with pytest.raises(TypeError, match="Unsupported data type .* 'Culprit'"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new", "Culprit": [1]})
    with pytest.raises(TypeError, match="property names must be str"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new", 5: "five"})
    with pytest.raises(TypeError, match="PartitionKey"):
        loaded.create_entity({"PartitionKey": 5, "RowKey": "new"})
    with pytest.raises(ValueError, match="RowKey must be present"):
        loaded.create_entity({"PartitionKey": "p"})
    with pytest.raises(TypeError, match="mapping"):
        loaded.create_entity(["PartitionKey", "p"])
    with pytest.raises(TypeError):
        loaded.get_entity("p", 1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new"}, mode="merge")
    unchanged(loaded, before)


def test_a_str_that_cannot_be_encoded_as_utf8_is_named(loaded):
    before = snapshot(loaded)
    lone = "bad\udc80text"
    with pytest.raises(ValueError, match="'Culprit'.*UTF-8"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new", "Culprit": lone})
    with pytest.raises(ValueError, match="RowKey.*UTF-8"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": lone})
    with pytest.raises(ValueError, match="PartitionKey.*UTF-8"):
        loaded.upsert_entity({"PartitionKey": "\ud800", "RowKey": "x"})
    with pytest.raises(ValueError, match="property name.*UTF-8"):
        loaded.create_entity({"PartitionKey": "p", "RowKey": "new", "Na\udc80me": 1})
    with pytest.raises(ValueError, match="UTF-8"):
        loaded.submit_transaction([("create", {"PartitionKey": "q", "RowKey": "ok"}),
                                   ("create", {"PartitionKey": "q", "RowKey": "x", "Culprit": lone})])
    with pytest.raises(ValueError, match="query_filter.*UTF-8"):
        loaded.query_entities("S eq 'x\udc80'")
    with pytest.raises(ValueError, match="UTF-8"):
        loaded.query_entities("S eq @s", parameters={"s": lone})
    with pytest.raises(ValueError, match="UTF-8"):
        loaded.get_entity("p", lone)
    with pytest.raises(ValueError, match="UTF-8"):
        loaded.delete_entity("p", lone)
    unchanged(loaded, before)


def test_bad_keys_and_names_are_refused_by_the_store(loaded, service):
    before = snapshot(loaded)
    for bad in ({"PartitionKey": "a/b", "RowKey": "1"}, {"PartitionKey": "p", "RowKey": "a#"},
                {"PartitionKey": "p", "RowKey": "1", "1abc": 1}, {"PartitionKey": "p", "RowKey": "x", "S": "x" * 40000}):
        with pytest.raises(partkv.InvalidArgumentError) as info:
            loaded.upsert_entity(bad)
        assert isinstance(info.value, ValueError) and info.value.status_code == 400
    with pytest.raises(ValueError):
        service.create_table("no-dashes")
    with pytest.raises(ValueError):
        service.create_table("")
    unchanged(loaded, before)
    assert [t.name for t in service.list_tables()] == ["Items"]


def test_a_bad_filter_or_token_loses_nothing(loaded):
    before = snapshot(loaded)
    for bad in ("I eqq 1", "I eq", "(I eq 1", "I eq 2147483648", "S eq 'open", "EQ"):
        with pytest.raises(partkv.InvalidArgumentError, match="filter"):
            list(loaded.query_entities(bad))
    for token in ("", "garbage", "A" * 40, "%%%"):
        if token:
            with pytest.raises(partkv.InvalidArgumentError):
                list(loaded.list_entities().by_page(continuation_token=token))
    with pytest.raises(ValueError):
        loaded.query_entities("D eq @d", parameters={"d": math.nan})
    unchanged(loaded, before)


def test_bad_etag_arguments_lose_nothing(loaded):
    before = snapshot(loaded)
    with pytest.raises(TypeError):
        loaded.update_entity({"PartitionKey": "p", "RowKey": "1", "I": 2}, etag=5,
                             match_condition=MatchConditions.IfNotModified)
    with pytest.raises(ValueError):
        loaded.delete_entity("p", "1", match_condition="sometimes")
    unchanged(loaded, before)


def test_calls_on_a_closed_store_raise_closed_error(loaded, service):
    before = snapshot(loaded)
    pending = loaded.list_entities()
    pager = loaded.list_entities(results_per_page=2).by_page()
    next(pager)
    writer = loaded.bulk_writer()
    service.close()
    calls = [
        lambda: loaded.create_entity({"PartitionKey": "p", "RowKey": "z"}),
        lambda: loaded.get_entity("p", "1"),
        lambda: loaded.upsert_entity({"PartitionKey": "p", "RowKey": "1"}),
        lambda: loaded.update_entity({"PartitionKey": "p", "RowKey": "1"}),
        lambda: loaded.delete_entity("p", "1"),
        lambda: loaded.submit_transaction([("create", {"PartitionKey": "p", "RowKey": "z"})]),
        lambda: list(loaded.query_entities("I eq 1")),
        lambda: list(pending),
        lambda: next(pager),
        lambda: loaded.statistics(),
        lambda: loaded.census(),
        lambda: loaded.bulk_writer(),
        lambda: writer.add({"PartitionKey": "p", "RowKey": "z"}),
        lambda: writer.finish(),
        lambda: service.create_table("Other"),
        lambda: service.list_tables(),
        lambda: service.delete_table("Items"),
        lambda: service.get_table_client("Items").get_entity("p", "1"),
    ]
    for call in calls:
        with pytest.raises(partkv.ClosedError, match="store is closed"):
            call()
    service.close()  # idempotent
    with partkv.TableServiceClient(service.url) as again:
        unchanged(again.get_table_client("Items"), before)


def test_a_closed_table_client(service, loaded):
    client = service.get_table_client("Items")
    client.close()
    with pytest.raises(partkv.ClosedError, match="table client is closed"):
        client.get_entity("p", "1")
    assert loaded.get_entity("p", "1")["I"] == 1  # other clients of the store go on


def test_bad_store_options(store_path):
    with pytest.raises(TypeError, match="unexpected store option"):
        partkv.TableServiceClient(store_path, cache_size=5)
    with pytest.raises(TypeError):
        partkv.TableServiceClient(store_path, throttling="yes")
    with pytest.raises(TypeError, match="low_priority_compactions must be a bool"):
        partkv.TableServiceClient(store_path, low_priority_compactions=1)
    with pytest.raises(TypeError):
        partkv.TableServiceClient(42)
    with pytest.raises(partkv.InvalidArgumentError):
        partkv.TableServiceClient(store_path, profile="nope")
    with pytest.raises(partkv.ResourceNotFoundError):
        partkv.TableServiceClient(store_path + "-missing", create_if_missing=False)
