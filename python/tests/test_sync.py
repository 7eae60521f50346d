"""partkv.sync_table (partkv/sync.h) between local stores: two sites, "a" and "b", whose tables
keep a change feed, and a third store in the remote's place. A push, then a pull to the other
site with the writes' origins in the feeds; each conflict policy through on_conflict; a sync that
stops and the next one that carries on; a second sync of the pair refused while the first runs;
the options refused."""

import datetime

import pytest

import partkv
from partkv.exceptions import (
    InvalidArgumentError,
    ResourceNotFoundError,
    StoreBusyError,
)


@pytest.fixture
def sites(tmp_path):
    """Stores "a", "b" (table "Items" with a change feed) and "remote" (table "Items", no feed),
    closed after the test."""
    stores = {}
    for name in ("a", "b", "remote"):
        stores[name] = partkv.TableServiceClient(str(tmp_path / name), maintenance_interval_ms=0)
    stores["a"].create_table("Items", change_feed=True)
    stores["b"].create_table("Items", change_feed=True)
    stores["remote"].create_table("Items")
    yield stores
    for store in stores.values():
        store.close()


def items(store):
    return store.get_table_client("Items")


def contents(store, table="Items"):
    """Every entity of the table: {(PartitionKey, RowKey): its properties}."""
    return {(e["PartitionKey"], e["RowKey"]): dict(e)
            for e in store.get_table_client(table).list_entities()}


def n_of(store, rk, pk="p"):
    found = contents(store).get((pk, rk))
    return None if found is None else found["n"]


def put(store, rk, n, pk="p"):
    items(store).upsert_entity({"PartitionKey": pk, "RowKey": rk, "n": n}, mode="replace")


def sync(site, sites, **options):
    return partkv.sync_table(sites[site], "Items", sites["remote"], "Items", **options)


def origins(store):
    return [c.origin for c in items(store).query_changes(mode="all")]


def test_push_then_pull_to_a_second_site_with_the_origins_in_the_feeds(sites):
    a, b, remote = sites["a"], sites["b"], sites["remote"]
    with items(a).bulk_writer() as writer:
        for i in range(30):
            writer.add({"PartitionKey": "p%d" % (i % 3), "RowKey": "%04d" % i, "n": i,
                        "when": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)})
    progress = []
    report = sync("a", sites, direction="push", max_batches_in_flight=2,
                  on_progress=progress.append)
    assert isinstance(report, partkv.SyncReport)
    assert report.seeded and report.pushed == 30 and report.pulled == 0
    assert report.conflicts == 0 and report.remote_requests > 0 and report.elapsed_micros > 0
    assert report.as_dict()["pushed"] == 30
    assert contents(remote) == contents(a)
    assert progress and all(isinstance(p, partkv.SyncProgress) for p in progress)
    assert {p.phase for p in progress} == {"push"} and max(p.pushed for p in progress) == 30

    # The second site pulls everything, written by the sync; the first site's writes are the
    # application's.
    report = sync("b", sites)
    assert (report.pulled, report.pushed, report.conflicts) == (30, 0, 0)
    assert contents(b) == contents(a)
    assert origins(b) == ["sync"] * 30
    assert origins(a) == ["application"] * 30
    change = next(iter(items(b).query_changes(mode="all")))
    assert isinstance(change, partkv.TableChange) and "origin='sync'" in repr(change)

    # b sends none of the sync's writes back; a pull finds everything unchanged.
    report = sync("b", sites)
    assert (report.pushed, report.push_skipped, report.pulled) == (0, 30, 0)
    assert report.pull_unchanged == 30 and not report.seeded

    # A change at b reaches a, where the feed says the sync wrote it.
    put(b, "0001", 100, pk="p1")
    assert sync("b", sites).pushed == 1
    assert origins(b)[-1] == "application"
    report = sync("a", sites, direction="pull", overlap=datetime.timedelta(minutes=10))
    assert (report.pulled, report.pushed) == (1, 0)
    assert n_of(a, "0001", pk="p1") == 100
    last = list(items(a).query_changes(mode="all"))[-1]
    assert (last.op, last.origin, last.entity["n"]) == ("replace", "sync", 100)

    # Nothing to do: nothing written on either side.
    report = sync("a", sites)
    assert report.pushed + report.pushed_deletes + report.pulled + report.pulled_deletes == 0


