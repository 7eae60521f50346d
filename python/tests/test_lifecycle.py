"""Opening and closing stores and clients; tables; the module's helpers."""

import gc

import pytest

import partkv
from partkv import TableClient, TableServiceClient


def test_with_closes_the_store_so_it_can_be_opened_again(store_path):
    with TableServiceClient(store_path) as service:
        table = service.create_table("Items")
        table.create_entity({"PartitionKey": "p", "RowKey": "r", "A": 1})
        pages = table.list_entities(results_per_page=1)
        next(pages)
    with pytest.raises(partkv.ClosedError):
        table.get_entity("p", "r")
    with TableServiceClient(store_path) as again:  # the store's lock was released
        assert again.get_table_client("Items").get_entity("p", "r")["A"] == 1


def test_a_second_open_while_open_is_busy(store_path):
    with TableServiceClient(store_path):
        with pytest.raises(partkv.StoreBusyError) as info:
            TableServiceClient(store_path)
        assert info.value.status_code == 503
        assert "already open in this process" in str(info.value)


def test_an_unreferenced_store_is_closed_by_the_garbage_collector(store_path):
    service = TableServiceClient(store_path)
    service.create_table("Items").create_entity({"PartitionKey": "p", "RowKey": "r"})
    del service
    gc.collect()
    with TableServiceClient(store_path) as again:
        assert len(list(again.get_table_client("Items").list_entities())) == 1


def test_a_table_client_of_its_own(store_path):
    with TableClient(store_path, "Solo") as table:
        assert table.create_table().name == "Solo"
        table.create_entity({"PartitionKey": "p", "RowKey": "r"})
        with pytest.raises(partkv.ResourceExistsError):
            table.create_table()
    with pytest.raises(partkv.ClosedError, match="store is closed"):
        table.get_entity("p", "r")
    with TableClient.from_connection_string(store_path, table_name="Solo") as table:
        assert table.get_entity("p", "r")["RowKey"] == "r"
        assert table.url.endswith("store") and table.table_info().name == "Solo"
        table.delete_table()
        table.delete_table()  # no error
        with pytest.raises(partkv.ResourceNotFoundError):
            table.get_entity("p", "r")
        table.create_table()  # the client works with the table made again
        assert list(table.list_entities()) == []


def test_service_tables(store_path):
    with TableServiceClient.from_connection_string(store_path, sync=True) as service:
        assert service.backend == "local" and service.url.endswith("store")
        assert service.has_capability("census") and not service.has_capability("no-such")
        first = service.create_table_if_not_exists("Items")
        second = service.create_table_if_not_exists("Items")
        first.create_entity({"PartitionKey": "p", "RowKey": "r"})
        assert second.get_entity("p", "r")["RowKey"] == "r"
        service.delete_table("Items")
        with pytest.raises(partkv.ResourceNotFoundError):
            first.get_entity("p", "r")
        service.create_table("Items", physical_partitions=2, profile="cosmos", throttling=False)
        assert list(first.list_entities()) == []
        item = [t for t in service.list_tables()][0]
        assert (item.name, item.physical_partitions, item.profile) == ("Items", 2, "cosmos")
        assert item.created is not None
        service.flush()


def test_a_table_client_closed_alone_leaves_the_store_open(service):
    table = service.create_table("Items")
    other = service.get_table_client("Items")
    other.close()
    other.close()
    table.create_entity({"PartitionKey": "p", "RowKey": "r"})
    with pytest.raises(partkv.ClosedError, match="table client is closed"):
        list(other.list_entities())


def test_access_policies(table):
    from datetime import datetime, timezone
    start = datetime(2030, 1, 1, tzinfo=timezone.utc)
    table.set_table_access_policy({
        "reader": partkv.TableAccessPolicy(start=start, expiry=datetime(2031, 1, 1, tzinfo=timezone.utc),
                                           permission="r"),
        "writer": partkv.TableAccessPolicy(permission="raud")})
    policies = table.get_table_access_policy()
    assert policies["reader"].start == start and policies["reader"].permission == "r"
    assert policies["writer"].permission == "raud" and policies["writer"].expiry is None


def test_module_helpers():
    assert partkv.library_version().count(".") == 2
    conn = ("DefaultEndpointsProtocol=https;AccountName=acct;"
            "AccountKey=c2VjcmV0c2VjcmV0c2VjcmV0;EndpointSuffix=core.windows.net")
    assert partkv.is_remote_location(conn) and not partkv.is_remote_location("/tmp/x")
    redacted = partkv.redact_location(conn)
    assert "c2VjcmV0" not in redacted and "<redacted>" in redacted
    assert partkv.LIBRARY_PATH and partkv.HEADER_PATH.endswith("c.h")
    for name in partkv.__all__:
        assert getattr(partkv, name) is not None


def test_public_api_has_docstrings():
    import inspect
    for name in partkv.__all__:
        obj = getattr(partkv, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert obj.__doc__, name
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and (inspect.isfunction(member) or isinstance(member, property)):
                        assert member.__doc__, "%s.%s" % (name, attr)
