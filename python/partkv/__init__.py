"""partkv: an embedded partitioned table store with Azure Table semantics, for Python.

The API is azure-data-tables' (12.x), so code moves to Azure by changing how the client is
made::

    import partkv
    from partkv import TableServiceClient, UpdateMode, EntityProperty, EdmType

    with TableServiceClient("orders-data") as service:          # a directory (or a conn. string)
        orders = service.create_table_if_not_exists("Orders")
        orders.create_entity({"PartitionKey": "customer-42", "RowKey": "0001",
                              "Item": "keyboard", "Quantity": 2,
                              "Serial": EntityProperty(9007199254740993, EdmType.INT64)})
        for order in orders.query_entities("Quantity ge @n", parameters={"n": 2}):
            print(order["Item"], order.metadata["etag"])

Beyond the SDK: key strategies (``create_table(..., partition_key_scheme=...)``,
:meth:`TableClient.compute_keys`, :meth:`TableClient.get_entity_by_attributes`,
:meth:`TableClient.query_shards`), :meth:`TableClient.statistics`, :meth:`TableClient.census`,
:meth:`TableClient.bulk_writer`, :func:`copy_table` / :func:`verify_copy` (copying a table
between any two stores, resumably, and comparing the two), and :func:`sync_table` (a local table
with a change feed kept in step with a remote one, both ways).

The package binds libpartkv's C API (partkv/c.h) with cffi in ABI mode; see ``partkv._lib`` for
how the library and the header are found (PARTKV_LIBRARY, PARTKV_C_HEADER).
"""

from ._lib import ffi as _ffi, lib as _lib, LIBRARY_PATH, HEADER_PATH
from ._models import (
    BulkWriteReport,
    ChangeFeedState,
    CopyProgress,
    CopyReport,
    EdmType,
    EntityProperty,
    HotPartition,
    LargestPartition,
    MatchConditions,
    PartitionCensus,
    PartitionStatistics,
    SweepReport,
    SyncConflict,
    SyncProgress,
    SyncReport,
    TableAccessPolicy,
    TableCensus,
    TableChange,
    TableEntity,
    TableItem,
    TableStatistics,
    TablesEntityDatetime,
    TransactionOperation,
    UpdateMode,
    VerifyReport,
)
from ._keys import KeyStrategy
from ._paging import ItemPaged, PageIterator
from ._client import TableClient
from ._service import TableServiceClient
from ._bulk import BulkWriter
from ._copy import copy_table, verify_copy
from ._sync import sync_table
from . import exceptions
from ._changes import ChangeFeedPaged
from .exceptions import (
    AzureError,
    ChangeFeedTrimmedError,
    ClosedError,
    HttpResponseError,
    InvalidArgumentError,
    InvalidTransactionError,
    RequestTooLargeError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
    ServerBusyError,
    StoreBusyError,
    ClientAuthenticationError,
    StoreCorruptionError,
    StoreIOError,
    TableErrorCode,
    TableTransactionError,
    ValueOutOfRangeError,
)


def library_version():
    """libpartkv's version, "MAJOR.MINOR.PATCH"."""
    return _ffi.string(_lib.partkv_version()).decode()


def is_remote_location(location):
    """True when `location` is an Azure connection string or endpoint URL (a remote store)."""
    data = location.encode() if isinstance(location, str) else bytes(location)
    return bool(_lib.partkv_is_remote_location(data, len(data)))


def redact_location(location):
    """`location` with its secrets (account keys, SAS signatures) replaced by "<redacted>"."""
    data = location.encode() if isinstance(location, str) else bytes(location)
    length = _ffi.new("size_t *")
    text = _lib.partkv_redact_location(data, len(data), length)
    try:
        return _ffi.unpack(text, length[0]).decode("utf-8", "replace")
    finally:
        _lib.partkv_free(text)


__version__ = "0.1.0"

__all__ = [
    "TableServiceClient",
    "TableClient",
    "BulkWriter",
    "KeyStrategy",
    "ItemPaged",
    "PageIterator",
    "TableEntity",
    "TablesEntityDatetime",
    "EntityProperty",
    "EdmType",
    "UpdateMode",
    "TransactionOperation",
    "MatchConditions",
    "TableItem",
    "TableAccessPolicy",
    "TableStatistics",
    "PartitionStatistics",
    "HotPartition",
    "TableCensus",
    "PartitionCensus",
    "LargestPartition",
    "BulkWriteReport",
    "TableChange",
    "ChangeFeedState",
    "ChangeFeedPaged",
    "SweepReport",
    "copy_table",
    "verify_copy",
    "CopyProgress",
    "CopyReport",
    "VerifyReport",
    "sync_table",
    "SyncConflict",
    "SyncProgress",
    "SyncReport",
    "exceptions",
    "AzureError",
    "HttpResponseError",
    "ResourceExistsError",
    "ResourceNotFoundError",
    "ResourceModifiedError",
    "TableTransactionError",
    "RequestTooLargeError",
    "InvalidArgumentError",
    "InvalidTransactionError",
    "ServerBusyError",
    "StoreBusyError",
    "ClientAuthenticationError",
    "StoreCorruptionError",
    "StoreIOError",
    "ChangeFeedTrimmedError",
    "ClosedError",
    "ValueOutOfRangeError",
    "TableErrorCode",
    "library_version",
    "is_remote_location",
    "redact_location",
    "LIBRARY_PATH",
    "HEADER_PATH",
]