def synced_both(sites):
    """(p, x) n=1 written at a, synced to b through the remote."""
    put(sites["a"], "x", 1)
    sync("a", sites)
    sync("b", sites)
    assert n_of(sites["b"], "x") == 1


def change_both(sites, at_a, at_b):
    """(p, x) changed at a to `at_a`, synced, and at b to `at_b` (not synced yet)."""
    put(sites["a"], "x", at_a)
    assert sync("a", sites).pushed == 1
    put(sites["b"], "x", at_b)


def test_report_policy_keeps_the_remote_version_and_sets_the_local_one_aside(sites):
    b, remote = sites["b"], sites["remote"]
    synced_both(sites)
    change_both(sites, 2, 3)
    seen = []
    report = sync("b", sites, on_conflict=seen.append)  # "report" is the default
    assert (report.conflicts, report.remote_won, report.local_won, report.set_aside) == (1, 1, 0, 1)
    assert len(seen) == 1 and isinstance(seen[0], partkv.SyncConflict)
    conflict = seen[0]
    assert (conflict.partition_key, conflict.row_key) == ("p", "x")
    assert conflict.local["n"] == 3 and conflict.remote["n"] == 2
    assert conflict.local.metadata["etag"] and conflict.remote.metadata["etag"]
    assert not conflict.local_won and conflict.set_aside
    assert n_of(b, "x") == 2 and n_of(remote, "x") == 2
    kept = list(contents(b, "ItemsConflicts").values())
    assert len(kept) == 1
    assert kept[0]["n"] == 3 and kept[0]["SyncConflictSide"] == "local"
    assert kept[0]["PartitionKey"] == "p" and kept[0]["RowKey"].startswith("x@")
    # Resolved: the next sync finds nothing to do.
    report = sync("b", sites)
    assert report.conflicts + report.pushed + report.pulled == 0


def test_a_sync_that_stops_raises_with_its_report_and_the_next_carries_on(sites):
    b, remote = sites["b"], sites["remote"]
    synced_both(sites)
    change_both(sites, 2, 3)
    seen = []
    # The conflict's local version cannot be set aside (an invalid table name): the sync stops.
    with pytest.raises(InvalidArgumentError, match="Bad-Name") as caught:
        sync("b", sites, conflicts_table="Bad-Name", on_conflict=seen.append)
    report = caught.value.sync_report
    assert isinstance(report, partkv.SyncReport) and report.conflicts == 0
    assert report.remote_requests > 0 and seen == []
    assert n_of(b, "x") == 3 and n_of(remote, "x") == 2
    # The next sync carries on, here as "local-wins": b's version goes to the remote.
    report = sync("b", sites, conflicts="local-wins", on_conflict=seen.append)
    assert (report.conflicts, report.local_won, report.set_aside) == (1, 1, 0)
    assert len(seen) == 1
    assert (seen[0].local["n"], seen[0].remote["n"], seen[0].local_won) == (3, 2, True)
    assert n_of(remote, "x") == 3
    assert sync("a", sites).pulled == 1 and n_of(sites["a"], "x") == 3


def test_local_wins_last_writer_and_remote_wins_through_on_conflict(sites):
    a, b, remote = sites["a"], sites["b"], sites["remote"]
    synced_both(sites)
    seen = []

    # "local-wins": b's version goes to the remote; nothing set aside.
    change_both(sites, 4, 5)
    report = sync("b", sites, conflicts="local-wins", on_conflict=seen.append)
    assert (report.conflicts, report.local_won, report.set_aside) == (1, 1, 0)
    assert (seen[-1].local["n"], seen[-1].remote["n"], seen[-1].local_won) == (5, 4, True)
    assert not seen[-1].set_aside
    assert n_of(remote, "x") == 5
    assert "ItemsConflicts" not in [t.name for t in b.list_tables()]
    assert sync("a", sites).pulled == 1 and n_of(a, "x") == 5

    # "last-writer" against a delete at a: a remote delete has no time, the local change wins.
    items(a).delete_entity("p", "x")
    assert sync("a", sites).pushed_deletes == 1
    put(b, "x", 6)
    report = sync("b", sites, conflicts="last_writer", on_conflict=seen.append)
    assert (report.conflicts, report.local_won) == (1, 1)
    assert seen[-1].remote is None and seen[-1].local["n"] == 6 and seen[-1].local_won
    assert n_of(remote, "x") == 6

    # "remote-wins" against a delete at the remote, found by reconcile: deleted locally too.
    sync("a", sites)
    items(remote).delete_entity("p", "x")
    put(b, "x", 7)
    report = sync("b", sites, direction="pull", conflicts="remote-wins", reconcile=True,
                  on_conflict=seen.append)
    assert (report.conflicts, report.remote_won, report.pulled_deletes) == (1, 1, 1)
    assert seen[-1].remote is None and seen[-1].local["n"] == 7 and not seen[-1].local_won
    assert n_of(b, "x") is None
    assert len(seen) == 3


