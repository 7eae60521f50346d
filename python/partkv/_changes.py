"""The change feed and time to live for Python (partkv/c_changes.h): the options of
create_table and set_table_options, and the feed's pages (query_changes), state, waits and sweep.
"""

import datetime

from ._lib import ffi, lib
from . import _codec
from ._codec import utf8
from ._models import ChangeFeedState, SweepReport, TableChange
from ._paging import ItemPaged, PageIterator
from ._status import error_from
from .exceptions import AzureError

__all__ = ["ChangeFeedPaged"]

# partkv_changes_start_t, partkv_changes_mode_t, partkv_change_op_t
_STARTS = {"beginning": 0, "now": 1}
_MODES = {"latest": 0, "all": 1}
_OPS = {1: "insert", 2: "replace", 3: "merge", 4: "delete", 5: "expire"}
# partkv_write_origin_t
_ORIGINS = {0: "application", 1: "sync"}

_MAX_INT64 = 2 ** 63 - 1


def seconds(value, name, low):
    """Whole seconds from an int or a timedelta, at least `low` (TypeError / ValueError naming
    `name`)."""
    if isinstance(value, datetime.timedelta):
        micros = value // datetime.timedelta(microseconds=1)
        if micros % 1000000:
            raise ValueError("%s must be whole seconds, got %r" % (name, value))
        value = micros // 1000000
    elif isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int of seconds or a datetime.timedelta, got %s"
                        % (name, type(value).__name__))
    if not low <= value <= _MAX_INT64:
        raise ValueError("%s must be at least %d seconds, got %d" % (name, low, value))
    return value


def max_bytes(value, name="feed_max_bytes"):
    """Bytes, an int >= 0."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int of bytes, got %s" % (name, type(value).__name__))
    if not 0 <= value < 2 ** 64:
        raise ValueError("%s must be in 0..2**64-1 bytes (0: no limit), got %d" % (name, value))
    return value


def ttl_seconds(value, name="ttl"):
    """A time to live: 0 off, -1 only entities with a "ttl" property expire, N > 0 seconds."""
    return seconds(value, name, -1)


def retention(seconds_value):
    """A retention of the C API (0 = none) as a timedelta or None."""
    return datetime.timedelta(seconds=seconds_value) if seconds_value else None


def apply_table_options(handle, change_feed, feed_retention, feed_max_bytes, ttl):
    """Sets create_table's feed and TTL options on a partkv_table_options_t."""
    if change_feed is not None and not isinstance(change_feed, bool):
        raise TypeError("change_feed must be a bool, got %s" % type(change_feed).__name__)
    if not change_feed and (feed_retention is not None or feed_max_bytes is not None):
        raise ValueError("feed_retention and feed_max_bytes are limits of a change feed: give "
                         "them with change_feed=True")
    if change_feed:
        lib.partkv_table_options_set_change_feed(
            handle, 1,
            0 if feed_retention is None else seconds(feed_retention, "feed_retention", 0),
            0 if feed_max_bytes is None else max_bytes(feed_max_bytes))
    if ttl is not None:
        lib.partkv_table_options_set_ttl(handle, ttl_seconds(ttl))


def set_table_options(store, name_bytes, change_feed, feed_retention, feed_max_bytes, ttl):
    """Store::SetTableOptions: each option None stays as the table has it."""
    settings = ffi.gc(lib.partkv_table_settings_create(), lib.partkv_table_settings_destroy)
    if change_feed is not None:
        if not isinstance(change_feed, bool):
            raise TypeError("change_feed must be a bool, got %s" % type(change_feed).__name__)
        lib.partkv_table_settings_set_change_feed_enabled(settings, 1 if change_feed else 0)
    if feed_retention is not None:
        lib.partkv_table_settings_set_feed_retention(
            settings, seconds(feed_retention, "feed_retention", 0))
    if feed_max_bytes is not None:
        lib.partkv_table_settings_set_feed_max_bytes(settings, max_bytes(feed_max_bytes))
    if ttl is not None:
        lib.partkv_table_settings_set_ttl(settings, ttl_seconds(ttl))
    status = lib.partkv_store_set_table_options(store.ptr(), name_bytes, len(name_bytes), settings)
    if status:
        raise error_from(status, table_level=True)


