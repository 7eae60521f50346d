"""Fixtures of the partkv Python tests: each test gets its own store in its own tmp_path."""

import math

import pytest

import partkv


@pytest.fixture
def store_path(tmp_path):
    """A fresh directory path for a store."""
    return str(tmp_path / "store")


@pytest.fixture
def service(store_path):
    """A TableServiceClient on a fresh store, closed after the test."""
    client = partkv.TableServiceClient(store_path)
    yield client
    client.close()


@pytest.fixture
def table(service):
    """A TableClient of a fresh table "Items"."""
    return service.create_table("Items")


def _canonical(value):
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, repr(value))


def snapshot(table):
    """Everything a table holds, comparable with ==: (PK, RK, properties, ETag) per entity."""
    rows = []
    for entity in table.list_entities():
        props = tuple(sorted((k, _canonical(v)) for k, v in entity.items()))
        rows.append((entity["PartitionKey"], entity["RowKey"], props, entity.metadata["etag"]))
    return sorted(rows)