def test_callback_errors_are_raised_after_the_sync(sites):
    a, b = sites["a"], sites["b"]
    put(a, "x", 1)
    put(a, "y", 1)
    sync("a", sites)
    put(b, "x", 2)
    put(b, "y", 2)
    calls = []

    def on_conflict(conflict):
        calls.append(conflict)
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback") as caught:
        sync("b", sites, conflicts="remote-wins", on_conflict=on_conflict)
    assert len(calls) == 1  # not called again
    assert caught.value.sync_report.conflicts == 2  # the sync went on to its end
    assert n_of(b, "x") == n_of(b, "y") == 1


def test_a_second_sync_of_the_pair_is_refused_while_the_first_runs(sites):
    put(sites["a"], "x", 1)
    refused = []

    def on_progress(progress):
        if not refused:
            with pytest.raises(StoreBusyError, match="already syncing") as caught:
                sync("a", sites)
            refused.append(caught.value)

    assert sync("a", sites, on_progress=on_progress).pushed == 1
    assert len(refused) == 1 and refused[0].code == "Busy"
    # Another pair (another remote table) is not held up.
    sites["remote"].create_table("Other")
    assert partkv.sync_table(sites["a"], "Items", sites["remote"], "Other").seeded
    assert list(contents(sites["remote"], "Other")) == [("p", "x")]


def test_bad_options_are_refused_before_anything_is_sent(sites):
    a, remote = sites["a"], sites["remote"]
    put(a, "x", 1)
    a.create_table("Plain")
    with pytest.raises(ValueError, match="sync direction"):
        sync("a", sites, direction="sideways")
    with pytest.raises(ValueError, match="conflict policy"):
        sync("a", sites, conflicts="mine")
    with pytest.raises(ValueError, match="overlap"):
        sync("a", sites, overlap=-1)
    with pytest.raises(ValueError, match="overlap"):
        sync("a", sites, overlap=datetime.timedelta(milliseconds=1500))
    with pytest.raises(TypeError, match="overlap"):
        sync("a", sites, overlap="300")
    with pytest.raises(TypeError, match="reconcile"):
        sync("a", sites, reconcile="yes")
    with pytest.raises(TypeError, match="on_conflict"):
        sync("a", sites, on_conflict="print")
    with pytest.raises(TypeError, match="state_table"):
        sync("a", sites, state_table=None)
    for batches in (0, 65):
        with pytest.raises(InvalidArgumentError, match="max_batches_in_flight"):
            sync("a", sites, max_batches_in_flight=batches)
    with pytest.raises(InvalidArgumentError, match="state_table"):
        sync("a", sites, state_table="")
    with pytest.raises(InvalidArgumentError, match="must not be the table"):
        sync("a", sites, conflicts_table="Items")
    with pytest.raises(InvalidArgumentError, match="change feed"):
        partkv.sync_table(a, "Plain", remote, "Items")
    with pytest.raises(ResourceNotFoundError):
        partkv.sync_table(a, "Missing", remote, "Items")
    with pytest.raises(ResourceNotFoundError):
        partkv.sync_table(a, "Items", remote, "Missing")
    with pytest.raises(TypeError, match="TableServiceClient"):
        partkv.sync_table(items(a), "Items", remote, "Items")
    with pytest.raises(TypeError, match="remote_table"):
        partkv.sync_table(a, "Items", remote, None)
    assert contents(remote) == {}  # nothing was sent
    closed = partkv.TableServiceClient(str(a.url) + "-closed")
    closed.close()
    with pytest.raises(partkv.ClosedError):
        partkv.sync_table(a, "Items", closed, "Items")
