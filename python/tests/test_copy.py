"""partkv.copy_table and partkv.verify_copy (partkv/copy.h): local to local between two stores,
the insert conflict, a resumed copy, re-keying, and what a verification finds."""

import datetime
import threading
import uuid

import pytest

import partkv
from partkv import EdmType, EntityProperty, UpdateMode
from partkv.exceptions import (
    InvalidArgumentError,
    ResourceExistsError,
    ResourceNotFoundError,
)


def typed_entity(i):
    """Entity i: PartitionKey "p<i % 6>", RowKey "%06d", a property of each of the eight types."""
    return {
        "PartitionKey": "p%d" % (i % 6), "RowKey": "%06d" % i,
        "name": "item %d" % i, "kind": "abc"[i % 3],
        "blob": bytes([i % 256, 0, 255]), "flag": bool(i % 2),
        "when": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
        + datetime.timedelta(seconds=i),
        "ratio": i / 8.0, "id": uuid.UUID(int=i + 1), "n": i,
        "big": EntityProperty(i * 4000000000, EdmType.INT64),
    }


@pytest.fixture
def stores(tmp_path):
    """Two stores, "a" and "b", closed after the test."""
    a = partkv.TableServiceClient(str(tmp_path / "a"))
    b = partkv.TableServiceClient(str(tmp_path / "b"))
    yield a, b
    b.close()
    a.close()


def fill(table, n, make=typed_entity):
    with table.bulk_writer() as writer:
        for i in range(n):
            writer.add(make(i))


def rows(table):
    return {(e["PartitionKey"], e["RowKey"]): dict(e) for e in table.list_entities()}


def test_copy_local_to_local_with_progress(stores):
    a, b = stores
    source = a.create_table("Orders", physical_partitions=4)
    destination = b.create_table("Orders")
    fill(source, 300)
    seen = []
    lock = threading.Lock()

    def progress(p):
        with lock:
            seen.append(p)

    report = partkv.copy_table(source, destination, parallel=2, on_progress=progress)
    assert isinstance(report, partkv.CopyReport)
    assert report.rows_read == 300 and report.rows_written == 300
    assert report.units == 4 and report.streams == 2 and report.probes == 0
    assert report.resent == report.rows_failed == report.rekey_collisions == 0
    assert report.elapsed_micros > 0 and report.as_dict()["rows_written"] == 300
    assert len(seen) >= 4 and all(isinstance(p, partkv.CopyProgress) for p in seen)
    assert max(p.rows_written for p in seen) == 300
    assert max(p.units_done for p in seen) == 4 and seen[-1].units == 4
    assert rows(source) == rows(destination)

    verified = partkv.verify_copy(source, destination)
    assert isinstance(verified, partkv.VerifyReport) and verified.clean
    assert (verified.source_rows, verified.destination_rows) == (300, 300)
    assert verified.first_missing == verified.first_extra == verified.first_different == []
    assert verified.as_dict()["clean"] is True


def test_filtered_selected_copy(stores):
    a, b = stores
    source = a.create_table("Orders")
    some = b.create_table("Some")
    fill(source, 300)
    report = partkv.copy_table(source, some, filter="kind eq @k", parameters={"k": "b"},
                               select="name,big")
    assert report.rows_read == report.rows_written == 100
    assert set(some.get_entity("p1", "000001")) == {"PartitionKey", "RowKey", "name", "big"}
    assert partkv.verify_copy(source, some, filter="kind eq 'b'", select=["big", "name"]).clean
    whole = partkv.verify_copy(source, some)
    assert (whole.source_rows, whole.missing, whole.different, whole.extra) == (300, 200, 100, 0)
    assert len(whole.first_missing) == 10 and whole.first_missing == whole.first_missing_source


