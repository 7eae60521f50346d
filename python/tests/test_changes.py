"""The change feed and time to live (partkv/c_changes.h): both modes, paging with tokens, a read
from now, the Trimmed error, a table without a feed, set_table_options, the sweep, waiting for a
writer, the ttl property, and a remote store's refusal."""

import datetime
import os
import pathlib
import signal
import subprocess
import threading

import pytest

import partkv
from partkv.exceptions import (
    ChangeFeedTrimmedError,
    HttpResponseError,
    InvalidArgumentError,
    ResourceNotFoundError,
)


@pytest.fixture
def service(store_path):
    """A store whose maintenance never sweeps in the background: the tests sweep themselves."""
    client = partkv.TableServiceClient(store_path, maintenance_interval_ms=0)
    yield client
    client.close()


@pytest.fixture
def feed(service):
    """A TableClient of table "Items" keeping a change feed."""
    return service.create_table("Items", change_feed=True)


def describe(changes):
    out = []
    for c in changes:
        text = "%s:%s/%s" % (c.op, c.entity["PartitionKey"], c.entity["RowKey"])
        if "n" in c.entity:
            text += "=%d" % c.entity["n"]
        out.append(text)
    return " ".join(out)


def write_some(table):
    table.create_entity({"PartitionKey": "p", "RowKey": "a", "n": 1})
    table.create_entity({"PartitionKey": "p", "RowKey": "b", "n": 2})
    table.upsert_entity({"PartitionKey": "p", "RowKey": "a", "n": 3}, mode="replace")
    table.update_entity({"PartitionKey": "p", "RowKey": "b", "n": 4}, mode="merge")
    table.delete_entity("p", "b")


def test_all_and_latest_modes(feed):
    write_some(feed)
    changes = list(feed.query_changes(mode="all"))
    assert describe(changes) == "insert:p/a=1 insert:p/b=2 replace:p/a=3 merge:p/b=4 delete:p/b"
    seqs = [c.seq for c in changes]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    first = changes[0]
    assert isinstance(first, partkv.TableChange)
    assert isinstance(first.entity, partkv.TableEntity)
    assert first.time.tzinfo is not None
    assert abs(first.time - datetime.datetime.now(datetime.timezone.utc)) < datetime.timedelta(
        minutes=10)
    assert first.etag and first.entity.metadata["etag"] == first.etag
    assert {c.origin for c in changes} == {"application"}  # "sync" only for a sync's writes
    assert changes[-1].entity.keys() >= {"PartitionKey", "RowKey"} and "n" not in changes[-1].entity
    assert describe(feed.query_changes()) == "replace:p/a=3"  # latest is the default
    assert describe(feed.query_changes(mode="latest")) == "replace:p/a=3"


def test_paging_with_tokens(feed):
    for i in range(7):
        feed.create_entity({"PartitionKey": "p", "RowKey": "%02d" % i, "n": i})
    pages = feed.query_changes(mode="all", results_per_page=3).by_page()
    first = list(next(pages))
    assert describe(first) == "insert:p/00=0 insert:p/01=1 insert:p/02=2"
    token = pages.continuation_token
    assert isinstance(token, str) and token
    # Resumed from the token by another read: the rest, in pages of 3, then the pages stop.
    rest = feed.query_changes(mode="all", results_per_page=3).by_page(continuation_token=token)
    sizes = [len(list(page)) for page in rest]
    assert sizes == [3, 1]
    assert rest.caught_up and rest.continuation_token
    # The same through query_changes(continuation=...), and iteration's own token.
    paged = feed.query_changes(mode="all", continuation=token)
    assert [c.entity["n"] for c in paged] == [3, 4, 5, 6]
    end = paged.continuation_token
    assert list(feed.query_changes(continuation=end)) == []
    feed.create_entity({"PartitionKey": "p", "RowKey": "07", "n": 7})
    assert describe(feed.query_changes(continuation=end)) == "insert:p/07=7"
    with pytest.raises(TypeError, match="continuation_token"):
        feed.query_changes().by_page(continuation_token=5)


def test_start_now(feed):
    write_some(feed)
    pages = feed.query_changes(start="now").by_page()
    assert list(next(pages)) == []
    token = pages.continuation_token
    with pytest.raises(StopIteration):
        next(pages)  # caught up
    feed.create_entity({"PartitionKey": "q", "RowKey": "c", "n": 5})
    assert describe(feed.query_changes(continuation=token)) == "insert:q/c=5"
    assert list(feed.query_changes(start="now")) == []


