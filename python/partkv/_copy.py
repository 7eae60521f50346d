"""copy_table and verify_copy: partkv/copy.h for Python (partkv/c_copy.h)."""

import os

from ._lib import ffi, lib
from . import _codec
from ._client import TableClient
from ._keys import strategy_ptr
from ._models import CopyProgress, CopyReport, VerifyReport
from ._status import error_from
from ._store import _bool, _count

__all__ = ["copy_table", "verify_copy"]

_OP_INSERT, _OP_INSERT_OR_REPLACE, _OP_INSERT_OR_MERGE = 0, 3, 4

_MODES = {
    "insert": _OP_INSERT, "create": _OP_INSERT,
    "upsert": _OP_INSERT_OR_REPLACE, "replace": _OP_INSERT_OR_REPLACE,
    "insert_or_replace": _OP_INSERT_OR_REPLACE,
    "merge": _OP_INSERT_OR_MERGE, "insert_or_merge": _OP_INSERT_OR_MERGE,
}

# partkv_verify_list_t
_MISSING, _MISSING_SOURCE, _EXTRA, _DIFFERENT = range(4)


def _mode(mode):
    key = getattr(mode, "value", mode)
    if isinstance(key, str):
        key = key.lower().replace("-", "_")
    try:
        return _MODES[key]
    except (KeyError, TypeError):
        raise ValueError("copy mode %r is not supported: use 'insert', 'upsert' "
                         "(UpdateMode.REPLACE) or 'merge' (UpdateMode.MERGE)" % (mode,)) from None


def _table_of(client, what):
    if not isinstance(client, TableClient):
        raise TypeError("%s must be a partkv.TableClient, got %s" % (what, type(client).__name__))
    return client._table()


def _text(value, what):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (what, type(value).__name__))
    return _codec.utf8(value, what)


def _location(client):
    """A store's location for a checkpoint's identity: a directory made absolute, a remote
    endpoint without its secrets."""
    store = client._store
    if store.backend == "remote":
        data = store.path.encode()
        length = ffi.new("size_t *")
        return _codec.owned_text(lib.partkv_redact_location(data, len(data), length), length)
    return os.path.realpath(store.path)


def _options(filter, parameters, select, mode, partition_key, row_key, keep_keys_as,
             keep_timestamp_as, parallel):
    """A partkv_copy_options_t with what both calls take, and the objects it borrows."""
    options = ffi.gc(lib.partkv_copy_options_create(), lib.partkv_copy_options_destroy)
    keep = []
    if filter is not None or parameters:
        text = _codec.substitute_parameters(filter if filter is not None else "", parameters)
        data = _text(text, "filter")
        lib.partkv_copy_options_set_filter(options, data, len(data))
    for name in _codec.select_list(select) or ():
        data = _codec.utf8(name, "select name")
        lib.partkv_copy_options_add_select(options, data, len(data))
    lib.partkv_copy_options_set_mode(options, _mode(mode))
    ptr, held = strategy_ptr(partition_key, "partition_key")
    lib.partkv_copy_options_set_partition_key_scheme(options, ptr)
    keep.append(held)
    ptr, held = strategy_ptr(row_key, "row_key")
    lib.partkv_copy_options_set_row_key_scheme(options, ptr)
    keep.append(held)
    if keep_keys_as is not None:
        if (not isinstance(keep_keys_as, (tuple, list)) or len(keep_keys_as) != 2):
            raise TypeError("keep_keys_as must be a pair of property names "
                            "(the PartitionKey's, the RowKey's)")
        pk = _text(keep_keys_as[0], "keep_keys_as[0]")
        rk = _text(keep_keys_as[1], "keep_keys_as[1]")
        lib.partkv_copy_options_set_keep_keys_as(options, pk, len(pk), rk, len(rk))
    if keep_timestamp_as is not None:
        data = _text(keep_timestamp_as, "keep_timestamp_as")
        lib.partkv_copy_options_set_keep_timestamp_as(options, data, len(data))
    lib.partkv_copy_options_set_streams(options, _count(parallel, "parallel", 1, 64))
    return options, keep


