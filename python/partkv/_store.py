"""What the clients share: the store handle (_Store), store and table options, argument checks,
and the listing of tables (azure-data-tables' list_tables/query_tables pages)."""

import os
import threading
import weakref

from ._lib import ffi, lib
from . import _codec
from ._codec import utf8, new_entity
from ._keys import strategy_ptr
from ._models import (
    MatchConditions,
    TableItem,
    UpdateMode,
)
from ._paging import ItemPaged
from ._status import error_from
from . import _changes
from .exceptions import ClosedError

# partkv_op_t
_OP_INSERT, _OP_REPLACE, _OP_MERGE, _OP_INSERT_OR_REPLACE, _OP_INSERT_OR_MERGE, _OP_DELETE = range(6)

# Keyword arguments of the Azure SDK's calls that only concern HTTP; accepted and ignored.
_TRANSPORT_KWARGS = frozenset(("timeout", "headers", "logging_enable", "raw_request_hook",
                               "raw_response_hook", "retry_total", "connection_timeout",
                               "read_timeout", "user_agent"))


def _no_other_kwargs(kwargs, call):
    for name in kwargs:
        if name not in _TRANSPORT_KWARGS:
            raise TypeError("%s() got an unexpected keyword argument '%s'" % (call, name))


def _bool(value, name):
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %s" % (name, type(value).__name__))
    return value


def _count(value, name, low=0, high=2 ** 63 - 1):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    if not low <= value <= high:
        raise ValueError("%s must be in %d..%d, got %d" % (name, low, high, value))
    return value


def _pair(value, name, count):
    if not isinstance(value, (tuple, list)) or len(value) != count:
        raise TypeError("%s must be a tuple of %d ints" % (name, count))
    return [_count(v, "%s[%d]" % (name, i)) for i, v in enumerate(value)]


def _location_bytes(location):
    if isinstance(location, bytes):
        return location
    try:
        path = os.fspath(location)
    except TypeError:
        raise TypeError("the store location must be a directory path or a connection string, got %s"
                        % type(location).__name__) from None
    if isinstance(path, bytes):
        return path
    try:
        return os.fsencode(path)
    except UnicodeEncodeError as exc:
        raise ValueError("the store location cannot be encoded: %s at index %d"
                         % (exc.reason, exc.start)) from None


_STORE_OPTION_NAMES = ("create_if_missing", "error_if_exists", "memory_budget", "profile",
                       "throttling", "write_stall_timeout_ms", "scan_threads", "low_priority_compactions",
                       "remote_ca_file",
                       "remote_timeouts_ms", "remote_connections", "remote_retry", "sync",
                       "maintenance_interval_ms")


def _store_options(options):
    handle = ffi.gc(lib.partkv_store_options_create(), lib.partkv_store_options_destroy)
    sync = False
    for name, value in options.items():
        if name == "create_if_missing":
            lib.partkv_store_options_set_create_if_missing(handle, _bool(value, name))
        elif name == "error_if_exists":
            lib.partkv_store_options_set_error_if_exists(handle, _bool(value, name))
        elif name == "memory_budget":
            lib.partkv_store_options_set_memory_budget(handle, _count(value, name, 1))
        elif name == "profile":
            data = utf8(value, name)
            lib.partkv_store_options_set_profile(handle, data, len(data))
        elif name == "throttling":
            lib.partkv_store_options_set_throttling(handle, _bool(value, name))
        elif name == "write_stall_timeout_ms":
            lib.partkv_store_options_set_write_stall_timeout_ms(handle, _count(value, name))
        elif name == "scan_threads":
            lib.partkv_store_options_set_scan_threads(handle, _count(value, name))
        elif name == "low_priority_compactions":
            lib.partkv_store_options_set_low_priority_compactions(handle, _bool(value, name))
        elif name == "remote_ca_file":
            data = _location_bytes(value)
            lib.partkv_store_options_set_remote_ca_file(handle, data, len(data))
        elif name == "remote_timeouts_ms":
            lib.partkv_store_options_set_remote_timeouts_ms(handle, *_pair(value, name, 2))
        elif name == "remote_connections":
            lib.partkv_store_options_set_remote_connections(handle, *_pair(value, name, 2))
        elif name == "remote_retry":
            lib.partkv_store_options_set_remote_retry(handle, *_pair(value, name, 4))
        elif name == "sync":
            sync = _bool(value, name)
        elif name == "maintenance_interval_ms":
            lib.partkv_store_options_set_maintenance_interval_ms(handle, _count(value, name))
        else:
            raise TypeError("unexpected store option '%s' (the options are: %s)"
                            % (name, ", ".join(_STORE_OPTION_NAMES)))
    return handle, sync