def table_info_fields(info):
    """TableItem's keyword arguments of the feed and TTL, from a partkv_table_info_t."""
    retention_out = ffi.new("int64_t *")
    bytes_out = ffi.new("uint64_t *")
    enabled = bool(lib.partkv_table_info_change_feed(info, retention_out, bytes_out))
    return {"change_feed": enabled,
            "feed_retention": retention(int(retention_out[0])) if enabled else None,
            "feed_max_bytes": (int(bytes_out[0]) or None) if enabled else None,
            "ttl": int(lib.partkv_table_info_ttl(info))}


class _ChangePages:
    """Reads one query_changes' pages into a reused page handle (one per by_page())."""

    __slots__ = ("_client", "_query", "_page", "_change", "_length")

    def __init__(self, client, start, mode, page_size):
        query = ffi.gc(lib.partkv_changes_query_create(), lib.partkv_changes_query_destroy)
        lib.partkv_changes_query_set_start(query, start)
        lib.partkv_changes_query_set_mode(query, mode)
        lib.partkv_changes_query_set_page_size(query, page_size)
        self._client = client
        self._query = query
        self._page = ffi.gc(lib.partkv_changes_page_create(), lib.partkv_changes_page_destroy)
        self._change = ffi.new("partkv_change_t *")
        self._length = ffi.new("size_t *")

    def __call__(self, token):
        """One page: (list of TableChange, the next page's token, whether it caught up)."""
        table = self._client._table()
        data = b"" if token is None else utf8(token, "continuation_token")
        lib.partkv_changes_query_set_continuation(self._query, data, len(data))
        page = self._page
        status = lib.partkv_table_read_changes(table, self._query, page)
        if status:
            raise error_from(status)
        change = self._change
        items = []
        for i in range(lib.partkv_changes_page_count(page)):
            if not lib.partkv_changes_page_get(page, i, change):
                break
            op = int(change.op)
            origin = int(lib.partkv_changes_page_origin(page, i))
            items.append(TableChange(
                int(change.seq), _OPS.get(op, "unknown(%d)" % op),
                _codec.ticks_to_datetime(change.time_ticks),
                ffi.unpack(change.etag, change.etag_length).decode(),
                _codec.entity_from_ptr(change.entity),
                _ORIGINS.get(origin, "unknown(%d)" % origin)))
        length = self._length
        text = lib.partkv_changes_page_continuation(page, length)
        next_token = ffi.unpack(text, length[0]).decode()
        return items, next_token, bool(lib.partkv_changes_page_caught_up(page))


class _ChangePageIterator(PageIterator):
    """The pages of a change feed: a feed has no end, so the pages stop after the one that
    reached the newest change, and ``continuation_token`` stays set, where the next read of the
    feed starts (resume there later, or wait for changes there with
    :meth:`TableClient.wait_for_changes`)."""

    def __init__(self, fetch, continuation_token=None):
        super().__init__(fetch, continuation_token)
        self.caught_up = False

    def __next__(self):
        """Read the next page; returns an iterator over its changes (StopIteration after the
        page that caught up)."""
        if self.caught_up:
            raise StopIteration("Caught up with the change feed")
        try:
            items, token, caught_up = self._fetch(self.continuation_token)
        except AzureError as error:
            if not error.continuation_token:
                error.continuation_token = self.continuation_token
            raise
        self._did_a_call_already = True
        self._pages += 1
        self.continuation_token = token
        self.caught_up = caught_up
        self._current_page = items
        return iter(items)

    next = __next__