def copy_table(source, destination, *, filter=None, parameters=None, select=None, mode="insert",
               partition_key=None, row_key=None, keep_keys_as=None, keep_timestamp_as=None,
               parallel=1, checkpoint=None, resume=False, identity=None, max_group_rows=None,
               max_batches_in_flight=None, on_progress=None):
    """Copy the table of TableClient `source` into the table of TableClient `destination`, in
    any pair of stores (local or remote); returns a :class:`CopyReport` (partkv::CopyTable).

    A local source is copied as it was when the copy started (one snapshot); a remote one by
    PartitionKey ranges, without a snapshot. Both tables stay usable meanwhile; the call
    releases the GIL while it copies.

    :keyword filter: an OData $filter on the source (``parameters`` substituted as in
        :meth:`TableClient.query_entities`); None copies every entity.
    :keyword select: the property names to copy (a list or a str "a,b"); the keys always are.
    :keyword mode: ``"insert"`` (an entity the destination has stops the copy),
        ``"upsert"`` (UpdateMode.REPLACE: InsertOrReplace) or ``"merge"`` (UpdateMode.MERGE:
        InsertOrMerge).
    :keyword partition_key: / :keyword row_key: re-keying: a key strategy (text or
        :class:`KeyStrategy`) computing the destination's key from each entity's properties;
        random-suffix is refused (hash-suffix spreads keys as well).
    :keyword keep_keys_as: ``(pk_name, rk_name)``: String properties keeping the source's keys
        (only with re-keying). :keyword keep_timestamp_as: a DateTime property keeping the
        source's Timestamp.
    :keyword parallel: threads reading and writing at once, 1..64.
    :keyword checkpoint: a file recording the copy's progress (deleted when it finishes); with
        ``resume=True`` the copy continues from it. :keyword identity: text recorded in the
        checkpoint that a resumed copy must give again (default: the two stores' locations).
    :keyword max_group_rows: rows per atomic group on a local destination (16384);
        :keyword max_batches_in_flight: a remote destination's batches in flight per stream (4).
    :keyword on_progress: called with a :class:`CopyProgress` after every acknowledged group
        and when a unit ends, one call at a time, on the copy's threads. An exception it raises
        is raised by copy_table once the copy has ended (it does not stop the copy; later
        progress is not reported).

    Bad options raise before anything is written (InvalidArgumentError naming the option,
    TypeError / ValueError for wrong Python values), as does a checkpoint that cannot be used:
    ResourceExistsError for one that exists without ``resume``, ResourceNotFoundError for a
    missing one with it, InvalidArgumentError for one of another copy. A copy that stops raises
    the error that stopped it — ResourceExistsError naming the entity for an insert of a key the
    destination has, InvalidArgumentError naming a source entity that cannot be mapped, the
    failure of either store — with the report of how far it got as the exception's
    ``copy_report``; the checkpoint then records that, and a resumed copy carries on from there.
    """
    from_table = _table_of(source, "source")
    to_table = _table_of(destination, "destination")
    options, keep = _options(filter, parameters, select, mode, partition_key, row_key,
                             keep_keys_as, keep_timestamp_as, parallel)
    if checkpoint is not None:
        path = os.fsencode(os.fspath(checkpoint))
        lib.partkv_copy_options_set_checkpoint(options, path, len(path))
    lib.partkv_copy_options_set_resume(options, 1 if _bool(resume, "resume") else 0)
    if identity is None:
        identity = "from %s to %s" % (_location(source), _location(destination))
    data = _text(identity, "identity")
    lib.partkv_copy_options_set_identity(options, data, len(data))
    if max_group_rows is not None:
        lib.partkv_copy_options_set_max_group_rows(options, _count(max_group_rows,
                                                                   "max_group_rows", 1))
    if max_batches_in_flight is not None:
        lib.partkv_copy_options_set_max_batches_in_flight(
            options, _count(max_batches_in_flight, "max_batches_in_flight", 1))
    raised = []
    callback = None
    if on_progress is not None:
        if not callable(on_progress):
            raise TypeError("on_progress must be callable, got %s" % type(on_progress).__name__)

        def report_progress(progress, _user_data):
            if raised:
                return
            try:
                on_progress(CopyProgress(
                    rows_read=int(progress.rows_read), rows_written=int(progress.rows_written),
                    source_rows_estimate=int(progress.source_rows_estimate)
                    if progress.has_source_rows_estimate else None,
                    units_done=int(progress.units_done), units=int(progress.units)))
            except BaseException as exc:  # raised by copy_table once the copy has ended
                raised.append(exc)

        callback = ffi.callback("partkv_copy_progress_fn", report_progress)
        lib.partkv_copy_options_set_progress(options, callback, ffi.NULL)
    out = ffi.new("partkv_copy_report_t *")
    stopped = ffi.new("partkv_status_t **")
    status = lib.partkv_copy_table(from_table, to_table, options, out, stopped)
    del keep, callback  # the copy has ended: nothing borrows them any more
    if status:
        raise error_from(status)
    report = CopyReport(
        rows_read=int(out.rows_read), rows_written=int(out.rows_written), resent=int(out.resent),
        units_skipped=int(out.units_skipped), rows_failed=int(out.rows_failed),
        rekey_collisions=int(out.rekey_collisions), throttled=int(out.throttled),
        throttled_wait_micros=int(out.throttled_wait_micros),
        service_throttled=int(out.service_throttled),
        retry_wait_micros=int(out.retry_wait_micros), probes=int(out.probes),
        units=int(out.units), streams=int(out.streams), elapsed_micros=int(out.elapsed_micros))
    if stopped[0] != ffi.NULL:
        error = error_from(stopped[0])
        error.copy_report = report
        if raised:
            raised[0].copy_report = report
            raise raised[0] from error
        raise error
    if raised:
        raised[0].copy_report = report
        raise raised[0]
    return report