class _Store:
    """An open store handle shared by the clients made from it; closing it closes them all."""

    def __init__(self, location, options):
        data = _location_bytes(location)
        handle, sync = _store_options(options)
        out = ffi.new("partkv_store_t **")
        status = lib.partkv_store_open(data, len(data), handle, out)
        if status:
            raise error_from(status)
        self._ptr = ffi.gc(out[0], lib.partkv_store_close)
        if sync:
            self.write_options = ffi.gc(lib.partkv_write_options_create(),
                                        lib.partkv_write_options_destroy)
            lib.partkv_write_options_set_sync(self.write_options, 1)
        else:
            self.write_options = ffi.NULL
        length = ffi.new("size_t *")
        self.path = _codec.unpack_text(lib.partkv_store_path(self._ptr, length), length)
        self.backend = ffi.string(lib.partkv_store_backend(self._ptr)).decode()
        self._dependents = weakref.WeakSet()
        self._lock = threading.Lock()

    @property
    def closed(self):
        return self._ptr is None

    def ptr(self):
        handle = self._ptr
        if handle is None:
            raise ClosedError("store is closed")
        return handle

    def register(self, dependent):
        with self._lock:
            if self._ptr is None:
                raise ClosedError("store is closed")
            self._dependents.add(dependent)

    def dependents(self):
        with self._lock:
            return list(self._dependents)

    def close(self):
        with self._lock:
            dependents = list(self._dependents)
            self._dependents.clear()
        for dependent in dependents:
            dependent._store_closed()
        self._ptr = None  # the last reference: partkv_store_close runs now (or when a call ends)


def _match_name(condition):
    name = getattr(condition, "name", condition)
    return name if isinstance(name, str) else None


def _if_match(etag, match_condition, entity=None):
    """The If-Match bytes for an update or delete, with azure-data-tables' rules."""
    if match_condition and not etag and entity is not None:
        try:
            etag = entity.metadata.get("etag", None)
        except (AttributeError, TypeError):
            pass
    name = _match_name(match_condition) if match_condition else "Unconditionally"
    if name == MatchConditions.IfNotModified.name:
        if not etag:
            raise ValueError("IfNotModified must be specified with etag.")
        return utf8(etag, "etag")
    if name == MatchConditions.Unconditionally.name:
        if etag:
            raise ValueError("Etag is not supported for an Unconditional operation.")
        return b"*"
    raise ValueError("Unsupported match condition: {}".format(match_condition))


def _update_mode(mode):
    if mode == UpdateMode.MERGE or (isinstance(mode, str) and mode.lower() == "merge"):
        return UpdateMode.MERGE
    if mode == UpdateMode.REPLACE or (isinstance(mode, str) and mode.lower() == "replace"):
        return UpdateMode.REPLACE
    raise ValueError("Update mode {} is not supported. For a list of supported modes see the "
                     "UpdateMode enum".format(mode))


def _table_name_bytes(name):
    if not name:
        raise ValueError("Please specify a table name.")
    return utf8(name, "table name")


_FEED_OPTION_NAMES = frozenset(("change_feed", "feed_retention", "feed_max_bytes", "ttl"))


def _table_options(options):
    """A partkv_table_options_t for create_table's keyword arguments; returns (handle, keep)."""
    handle = ffi.gc(lib.partkv_table_options_create(), lib.partkv_table_options_destroy)
    keep = []
    _changes.apply_table_options(handle, options.get("change_feed"), options.get("feed_retention"),
                                 options.get("feed_max_bytes"), options.get("ttl"))
    for name, value in options.items():
        if value is None or name in _FEED_OPTION_NAMES:
            continue
        if name == "physical_partitions":
            lib.partkv_table_options_set_physical_partitions(handle, _count(value, name, 0, 2 ** 32 - 1))
        elif name == "partition_key_scheme":
            pointer, strategy = strategy_ptr(value, name)
            keep.append(strategy)
            lib.partkv_table_options_set_partition_key_scheme(handle, pointer)
        elif name == "row_key_scheme":
            pointer, strategy = strategy_ptr(value, name)
            keep.append(strategy)
            lib.partkv_table_options_set_row_key_scheme(handle, pointer)
        elif name == "profile":
            data = utf8(value, name)
            lib.partkv_table_options_set_profile(handle, data, len(data))
        elif name == "throttling":
            lib.partkv_table_options_set_throttling(handle, _bool(value, name))
        elif name not in _TRANSPORT_KWARGS:
            raise TypeError("create_table() got an unexpected keyword argument '%s' (table options: "
                            "partition_key_scheme, row_key_scheme, physical_partitions, profile, "
                            "throttling, change_feed, feed_retention, feed_max_bytes, ttl)" % name)
    return handle, keep