def test_insert_conflict_names_the_entity_then_upsert_and_merge(stores):
    a, b = stores
    source = a.create_table("Source")
    destination = b.create_table("Target")
    fill(source, 120)
    destination.create_entity({"PartitionKey": "p5", "RowKey": "000017", "name": "already here"})
    with pytest.raises(ResourceExistsError) as caught:
        partkv.copy_table(source, destination)
    assert '("p5", "000017")' in str(caught.value) and "Target" in str(caught.value)
    assert caught.value.code == "AlreadyExists"
    report = caught.value.copy_report
    assert report.rows_failed == 1 and report.rows_written < 120

    report = partkv.copy_table(source, destination, mode=UpdateMode.REPLACE)
    assert report.rows_written == 120
    assert destination.get_entity("p5", "000017")["name"] == "item 17"
    assert partkv.verify_copy(source, destination, mode="upsert").clean

    destination.upsert_entity({"PartitionKey": "p5", "RowKey": "000017", "note": "kept"},
                              mode=UpdateMode.MERGE)
    partkv.copy_table(source, destination, mode="merge")
    merged = destination.get_entity("p5", "000017")
    assert merged["note"] == "kept" and merged["n"] == 17

    with pytest.raises(ValueError, match="copy mode"):
        partkv.copy_table(source, destination, mode="delete")


def test_resume_from_a_checkpoint(tmp_path, stores):
    a, b = stores
    source = a.create_table("Orders", physical_partitions=1)  # one unit, read in key order
    destination = b.create_table("Orders")
    fill(source, 200, lambda i: {"PartitionKey": "p", "RowKey": "%06d" % i, "n": i})
    destination.create_entity({"PartitionKey": "p", "RowKey": "000055", "n": -1})
    checkpoint = tmp_path / "orders.copy"

    with pytest.raises(ResourceNotFoundError, match="no checkpoint"):
        partkv.copy_table(source, destination, checkpoint=checkpoint, resume=True)
    with pytest.raises(ResourceExistsError, match='"000055"') as caught:
        partkv.copy_table(source, destination, checkpoint=checkpoint, max_group_rows=10)
    written = caught.value.copy_report.rows_written
    assert 0 < written <= 55 and checkpoint.exists()
    assert len(rows(destination)) == written + 1

    # The checkpoint is in the way of a new copy, and refuses a copy of other options or stores.
    with pytest.raises(ResourceExistsError, match="exists"):
        partkv.copy_table(source, destination, checkpoint=checkpoint)
    with pytest.raises(InvalidArgumentError, match="its options"):
        partkv.copy_table(source, destination, checkpoint=checkpoint, resume=True, mode="merge")
    with pytest.raises(InvalidArgumentError, match="its stores"):
        partkv.copy_table(source, destination, checkpoint=str(checkpoint), resume=True,
                          identity="somewhere else")

    # The conflicting row made the source's: the resumed copy finds it there and finishes.
    destination.upsert_entity({"PartitionKey": "p", "RowKey": "000055", "n": 55},
                              mode=UpdateMode.REPLACE)
    report = partkv.copy_table(source, destination, checkpoint=checkpoint, resume=True,
                               max_group_rows=10)
    assert report.resent == 1
    assert report.rows_read == 200 - written and report.rows_written == 200 - written - 1
    assert not checkpoint.exists()
    assert partkv.verify_copy(source, destination).clean
    with pytest.raises(ResourceNotFoundError):
        partkv.copy_table(source, destination, checkpoint=checkpoint, resume=True)


def order(i):
    return {"PartitionKey": "customer-%d" % (i % 7), "RowKey": "o%04d" % i,
            "orderId": "o%04d" % i, "date": "2026-01-0%d" % (i % 3 + 1), "amount": i * 1.5}


def test_rekey_with_hash_suffix_keeping_keys_and_timestamp(stores):
    a, _ = stores
    source = a.create_table("Orders")
    destination = a.create_table("ByDate")
    fill(source, 90, order)
    scheme = partkv.KeyStrategy("hash-suffix(date,orderId,4)")
    options = dict(partition_key=scheme, row_key="concat(orderId)", keep_keys_as=("OldPK", "OldRK"),
                   keep_timestamp_as="SourceTime")
    report = partkv.copy_table(source, destination, **options)
    assert report.rows_written == 90
    for i in range(0, 90, 11):
        original = source.get_entity("customer-%d" % (i % 7), "o%04d" % i)
        copied = destination.get_entity(scheme.compute(original), "o%04d" % i)
        assert copied["OldPK"] == original["PartitionKey"]
        assert copied["OldRK"] == original["RowKey"]
        assert copied["SourceTime"] == original.metadata["timestamp"]
        assert copied["amount"] == original["amount"]
    assert partkv.verify_copy(source, destination, **options).clean
    plain = partkv.verify_copy(source, destination)
    assert (plain.missing, plain.extra, plain.clean) == (90, 90, False)

    collide = a.create_table("Collide")
    with pytest.raises(ResourceExistsError, match="re-keying maps source entities") as caught:
        partkv.copy_table(source, collide, partition_key="concat(date)", row_key="concat(date)")
    assert caught.value.copy_report.rekey_collisions == 1


