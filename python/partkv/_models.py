"""Entities, EDM types, enums and result records (as azure-data-tables names them)."""

import dataclasses
from datetime import date, datetime, timedelta, timezone
from enum import Enum
from typing import Any, List, NamedTuple, Optional, Tuple, Union

__all__ = [
    "EdmType",
    "EntityProperty",
    "TableEntity",
    "TablesEntityDatetime",
    "UpdateMode",
    "TransactionOperation",
    "MatchConditions",
    "TableItem",
    "TableAccessPolicy",
    "PartitionStatistics",
    "HotPartition",
    "TableStatistics",
    "PartitionCensus",
    "LargestPartition",
    "TableCensus",
    "BulkWriteReport",
    "CopyProgress",
    "CopyReport",
    "VerifyReport",
    "SyncProgress",
    "SyncConflict",
    "SyncReport",
]

_UTC = timezone.utc


class EdmType(str, Enum):
    """The type of an entity property as the Table service stores it
    (azure.data.tables.EdmType).

    Python values map to a type without help (str, bytes, bool, int in the Int32 range, float,
    datetime, uuid.UUID); wrap a value in :class:`EntityProperty` to choose another, e.g.
    ``EntityProperty(2**40, EdmType.INT64)``.
    """

    BINARY = "Edm.Binary"
    INT64 = "Edm.Int64"
    GUID = "Edm.Guid"
    DATETIME = "Edm.DateTime"
    STRING = "Edm.String"
    INT32 = "Edm.Int32"
    DOUBLE = "Edm.Double"
    BOOLEAN = "Edm.Boolean"


class EntityProperty(NamedTuple):
    """A property value with an explicit EDM type (azure.data.tables.EntityProperty).

    Reads return Int64 values as ``EntityProperty(int, EdmType.INT64)``, as the SDK does, so that
    writing them back keeps their type.
    """

    value: Any
    edm_type: Union[str, EdmType]


class TablesEntityDatetime(datetime):
    """A ``datetime`` read from the store, which keeps the service's text of the value.

    Python's datetime holds microseconds; the store keeps 100-ns ticks. ``tables_service_value``
    is the exact text of the stored value (e.g. ``"2024-01-02T03:04:05.1234567Z"``), and writing
    the value back writes those ticks, so none is lost on a round trip (as azure.data.tables'
    TablesEntityDatetime).
    """

    __slots__ = ("_service_value",)  # the text, or the ticks it is made from on first use

    @property
    def tables_service_value(self):
        """The store's ISO 8601 text of the value, to the 100 ns ("" when not read from a store)."""
        try:
            value = self._service_value
        except AttributeError:
            return ""
        if value.__class__ is int:
            value = self._service_value = ticks_text(value, True)
        return value


_TICK_BASE = datetime(1, 1, 1)


def ticks_text(ticks, trimmed):
    """The ISO 8601 text of .NET ticks: "YYYY-MM-DDTHH:MM:SS.fffffffZ"; `trimmed` drops the
    fraction's trailing zeros (and a zero fraction), as the store writes DateTime properties."""
    seconds, fraction = divmod(ticks, 10000000)
    moment = _TICK_BASE + timedelta(seconds=seconds)
    text = "%04d-%02d-%02dT%02d:%02d:%02d" % (moment.year, moment.month, moment.day, moment.hour,
                                               moment.minute, moment.second)
    if trimmed:
        if fraction:
            text += "." + ("%07d" % fraction).rstrip("0")
        return text + "Z"
    return text + ".%07dZ" % fraction


_days = {}  # day number -> (year, month, day), bounded


