"""sync_table: partkv/sync.h for Python (partkv/c_sync.h)."""

from ._lib import ffi, lib
from . import _codec
from ._changes import seconds
from ._models import SyncConflict, SyncProgress, SyncReport
from ._service import TableServiceClient
from ._status import error_from
from ._store import _bool, _count

__all__ = ["sync_table"]

# partkv_sync_direction_t
_DIRECTIONS = {"both": 0, "push": 1, "pull": 2}
# partkv_conflict_policy_t, by partkv::ConflictPolicyName (underscores taken for dashes)
_POLICIES = {"remote-wins": 0, "local-wins": 1, "last-writer": 2, "report": 3}


def _direction(direction):
    key = direction.lower() if isinstance(direction, str) else direction
    try:
        return _DIRECTIONS[key]
    except (KeyError, TypeError):
        raise ValueError("sync direction %r is not supported: use 'both', 'push' or 'pull'"
                         % (direction,)) from None


def _policy(conflicts):
    key = conflicts.lower().replace("_", "-") if isinstance(conflicts, str) else conflicts
    try:
        return _POLICIES[key]
    except (KeyError, TypeError):
        raise ValueError("conflict policy %r is not supported: use 'report', 'remote-wins', "
                         "'local-wins' or 'last-writer'" % (conflicts,)) from None


def _store_of(service, what):
    if not isinstance(service, TableServiceClient):
        raise TypeError("%s must be a partkv.TableServiceClient, got %s"
                        % (what, type(service).__name__))
    return service._store.ptr()


def _text(value, what):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (what, type(value).__name__))
    return _codec.utf8(value, what)


def _key(pointer, length):
    return ffi.unpack(pointer, length).decode("utf-8", "replace")


def _entity_or_none(pointer):
    return None if pointer == ffi.NULL else _codec.entity_from_ptr(pointer)


