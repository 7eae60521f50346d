"""TableServiceClient: azure-data-tables' service client over a partkv store."""

from ._lib import ffi, lib
from . import _codec
from ._codec import utf8
from ._status import error_from
from .exceptions import ResourceExistsError
from ._store import (
    _drop_table,
    _Store,
    _no_other_kwargs,
    _table_name_bytes,
    _table_options,
    _table_pages,
)
from ._client import TableClient
from . import _changes

__all__ = ["TableServiceClient"]




class TableServiceClient:
    """A client of a whole store (azure.data.tables.TableServiceClient): its tables.

    ``TableServiceClient(location, **store_options)`` opens the store in directory `location`
    (created if missing), or a remote store when `location` is an Azure Storage connection
    string or a table endpoint URL with a SAS (the same API over Azure Table Storage, Cosmos DB
    for Table, Azurite or ``partkv serve``). Use it in a ``with`` block, or call :meth:`close`:
    closing it closes every TableClient made from it and releases the store.

    Store options (all keyword): ``create_if_missing`` (True), ``error_if_exists`` (False),
    ``memory_budget`` (bytes), ``profile`` ("azure-table", "cosmos", "dynamodb", "none"),
    ``throttling`` (bool), ``write_stall_timeout_ms``, ``scan_threads``, ``low_priority_compactions``
    (bool; process-wide), ``sync`` (fsync each write), ``maintenance_interval_ms`` (how often the
    store sweeps its tables' change feeds and expired entities in the background; 0 never, default
    60000), and for remote stores ``remote_ca_file``, ``remote_timeouts_ms=(connect, request)``,
    ``remote_connections=(max_connections, fan_out)``,
    ``remote_retry=(max_attempts, initial_backoff_ms, max_backoff_ms, max_total_ms)``.
    """

    def __init__(self, location, **store_options):
        """Open the store at `location` with `store_options` (see the class)."""
        self._store = _Store(location, store_options)

    @classmethod
    def from_connection_string(cls, conn_str, **store_options):
        """Open the store an Azure connection string names (``UseDevelopmentStorage=true``,
        ``DefaultEndpointsProtocol=...;AccountName=...``, or a directory path)."""
        return cls(conn_str, **store_options)

    @property
    def url(self):
        """The store's directory, or a remote store's endpoint URL."""
        return self._store.path

    @property
    def backend(self):
        """"local" or "remote"."""
        return self._store.backend

    @property
    def account_name(self):
        """None: a partkv store has no account (kept for the SDK's shape)."""
        return None

    def has_capability(self, name):
        """Whether the store has a capability ("census", "physical-partitions", ...)."""
        data = utf8(name, "capability")
        return bool(lib.partkv_store_has_capability(self._store.ptr(), data, len(data)))

    def get_table_client(self, table_name, **kwargs):
        """A TableClient of `table_name` sharing this store (the table need not exist yet).

        :keyword partition_key_scheme: / :keyword row_key_scheme: key schemes for a table of a
            remote store, which keeps none (a local table's must match its catalog's).
        """
        pk = kwargs.pop("partition_key_scheme", None)
        rk = kwargs.pop("row_key_scheme", None)
        _no_other_kwargs(kwargs, "get_table_client")
        return TableClient._of_store(self._store, table_name, pk, rk)

    def create_table(self, table_name, **table_options):
        """Create a table and return its TableClient. Raises ResourceExistsError
        (TableAlreadyExists) if a table of that name exists (names are case-insensitive), and
        InvalidArgumentError (a ValueError) for a bad name (``^[A-Za-z][A-Za-z0-9]{2,62}$``).

        Table options (partkv's, all keyword): ``partition_key_scheme`` / ``row_key_scheme``
        (a key strategy text such as ``"hash-suffix(date,orderId,16)"`` or a KeyStrategy),
        ``physical_partitions`` (1..1024, default 16), ``profile`` and ``throttling``;
        ``change_feed`` (bool, default False) with its limits ``feed_retention`` (seconds or a
        timedelta) and ``feed_max_bytes`` (None: no limit), and ``ttl`` (the entities' time to
        live in seconds or a timedelta: 0 off, the default; -1 only entities with a "ttl"
        property expire; N > 0). A remote store refuses the feed and the time to live
        (InvalidArgumentError naming the capability).
        """
        name = _table_name_bytes(table_name)
        handle, keep = _table_options(table_options)
        status = lib.partkv_store_create_table(self._store.ptr(), name, len(name), handle)
        if status:
            raise error_from(status, table_level=True)
        for dependent in self._store.dependents():
            if isinstance(dependent, TableClient) and dependent.table_name.lower() == table_name.lower():
                dependent._reset()
        return self._client_for(table_name, table_options)

    def set_table_options(self, table_name, *, change_feed=None, feed_retention=None,
                          feed_max_bytes=None, ttl=None):
        """Change an existing table's change feed and time to live, durably; an option left None
        stays as it is. ``change_feed`` turns the feed on or off; ``feed_retention`` (seconds or
        a timedelta, 0 no limit) and ``feed_max_bytes`` (0 no limit) are its limits; ``ttl`` as
        :meth:`create_table`'s. A feed turned off and on again makes older positions
        ChangeFeedTrimmedError (the changes made meanwhile are not in it). Raises
        ResourceNotFoundError (TableNotFound), InvalidArgumentError for a negative retention or
        a ttl below -1, and on a remote store (naming the capability)."""
        name = _table_name_bytes(table_name)
        _changes.set_table_options(self._store, name, change_feed, feed_retention, feed_max_bytes,
                                   ttl)

    def _client_for(self, table_name, table_options):
        if self._store.backend == "remote":
            return TableClient._of_store(self._store, table_name,
                                         table_options.get("partition_key_scheme"),
                                         table_options.get("row_key_scheme"))
        return TableClient._of_store(self._store, table_name)

    def create_table_if_not_exists(self, table_name, **table_options):
        """Create a table unless one of that name exists; return its TableClient."""
        try:
            return self.create_table(table_name, **table_options)
        except ResourceExistsError:
            return self._client_for(table_name, table_options)

    def delete_table(self, table_name, **kwargs):
        """Delete a table and its entities; no error if it does not exist."""
        _no_other_kwargs(kwargs, "delete_table")
        _drop_table(self._store, _table_name_bytes(table_name), table_name)

    def list_tables(self, **kwargs):
        """Every table of the store as :class:`TableItem` (``.name``), in name order (an
        ItemPaged). :keyword int results_per_page: tables per page."""
        results_per_page = kwargs.pop("results_per_page", None)
        _no_other_kwargs(kwargs, "list_tables")
        self._store.ptr()
        return _table_pages(self._store, "", results_per_page)

    def query_tables(self, query_filter, **kwargs):
        """Tables whose name matches an OData filter on ``TableName`` (e.g.
        ``"TableName eq @name"``), as :meth:`list_tables`. :keyword dict parameters:"""
        parameters = kwargs.pop("parameters", None)
        results_per_page = kwargs.pop("results_per_page", None)
        _no_other_kwargs(kwargs, "query_tables")
        query_filter = _codec.substitute_parameters(query_filter, parameters)
        self._store.ptr()
        return _table_pages(self._store, query_filter, results_per_page)

    def get_service_stats(self, **kwargs):
        """Replication statistics, as azure-data-tables returns them:
        ``{"geo_replication": {"status": "live", "last_sync_time": datetime}}``.

        A local store is one copy, so it answers "live" and the current second; a remote store
        asks the account's secondary location, as the SDK does (Azure answers there only)."""
        _no_other_kwargs(kwargs, "get_service_stats")
        text = ffi.new("char **")
        length = ffi.new("size_t *")
        ticks = ffi.new("int64_t *")
        status = lib.partkv_store_service_stats(self._store.ptr(), text, length, ticks)
        if status:
            raise error_from(status)
        return {"geo_replication": {"status": _codec.owned_text(text[0], length),
                                    "last_sync_time": _codec.ticks_to_datetime(ticks[0])}}

    def flush(self):
        """Flush the store's memtables to disk."""
        status = lib.partkv_store_flush(self._store.ptr())
        if status:
            raise error_from(status)

    def close(self):
        """Close the store and every TableClient and BulkWriter made from it. Idempotent."""
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    def __repr__(self):
        return "<partkv TableServiceClient %r>" % (self._store.path,)
