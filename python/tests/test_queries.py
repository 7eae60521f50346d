"""Paged queries: lazy pages of at most 1000, continuation tokens, filters with parameters."""

import uuid
from datetime import datetime, timezone

import pytest

import partkv
from partkv import EdmType, EntityProperty

UTC = timezone.utc


def fill(table, count, partition="p"):
    for start in range(0, count, 100):
        table.submit_transaction([
            ("create", {"PartitionKey": partition, "RowKey": "%05d" % i, "I": i, "Even": i % 2 == 0})
            for i in range(start, min(count, start + 100))])


def test_pages_of_1000_1000_500(table):
    fill(table, 2500)
    pager = table.list_entities().by_page()
    assert pager.continuation_token is None
    sizes = []
    tokens = []
    for page in pager:
        sizes.append(len(list(page)))
        tokens.append(pager.continuation_token)
    assert sizes == [1000, 1000, 500]
    assert isinstance(tokens[0], str) and isinstance(tokens[1], str) and tokens[2] is None


def test_iterating_the_item_paged_reads_every_entity_in_order(table):
    fill(table, 2500)
    rows = [e["RowKey"] for e in table.query_entities("PartitionKey eq 'p'")]
    assert rows == ["%05d" % i for i in range(2500)]


def test_resuming_from_a_continuation_token(table, service, store_path):
    fill(table, 2500)
    pager = table.query_entities("I ge 0").by_page()
    first = [e["I"] for e in next(pager)]
    token = pager.continuation_token
    assert first == list(range(1000))
    resumed = table.query_entities("I ge 0").by_page(continuation_token=token)
    second = [e["I"] for e in next(resumed)]
    assert second == list(range(1000, 2000))
    third = [e["I"] for e in next(resumed)]
    assert third == list(range(2000, 2500)) and resumed.continuation_token is None
    with pytest.raises(StopIteration):
        next(resumed)
    # The token survives the store being closed and opened again.
    service.close()
    with partkv.TableServiceClient(store_path) as again:
        items = again.get_table_client("Items").query_entities("I ge 0")
        rest = [e["I"] for page in items.by_page(continuation_token=token) for e in page]
        assert rest == list(range(1000, 2500))


def test_results_per_page(table):
    fill(table, 25)
    pager = table.list_entities(results_per_page=10).by_page()
    assert [len(list(p)) for p in pager] == [10, 10, 5]
    pager = table.query_entities("Even eq true", results_per_page=5).by_page()
    assert [len(list(p)) for p in pager] == [5, 5, 3]


def test_filters_with_parameters_of_every_type(table):
    when = datetime(2024, 3, 4, 5, 6, 7, tzinfo=UTC)
    guid = uuid.UUID("a455c695-df98-5678-aaaa-81d3367e5a34")
    table.create_entity({"PartitionKey": "p", "RowKey": "1", "S": "it's", "I": 5, "L":
                         EntityProperty(2 ** 40, EdmType.INT64), "D": 2.5, "B": True, "T": when,
                         "G": guid, "X": b"\x01\x02\xff"})
    table.create_entity({"PartitionKey": "p", "RowKey": "2", "S": "other", "I": 6, "L":
                         EntityProperty(1, EdmType.INT64), "D": -1.0, "B": False,
                         "T": datetime(2000, 1, 1, tzinfo=UTC), "G": uuid.uuid4(), "X": b""})

    def keys(query_filter, **parameters):
        return [e["RowKey"] for e in table.query_entities(query_filter, parameters=parameters)]

    assert keys("S eq @s", s="it's") == ["1"]
    assert keys("I eq @i", i=5) == ["1"]
    assert keys("L eq @l", l=2 ** 40) == ["1"]  # an int beyond Int32 becomes 2^40L
    assert keys("L eq @l", l=EntityProperty(1, EdmType.INT64)) == ["2"]
    assert keys("D gt @d", d=2.0) == ["1"]
    assert keys("B eq @b", b=False) == ["2"]
    assert keys("T eq @t", t=when) == ["1"]
    assert keys("T lt @t", t=when) == ["2"]
    assert keys("G eq @g", g=guid) == ["1"]
    assert keys("X eq @x", x=b"\x01\x02\xff") == ["1"]
    assert keys("(PartitionKey eq @pk) and (I ge @lo and I le @hi)", pk="p", lo=5, hi=6) == ["1", "2"]
    assert keys("S eq '@notaparameter'", s="x") == []
    with pytest.raises(KeyError):
        table.query_entities("I eq @missing", parameters={"i": 1})


def test_select(table):
    table.create_entity({"PartitionKey": "p", "RowKey": "1", "A": 1, "B": 2, "C": 3})
    [got] = list(table.query_entities("A eq 1", select=["A", "C"]))
    assert got["A"] == 1 and got["C"] == 3 and "B" not in got
    [got] = list(table.list_entities(select="B"))
    assert got["B"] == 2 and "A" not in got
    assert got.metadata["etag"]


def test_a_bad_filter_raises_a_clear_error(table):
    fill(table, 3)
    items = table.query_entities("I eqq 5")
    with pytest.raises(partkv.InvalidArgumentError) as info:
        list(items)
    assert isinstance(info.value, ValueError) and info.value.status_code == 400
    assert "filter: at position 2" in info.value.message


def test_a_bad_continuation_token_raises_a_clear_error(table):
    fill(table, 1500)
    pager = table.list_entities().by_page()
    next(pager)
    token = pager.continuation_token
    with pytest.raises(partkv.InvalidArgumentError, match="continuation token"):
        next(table.list_entities().by_page(continuation_token="not-a-token!"))
    with pytest.raises(partkv.InvalidArgumentError, match="continuation token"):
        next(table.list_entities().by_page(continuation_token=token[:-4] + "AAAA"))
    with pytest.raises(partkv.InvalidArgumentError, match="different query"):
        next(table.query_entities("I ge 0").by_page(continuation_token=token))
    with pytest.raises(TypeError):
        table.list_entities().by_page(continuation_token=12)


def test_bad_page_sizes(table):
    fill(table, 3)
    with pytest.raises(partkv.InvalidArgumentError):
        list(table.list_entities(results_per_page=1001))
    with pytest.raises(TypeError):
        table.list_entities(results_per_page="10")


def test_nothing_is_read_before_iteration(table, service):
    items = table.query_entities("I eqq")  # a bad filter: found only when iterated
    service.close()
    with pytest.raises(partkv.ClosedError):
        list(items)


def test_query_and_list_tables(service):
    for name in ("Alpha", "Beta", "Gamma"):
        service.create_table(name)
    assert [t.name for t in service.list_tables()] == ["Alpha", "Beta", "Gamma"]
    found = list(service.query_tables("TableName eq @name", parameters={"name": "Beta"}))
    assert [t.name for t in found] == ["Beta"]
    pager = service.list_tables(results_per_page=2).by_page()
    assert [[t.name for t in page] for page in pager] == [["Alpha", "Beta"], ["Gamma"]]
    item = service.list_tables().next()
    assert item.physical_partitions == 16 and item.profile


def test_continuation_token_while_writing(table):
    fill(table, 1500)
    pager = table.list_entities().by_page()
    next(pager)
    table.create_entity({"PartitionKey": "p", "RowKey": "99999", "I": -1})
    rest = [e["RowKey"] for e in next(pager)]
    assert rest[:2] == ["01000", "01001"] and rest[-1] == "99999"