def test_options_refused_before_anything_is_written(stores):
    a, b = stores
    source = a.create_table("Orders")
    destination = b.create_table("Orders")
    fill(source, 10, order)
    with pytest.raises(InvalidArgumentError, match="random-suffix"):
        partkv.copy_table(source, destination, partition_key="random-suffix(date,8)")
    with pytest.raises(InvalidArgumentError, match="keep-keys-as"):
        partkv.copy_table(source, destination, keep_keys_as=("OldPK", "OldRK"))
    with pytest.raises(InvalidArgumentError, match="filter"):
        partkv.copy_table(source, destination, filter="amount gt")
    with pytest.raises(InvalidArgumentError, match="one table"):
        partkv.copy_table(source, source)
    with pytest.raises(InvalidArgumentError, match="filter"):
        partkv.verify_copy(source, destination, filter="amount gt")
    with pytest.raises(ValueError, match="parallel"):
        partkv.copy_table(source, destination, parallel=0)
    with pytest.raises(TypeError, match="keep_keys_as"):
        partkv.copy_table(source, destination, partition_key="concat(date)", keep_keys_as="OldPK")
    with pytest.raises(TypeError, match="TableClient"):
        partkv.copy_table("Orders", destination)
    with pytest.raises(TypeError, match="resume"):
        partkv.copy_table(source, destination, resume="yes")
    assert rows(destination) == {}
    missing = b.get_table_client("Missing")
    with pytest.raises(ResourceNotFoundError):
        partkv.copy_table(source, missing)


def test_progress_errors_are_raised_after_the_copy(stores):
    a, b = stores
    source = a.create_table("Orders")
    destination = b.create_table("Orders")
    fill(source, 50, order)
    calls = []

    def progress(p):
        calls.append(p)
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback") as caught:
        partkv.copy_table(source, destination, on_progress=progress)
    assert len(calls) == 1  # later progress is not reported
    assert caught.value.copy_report.rows_written == 50  # the copy went on to its end
    assert partkv.verify_copy(source, destination).clean


def test_verify_finds_missing_extra_and_different(stores):
    a, b = stores
    source = a.create_table("Orders")
    destination = b.create_table("Orders")
    fill(source, 240)
    partkv.copy_table(source, destination)
    destination.delete_entity("p1", "000007")
    changed = typed_entity(8)
    changed["n"] = -8
    destination.upsert_entity(changed, mode=UpdateMode.REPLACE)
    destination.create_entity({"PartitionKey": "zz", "RowKey": "extra"})

    report = partkv.verify_copy(source, destination)
    assert not report.clean
    assert (report.source_rows, report.destination_rows) == (240, 240)
    assert (report.missing, report.extra, report.different) == (1, 1, 1)
    assert report.first_missing == [("p1", "000007")]
    assert report.first_missing_source == [("p1", "000007")]
    assert report.first_extra == [("zz", "extra")]
    assert report.first_different == [("p2", "000008")]

    counts_only = partkv.verify_copy(source, destination, max_listed=0)
    assert (counts_only.missing, counts_only.extra, counts_only.different) == (1, 1, 1)
    assert counts_only.first_missing == counts_only.first_different == []

    b.delete_table("Orders")
    with pytest.raises(ResourceNotFoundError):
        partkv.verify_copy(source, destination)


def test_copy_into_a_table_of_a_closed_store_is_refused(tmp_path, stores):
    a, _ = stores
    source = a.create_table("Orders")
    other = partkv.TableServiceClient(str(tmp_path / "c"))
    destination = other.create_table("Orders")
    other.close()
    with pytest.raises(partkv.ClosedError):
        partkv.copy_table(source, destination)
