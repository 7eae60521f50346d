"""submit_transaction: all operations or none, failures naming the failing operation's index."""

import pytest

import partkv
from partkv import MatchConditions, TransactionOperation, UpdateMode
from partkv.exceptions import TableTransactionError

from conftest import snapshot


def row(rk, **props):
    return dict({"PartitionKey": "batch", "RowKey": rk}, **props)


def test_a_transaction_applies_every_operation(table):
    table.create_entity(row("u", A=1, B=1))
    table.create_entity(row("d", A=1))
    table.create_entity(row("m", A=1, B=1))
    result = table.submit_transaction([
        ("create", row("c", A=1)),
        ("upsert", row("s", A=2), {"mode": UpdateMode.REPLACE}),
        (TransactionOperation.UPDATE, row("u", A=3), {"mode": UpdateMode.REPLACE}),
        ("update", row("m", A=4)),
        ("delete", row("d")),
    ])
    assert len(result) == 5
    assert all(r["etag"].startswith('W/"datetime') for r in result[:4])
    assert result[4] == {}
    assert table.get_entity("batch", "c")["A"] == 1
    assert table.get_entity("batch", "s")["A"] == 2
    assert "B" not in table.get_entity("batch", "u")
    merged = table.get_entity("batch", "m")
    assert merged["A"] == 4 and merged["B"] == 1
    assert table.get_entity("batch", "u").metadata["etag"] == result[2]["etag"]
    with pytest.raises(partkv.ResourceNotFoundError):
        table.get_entity("batch", "d")


def test_a_failing_operation_writes_nothing_and_names_its_index(table):
    table.create_entity(row("exists", A=1))
    before = snapshot(table)
    with pytest.raises(TableTransactionError) as info:
        table.submit_transaction([
            ("create", row("new1", A=1)),
            ("upsert", row("new2", A=1)),
            ("create", row("exists", A=2)),
            ("create", row("new3", A=1)),
        ])
    error = info.value
    assert error.index == 2
    assert error.error_code == "EntityAlreadyExists"
    assert isinstance(error, partkv.HttpResponseError)
    assert snapshot(table) == before


def test_conditional_operations_in_a_transaction(table):
    first = table.create_entity(row("x", A=1))
    table.upsert_entity(row("x", A=2))
    before = snapshot(table)
    with pytest.raises(TableTransactionError) as info:
        table.submit_transaction([
            ("create", row("y", A=1)),
            ("update", row("x", A=3), {"etag": first["etag"],
                                       "match_condition": MatchConditions.IfNotModified}),
        ])
    assert info.value.index == 1
    assert info.value.status_code == 412
    assert snapshot(table) == before
    current = table.get_entity("batch", "x")
    table.submit_transaction([("delete", current, {"match_condition": MatchConditions.IfNotModified})])
    assert snapshot(table) == []


def test_updating_a_missing_row_fails_the_transaction(table):
    with pytest.raises(TableTransactionError) as info:
        table.submit_transaction([("create", row("a")), ("update", row("missing", A=1))])
    assert info.value.index == 1 and info.value.status_code == 404
    assert snapshot(table) == []


def test_bad_input_in_a_transaction_is_also_a_value_error(table):
    table.create_entity(row("keep", A=1))
    before = snapshot(table)
    with pytest.raises(TableTransactionError) as info:
        table.submit_transaction([("create", row("a")), ("create", row("b?"))])
    assert isinstance(info.value, ValueError)
    assert info.value.index == 1 and info.value.status_code == 400
    assert "RowKey 'b?'" in info.value.message
    with pytest.raises(TableTransactionError) as info:
        table.submit_transaction([("create", row(str(i))) for i in range(101)])
    assert info.value.index == 100
    with pytest.raises(TableTransactionError):
        table.submit_transaction([("create", row("same")), ("upsert", row("same"))])
    assert snapshot(table) == before


def test_client_side_checks_as_the_sdk(table):
    with pytest.raises(ValueError, match="Partition Keys must all be the same"):
        table.submit_transaction([("create", row("a")),
                                  ("create", {"PartitionKey": "other", "RowKey": "b"})])
    with pytest.raises(ValueError, match="Unrecognized operation"):
        table.submit_transaction([("insert-ish", row("a"))])
    with pytest.raises(TypeError, match="iterator of Tuples"):
        table.submit_transaction([row("a")])
    with pytest.raises(TypeError, match="iterator of Tuples"):
        table.submit_transaction(5)
    with pytest.raises(TypeError, match="'Bad'"):
        table.submit_transaction([("create", row("a")), ("create", row("b", Bad=object()))])
    assert snapshot(table) == []


def test_a_hundred_operations(table):
    result = table.submit_transaction([("create", row("%03d" % i, I=i)) for i in range(100)])
    assert len(result) == 100
    assert [e["I"] for e in table.list_entities()] == list(range(100))
