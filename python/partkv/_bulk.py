"""BulkWriter: partkv/bulk_writer.h for Python."""

from ._lib import ffi, lib
from . import _codec
from ._models import BulkWriteReport
from ._status import error_from
from .exceptions import ClosedError

__all__ = ["BulkWriter"]

_OP_INSERT, _OP_INSERT_OR_REPLACE, _OP_INSERT_OR_MERGE = 0, 3, 4

_MODES = {
    None: _OP_INSERT, "insert": _OP_INSERT, "create": _OP_INSERT,
    "replace": _OP_INSERT_OR_REPLACE, "insert_or_replace": _OP_INSERT_OR_REPLACE,
    "merge": _OP_INSERT_OR_MERGE, "insert_or_merge": _OP_INSERT_OR_MERGE,
}

_DEFAULT_GROUP_ROWS = 16384
_DEFAULT_GROUP_BYTES = 8 << 20
_DEFAULT_RETRY = (10, 50, 5000, 30000)  # partkv::RetryPolicy's defaults


def _mode(mode):
    key = getattr(mode, "value", mode)
    if isinstance(key, str):
        key = key.lower().replace("-", "_")
    try:
        return _MODES[key]
    except (KeyError, TypeError):
        raise ValueError("bulk writer mode %r is not supported: use None or 'create' (inserts), "
                         "UpdateMode.REPLACE or UpdateMode.MERGE (upserts)" % (mode,)) from None


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    if value < 0:
        raise ValueError("%s must not be negative, got %d" % (name, value))
    return value