def test_bad_arguments_name_what_is_wrong(feed):
    with pytest.raises(ValueError, match="start"):
        feed.query_changes(start="yesterday")
    with pytest.raises(ValueError, match="mode"):
        feed.query_changes(mode="some")
    with pytest.raises(ValueError, match="results_per_page"):
        feed.query_changes(results_per_page=0)
    with pytest.raises(ValueError, match="results_per_page"):
        feed.query_changes(results_per_page=1001)
    with pytest.raises(TypeError, match="results_per_page"):
        feed.query_changes(results_per_page="10")
    with pytest.raises(TypeError, match="continuation"):
        feed.query_changes(continuation=b"x")
    with pytest.raises(InvalidArgumentError):
        list(feed.query_changes(continuation="not a token"))
    with pytest.raises(ValueError, match="timeout"):
        feed.wait_for_changes(feed.get_change_feed_state().first_token, -1)
    with pytest.raises(TypeError, match="continuation"):
        feed.wait_for_changes(None, 1)


def test_feed_off_is_an_invalid_argument(service):
    plain = service.create_table("Plain")
    plain.create_entity({"PartitionKey": "p", "RowKey": "a"})
    with pytest.raises(InvalidArgumentError, match="feed") as caught:
        list(plain.query_changes())
    assert caught.value.status_code == 400
    with pytest.raises(InvalidArgumentError, match="feed"):
        plain.get_change_feed_state()
    assert plain.table_info().change_feed is False
    with pytest.raises(ResourceNotFoundError):
        service.get_table_client("Missing").query_changes()


def test_trimmed_error(service):
    table = service.create_table("Items", change_feed=True, feed_max_bytes=1)
    for i in range(50):
        table.create_entity({"PartitionKey": "p", "RowKey": "%03d" % i, "n": i})
    service.flush()
    before = table.get_change_feed_state()
    report = table.sweep()
    assert isinstance(report, partkv.SweepReport) and report.feed_entries_trimmed > 0
    after = table.get_change_feed_state()
    assert after.first_seq == before.first_seq + report.feed_entries_trimmed
    with pytest.raises(ChangeFeedTrimmedError) as caught:
        list(table.query_changes(continuation=before.first_token))
    error = caught.value
    assert isinstance(error, HttpResponseError)
    assert error.status_code == 410 and error.error_code == "Trimmed" and error.code == "Trimmed"
    assert "oldest position kept is %d" % after.first_seq in str(error)
    with pytest.raises(ChangeFeedTrimmedError):
        table.wait_for_changes(before.first_token, 0)
    # The state's first token reads on: what retention kept (a byte keeps nothing or little),
    # then what came after.
    table.create_entity({"PartitionKey": "p", "RowKey": "050", "n": 50})
    kept = list(table.query_changes(mode="all", continuation=after.first_token))
    assert len(kept) == after.next_seq - after.first_seq + 1
    assert [c.entity["n"] for c in kept] == list(range(50 - len(kept) + 1, 51))


def test_create_and_set_table_options_round_trip(service):
    table = service.create_table("Items", change_feed=True,
                                 feed_retention=datetime.timedelta(hours=1),
                                 feed_max_bytes=1 << 20, ttl=-1)
    info = table.table_info()
    assert (info.change_feed, info.feed_retention, info.feed_max_bytes, info.ttl) == (
        True, datetime.timedelta(hours=1), 1 << 20, -1)
    state = table.get_change_feed_state()
    assert state.retention == datetime.timedelta(hours=1) and state.max_bytes == 1 << 20
    assert state.next_seq == state.first_seq and state.first_token

    # One option changed: the others stay.
    service.set_table_options("Items", feed_retention=600)
    listed = {item.name: item for item in service.list_tables()}["Items"]
    assert (listed.change_feed, listed.feed_retention, listed.feed_max_bytes, listed.ttl) == (
        True, datetime.timedelta(seconds=600), 1 << 20, -1)
    service.set_table_options("Items", feed_retention=0, feed_max_bytes=0, ttl=3600)
    info = table.table_info()
    assert (info.change_feed, info.feed_retention, info.feed_max_bytes, info.ttl) == (
        True, None, None, 3600)
    service.set_table_options("Items", change_feed=False, ttl=0)
    info = table.table_info()
    assert (info.change_feed, info.ttl) == (False, 0)
    with pytest.raises(InvalidArgumentError):
        list(table.query_changes())
    service.set_table_options("Items", change_feed=True)
    table.create_entity({"PartitionKey": "p", "RowKey": "a", "n": 1})
    assert describe(table.query_changes()) == "insert:p/a=1"

    # The same options on TableClient.create_table.
    other = service.get_table_client("Other")
    other.create_table(change_feed=True, ttl=datetime.timedelta(days=1))
    info = other.table_info()
    assert (info.change_feed, info.feed_retention, info.ttl) == (True, None, 86400)

    # Refused.
    with pytest.raises(ResourceNotFoundError):
        service.set_table_options("Missing", ttl=5)
    with pytest.raises(ValueError, match="ttl"):
        service.set_table_options("Items", ttl=-2)
    with pytest.raises(ValueError, match="feed_retention"):
        service.set_table_options("Items", feed_retention=-1)
    with pytest.raises(ValueError, match="feed_retention"):
        service.set_table_options("Items", feed_retention=datetime.timedelta(milliseconds=1500))
    with pytest.raises(ValueError, match="feed_max_bytes"):
        service.set_table_options("Items", feed_max_bytes=-1)
    with pytest.raises(TypeError, match="change_feed"):
        service.set_table_options("Items", change_feed=1)
    with pytest.raises(TypeError, match="ttl"):
        service.create_table("Bad", ttl="1h")
    with pytest.raises(ValueError, match="change_feed=True"):
        service.create_table("Bad", feed_retention=60)
    assert "Bad" not in {item.name for item in service.list_tables()}