def sync_table(local_store, table, remote_store, remote_table, *, direction="both",
               conflicts="report", overlap=300, reconcile=False, state_table="PartkvSync",
               conflicts_table=None, max_batches_in_flight=4, on_conflict=None, on_progress=None):
    """Sync table `table` of the local store of TableServiceClient `local_store` with table
    `remote_table` of TableServiceClient `remote_store` (a remote location, or another local
    store); returns a :class:`SyncReport` (partkv::SyncTable, docs/sync.md).

    A sync pushes the local table's changes since the last sync, read from its change feed (the
    table must be created with ``change_feed=True``), each conditioned on the version last seen
    on the remote; then pulls the remote entities changed since the last pull (by Timestamp, less
    ``overlap``), written locally with origin "sync" (:attr:`TableChange.origin`), which a later
    push does not send back. Both stores stay usable meanwhile and the local table may be
    written; the call releases the GIL while it syncs.

    :keyword direction: ``"both"`` (push, then pull), ``"push"`` or ``"pull"``.
    :keyword conflicts: how an entity changed on both sides is resolved: ``"report"`` (the
        remote version is written locally and the local one set aside in the conflicts table),
        ``"remote-wins"``, ``"local-wins"`` or ``"last-writer"`` (the later Timestamp wins).
    :keyword overlap: whole seconds (an int or a timedelta), at least 0, subtracted from the
        pull's high-water Timestamp (docs/sync.md "Why the overlap is enough").
    :keyword reconcile: True: the pull also lists the remote table's keys, to find remote
        deletes.
    :keyword state_table: / :keyword conflicts_table: the local tables holding the pairs' state
        and the versions set aside (None: the table's name followed by "Conflicts"), created
        when missing.
    :keyword max_batches_in_flight: the batches a push keeps in flight, 1..64.
    :keyword on_conflict: called with a :class:`SyncConflict` for each conflict once resolved,
        one call at a time, on the calling thread. :keyword on_progress: called with a
        :class:`SyncProgress` after each page pushed, pulled or reconciled, the same way. An
        exception either raises is raised by sync_table once the sync has ended (it does not stop
        the sync; that callback is not called again).

    Bad options raise before anything is sent: TypeError / ValueError for wrong Python values
    (an unknown direction or policy, a negative overlap), InvalidArgumentError (also a
    ValueError) naming the option for values the library refuses (max_batches_in_flight outside
    1..64, an empty state_table, the state or conflicts table being the table), and for a local
    table without a change feed,
    ResourceNotFoundError for a missing table, StoreBusyError while another sync of the same
    pair runs in this process. A sync that stops raises the error that stopped it with the
    report of how far it got as the exception's ``sync_report``; its checkpoints then let the
    next sync carry on from there.
    """
    local = _store_of(local_store, "local_store")
    remote = _store_of(remote_store, "remote_store")
    table_name = _text(table, "table")
    remote_name = _text(remote_table, "remote_table")
    options = ffi.gc(lib.partkv_sync_options_create(), lib.partkv_sync_options_destroy)
    lib.partkv_sync_options_set_direction(options, _direction(direction))
    lib.partkv_sync_options_set_conflicts(options, _policy(conflicts))
    lib.partkv_sync_options_set_overlap_seconds(options, seconds(overlap, "overlap", 0))
    lib.partkv_sync_options_set_reconcile(options, 1 if _bool(reconcile, "reconcile") else 0)
    data = _text(state_table, "state_table")
    lib.partkv_sync_options_set_state_table(options, data, len(data))
    if conflicts_table is not None:
        data = _text(conflicts_table, "conflicts_table")
        lib.partkv_sync_options_set_conflicts_table(options, data, len(data))
    # 1..64: checked by the sync (InvalidArgumentError naming it).
    lib.partkv_sync_options_set_max_batches_in_flight(
        options, _count(max_batches_in_flight, "max_batches_in_flight"))
    raised = []
    callbacks = []
    if on_conflict is not None:
        if not callable(on_conflict):
            raise TypeError("on_conflict must be callable, got %s" % type(on_conflict).__name__)
        failed = []

        def report_conflict(conflict, _user_data):
            if failed:
                return
            try:
                on_conflict(SyncConflict(
                    partition_key=_key(conflict.partition_key, conflict.partition_key_length),
                    row_key=_key(conflict.row_key, conflict.row_key_length),
                    local=_entity_or_none(conflict.local),
                    remote=_entity_or_none(conflict.remote),
                    local_won=bool(conflict.local_won), set_aside=bool(conflict.set_aside)))
            except BaseException as exc:  # raised by sync_table once the sync has ended
                failed.append(exc)
                raised.append(exc)

        callbacks.append(ffi.callback("partkv_sync_conflict_fn", report_conflict))
        lib.partkv_sync_options_set_conflict_callback(options, callbacks[-1], ffi.NULL)
    if on_progress is not None:
        if not callable(on_progress):
            raise TypeError("on_progress must be callable, got %s" % type(on_progress).__name__)
        failed_progress = []

        def report_progress(progress, _user_data):
            if failed_progress:
                return
            try:
                on_progress(SyncProgress(
                    phase=ffi.string(progress.phase).decode(), pushed=int(progress.pushed),
                    pulled=int(progress.pulled), conflicts=int(progress.conflicts)))
            except BaseException as exc:  # raised by sync_table once the sync has ended
                failed_progress.append(exc)
                raised.append(exc)

        callbacks.append(ffi.callback("partkv_sync_progress_fn", report_progress))
        lib.partkv_sync_options_set_progress(options, callbacks[-1], ffi.NULL)
    out = ffi.new("partkv_sync_report_t *")
    stopped = ffi.new("partkv_status_t **")
    status = lib.partkv_sync_table(local, table_name, len(table_name), remote, remote_name,
                                   len(remote_name), options, out, stopped)
    del callbacks  # the sync has ended: nothing calls them any more
    if status:
        raise error_from(status)
    report = SyncReport(
        pushed=int(out.pushed), pushed_deletes=int(out.pushed_deletes),
        push_skipped=int(out.push_skipped), adopted=int(out.adopted), pulled=int(out.pulled),
        pulled_deletes=int(out.pulled_deletes), pull_unchanged=int(out.pull_unchanged),
        remote_keys_listed=int(out.remote_keys_listed), conflicts=int(out.conflicts),
        local_won=int(out.local_won), remote_won=int(out.remote_won),
        set_aside=int(out.set_aside), remote_requests=int(out.remote_requests),
        seeded=bool(out.seeded), elapsed_micros=int(out.elapsed_micros))
    if stopped[0] != ffi.NULL:
        error = error_from(stopped[0])
        error.sync_report = report
        if raised:
            raised[0].sync_report = report
            raise raised[0] from error
        raise error
    if raised:
        raised[0].sync_report = report
        raise raised[0]
    return report
