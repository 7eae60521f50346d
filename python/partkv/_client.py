"""TableClient: azure-data-tables' table client over a partkv table."""

import threading
from collections.abc import Mapping

from ._lib import ffi, lib
from . import _codec
from ._codec import (
    utf8,
    key_bytes,
    new_entity,
    write_metadata,
)
from ._keys import KeyStrategy
from ._models import (
    HotPartition,
    LargestPartition,
    PartitionCensus,
    PartitionStatistics,
    TableAccessPolicy,
    TableCensus,
    TableEntity,
    TableStatistics,
    TransactionOperation,
    UpdateMode,
)
from ._paging import ItemPaged
from ._status import error_from, transaction_error_from
from . import _changes
from .exceptions import ClosedError
from ._store import (
    _drop_table,
    _OP_DELETE,
    _OP_INSERT,
    _OP_INSERT_OR_MERGE,
    _OP_INSERT_OR_REPLACE,
    _OP_MERGE,
    _OP_REPLACE,
    _Pages,
    _Store,
    _TRANSPORT_KWARGS,
    _bool,
    _count,
    _if_match,
    _no_other_kwargs,
    _page_size,
    _table_item,
    _table_name_bytes,
    _table_options,
    _update_mode,
)

__all__ = ["TableClient"]


class TableClient:
    """A client of one table (azure.data.tables.TableClient).

    Made by :meth:`TableServiceClient.get_table_client` / :meth:`TableServiceClient.create_table`
    (sharing that client's store), or on its own — ``TableClient(location, table_name,
    **store_options)`` or ``TableClient.from_connection_string(conn_str, table_name)`` — opening
    the store, which :meth:`close` (or leaving a ``with`` block) closes again.

    The table need not exist when the client is made (as with Azure): operations on a missing
    table raise :class:`~partkv.exceptions.ResourceNotFoundError` (TableNotFound), and
    :meth:`create_table` creates it.

    :ivar str table_name: the table's name.
    """

    def __init__(self, location, table_name, **store_options):
        """Open the store at `location` (a directory, or an Azure connection string / table
        endpoint URL with a SAS for a remote store) and make a client of its table `table_name`.

        `store_options` are :class:`TableServiceClient`'s, plus ``partition_key_scheme`` /
        ``row_key_scheme`` to give a remote table its key schemes.
        """
        pk_scheme = store_options.pop("partition_key_scheme", None)
        rk_scheme = store_options.pop("row_key_scheme", None)
        _table_name_bytes(table_name)
        store = _Store(location, store_options)
        self._setup(store, table_name, True, pk_scheme, rk_scheme)

    @classmethod
    def from_connection_string(cls, conn_str, table_name, **store_options):
        """A client of table `table_name` of the store a connection string names (also a
        directory path, or ``UseDevelopmentStorage=true``)."""
        return cls(conn_str, table_name, **store_options)

    @classmethod
    def _of_store(cls, store, table_name, pk_scheme=None, rk_scheme=None):
        client = cls.__new__(cls)
        client._setup(store, table_name, False, pk_scheme, rk_scheme)
        return client

    def _setup(self, store, table_name, owns_store, pk_scheme, rk_scheme):
        self._name = _table_name_bytes(table_name)
        self.table_name = table_name
        self._store = store
        self._owns_store = owns_store
        self._handle = None
        self._closed = None
        self._lock = threading.Lock()
        self._pk_scheme = KeyStrategy(pk_scheme) if pk_scheme is not None else None
        self._rk_scheme = KeyStrategy(rk_scheme) if rk_scheme is not None else None
        self._pk_required = self._rk_required = True
        store.register(self)

    # ---- handles ----

    def _table(self):
        handle = self._handle
        if handle is not None:
            return handle
        return self._open()

    def _open(self):
        with self._lock:
            if self._closed:
                raise ClosedError(self._closed)
            if self._handle is not None:
                return self._handle
            store = self._store.ptr()
            out = ffi.new("partkv_table_t **")
            pk = self._pk_scheme._ptr if self._pk_scheme is not None else ffi.NULL
            rk = self._rk_scheme._ptr if self._rk_scheme is not None else ffi.NULL
            status = lib.partkv_store_open_table(store, self._name, len(self._name), pk, rk, out)
            if status:
                raise error_from(status, table_level=True)
            handle = ffi.gc(out[0], lib.partkv_table_close)
            info = lib.partkv_table_info(handle)
            try:
                item = _table_item(info)
            finally:
                lib.partkv_table_info_destroy(info)
            self._pk_required = not (item.partition_key_scheme or self._pk_scheme is not None)
            self._rk_required = not (item.row_key_scheme or self._rk_scheme is not None)
            self._handle = handle
            return handle

    def _reset(self):
        """Forget the table handle (the table was dropped or created again)."""
        self._handle = None

    def _store_closed(self):
        self._closed = "store is closed"
        self._handle = None

    def close(self):
        """Close the client. A client that opened its own store closes the store; one made by a
        TableServiceClient leaves the store open. Later calls raise ClosedError."""
        if self._owns_store:
            self._store.close()
        else:
            self._closed = "table client is closed"
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()

    @property
    def url(self):
        """The store's directory, or a remote store's endpoint URL."""
        return self._store.path

    @property
    def account_name(self):
        """None: a partkv store has no account (kept for the SDK's shape)."""
        return None

    # ---- tables ----

    def create_table(self, **table_options):
        """Create this client's table; returns its :class:`TableItem`.

        `table_options` as :meth:`TableServiceClient.create_table`. Raises ResourceExistsError
        (TableAlreadyExists) when a table of that name exists.
        """
        handle, keep = _table_options(table_options)
        status = lib.partkv_store_create_table(self._store.ptr(), self._name, len(self._name), handle)
        if status:
            raise error_from(status, table_level=True)
        self._reset()
        return self.table_info()

    def delete_table(self, **kwargs):
        """Delete this client's table and its entities; no error if it does not exist."""
        _no_other_kwargs(kwargs, "delete_table")
        _drop_table(self._store, self._name, self.table_name)

    def table_info(self):
        """The table's catalog facts as a :class:`TableItem` (name, physical partitions, key
        schemes, profile, throttling, created)."""
        info = lib.partkv_table_info(self._table())
        try:
            return _table_item(info)
        finally:
            lib.partkv_table_info_destroy(info)

    # ---- writes ----

    def _write(self, function, entity, *if_match):
        table = self._table()
        source = new_entity(entity, self._pk_required, self._rk_required)
        try:
            status = function(table, source, *if_match, self._store.write_options)
            if status:
                raise error_from(status)
            return write_metadata(source)
        finally:
            lib.partkv_entity_destroy(source)

    def create_entity(self, entity, **kwargs):
        """Insert `entity` (a dict or TableEntity with PartitionKey and RowKey).

        Returns the write's metadata, ``{"etag": ..., "date": ..., "version": ...}``. Raises
        ResourceExistsError (EntityAlreadyExists) when the row exists. On a table with key
        schemes, missing keys are computed from the entity's properties.
        """
        _no_other_kwargs(kwargs, "create_entity")
        return self._write(lib.partkv_table_insert, entity)

    def upsert_entity(self, entity, mode=UpdateMode.MERGE, **kwargs):
        """Insert `entity`, or update the stored one: MERGE (the default) keeps its other
        properties, REPLACE drops them. Returns the write's metadata."""
        _no_other_kwargs(kwargs, "upsert_entity")
        mode = _update_mode(mode)
        function = (lib.partkv_table_insert_or_merge if mode is UpdateMode.MERGE
                    else lib.partkv_table_insert_or_replace)
        return self._write(function, entity)

    def update_entity(self, entity, mode=UpdateMode.MERGE, **kwargs):
        """Update a stored entity: MERGE (default) or REPLACE. Returns the write's metadata.

        :keyword str etag: the ETag the stored entity must have (with ``match_condition``).
        :keyword match_condition: ``MatchConditions.IfNotModified`` (requires the etag, taken
            from ``entity.metadata`` when not given) or ``MatchConditions.Unconditionally``
            (the default).
        Raises ResourceNotFoundError for a missing entity, ResourceModifiedError when the ETag
        does not match.
        """
        etag = kwargs.pop("etag", None)
        match_condition = kwargs.pop("match_condition", None)
        _no_other_kwargs(kwargs, "update_entity")
        if_match = _if_match(etag, match_condition, entity)
        mode = _update_mode(mode)
        function = lib.partkv_table_merge if mode is UpdateMode.MERGE else lib.partkv_table_replace
        return self._write(function, entity, if_match, len(if_match))

    def delete_entity(self, *args, **kwargs):
        """Delete an entity: ``delete_entity(partition_key, row_key)`` or ``delete_entity(entity)``.

        No error if it does not exist (as azure-data-tables). Keywords ``etag`` and
        ``match_condition`` as :meth:`update_entity` (with an entity, its metadata's ETag is used
        when ``match_condition`` is given without ``etag``). Raises ResourceModifiedError when
        the ETag does not match.
        """
        entity = kwargs.pop("entity", None)
        partition_key = kwargs.pop("partition_key", None)
        row_key = kwargs.pop("row_key", None)
        etag = kwargs.pop("etag", None)
        match_condition = kwargs.pop("match_condition", None)
        _no_other_kwargs(kwargs, "delete_entity")
        if entity is None and len(args) == 1 and not isinstance(args[0], str):
            entity = args[0]
        elif entity is None:
            if len(args) > 2:
                raise TypeError("delete_entity() takes a partition_key and a row_key, or an entity")
            if len(args) >= 1:
                partition_key = args[0]
            if len(args) == 2:
                row_key = args[1]
        table = self._table()
        if entity is not None:
            if not isinstance(entity, Mapping):
                raise TypeError("delete_entity() takes an entity mapping, got %s" % type(entity).__name__)
            partition_key = entity.get("PartitionKey")
            row_key = entity.get("RowKey")
            if partition_key is None or row_key is None:
                partition_key, row_key = self._computed_keys(entity, _OP_DELETE)
        if partition_key is None or row_key is None:
            raise TypeError("delete_entity() needs a partition_key and a row_key, or an entity")
        if_match = _if_match(etag, match_condition, entity)
        pk = key_bytes(partition_key, "PartitionKey")
        rk = key_bytes(row_key, "RowKey")
        status = lib.partkv_table_delete(table, pk, len(pk), rk, len(rk), if_match, len(if_match),
                                         self._store.write_options)
        if status:
            error = error_from(status)
            if error.status_code == 404:
                return None
            raise error
        return None

    # ---- reads ----

    def get_entity(self, partition_key, row_key, **kwargs):
        """The stored entity (a TableEntity with ``metadata``). Raises ResourceNotFoundError.

        :keyword select: property names to return (a list, or a str "a,b").
        """
        select = _codec.select_list(kwargs.pop("select", None))
        _no_other_kwargs(kwargs, "get_entity")
        pk = key_bytes(partition_key, "PartitionKey")
        rk = key_bytes(row_key, "RowKey")
        table = self._table()
        if select:
            query_filter = "PartitionKey eq '%s' and RowKey eq '%s'" % (
                partition_key.replace("'", "''"), row_key.replace("'", "''"))
            items, _ = _Pages(self, utf8(query_filter, "key"), select, 1)(None)
            if not items:
                raise _not_found(partition_key, row_key)
            return items[0]
        out = ffi.new("partkv_entity_t **")
        status = lib.partkv_table_get(table, pk, len(pk), rk, len(rk), out)
        if status:
            raise error_from(status)
        try:
            return _codec.entity_from_ptr(out[0])
        finally:
            lib.partkv_entity_destroy(out[0])

    def get_entity_by_attributes(self, attributes, **kwargs):
        """A point read by natural attributes: the keys are computed from `attributes` (a
        mapping of the properties the table's key schemes use) and that entity is returned.
        Raises ResourceNotFoundError, or InvalidArgumentError naming a missing field."""
        _no_other_kwargs(kwargs, "get_entity_by_attributes")
        table = self._table()
        source = new_entity(attributes, False, False)
        try:
            out = ffi.new("partkv_entity_t **")
            status = lib.partkv_table_get_by_attributes(table, source, out)
            if status:
                raise error_from(status)
        finally:
            lib.partkv_entity_destroy(source)
        try:
            return _codec.entity_from_ptr(out[0])
        finally:
            lib.partkv_entity_destroy(out[0])

    def _computed_keys(self, entity, op):
        table = self._table()
        source = new_entity(entity, False, False)
        try:
            out = ffi.new("partkv_entity_t **")
            status = lib.partkv_table_compute_keys(table, source, op, out)
            if status:
                raise error_from(status)
        finally:
            lib.partkv_entity_destroy(source)
        try:
            length = ffi.new("size_t *")
            pk = _codec.unpack_text(lib.partkv_entity_partition_key(out[0], length), length)
            rk = _codec.unpack_text(lib.partkv_entity_row_key(out[0], length), length)
        finally:
            lib.partkv_entity_destroy(out[0])
        return pk, rk

    def compute_keys(self, entity):
        """`entity` (a new TableEntity) with the PartitionKey and RowKey the table's key schemes
        compute for an insert (keys it already has are kept). InvalidArgumentError (a
        ValueError) naming a field that is missing or cannot form a key (e.g. a NaN)."""
        pk, rk = self._computed_keys(entity, _OP_INSERT)
        result = TableEntity(entity)
        result["PartitionKey"] = pk
        result["RowKey"] = rk
        return result

    def physical_partition_of(self, partition_key):
        """The physical partition holding `partition_key` (0 on a remote store)."""
        data = key_bytes(partition_key, "PartitionKey")
        return int(lib.partkv_table_physical_partition_of(self._table(), data, len(data)))

    def query_entities(self, query_filter, **kwargs):
        """Entities matching an OData filter, read lazily page by page (an ItemPaged).

        :param str query_filter: e.g. ``"PartitionKey eq @pk and Price gt @min"``.
        :keyword dict parameters: values for the filter's ``@name`` placeholders.
        :keyword select: property names to return (a list, or a str "a,b").
        :keyword int results_per_page: page size, 1..1000 (default 1000).
        """
        parameters = kwargs.pop("parameters", None)
        select = _codec.select_list(kwargs.pop("select", None))
        page_size = _page_size(kwargs.pop("results_per_page", None))
        _no_other_kwargs(kwargs, "query_entities")
        query_filter = _codec.substitute_parameters(query_filter, parameters)
        data = utf8(query_filter, "query_filter")
        return ItemPaged(lambda: _Pages(self, data, select, page_size))

    def list_entities(self, **kwargs):
        """Every entity of the table, read lazily page by page (an ItemPaged).

        :keyword select: property names to return. :keyword int results_per_page: 1..1000.
        """
        select = _codec.select_list(kwargs.pop("select", None))
        page_size = _page_size(kwargs.pop("results_per_page", None))
        _no_other_kwargs(kwargs, "list_entities")
        return ItemPaged(lambda: _Pages(self, b"", select, page_size))

    def query_shards(self, base, query_filter=None, parameters=None, select=None,
                     results_per_page=None, strategy=None):
        """A sharded (scatter-gather) read: every entity written under the logical key `base`
        with a sharded strategy (PartitionKeys ``base.1`` .. ``base.N``), merged by RowKey and
        paged with one continuation token (an ItemPaged, as :meth:`query_entities`).

        `strategy` (a str or KeyStrategy) names the shards; None uses the table's sharded
        PartitionKey scheme. The filter must not name PartitionKey.
        """
        base_bytes = key_bytes(base, "base")
        if query_filter is None:
            query_filter = ""
        query_filter = _codec.substitute_parameters(query_filter, parameters)
        data = utf8(query_filter, "query_filter")
        select = _codec.select_list(select)
        page_size = _page_size(results_per_page)
        if strategy is not None and not isinstance(strategy, KeyStrategy):
            strategy = KeyStrategy(strategy)
        return ItemPaged(lambda: _Pages(self, data, select, page_size, base_bytes, strategy))

    # ---- transactions ----

    def submit_transaction(self, operations, **kwargs):
        """Apply operations on entities of one PartitionKey atomically: all or none.

        `operations` is an iterable of tuples ``(operation, entity)`` or
        ``(operation, entity, kwargs)``, operation one of "create", "upsert" (kwargs ``mode``),
        "update" (``mode``, ``etag``, ``match_condition``) and "delete" (``etag``,
        ``match_condition``). Returns a list with each operation's metadata (``{"etag": ...}``;
        ``{}`` for a delete). Raises TableTransactionError (``index``: the failing operation);
        nothing is written then.
        """
        _no_other_kwargs(kwargs, "submit_transaction")
        table = self._table()
        try:
            iterator = iter(operations)
        except TypeError:
            raise TypeError("The value of 'operations' must be an iterator of Tuples. Please check "
                            "documentation for correct Tuple format.") from None
        batch = lib.partkv_batch_create()
        scratch = lib.partkv_entity_create()
        try:
            partition = None
            count = 0
            pk_required, rk_required = self._pk_required, self._rk_required
            pk_set = False  # whether scratch holds `partition` as its PartitionKey
            clear = lib.partkv_entity_clear_properties
            add = lib.partkv_batch_add
            fill = _codec.fill_entity
            native_add = _codec._speedups.batch_add if _codec.SPEEDUPS else None
            if native_add is not None:
                batch_address, scratch_address = _codec._address(batch), _codec._address(scratch)
            for operation in iterator:
                if operation.__class__ is tuple and len(operation) == 2:
                    op_type, entity = operation
                    if op_type == "create" and entity.__class__ is dict:
                        pk = entity.get("PartitionKey")
                        if pk is not None:
                            if partition is None:
                                partition = pk
                            elif pk != partition:
                                raise ValueError("Partition Keys must all be the same")
                        if native_add is not None and native_add(
                                batch_address, scratch_address, _OP_INSERT, entity, pk_required,
                                rk_required, pk is not None and pk_set):
                            pk_set = pk is not None
                            count += 1
                            continue
                        clear(scratch)
                        # The scratch entity keeps its PartitionKey across operations.
                        fill(scratch, entity, pk_required, rk_required, pk is not None and pk_set)
                        pk_set = pk is not None
                        add(batch, _OP_INSERT, scratch, b"", 0)
                        count += 1
                        continue
                    options = None
                elif isinstance(operation, (tuple, list)) and len(operation) in (2, 3):
                    op_type, entity = operation[0], operation[1]
                    options = dict(operation[2]) if len(operation) == 3 and operation[2] else None
                else:
                    raise TypeError("The value of 'operations' must be an iterator of Tuples. "
                                    "Please check documentation for correct Tuple format.")
                cls = entity.__class__
                if cls is not dict and cls is not TableEntity and not isinstance(entity, Mapping):
                    raise TypeError("operation %d: the entity must be a mapping, got %s"
                                    % (count, cls.__name__))
                pk = entity.get("PartitionKey")
                if pk is not None:
                    if partition is None:
                        partition = pk
                    elif pk != partition:
                        raise ValueError("Partition Keys must all be the same")
                if options is None and op_type == "create":
                    clear(scratch)
                    fill(scratch, entity, pk_required, rk_required)
                    pk_set = pk is not None
                    add(batch, _OP_INSERT, scratch, b"", 0)
                else:
                    self._add_operation(batch, scratch, op_type, entity, options or {}, count)
                    pk_set = False  # the scratch entity's keys are unknown now
                count += 1
            status = lib.partkv_table_submit(table, batch, self._store.write_options)
            if status:
                raise transaction_error_from(status)
            length = ffi.new("size_t *")
            etag_of = lib.partkv_batch_etag
            unpack = ffi.unpack
            results = []
            append = results.append
            for i in range(count):
                text = etag_of(batch, i, length)
                size = length[0]
                append({"etag": unpack(text, size).decode()} if size else {})
            return results
        finally:
            lib.partkv_entity_destroy(scratch)
            lib.partkv_batch_destroy(batch)

    def _add_operation(self, batch, scratch, op_type, entity, options, index):
        name = getattr(op_type, "value", op_type)
        name = name.lower() if isinstance(name, str) else None
        mode = options.pop("mode", UpdateMode.MERGE)
        etag = options.pop("etag", None)
        match_condition = options.pop("match_condition", None)
        for key in options:
            if key not in _TRANSPORT_KWARGS:
                raise TypeError("operation %d: unexpected keyword argument '%s'" % (index, key))
        if name == TransactionOperation.CREATE.value:
            op, if_match = _OP_INSERT, b""
        elif name == TransactionOperation.UPSERT.value:
            op = _OP_INSERT_OR_MERGE if _update_mode(mode) is UpdateMode.MERGE else _OP_INSERT_OR_REPLACE
            if_match = b""
        elif name == TransactionOperation.UPDATE.value:
            op = _OP_MERGE if _update_mode(mode) is UpdateMode.MERGE else _OP_REPLACE
            if_match = _if_match(etag, match_condition, entity)
        elif name == TransactionOperation.DELETE.value:
            if_match = _if_match(etag, match_condition, entity)
            pk, rk = entity.get("PartitionKey"), entity.get("RowKey")
            if pk is None or rk is None:
                pk, rk = self._computed_keys(entity, _OP_DELETE)
            pk, rk = key_bytes(pk, "PartitionKey"), key_bytes(rk, "RowKey")
            lib.partkv_batch_add_delete(batch, pk, len(pk), rk, len(rk), if_match, len(if_match))
            return
        else:
            raise ValueError("Unrecognized operation: {}".format(op_type))
        lib.partkv_entity_clear_properties(scratch)
        _codec.fill_entity(scratch, entity, self._pk_required, self._rk_required)
        lib.partkv_batch_add(batch, op, scratch, if_match, len(if_match))

    # ---- statistics ----

    def statistics(self, top=10):
        """What the table served since the store opened (a :class:`TableStatistics`): totals,
        per physical partition, and the `top` hottest PartitionKeys."""
        _count(top, "top")
        stats = lib.partkv_table_statistics(self._table(), top)
        if stats == ffi.NULL:
            raise MemoryError("partkv_table_statistics returned NULL")
        try:
            record = ffi.new("partkv_partition_stats_t *")

            def read():
                return PartitionStatistics(int(record.index), int(record.reads), int(record.writes),
                                           int(record.bytes_read), int(record.bytes_written),
                                           int(record.throttled), int(record.retry_wait_micros))

            lib.partkv_table_stats_total(stats, record)
            total = read()
            partitions = []
            for i in range(lib.partkv_table_stats_partition_count(stats)):
                if lib.partkv_table_stats_partition(stats, i, record):
                    partitions.append(read())
            hot = []
            length = ffi.new("size_t *")
            operations = ffi.new("uint64_t *")
            error = ffi.new("uint64_t *")
            for i in range(lib.partkv_table_stats_hot_count(stats)):
                key = lib.partkv_table_stats_hot(stats, i, length, operations, error)
                if key != ffi.NULL:
                    hot.append(HotPartition(_codec.unpack_text(key, length), int(operations[0]),
                                            int(error[0])))
            return TableStatistics(total, partitions, hot)
        finally:
            lib.partkv_table_stats_destroy(stats)

    def census(self, top=10, rank_by_bytes=False):
        """Count what the table stores, reading every row once (a :class:`TableCensus`): totals,
        per physical partition, and the `top` largest PartitionKeys by entities (or bytes)."""
        _count(top, "top")
        _bool(rank_by_bytes, "rank_by_bytes")
        out = ffi.new("partkv_table_census_t **")
        status = lib.partkv_table_census(self._table(), top, 1 if rank_by_bytes else 0, out)
        if status:
            raise error_from(status)
        census = out[0]
        try:
            record = ffi.new("partkv_partition_census_t *")

            def read():
                return PartitionCensus(int(record.index), int(record.hash_lower),
                                       int(record.hash_upper), int(record.entities),
                                       int(record.bytes), int(record.logical_partitions),
                                       int(record.sst_bytes))

            lib.partkv_table_census_total(census, record)
            total = read()
            partitions = []
            for i in range(lib.partkv_table_census_partition_count(census)):
                if lib.partkv_table_census_partition(census, i, record):
                    partitions.append(read())
            largest = []
            length = ffi.new("size_t *")
            physical = ffi.new("uint32_t *")
            entities = ffi.new("uint64_t *")
            size = ffi.new("uint64_t *")
            for i in range(lib.partkv_table_census_largest_count(census)):
                key = lib.partkv_table_census_largest(census, i, length, physical, entities, size)
                if key != ffi.NULL:
                    largest.append(LargestPartition(_codec.unpack_text(key, length),
                                                    int(physical[0]), int(entities[0]), int(size[0])))
            return TableCensus(total, partitions, largest,
                               int(lib.partkv_table_census_expired_entities(census)))
        finally:
            lib.partkv_table_census_destroy(census)

    # ---- the change feed ----

    def query_changes(self, *, continuation=None, start="beginning", mode="latest",
                      results_per_page=1000):
        """The table's change feed (docs/changes.md), as :class:`~partkv.TableChange` objects
        (``seq``, ``op``, ``time``, ``etag``, ``entity``) read page by page: an ItemPaged whose
        iteration ends at the newest change committed when its last page was read.

        :keyword str continuation: a token of an earlier read (``by_page().continuation_token``,
            the paged object's ``continuation_token``, or ``get_change_feed_state().first_token``);
            None reads from `start`.
        :keyword str start: "beginning" (the oldest entry retention kept) or "now" (only changes
            made after this read's first page).
        :keyword str mode: "latest" (the newest version of each entity changed since the
            position; deleted and expired entities left out) or "all" (every change in order,
            deletes and expiries included).
        :keyword int results_per_page: changes per page, 1..1000.

        Raises InvalidArgumentError when the table keeps no change feed (or on a remote store,
        which has none), for a malformed or foreign token; ChangeFeedTrimmedError (410) when
        retention removed the token's position.
        """
        return _changes.query_changes(self, continuation, start, mode, results_per_page)

    def get_change_feed_state(self):
        """The change feed's retention, extent and size (a :class:`~partkv.ChangeFeedState`).
        InvalidArgumentError when the table keeps no change feed."""
        return _changes.feed_state(self)

    def wait_for_changes(self, continuation, timeout):
        """Wait until the feed holds a change at or after `continuation` (a token of
        :meth:`query_changes`), or `timeout` (seconds, or a timedelta) passes: True when it
        does. Other threads run meanwhile. Errors as :meth:`query_changes`."""
        return _changes.wait_for_changes(self, continuation, timeout)

    def sweep(self):
        """Run the table's maintenance now (a :class:`~partkv.SweepReport`): apply the feed's
        retention, and, when the table keeps a feed and a time to live, remove its expired
        entities with one "expire" entry each. The store does the same in the background."""
        return _changes.sweep(self)

    # ---- access policies ----

    def get_table_access_policy(self, **kwargs):
        """The table's stored access policies: ``{id: TableAccessPolicy or None}``."""
        _no_other_kwargs(kwargs, "get_table_access_policy")
        out = ffi.new("partkv_access_policies_t **")
        status = lib.partkv_table_access_policies(self._table(), out)
        if status:
            raise error_from(status)
        policies = out[0]
        try:
            result = {}
            id_length = ffi.new("size_t *")
            has_start = ffi.new("int *")
            start = ffi.new("int64_t *")
            has_expiry = ffi.new("int *")
            expiry = ffi.new("int64_t *")
            permission = ffi.new("char **")
            permission_length = ffi.new("size_t *")
            for i in range(lib.partkv_access_policies_count(policies)):
                text = lib.partkv_access_policies_get(policies, i, id_length, has_start, start,
                                                      has_expiry, expiry, permission,
                                                      permission_length)
                if text == ffi.NULL:
                    continue
                ident = _codec.unpack_text(text, id_length)
                perm = _codec.unpack_text(permission[0], permission_length)
                if not has_start[0] and not has_expiry[0] and not perm:
                    result[ident] = None
                else:
                    result[ident] = TableAccessPolicy(
                        start=_codec.ticks_to_datetime(start[0]) if has_start[0] else None,
                        expiry=_codec.ticks_to_datetime(expiry[0]) if has_expiry[0] else None,
                        permission=perm or None)
            return result
        finally:
            lib.partkv_access_policies_destroy(policies)

    def set_table_access_policy(self, signed_identifiers, **kwargs):
        """Set the table's stored access policies from ``{id: TableAccessPolicy or None}``."""
        _no_other_kwargs(kwargs, "set_table_access_policy")
        policies = ffi.gc(lib.partkv_access_policies_create(), lib.partkv_access_policies_destroy)
        for ident, policy in signed_identifiers.items():
            ident_bytes = utf8(ident, "access policy id")
            start = getattr(policy, "start", None)
            expiry = getattr(policy, "expiry", None)
            permission = getattr(policy, "permission", None) or ""
            permission = utf8(str(permission), "permission")
            start_ticks = _policy_ticks(start, "start")
            expiry_ticks = _policy_ticks(expiry, "expiry")
            lib.partkv_access_policies_add(policies, ident_bytes, len(ident_bytes),
                                           start_ticks is not None, start_ticks or 0,
                                           expiry_ticks is not None, expiry_ticks or 0,
                                           permission, len(permission))
        status = lib.partkv_table_set_access_policies(self._table(), policies)
        if status:
            raise error_from(status)

    # ---- bulk writes ----

    def bulk_writer(self, mode=None, **options):
        """A :class:`~partkv.BulkWriter` loading a stream of entities into this table, in any key
        order, in atomic groups of thousands of rows (usable as a context manager)."""
        from ._bulk import BulkWriter
        return BulkWriter(self, mode, **options)

    def __repr__(self):
        return "<partkv TableClient %r>" % (self.table_name,)


def _policy_ticks(value, what):
    if value is None:
        return None
    if isinstance(value, str):
        return _codec.parse_ticks(value, what)
    return _codec.datetime_ticks(value, what)


def _not_found(partition_key, row_key):
    from .exceptions import ResourceNotFoundError
    message = "entity (PartitionKey %r, RowKey %r) does not exist" % (partition_key, row_key)
    return ResourceNotFoundError("%s\nErrorCode:ResourceNotFound" % message, code="NotFound",
                                 partkv_message=message)