class BulkWriter:
    """Loads a stream of entities into one table, in any key order: each row its own insert (or
    upsert) with Azure's rules, written in atomic groups of thousands of rows across
    PartitionKeys (partkv::BulkWriter; made by :meth:`TableClient.bulk_writer`).

    ::

        with table.bulk_writer() as writer:      # finish() at the end of the block
            for entity in entities:
                writer.add(entity)
            writer.add_json_lines(open("more.jsonl", "rb").read())
        print(writer.report.rows_written)

    The first bad row stops the writer: that call (or a later one) raises its error — e.g.
    InvalidArgumentError ("row 11: ...", "line 12: ...") or ResourceExistsError for an insert of
    an existing key — and :attr:`report` names it. Rows written before it stay written: the
    stream's first ``report.rows_written`` rows. ServerBusyError / StoreBusyError mean the row
    (or lines) were not taken: make the same call again after the wait.

    Options (keyword): ``mode`` (None/"create": inserts; UpdateMode.REPLACE / UpdateMode.MERGE:
    upserts), ``max_group_rows`` (16384), ``max_group_bytes`` (8 MiB), ``sync`` (the store's),
    ``validate_before_writing`` (validate every row before writing any; rows wait in a spill
    file in ``spill_directory``), ``threads`` (JSON-lines parser threads, 0 = per core),
    ``max_batches_in_flight`` (remote tables), ``retry_throttled`` (True for the default policy,
    or ``(max_attempts, base_delay_ms, max_delay_ms, max_total_wait_ms)``).
    """

    def __init__(self, table_client, mode=None, *, max_group_rows=None, max_group_bytes=None,
                 sync=None, validate_before_writing=False, spill_directory=None, threads=None,
                 max_batches_in_flight=None, retry_throttled=None):
        """Make a writer into `table_client`'s table (see the class for the options)."""
        self._client = table_client
        table = table_client._table()
        options = ffi.gc(lib.partkv_bulk_writer_options_create(),
                         lib.partkv_bulk_writer_options_destroy)
        lib.partkv_bulk_writer_options_set_mode(options, _mode(mode))
        if max_group_rows is not None or max_group_bytes is not None:
            rows = _positive(max_group_rows, "max_group_rows") if max_group_rows is not None \
                else _DEFAULT_GROUP_ROWS
            size = _positive(max_group_bytes, "max_group_bytes") if max_group_bytes is not None \
                else _DEFAULT_GROUP_BYTES
            lib.partkv_bulk_writer_options_set_group_bounds(options, rows, size)
        if sync is None:
            sync = table_client._store.write_options != ffi.NULL
        if not isinstance(sync, bool):
            raise TypeError("sync must be a bool, got %s" % type(sync).__name__)
        lib.partkv_bulk_writer_options_set_sync(options, 1 if sync else 0)
        if not isinstance(validate_before_writing, bool):
            raise TypeError("validate_before_writing must be a bool")
        if validate_before_writing or spill_directory:
            directory = b"" if spill_directory is None else _codec.utf8(str(spill_directory),
                                                                       "spill_directory")
            lib.partkv_bulk_writer_options_set_validate_before_writing(
                options, 1 if validate_before_writing else 0, directory, len(directory))
        if threads is not None:
            lib.partkv_bulk_writer_options_set_threads(options, _positive(threads, "threads"))
        if max_batches_in_flight is not None:
            lib.partkv_bulk_writer_options_set_max_batches_in_flight(
                options, _positive(max_batches_in_flight, "max_batches_in_flight"))
        if retry_throttled:
            policy = _DEFAULT_RETRY if retry_throttled is True else tuple(retry_throttled)
            if len(policy) != 4:
                raise TypeError("retry_throttled must be True or (max_attempts, base_delay_ms, "
                                "max_delay_ms, max_total_wait_ms)")
            lib.partkv_bulk_writer_options_set_retry_throttled(
                options, *[_positive(v, "retry_throttled") for v in policy])
        out = ffi.new("partkv_bulk_writer_t **")
        status = lib.partkv_bulk_writer_create(table, options, out)
        if status:
            raise error_from(status)
        self._ptr = ffi.gc(out[0], lib.partkv_bulk_writer_destroy)
        self._closed = None
        self._report_at_close = None
        self._store = table_client._store
        self._pk_required = table_client._pk_required
        self._rk_required = table_client._rk_required
        table_client._store.register(self)

    def _writer(self):
        handle = self._ptr
        if handle is None:
            raise ClosedError(self._closed or "bulk writer is closed")
        return handle

    def _store_closed(self):
        self._closed = "store is closed"
        self._ptr = None

    def add(self, entity):
        """Take `entity` (a mapping) as the stream's next row; may write a full group first."""
        writer = self._writer()
        source = _codec.new_entity(entity, self._pk_required, self._rk_required)
        try:
            status = lib.partkv_bulk_writer_add(writer, source)
        finally:
            lib.partkv_entity_destroy(source)
        if status:
            raise error_from(status)

    def add_entities(self, entities):
        """:meth:`add` each entity of an iterable, in order."""
        for entity in entities:
            self.add(entity)

    def add_json_lines(self, lines):
        """Take JSON Lines (Azure Table JSON entities, one per line; a str or bytes of whole
        lines, the last may lack its newline; blank lines skipped) as the next rows. A bad line
        may be reported by a later call ("line N: ...")."""
        writer = self._writer()
        if isinstance(lines, str):
            data = _codec.utf8(lines, "JSON lines")
        elif isinstance(lines, (bytes, bytearray, memoryview)):
            data = bytes(lines)
        else:
            raise TypeError("add_json_lines() takes a str or bytes, got %s" % type(lines).__name__)
        status = lib.partkv_bulk_writer_add_json_lines(writer, data, len(data))
        if status:
            raise error_from(status)

    def flush(self):
        """Validate every row taken so far and (unless validate_before_writing) write them."""
        status = lib.partkv_bulk_writer_flush(self._writer())
        if status:
            raise error_from(status)

    def finish(self):
        """End the stream: write every row not yet written; returns the :attr:`report`. After
        ServerBusyError or StoreBusyError call it again: it resumes."""
        status = lib.partkv_bulk_writer_finish(self._writer())
        if status:
            raise error_from(status)
        return self.report

    @property
    def report(self):
        """What the write has done so far (a :class:`BulkWriteReport`); after :meth:`close`, what
        it had done then."""
        handle = self._ptr
        if handle is None and self._report_at_close is not None:
            return self._report_at_close
        out = ffi.new("partkv_bulk_report_t *")
        lib.partkv_bulk_writer_report(self._writer(), out)
        return BulkWriteReport(
            rows_added=int(out.rows_added), lines_added=int(out.lines_added),
            rows_written=int(out.rows_written), groups_written=int(out.groups_written),
            batches_written=int(out.batches_written), throttled=int(out.throttled),
            throttled_wait_micros=int(out.throttled_wait_micros),
            bad_row=int(out.bad_row) if out.has_bad_row else None, bad_line=int(out.bad_line),
            resume_line=int(out.resume_line), also_written_rows=int(out.also_written_rows))

    @property
    def error(self):
        """Why the writer stopped (the exception it raised), or None while it goes on."""
        status = lib.partkv_bulk_writer_error(self._writer())
        return error_from(status) if status else None

    def close(self):
        """Release the writer; rows not yet written are dropped (call :meth:`finish` first)."""
        if self._ptr is not None:
            self._report_at_close = self.report
        self._ptr = None
        self._closed = self._closed or "bulk writer is closed"

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        try:
            if exc_type is None and self._ptr is not None:
                self.finish()
        finally:
            self.close()