class ChangeFeedPaged(ItemPaged):
    """The changes of a table's feed (:meth:`TableClient.query_changes`), read page by page as
    iteration proceeds, up to the newest change committed when the last page was read.

    ``by_page(continuation_token=None)`` iterates the pages (from the query's ``continuation``
    when None), exposing ``continuation_token`` after each page; ``continuation_token`` here is
    the token after the last change iterated so far (None before the first page is read).
    """

    def __init__(self, page_fetcher_factory, continuation=None):
        super().__init__(page_fetcher_factory)
        self._continuation = continuation
        self._pages = None

    def by_page(self, continuation_token=None):
        """An iterator of pages, starting at `continuation_token` (None: the query's start)."""
        if continuation_token is not None and not isinstance(continuation_token, str):
            raise TypeError("continuation_token must be a str returned by a previous page, got %s"
                            % type(continuation_token).__name__)
        return _ChangePageIterator(self._factory(),
                                   continuation_token or self._continuation or None)

    def __next__(self):
        """The next change, reading the next page when the current one is exhausted."""
        if self._page_iterator is None:
            self._pages = self.by_page()
            self._page_iterator = _chain(self._pages)
        return next(self._page_iterator)

    next = __next__

    @property
    def continuation_token(self):
        """Where a later read resumes after the changes iterated so far (None before any)."""
        return self._pages.continuation_token if self._pages is not None else None

    def __repr__(self):
        return "<partkv ChangeFeedPaged>"


def _chain(pages):
    for page in pages:
        yield from page


def query_changes(client, continuation, start, mode, results_per_page):
    if continuation is not None and not isinstance(continuation, str):
        raise TypeError("continuation must be a str token of an earlier page, got %s"
                        % type(continuation).__name__)
    if start not in _STARTS:
        raise ValueError("start must be \"beginning\" or \"now\", got %r" % (start,))
    if mode not in _MODES:
        raise ValueError("mode must be \"latest\" or \"all\", got %r" % (mode,))
    if isinstance(results_per_page, bool) or not isinstance(results_per_page, int):
        raise TypeError("results_per_page must be an int, got %s"
                        % type(results_per_page).__name__)
    if not 1 <= results_per_page <= 1000:
        raise ValueError("results_per_page must be in 1..1000, got %d" % results_per_page)
    client._table()  # a missing table or a closed client fails here, not at the first item
    start_value, mode_value = _STARTS[start], _MODES[mode]
    return ChangeFeedPaged(lambda: _ChangePages(client, start_value, mode_value, results_per_page),
                           continuation)


def feed_state(client):
    state = ffi.new("partkv_change_feed_state_t *")
    token = ffi.new("char **")
    length = ffi.new("size_t *")
    status = lib.partkv_table_feed_state(client._table(), state, token, length)
    if status:
        raise error_from(status)
    return ChangeFeedState(retention=retention(int(state.retention_seconds)),
                           max_bytes=int(state.max_bytes) or None,
                           first_seq=int(state.first_seq), next_seq=int(state.next_seq),
                           bytes=int(state.bytes), first_token=_codec.owned_text(token[0], length))


def wait_for_changes(client, continuation, timeout):
    if not isinstance(continuation, str):
        raise TypeError("continuation must be a str token of an earlier page (or the state's "
                        "first_token), got %s" % type(continuation).__name__)
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError("timeout must be seconds (an int or a float) or a datetime.timedelta, got "
                        "%s" % type(timeout).__name__)
    if not 0 <= timeout <= 10 ** 9:
        raise ValueError("timeout must be in 0..1e9 seconds, got %r" % (timeout,))
    data = utf8(continuation, "continuation")
    ready = ffi.new("int *")
    # cffi releases the GIL for the call: writers in other threads go on while this one waits.
    status = lib.partkv_table_await_changes(client._table(), data, len(data),
                                            int(round(timeout * 1000)), ready)
    if status:
        raise error_from(status)
    return bool(ready[0])


def sweep(client):
    report = ffi.new("partkv_sweep_report_t *")
    status = lib.partkv_table_sweep(client._table(), report)
    if status:
        raise error_from(status)
    return SweepReport(feed_entries_trimmed=int(report.feed_entries_trimmed),
                       expiries_recorded=int(report.expiries_recorded))