def test_sweep_without_anything_to_do(feed):
    feed.create_entity({"PartitionKey": "p", "RowKey": "a"})
    assert feed.sweep() == partkv.SweepReport(feed_entries_trimmed=0, expiries_recorded=0)
    assert feed.census().expired_entities == 0


def test_wait_for_changes_wakes_up_for_a_writer(feed):
    token = feed.get_change_feed_state().first_token
    assert feed.wait_for_changes(token, 0) is False
    assert feed.wait_for_changes(token, datetime.timedelta(milliseconds=10)) is False
    errors = []

    def writer():
        try:
            feed.create_entity({"PartitionKey": "p", "RowKey": "w", "n": 1})
        except Exception as exc:  # reported by the test below
            errors.append(exc)

    # The writer runs while this thread waits (the wait releases the GIL); whether it writes
    # before or during the wait, the wait ends True long before its minute.
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert feed.wait_for_changes(token, 60) is True
    finally:
        thread.join()
    assert errors == []
    assert describe(feed.query_changes(continuation=token)) == "insert:p/w=1"
    # Past the change: nothing until the next one.
    end = feed.query_changes(continuation=token)
    list(end)
    assert feed.wait_for_changes(end.continuation_token, 0) is False


def test_ttl_minus_one_entity_stays(service):
    table = service.create_table("Items", change_feed=True, ttl=1)
    table.create_entity({"PartitionKey": "p", "RowKey": "forever", "ttl": -1, "n": 1})
    # Time cannot be moved from Python: what is checked is that an entity that never expires is
    # readable and swept over, and that the table's ttl is what was set.
    assert table.get_entity("p", "forever")["ttl"] == -1
    report = table.sweep()
    assert report.expiries_recorded == 0
    assert [e["RowKey"] for e in table.list_entities()] == ["forever"]
    assert describe(table.query_changes(mode="all")) == "insert:p/forever=1"
    assert table.table_info().ttl == 1


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


def test_a_remote_store_has_no_change_feed(connection_string):
    with partkv.TableServiceClient(connection_string) as service:
        assert not service.has_capability("change-feed")
        assert not service.has_capability("time-to-live")
        with pytest.raises(InvalidArgumentError, match="'change-feed' capability"):
            service.create_table("Fed", change_feed=True)
        with pytest.raises(InvalidArgumentError, match="'time-to-live' capability"):
            service.create_table("Fed", ttl=60)
        table = service.create_table("Plain")
        with pytest.raises(InvalidArgumentError, match="'change-feed' capability"):
            list(table.query_changes())
        with pytest.raises(InvalidArgumentError, match="'change-feed' capability"):
            table.get_change_feed_state()
        with pytest.raises(InvalidArgumentError, match="'time-to-live' capability"):
            table.sweep()
        with pytest.raises(InvalidArgumentError, match="'change-feed' capability"):
            service.set_table_options("Plain", change_feed=True)
        with pytest.raises(InvalidArgumentError, match="'change-feed' capability"):
            service.set_table_options("Plain", feed_retention=60)
