"""ETag conditions and missing or existing rows raise the exceptions azure-data-tables names."""

import pytest

from partkv import MatchConditions, UpdateMode
from partkv.exceptions import (
    HttpResponseError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
    TableErrorCode,
)

from conftest import snapshot


def entity(**props):
    return dict({"PartitionKey": "p", "RowKey": "r"}, **props)


def test_create_existing_raises_resource_exists(table):
    table.create_entity(entity(A=1))
    before = snapshot(table)
    with pytest.raises(ResourceExistsError) as info:
        table.create_entity(entity(A=2))
    error = info.value
    assert isinstance(error, HttpResponseError)
    assert error.status_code == 409
    assert error.error_code == TableErrorCode.ENTITY_ALREADY_EXISTS == "EntityAlreadyExists"
    assert "already exists" in error.message and error.code == "AlreadyExists"
    assert snapshot(table) == before


def test_get_missing_raises_resource_not_found(table):
    with pytest.raises(ResourceNotFoundError) as info:
        table.get_entity("p", "nope")
    assert info.value.status_code == 404
    assert info.value.error_code == "ResourceNotFound"


def test_update_with_stale_etag_raises_resource_modified(table):
    first = table.create_entity(entity(A=1))
    second = table.update_entity(entity(A=2), etag=first["etag"],
                                 match_condition=MatchConditions.IfNotModified)
    assert second["etag"] != first["etag"]
    before = snapshot(table)
    for mode in (UpdateMode.MERGE, UpdateMode.REPLACE):
        with pytest.raises(ResourceModifiedError) as info:
            table.update_entity(entity(A=3), mode=mode, etag=first["etag"],
                                match_condition=MatchConditions.IfNotModified)
        assert info.value.status_code == 412
        assert info.value.error_code == "UpdateConditionNotSatisfied"
    assert snapshot(table) == before
    assert table.get_entity("p", "r")["A"] == 2


def test_update_takes_the_etag_from_the_entity_read(table):
    table.create_entity(entity(A=1))
    read = table.get_entity("p", "r")
    read["A"] = 2
    table.update_entity(read, match_condition=MatchConditions.IfNotModified)
    read["A"] = 3  # still the first ETag: stale now
    with pytest.raises(ResourceModifiedError):
        table.update_entity(read, match_condition=MatchConditions.IfNotModified)
    assert table.get_entity("p", "r")["A"] == 2


def test_delete_with_stale_etag_raises_resource_modified(table):
    first = table.create_entity(entity(A=1))
    table.upsert_entity(entity(A=2))
    before = snapshot(table)
    with pytest.raises(ResourceModifiedError):
        table.delete_entity("p", "r", etag=first["etag"], match_condition=MatchConditions.IfNotModified)
    stale = table.get_entity("p", "r")
    table.update_entity(entity(A=3))
    with pytest.raises(ResourceModifiedError):
        table.delete_entity(stale, match_condition=MatchConditions.IfNotModified)
    assert table.get_entity("p", "r")["A"] == 3
    assert len(snapshot(table)) == len(before)
    fresh = table.get_entity("p", "r")
    table.delete_entity(fresh, match_condition=MatchConditions.IfNotModified)
    assert snapshot(table) == []


def test_delete_forms_and_missing_rows(table):
    table.create_entity(entity(A=1))
    table.create_entity(dict(entity(A=1), RowKey="r2"))
    table.create_entity(dict(entity(A=1), RowKey="r3"))
    table.delete_entity("p", "r")
    table.delete_entity({"PartitionKey": "p", "RowKey": "r2"})
    table.delete_entity(partition_key="p", row_key="r3")
    assert snapshot(table) == []
    table.delete_entity("p", "never-there")  # no error, as azure-data-tables


def test_update_of_a_missing_entity_raises_not_found(table):
    with pytest.raises(ResourceNotFoundError):
        table.update_entity(entity(A=1))
    with pytest.raises(ResourceNotFoundError):
        table.update_entity(entity(A=1), mode=UpdateMode.REPLACE)
    assert snapshot(table) == []


def test_match_condition_rules(table):
    table.create_entity(entity(A=1))
    with pytest.raises(ValueError, match="IfNotModified must be specified with etag"):
        table.update_entity(entity(A=2), match_condition=MatchConditions.IfNotModified)
    with pytest.raises(ValueError, match="Unconditional"):
        table.update_entity(entity(A=2), etag='W/"x"')
    with pytest.raises(ValueError, match="Unsupported match condition"):
        table.update_entity(entity(A=2), etag='W/"x"', match_condition=MatchConditions.IfModified)
    with pytest.raises(ValueError, match="not supported"):
        table.update_entity(entity(A=2), mode="sideways")
    assert table.get_entity("p", "r")["A"] == 1


def test_a_garbage_etag_is_a_precondition_failure(table):
    table.create_entity(entity(A=1))
    with pytest.raises(ResourceModifiedError):
        table.update_entity(entity(A=2), etag="garbage", match_condition=MatchConditions.IfNotModified)
    assert table.get_entity("p", "r")["A"] == 1


def test_tables_already_existing_and_missing(service):
    service.create_table("Orders")
    with pytest.raises(ResourceExistsError) as info:
        service.create_table("orders")  # names are case-insensitive
    assert info.value.error_code == "TableAlreadyExists"
    client = service.get_table_client("Missing")
    with pytest.raises(ResourceNotFoundError) as info:
        client.get_entity("p", "r")
    assert info.value.error_code == "TableNotFound"
    with pytest.raises(ResourceNotFoundError):
        client.create_entity(entity(A=1))
    service.delete_table("Missing")  # no error
    assert [t.name for t in service.list_tables()] == ["Orders"]