def _keys(report, which):
    keys = []
    pk_length = ffi.new("size_t *")
    rk_length = ffi.new("size_t *")
    row_key = ffi.new("char **")
    for index in range(lib.partkv_verify_report_listed(report, which)):
        pk = lib.partkv_verify_report_key(report, which, index, pk_length, row_key, rk_length)
        keys.append((_codec.unpack_text(pk, pk_length), _codec.unpack_text(row_key[0], rk_length)))
    return keys


def verify_copy(source, destination, *, filter=None, parameters=None, select=None,
                mode="insert", partition_key=None, row_key=None, keep_keys_as=None,
                keep_timestamp_as=None, parallel=1, max_listed=10):
    """Compare the table of TableClient `destination` with what copying `source` with the same
    options gives (partkv::VerifyCopy); returns a :class:`VerifyReport` (``.clean``, the counts
    of missing, extra and different entities, and up to `max_listed` keys of each).

    Each selected source entity, mapped through select, re-keying and the keep-as properties, is
    looked for in the destination by its destination keys; Timestamps and ETags are not compared
    (a property kept by keep_timestamp_as is). The options are :func:`copy_table`'s. Bad options
    raise as there; a table that cannot be read raises its error.
    """
    from_table = _table_of(source, "source")
    to_table = _table_of(destination, "destination")
    options, keep = _options(filter, parameters, select, mode, partition_key, row_key,
                             keep_keys_as, keep_timestamp_as, parallel)
    out = ffi.new("partkv_verify_report_t **")
    status = lib.partkv_verify_copy(from_table, to_table, options,
                                    _count(max_listed, "max_listed"), out)
    del keep
    if status:
        raise error_from(status)
    report = ffi.gc(out[0], lib.partkv_verify_report_destroy)
    counts = ffi.new("partkv_verify_counts_t *")
    lib.partkv_verify_report_counts(report, counts)
    return VerifyReport(
        source_rows=int(counts.source_rows), destination_rows=int(counts.destination_rows),
        missing=int(counts.missing), extra=int(counts.extra), different=int(counts.different),
        first_missing=_keys(report, _MISSING), first_missing_source=_keys(report, _MISSING_SOURCE),
        first_extra=_keys(report, _EXTRA), first_different=_keys(report, _DIFFERENT))
