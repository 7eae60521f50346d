"""The same API over a remote store: a connection string to `partkv serve` (the Azure Table REST
endpoint), reached through libpartkv's remote backend.

The server binary is $PARTKV_CLI (CTest sets it), else the repository's build/tools/partkv; the
test is skipped when neither exists.
"""

import datetime
import os
import pathlib
import signal
import subprocess

import pytest

import partkv

REPO = pathlib.Path(__file__).resolve().parents[2]


def _cli():
    path = os.environ.get("PARTKV_CLI") or str(REPO / "build" / "tools" / "partkv")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


@pytest.fixture
def connection_string(tmp_path):
    cli = _cli()
    if cli is None:
        pytest.skip("no partkv CLI to run `partkv serve` (set PARTKV_CLI)")
    server = subprocess.Popen([cli, "serve", "--store", str(tmp_path / "served"), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        conn = None
        for line in server.stdout:  # blocks until the server has printed its lines
            if line.startswith("connection string: "):
                conn = line[len("connection string: "):].strip()
                break
        assert conn, "partkv serve printed no connection string"
        yield conn
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=30)


def test_the_api_over_a_remote_store(connection_string):
    assert partkv.is_remote_location(connection_string)
    with partkv.TableServiceClient.from_connection_string(connection_string) as service:
        assert service.backend == "remote"
        table = service.create_table("Remote")
        with pytest.raises(partkv.ResourceExistsError):
            service.create_table("Remote")
        meta = table.create_entity({"PartitionKey": "p", "RowKey": "1", "Big":
                                    partkv.EntityProperty(2 ** 40, partkv.EdmType.INT64), "S": "é"})
        got = table.get_entity("p", "1")
        assert got["Big"].value == 2 ** 40 and got["S"] == "é"
        assert got.metadata["etag"] == meta["etag"]
        with pytest.raises(partkv.ResourceExistsError):
            table.create_entity({"PartitionKey": "p", "RowKey": "1"})
        with pytest.raises(partkv.ResourceModifiedError):
            table.update_entity({"PartitionKey": "p", "RowKey": "1", "S": "x"}, etag='W/"datetime\'2000-01-01T00%3A00%3A00Z\'"',
                                match_condition=partkv.MatchConditions.IfNotModified)
        table.submit_transaction([("create", {"PartitionKey": "q", "RowKey": "%04d" % i, "I": i})
                                  for i in range(100)])
        with pytest.raises(partkv.TableTransactionError) as info:
            table.submit_transaction([("create", {"PartitionKey": "q", "RowKey": "new"}),
                                      ("create", {"PartitionKey": "q", "RowKey": "0001"})])
        assert info.value.index == 1
        pager = table.query_entities("PartitionKey eq @pk", parameters={"pk": "q"},
                                     results_per_page=30).by_page()
        sizes = [len(list(page)) for page in pager]
        assert sizes == [30, 30, 30, 10]
        assert [t.name for t in service.list_tables()] == ["Remote"]
        service.delete_table("Remote")
        with pytest.raises(partkv.ResourceNotFoundError):
            table.get_entity("p", "1")


def test_a_table_client_from_a_connection_string(connection_string):
    with partkv.TableClient.from_connection_string(connection_string, "Direct") as table:
        table.create_table()
        table.upsert_entity({"PartitionKey": "a", "RowKey": "b", "N": 1})
        assert [e["N"] for e in table.list_entities()] == [1]


def test_service_stats_come_from_the_secondary_location(connection_string, tmp_path):
    # partkv serve answers Get Table Service Stats at "/{account}-secondary", as Azure does, and
    # the client asks there; a local store answers the same shape itself.
    with partkv.TableServiceClient.from_connection_string(connection_string) as service:
        remote = service.get_service_stats()
    with partkv.TableServiceClient(str(tmp_path / "local")) as service:
        local = service.get_service_stats()
    for stats in (remote, local):
        assert stats["geo_replication"]["status"] == "live"
        when = stats["geo_replication"]["last_sync_time"]
        assert when.microsecond == 0
        assert abs((datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()) < 600
