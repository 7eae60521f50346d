"""Statistics, the storage census and the bulk writer."""

import json

import pytest

import partkv
from partkv import UpdateMode

from conftest import snapshot


def test_statistics_count_operations_and_hot_partitions(table):
    for i in range(30):
        table.create_entity({"PartitionKey": "hot", "RowKey": str(i)})
    table.create_entity({"PartitionKey": "cold", "RowKey": "1"})
    for _ in range(5):
        table.get_entity("hot", "1")
    stats = table.statistics(top=2)
    assert isinstance(stats, partkv.TableStatistics)
    assert stats.total.writes == 31 and stats.total.reads >= 5
    assert stats.total.bytes_written > 0
    assert len(stats.partitions) == 16
    assert sum(p.writes for p in stats.partitions) == 31
    assert stats.hot[0].partition_key == "hot" and stats.hot[0].operations >= 35
    assert len(stats.hot) <= 2
    as_dict = stats.as_dict()
    assert as_dict["total"]["writes"] == 31 and isinstance(as_dict["hot"], list)


def test_census_counts_what_the_table_holds(table):
    for p in range(3):
        table.submit_transaction([("create", {"PartitionKey": "p%d" % p, "RowKey": str(i), "V": "x" * 10})
                                  for i in range(10 * (p + 1))])
    census = table.census(top=2)
    assert census.total.entities == 60 and census.total.logical_partitions == 3
    assert census.total.bytes > 0
    assert [(l.partition_key, l.entities) for l in census.largest] == [("p2", 30), ("p1", 20)]
    assert sum(p.entities for p in census.partitions) == 60
    by_bytes = table.census(top=1, rank_by_bytes=True)
    assert by_bytes.largest[0].partition_key == "p2"


def test_bulk_writer_as_a_context_manager(table):
    rows = [{"PartitionKey": "p%d" % (i % 7), "RowKey": "%05d" % i, "I": i} for i in range(5000)]
    with table.bulk_writer(max_group_rows=1000) as writer:
        for row in reversed(rows):  # any key order
            writer.add(row)
    report = writer.report
    assert report.rows_written == 5000 and report.rows_added == 5000 and report.bad_row is None
    assert report.groups_written >= 5
    assert len(list(table.list_entities())) == 5000
    assert table.get_entity("p3", "00003")["I"] == 3


def test_bulk_writer_json_lines_and_upserts(table):
    table.create_entity({"PartitionKey": "a", "RowKey": "1", "Old": 1})
    lines = "\n".join(json.dumps({"PartitionKey": "a", "RowKey": str(i), "New": i}) for i in range(1, 4))
    writer = table.bulk_writer(mode=UpdateMode.MERGE)
    writer.add_json_lines(lines + "\n\n")
    writer.add_json_lines(b'{"PartitionKey":"b","RowKey":"1","Big@odata.type":"Edm.Int64","Big":"5"}')
    report = writer.finish()
    writer.close()
    assert report.rows_written == 4 and report.lines_added == 5  # 3 rows, a blank line, 1 row
    merged = table.get_entity("a", "1")
    assert merged["Old"] == 1 and merged["New"] == 1
    assert table.get_entity("b", "1")["Big"] == partkv.EntityProperty(5, partkv.EdmType.INT64)
    with pytest.raises(partkv.ClosedError):
        writer.add({"PartitionKey": "c", "RowKey": "1"})
    with table.bulk_writer(mode=UpdateMode.REPLACE) as replacer:
        replacer.add({"PartitionKey": "a", "RowKey": "1", "Only": True})
    assert set(table.get_entity("a", "1")) == {"PartitionKey", "RowKey", "Only"}


def test_bulk_writer_stops_at_the_first_bad_row(table):
    table.create_entity({"PartitionKey": "x", "RowKey": "taken"})
    writer = table.bulk_writer()
    for i in range(10):
        writer.add({"PartitionKey": "y", "RowKey": str(i)})
    writer.flush()
    writer.add({"PartitionKey": "x", "RowKey": "taken"})  # a conflict: found when written
    with pytest.raises(partkv.ResourceExistsError):
        writer.finish()
    assert writer.report.bad_row == 10 and writer.report.rows_written == 10
    assert isinstance(writer.error, partkv.ResourceExistsError)
    writer.close()
    bad = table.bulk_writer()
    with pytest.raises(partkv.InvalidArgumentError, match="row 1"):
        bad.add({"PartitionKey": "z", "RowKey": "ok"})
        bad.add({"PartitionKey": "z", "RowKey": "bad#"})
    with pytest.raises(partkv.InvalidArgumentError):
        bad.add({"PartitionKey": "z", "RowKey": "later"})  # the writer has stopped
    bad.close()
    with pytest.raises(TypeError, match="'V'"):
        with table.bulk_writer() as typed:
            typed.add({"PartitionKey": "t", "RowKey": "1", "V": [1, 2]})
    assert sorted(e["RowKey"] for e in table.list_entities()) == sorted(
        ["taken"] + [str(i) for i in range(10)])


def test_bulk_writer_validate_before_writing_writes_nothing_on_a_bad_row(table, tmp_path):
    table.create_entity({"PartitionKey": "k", "RowKey": "keep"})
    before = snapshot(table)
    writer = table.bulk_writer(validate_before_writing=True, spill_directory=str(tmp_path))
    writer.add_json_lines('{"PartitionKey":"k","RowKey":"1"}\n{"PartitionKey":"k","RowKey":"2","x":{}}\n')
    with pytest.raises(partkv.InvalidArgumentError, match="line 2"):
        writer.finish()
    assert writer.report.bad_line == 2
    writer.close()
    assert snapshot(table) == before


def test_bulk_writer_options_are_checked(table):
    with pytest.raises(ValueError):
        table.bulk_writer(mode="sideways")
    with pytest.raises(TypeError):
        table.bulk_writer(max_group_rows="many")
    with pytest.raises(TypeError):
        table.bulk_writer(sync=1)
    with pytest.raises(partkv.InvalidArgumentError):
        table.bulk_writer(max_group_rows=0)