def _table_item(info):
    length = ffi.new("size_t *")
    name = _codec.unpack_text(lib.partkv_table_info_name(info, length), length)
    pk = _codec.unpack_text(lib.partkv_table_info_partition_key_scheme(info, length), length)
    rk = _codec.unpack_text(lib.partkv_table_info_row_key_scheme(info, length), length)
    profile = _codec.unpack_text(lib.partkv_table_info_profile(info, length), length)
    return TableItem(name,
                     physical_partitions=int(lib.partkv_table_info_physical_partitions(info)),
                     created=_codec.ticks_to_datetime(lib.partkv_table_info_created(info)),
                     partition_key_scheme=pk, row_key_scheme=rk, profile=profile,
                     throttling=bool(lib.partkv_table_info_throttling(info)),
                     **_changes.table_info_fields(info))


def _list_tables(store):
    out = ffi.new("partkv_table_list_t **")
    status = lib.partkv_store_list_tables(store.ptr(), out)
    if status:
        raise error_from(status, table_level=True)
    tables = out[0]
    try:
        return [_table_item(lib.partkv_table_list_get(tables, i))
                for i in range(lib.partkv_table_list_count(tables))]
    finally:
        lib.partkv_table_list_destroy(tables)


def _table_pages(store, query_filter, results_per_page):
    """An ItemPaged of TableItems (filtered on TableName), paged by name."""
    matcher = None
    if query_filter:
        data = utf8(query_filter, "query_filter")
        out = ffi.new("partkv_filter_t **")
        status = lib.partkv_filter_parse(data, len(data), out)
        if status:
            raise error_from(status)
        matcher = ffi.gc(out[0], lib.partkv_filter_destroy)
    if results_per_page is not None:
        _count(results_per_page, "results_per_page", 1)

    def matches(item):
        if matcher is None:
            return True
        probe = new_entity({"TableName": item.name}, False, False)
        try:
            return bool(lib.partkv_filter_matches(matcher, probe))
        finally:
            lib.partkv_entity_destroy(probe)

    def factory():
        def fetch(token):
            items = [item for item in _list_tables(store)
                     if (token is None or item.name >= token) and matches(item)]
            if results_per_page is not None and len(items) > results_per_page:
                return items[:results_per_page], items[results_per_page].name
            return items, None
        return fetch

    return ItemPaged(factory)


class _Pages:
    """Reads one query's pages into a reused page handle (one per by_page()), converting each
    entity with the per-property accessors (measured faster than partkv_page_to_json plus
    json.loads on 100,000 small entities; see partkv._codec)."""

    __slots__ = ("_client", "_query", "_page", "_length", "_base", "_strategy", "_keep",
                 "_select")

    def __init__(self, client, filter_bytes, select, page_size, base=None, strategy=None):
        query = ffi.gc(lib.partkv_query_create(), lib.partkv_query_destroy)
        if filter_bytes:
            lib.partkv_query_set_filter(query, filter_bytes, len(filter_bytes))
        for name in select or ():
            data = utf8(name, "select name")
            lib.partkv_query_add_select(query, data, len(data))
        if page_size is not None:
            lib.partkv_query_set_page_size(query, page_size)
        self._client = client
        self._query = query
        self._page = ffi.gc(lib.partkv_page_create(), lib.partkv_page_destroy)
        self._length = ffi.new("size_t *")
        self._base = base
        self._strategy, self._keep = strategy_ptr(strategy, "strategy")
        self._select = select or None

    def __call__(self, token):
        """One page: (list of TableEntity, the next page's token or None)."""
        table = self._client._table()
        query = self._query
        if token is None:
            lib.partkv_query_set_continuation(query, b"", 0)
        else:
            data = utf8(token, "continuation_token")
            lib.partkv_query_set_continuation(query, data, len(data))
        page = self._page
        if self._base is None:
            status = lib.partkv_table_query(table, query, page)
        else:
            status = lib.partkv_table_query_shards(table, self._strategy, self._base, len(self._base),
                                                   query, page)
        if status:
            raise error_from(status)
        length = self._length
        items = _codec.read_page(page, length, self._select)
        text = lib.partkv_page_continuation(page, length)
        next_token = ffi.unpack(text, length[0]).decode() if length[0] else None
        return items, next_token


def _page_size(results_per_page):
    if results_per_page is None:
        return None
    return _count(results_per_page, "results_per_page", 0, 2 ** 32 - 1)

def _drop_table(store, name_bytes, table_name):
    """Drops a table (a missing one is no error, as the SDK's delete_table) and resets the
    store's clients of it."""
    from ._client import TableClient  # _client imports this module
    status = lib.partkv_store_drop_table(store.ptr(), name_bytes, len(name_bytes))
    if status:
        error = error_from(status, table_level=True)
        if error.status_code != 404:
            raise error
    lowered = table_name.lower()
    for dependent in store.dependents():
        if isinstance(dependent, TableClient) and dependent.table_name.lower() == lowered:
            dependent._reset()
