"""Key strategies: tables that compute their keys, point reads by attributes, sharded reads."""

import math

import pytest

import partkv
from partkv import KeyStrategy

from conftest import snapshot


@pytest.fixture
def orders(service):
    return service.create_table("Orders", partition_key_scheme="hash-suffix(date,orderId,16)",
                                row_key_scheme="concat(orderId,line,sep=-)", physical_partitions=4)


def test_key_strategy_values():
    strategy = KeyStrategy("hash-suffix( day , OrderId , 200 )")
    assert strategy.text == "hash-suffix(day,OrderId,200,hash=xxh3)" == str(strategy)
    assert strategy.is_sharded and strategy.shard_count == 200
    assert strategy.compute_base({"day": "2018-08-09", "OrderId": "A1"}) == "2018-08-09"
    key = strategy.compute({"day": "2018-08-09", "OrderId": "A1"})
    assert key.startswith("2018-08-09.") and 1 <= int(key.rsplit(".", 1)[1]) <= 200
    assert strategy.compute({"day": "2018-08-09", "OrderId": "A1"}) == key  # deterministic
    assert KeyStrategy("concat(deviceId,date,sep=-)").compute({"deviceId": "abc-123", "date": 2018}) \
        == "abc-123-2018"
    assert KeyStrategy("md5-bits(id,4)").compute({"id": "abc"}) == "1001"
    assert KeyStrategy("hash-suffix(d,o,200,hash=codepoint-product)").compute({"d": "x", "o": "AB1"}) == "x.11"
    assert strategy.shard_keys("b")[:2] == ["b.1", "b.2"] and len(strategy.shard_keys("b")) == 200
    assert KeyStrategy("md5-bits(id,4)") == KeyStrategy(" md5-bits(id, 4) ")


def test_bad_strategies_raise_value_errors():
    with pytest.raises(partkv.InvalidArgumentError, match="accepted forms"):
        KeyStrategy("random-suffix(day,0)")
    with pytest.raises(ValueError):
        KeyStrategy("")
    with pytest.raises(partkv.InvalidArgumentError, match="has no property 'OrderId'"):
        KeyStrategy("hash-suffix(day,OrderId,200)").compute({"day": "x"})


def test_a_table_computes_missing_keys(orders):
    meta = orders.create_entity({"date": "2024-05-01", "orderId": "A17", "line": 2, "Qty": 3})
    assert meta["etag"]
    keys = orders.compute_keys({"date": "2024-05-01", "orderId": "A17", "line": 2})
    assert keys["PartitionKey"].startswith("2024-05-01.") and keys["RowKey"] == "A17-2"
    got = orders.get_entity(keys["PartitionKey"], keys["RowKey"])
    assert got["Qty"] == 3
    by_attributes = orders.get_entity_by_attributes({"date": "2024-05-01", "orderId": "A17", "line": 2})
    assert by_attributes == got
    info = orders.table_info()
    assert info.partition_key_scheme == "hash-suffix(date,orderId,16,hash=xxh3)"
    assert info.row_key_scheme == "concat(orderId,line,sep=-)" and info.physical_partitions == 4
    # Deleting by attributes computes the keys too.
    orders.delete_entity({"date": "2024-05-01", "orderId": "A17", "line": 2})
    assert snapshot(orders) == []


def test_query_shards_returns_every_entity_of_a_base_merged_by_row_key(orders):
    for i in range(300):
        orders.create_entity({"date": "2024-05-01" if i % 3 else "2024-05-02",
                              "orderId": "O%04d" % i, "line": 1, "I": i})
    partitions = {e["PartitionKey"] for e in orders.list_entities()}
    assert len(partitions) > 8  # the writes are spread over the shards
    day1 = list(orders.query_shards("2024-05-01"))
    expected = sorted("O%04d-1" % i for i in range(300) if i % 3)
    assert [e["RowKey"] for e in day1] == expected
    assert all(e["PartitionKey"].startswith("2024-05-01.") for e in day1)
    pager = orders.query_shards("2024-05-01", results_per_page=50).by_page()
    pages = [[e["RowKey"] for e in page] for page in pager]
    assert [len(p) for p in pages] == [50, 50, 50, 50]
    assert sum(pages, []) == expected
    filtered = list(orders.query_shards("2024-05-02", query_filter="I lt @n", parameters={"n": 30}))
    assert [e["I"] for e in filtered] == [0, 3, 6, 9, 12, 15, 18, 21, 24, 27]
    selected = list(orders.query_shards("2024-05-02", select=["I"], results_per_page=5))
    assert len(selected) == 100 and set(selected[0]) == {"I"}


def test_query_shards_with_an_explicit_strategy_resumes_from_a_token(table):
    strategy = KeyStrategy("random-suffix(day,8)")
    for i in range(40):
        table.create_entity({"PartitionKey": strategy.compute({"day": "d"}), "RowKey": "%03d" % i})
    pager = table.query_shards("d", strategy=strategy, results_per_page=15).by_page()
    first = [e["RowKey"] for e in next(pager)]
    token = pager.continuation_token
    rest = [e["RowKey"] for page in table.query_shards("d", strategy="random-suffix(day,8)",
                                                        results_per_page=15).by_page(token)
            for e in page]
    assert first + rest == ["%03d" % i for i in range(40)]


def test_a_nan_key_field_is_a_value_error_and_writes_nothing(service):
    table = service.create_table("Readings", partition_key_scheme="concat(sensor,value)",
                                 row_key_scheme="asc-ticks(when)")
    from datetime import datetime, timezone
    table.create_entity({"sensor": "s1", "value": 1.5, "when": datetime(2024, 1, 1, tzinfo=timezone.utc)})
    before = snapshot(table)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError) as info:
            table.create_entity({"sensor": "s1", "value": bad,
                                 "when": datetime(2024, 1, 2, tzinfo=timezone.utc)})
        assert isinstance(info.value, partkv.HttpResponseError) and info.value.status_code == 400
        with pytest.raises(ValueError):
            table.compute_keys({"sensor": "s1", "value": bad, "when": datetime(2024, 1, 2)})
    with pytest.raises(ValueError, match="when"):
        table.upsert_entity({"sensor": "s1", "value": 2.0})
    with pytest.raises(ValueError):
        table.submit_transaction([("create", {"sensor": "s1", "value": 2.0,
                                              "when": datetime(2024, 1, 3)}),
                                  ("create", {"sensor": "s1", "value": math.nan,
                                              "when": datetime(2024, 1, 4)})])
    assert snapshot(table) == before


def test_key_scheme_options_are_checked(service):
    with pytest.raises(partkv.InvalidArgumentError):
        service.create_table("BadScheme", partition_key_scheme="nope(x)")
    with pytest.raises(TypeError):
        service.create_table("BadScheme", partition_key_scheme=5)
    with pytest.raises(TypeError):
        service.create_table("BadScheme", physical_partitions="16")
    with pytest.raises(TypeError, match="unexpected keyword"):
        service.create_table("BadScheme", partitions=4)
    assert [t.name for t in service.list_tables()] == []