def datetime_from_ticks(ticks):
    """A TablesEntityDatetime (UTC) for .NET ticks; its text is made when first asked for."""
    days, micros = divmod(ticks // 10, 86400000000)
    ymd = _days.get(days)
    if ymd is None:
        day = date.fromordinal(days + 1)
        if len(_days) > 4096:
            _days.clear()
        ymd = _days[days] = (day.year, day.month, day.day)
    seconds, micro = divmod(micros, 1000000)
    hour, seconds = divmod(seconds, 3600)
    minute, second = divmod(seconds, 60)
    value = TablesEntityDatetime(ymd[0], ymd[1], ymd[2], hour, minute, second, micro, _UTC)
    value._service_value = ticks
    return value


def _datetime_from_text(text):
    """A TablesEntityDatetime from the store's "YYYY-MM-DDTHH:MM:SS[.fffffff]Z" text."""
    if len(text) > 20 and text[19] == ".":
        frac = text[20:-1]
        micro = int((frac + "000000")[:6])
    else:
        micro = 0
    value = TablesEntityDatetime(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                                 int(text[14:16]), int(text[17:19]), micro, _UTC)
    value._service_value = text
    return value


class TableEntity(dict):
    """An entity: a ``dict`` of its properties with ``PartitionKey`` and ``RowKey``, plus the
    ``metadata`` the store returned (azure.data.tables.TableEntity).

    ``metadata`` is ``{"etag": str, "timestamp": TablesEntityDatetime}`` for an entity read from
    a table, ``{}`` for one built by hand.
    """

    __slots__ = ("_m",)

    @property
    def metadata(self):
        """The entity's metadata: ``{"etag": ..., "timestamp": ...}`` when read from a table."""
        try:
            meta = self._m
        except AttributeError:
            meta = self._m = {}
            return meta
        if type(meta) is tuple:  # (etag, timestamp text or ticks) as read; a dict on first use
            etag, stamp = meta
            if not stamp:
                stamp = None
            elif stamp.__class__ is int:
                stamp = _datetime_from_text(ticks_text(stamp, False))
            else:
                stamp = _datetime_from_text(stamp)
            meta = self._m = {"etag": etag, "timestamp": stamp}
        return meta

    def __reduce__(self):
        return (_rebuild_entity, (dict(self), self.metadata))

    def __copy__(self):
        copied = TableEntity(self)
        copied._m = dict(self.metadata)
        return copied

    def __repr__(self):
        return "TableEntity(%s)" % dict.__repr__(self)


def _rebuild_entity(properties, metadata):
    entity = TableEntity(properties)
    entity._m = metadata
    return entity


class UpdateMode(str, Enum):
    """How an update or upsert treats the stored entity's other properties
    (azure.data.tables.UpdateMode): REPLACE drops them, MERGE keeps them."""

    REPLACE = "replace"
    MERGE = "merge"


class TransactionOperation(str, Enum):
    """The operations of :meth:`TableClient.submit_transaction`
    (azure.data.tables.TransactionOperation)."""

    CREATE = "create"
    UPSERT = "upsert"
    UPDATE = "update"
    DELETE = "delete"


class MatchConditions(Enum):
    """ETag conditions of updates and deletes (azure.core.MatchConditions).

    ``IfNotModified`` with an ``etag`` writes only if the entity still has that ETag;
    ``Unconditionally`` (the default) writes whatever it has. azure.core's own enum is accepted
    too (members are matched by name).
    """

    Unconditionally = 1
    IfNotModified = 2
    IfModified = 3
    IfPresent = 4
    IfMissing = 5


class TableItem:
    """A table of the store (azure.data.tables.TableItem): ``name``, plus partkv's catalog facts.

    :ivar str name: the table's name as created.
    :ivar int physical_partitions: its physical partitions (0 on a remote store).
    :ivar created: when it was created (a datetime; None when unknown).
    :ivar str partition_key_scheme: its PartitionKey strategy text ("" for none).
    :ivar str row_key_scheme: its RowKey strategy text ("" for none).
    :ivar str profile: its cloud profile ("azure-table", ...).
    :ivar bool throttling: whether throttling emulation is on.
    :ivar bool change_feed: whether the table keeps a change feed.
    :ivar feed_retention: the feed's retention by age (a timedelta), None for no limit.
    :ivar feed_max_bytes: the feed's retention by size in bytes, None for no limit.
    :ivar int ttl: the entities' time to live in seconds: 0 off (the default), -1 only entities
        with a "ttl" property expire, N > 0 every entity expires N seconds after its Timestamp.
    """

    def __init__(self, name, **kwargs):
        self.name = name
        self.physical_partitions = kwargs.get("physical_partitions")
        self.created = kwargs.get("created")
        self.partition_key_scheme = kwargs.get("partition_key_scheme", "")
        self.row_key_scheme = kwargs.get("row_key_scheme", "")
        self.profile = kwargs.get("profile", "")
        self.throttling = kwargs.get("throttling", False)
        self.change_feed = kwargs.get("change_feed", False)
        self.feed_retention = kwargs.get("feed_retention")
        self.feed_max_bytes = kwargs.get("feed_max_bytes")
        self.ttl = kwargs.get("ttl", 0)

    def __repr__(self):
        return "TableItem(name=%r)" % (self.name,)

    def __eq__(self, other):
        return isinstance(other, TableItem) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


class TableAccessPolicy:
    """A stored access policy of a table (azure.data.tables.TableAccessPolicy).

    :ivar start: when the policy starts (a datetime, or None).
    :ivar expiry: when it expires (a datetime, or None).
    :ivar str permission: letters of "raud" (read, add, update, delete).
    """

    def __init__(self, *, start=None, expiry=None, permission=None):
        self.start = start
        self.expiry = expiry
        self.permission = permission

    def __eq__(self, other):
        return (isinstance(other, TableAccessPolicy) and self.start == other.start
                and self.expiry == other.expiry and self.permission == other.permission)

    def __repr__(self):
        return "TableAccessPolicy(start=%r, expiry=%r, permission=%r)" % (
            self.start, self.expiry, self.permission)


@dataclasses.dataclass(frozen=True)
class PartitionStatistics:
    """What one physical partition (or, as a total, the table) served since the store opened."""

    index: int
    reads: int
    writes: int
    bytes_read: int
    bytes_written: int
    throttled: int
    retry_wait_micros: int


@dataclasses.dataclass(frozen=True)
class HotPartition:
    """One of the hottest PartitionKeys: its operations (an upper bound) and how much they may
    overstate (``error``)."""

    partition_key: str
    operations: int
    error: int


@dataclasses.dataclass(frozen=True)
class TableStatistics:
    """A table's counters (:meth:`TableClient.statistics`)."""

    total: PartitionStatistics
    partitions: List[PartitionStatistics]
    hot: List[HotPartition]

    def as_dict(self):
        """The statistics as plain dicts and lists."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class PartitionCensus:
    """What one physical partition (or, as a total, the table) stores."""

    index: int
    hash_lower: int
    hash_upper: int
    entities: int
    bytes: int
    logical_partitions: int
    sst_bytes: int


@dataclasses.dataclass(frozen=True)
class LargestPartition:
    """One of the largest PartitionKeys of a census."""

    partition_key: str
    physical_partition: int
    entities: int
    bytes: int


@dataclasses.dataclass(frozen=True)
class TableCensus:
    """What a table stores, counted from one snapshot (:meth:`TableClient.census`)."""

    total: PartitionCensus
    partitions: List[PartitionCensus]
    largest: List[LargestPartition]
    #: entities whose time to live ran out, still stored until the background reclaims them
    #: (counted here only, not in ``total`` or ``partitions``)
    expired_entities: int = 0

    def as_dict(self):
        """The census as plain dicts and lists."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class BulkWriteReport:
    """What a bulk write has done so far (:attr:`BulkWriter.report`).

    ``rows_written`` rows of the stream — its first ones — are in the table. Once the writer has
    stopped at a bad row, ``bad_row`` is its 0-based position and ``bad_line`` its input line
    (0 when it came from :meth:`BulkWriter.add`); ``resume_line`` is where to resume a file.
    """

    rows_added: int
    lines_added: int
    rows_written: int
    groups_written: int
    batches_written: int
    throttled: int
    throttled_wait_micros: int
    bad_row: Optional[int]
    bad_line: int
    resume_line: int
    also_written_rows: int

    def as_dict(self):
        """The report as a plain dict."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class CopyProgress:
    """What a copy has done so far, as :func:`partkv.copy_table` passes it to ``on_progress``.

    ``source_rows_estimate`` is the source's entities to copy when known: a local source without
    a filter estimates it from its stored bytes (approximately); otherwise None.
    """

    rows_read: int
    rows_written: int
    source_rows_estimate: Optional[int]
    units_done: int
    units: int


@dataclasses.dataclass(frozen=True)
class CopyReport:
    """What a copy did (:func:`partkv.copy_table`; partkv::CopyReport).

    ``rows_read`` source entities the filter selected were read in this run, ``rows_written``
    acknowledged by the destination; ``resent`` entities a resumed copy found in the destination
    as the interrupted run sent them; ``units_skipped`` units the checkpoint recorded done;
    ``rows_failed`` the entity that stopped the copy (0 or 1); ``rekey_collisions`` two source
    entities re-keyed to one key (0 or 1); ``throttled`` group writes the destination answered
    Throttled; ``service_throttled`` a remote store's requests answered 503 or 429 and retried;
    ``probes`` queries spent finding a remote source's key ranges; ``units`` the source's units,
    ``streams`` the threads used.
    """

    rows_read: int
    rows_written: int
    resent: int
    units_skipped: int
    rows_failed: int
    rekey_collisions: int
    throttled: int
    throttled_wait_micros: int
    service_throttled: int
    retry_wait_micros: int
    probes: int
    units: int
    streams: int
    elapsed_micros: int

    def as_dict(self):
        """The report as a plain dict."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class VerifyReport:
    """What :func:`partkv.verify_copy` found (partkv::VerifyReport).

    ``missing`` source entities whose image is not in the destination, ``extra`` destination
    entities that are no source entity's image, ``different`` images present with other
    properties. The ``first_*`` lists hold up to ``max_listed`` (PartitionKey, RowKey) pairs of
    each kind in the order found: missing images as destination keys (``first_missing``) and as
    the source keys they come from (``first_missing_source``); extra and different entities as
    destination keys.
    """

    source_rows: int
    destination_rows: int
    missing: int
    extra: int
    different: int
    first_missing: List[Tuple[str, str]]
    first_missing_source: List[Tuple[str, str]]
    first_extra: List[Tuple[str, str]]
    first_different: List[Tuple[str, str]]

    @property
    def clean(self):
        """True when nothing is missing, extra or different."""
        return self.missing == 0 and self.extra == 0 and self.different == 0

    def as_dict(self):
        """The report as a plain dict (with ``clean``)."""
        d = dataclasses.asdict(self)
        d["clean"] = self.clean
        return d


class TableChange:
    """One entry of a table's change feed (:meth:`TableClient.query_changes`).

    :ivar int seq: the feed's sequence number: increasing, never reused by the table.
    :ivar str op: "insert", "replace", "merge", "delete" or "expire".
    :ivar time: when the store recorded the change (a UTC datetime; for "expire", when it removed
        the entity).
    :ivar str etag: the version written; for "delete" and "expire", the version removed.
    :ivar entity: the entity after the change (a :class:`TableEntity` with ``metadata``); for
        "delete" and "expire" its keys only.
    :ivar str origin: who made the change: "application", or "sync" for the writes of
        :func:`partkv.sync_table` applying a remote table's changes (which a sync does not send
        back). An expiry is always "application"'s.
    """

    __slots__ = ("seq", "op", "time", "etag", "entity", "origin")

    def __init__(self, seq, op, time, etag, entity, origin="application"):
        self.seq = seq
        self.op = op
        self.time = time
        self.etag = etag
        self.entity = entity
        self.origin = origin

    def __repr__(self):
        return "TableChange(seq=%d, op=%r, PartitionKey=%r, RowKey=%r, origin=%r)" % (
            self.seq, self.op, self.entity.get("PartitionKey"), self.entity.get("RowKey"),
            self.origin)


@dataclasses.dataclass(frozen=True)
class ChangeFeedState:
    """What a table's change feed holds now (:meth:`TableClient.get_change_feed_state`).

    ``first_token`` is a continuation token for ``first_seq``, the oldest position kept:
    ``query_changes(continuation=state.first_token)`` reads the whole feed retention kept.
    """

    retention: Optional[timedelta]  # None: no limit by age
    max_bytes: Optional[int]  # None: no limit by size
    first_seq: int
    next_seq: int  # the sequence number the next change will get
    bytes: int  # on disk, RocksDB's estimate (compressed; memtables included)
    first_token: str


@dataclasses.dataclass(frozen=True)
class SweepReport:
    """What :meth:`TableClient.sweep` did."""

    feed_entries_trimmed: int  # retention moved the feed's start by this many positions
    expiries_recorded: int  # expired entities removed with an "expire" feed entry


@dataclasses.dataclass(frozen=True)
class SyncProgress:
    """What a sync has done so far, as :func:`partkv.sync_table` passes it to ``on_progress``
    (partkv::SyncProgress): its ``phase`` ("push", "pull" or "reconcile"), the entities
    ``pushed`` (written and deleted on the remote) and ``pulled`` (written and deleted locally),
    and the ``conflicts`` resolved."""

    phase: str
    pushed: int
    pulled: int
    conflicts: int


@dataclasses.dataclass(frozen=True)
class SyncConflict:
    """One conflict of a sync, once resolved, as :func:`partkv.sync_table` passes it to
    ``on_conflict`` (partkv::SyncConflict).

    ``local`` and ``remote`` are each side's version when the conflict was found (a
    :class:`TableEntity` with ``metadata``), None for a side that had deleted the entity;
    ``local_won`` says which version won, ``set_aside`` that the losing local version was kept in
    the conflicts table (policy "report").
    """

    partition_key: str
    row_key: str
    local: Optional[TableEntity]
    remote: Optional[TableEntity]
    local_won: bool
    set_aside: bool


@dataclasses.dataclass(frozen=True)
class SyncReport:
    """What a sync did (:func:`partkv.sync_table`; partkv::SyncReport).

    Push: ``pushed`` entities written (inserted, replaced) and ``pushed_deletes`` deleted on the
    remote; ``push_skipped`` local changes not sent (a sync's own writes, or superseded within a
    page). ``adopted`` writes whose result was already in place (a re-send after a lost answer
    or a crash). Pull: ``pulled`` entities written and ``pulled_deletes`` deleted locally;
    ``pull_unchanged`` remote entities read again and not written; ``remote_keys_listed`` by
    reconcile. ``conflicts``, how many each side won (``local_won``, ``remote_won``) and the
    local versions ``set_aside``; ``remote_requests`` sent to the remote (retries not counted);
    ``seeded`` when the push sent the whole table (a pair's first sync, or a position retention
    trimmed).
    """

    pushed: int
    pushed_deletes: int
    push_skipped: int
    adopted: int
    pulled: int
    pulled_deletes: int
    pull_unchanged: int
    remote_keys_listed: int
    conflicts: int
    local_won: int
    remote_won: int
    set_aside: int
    remote_requests: int
    seeded: bool
    elapsed_micros: int

    def as_dict(self):
        """The report as a plain dict."""
        return dataclasses.asdict(self)
