"""An in-memory fake of the azure-data-tables 12.x surface (and the parts of azure-core it uses).

Written from the SDK's documentation and source (azure.data.tables: TableServiceClient,
TableClient, TableEntity, EntityProperty, EdmType, UpdateMode, TableItem, TableTransactionError,
TableErrorCode; azure.core: ItemPaged / PageIterator and by_page(), MatchConditions and the
HttpResponseError family) and from Azure Table's documented semantics (the service's REST
reference on learn.microsoft.com: "Understanding the Table service data model", "Querying tables
and entities", "Table service error codes"). It is the reference the agreement test holds
partkv's Python package against, so it imports nothing of partkv.

What it does, as the SDK over the real service does:

  * A service is named by its location (any string; the SDK's endpoint): every client of the same
    location in this process sees the same tables, so a program may close its client and open a
    new one to find its data again. Table names are case-insensitive and case-preserving.
  * Entities are dicts. Writes map Python values to Edm types as the SDK's encoder does (str ->
    String, bool -> Boolean, int -> Int32, float -> Double, datetime -> DateTime (UTC), UUID ->
    Guid, bytes -> Binary, EntityProperty(value, EdmType.X) -> X; None leaves the property out).
    Reads return TableEntity objects, decoded as the SDK decodes the service's minimal-metadata
    JSON: String/Int32/Boolean/Double as str/int/bool/float, Int64 as EntityProperty(int,
    EdmType.INT64), DateTime as TablesEntityDatetime (UTC), Guid as uuid.UUID, Binary as bytes;
    TableEntity.metadata is {"etag": ..., "timestamp": TablesEntityDatetime}.
  * Every write gets a new Timestamp (strictly increasing within the process) and the ETag Azure
    derives from it: W/"datetime'2024-01-02T03%3A04%3A05.1234567Z'".
  * Errors: ResourceExistsError (409), ResourceNotFoundError (404), ResourceModifiedError (412),
    HttpResponseError (400, ...), each with status_code and error_code (TableErrorCode);
    delete_entity and delete_table of something missing are not errors (12.x).
  * Queries return ItemPaged (lazy: nothing runs until iterated), ordered by (PartitionKey,
    RowKey), in pages of at most results_per_page (<= 1000); by_page() yields pages, its
    continuation_token is the SDK's {"PartitionKey": ..., "RowKey": ...} of the next row, or None
    after the last page. $filter is evaluated by a small OData evaluator (below); parameters are
    substituted as the SDK does (words "@name" split on spaces). $select returns only the named
    properties (PartitionKey, RowKey only when named; a named property the entity lacks as None).
  * submit_transaction: up to 100 operations on distinct rows of one PartitionKey, applied
    atomically; a failing operation raises TableTransactionError (index, error_code) and nothing
    is written. Operations on different PartitionKeys are a ValueError before anything is sent.

The OData evaluator covers Azure's $filter grammar: eq ne gt ge lt le, and or not, parentheses,
literals String ('it''s'), Int32 (30), Int64 (30L), Double (1.5, 1e3), Boolean, DateTime
(datetime'...'), Guid (guid'...') and Binary (X'0a0b', binary'0a0b'). A comparison whose literal
type differs from the property's stored type, or on a missing property, is false (ne included).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import datetime as _dt
import enum
import itertools
import re
import threading
import time
import uuid
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Tuple, Union
from urllib.parse import quote

__all__ = [
    "AzureError", "HttpResponseError", "ResourceExistsError", "ResourceNotFoundError",
    "ResourceModifiedError", "ClientAuthenticationError", "TableTransactionError",
    "RequestTooLargeError", "TableErrorCode", "MatchConditions", "EdmType", "EntityProperty",
    "TableEntity", "TablesEntityDatetime", "UpdateMode", "TransactionOperation", "TableItem",
    "PageIterator", "ItemPaged", "TableServiceClient", "TableClient",
]


# ---------------------------------------------------------------------------------------------
# azure.core: MatchConditions and exceptions
# ---------------------------------------------------------------------------------------------

class MatchConditions(enum.Enum):
    """azure.core.MatchConditions."""

    Unconditionally = 1
    IfNotModified = 2
    IfModified = 3
    IfPresent = 4
    IfMissing = 5


class AzureError(Exception):
    """azure.core.exceptions.AzureError."""

    def __init__(self, message: Any = None, *args: Any, **kwargs: Any) -> None:
        self.inner_exception = kwargs.get("error")
        self.message = str(message)
        self.continuation_token = kwargs.get("continuation_token")
        super().__init__(self.message, *args)


class HttpResponseError(AzureError):
    """azure.core.exceptions.HttpResponseError: status_code, reason, error_code, message."""

    _REASONS = {400: "Bad Request", 404: "Not Found", 409: "Conflict",
                412: "Precondition Failed", 413: "Request Entity Too Large"}

    def __init__(self, message: Any = None, response: Any = None, **kwargs: Any) -> None:
        self.response = response
        self.status_code: Optional[int] = kwargs.pop("status_code", None)
        self.reason: Optional[str] = self._REASONS.get(self.status_code) if self.status_code else None
        self.error_code = kwargs.pop("error_code", None)
        self.additional_info: Dict[str, Any] = {}
        self.model = None
        self.error = None
        if message is None:
            message = "Operation returned an invalid status '{}'".format(self.reason)
        super().__init__(message=message, **kwargs)


class ResourceExistsError(HttpResponseError):
    """409: the table or entity exists already."""


class ResourceNotFoundError(HttpResponseError):
    """404: the table or entity does not exist."""


class ResourceModifiedError(HttpResponseError):
    """412: the ETag condition did not hold."""


class ClientAuthenticationError(HttpResponseError):
    """401/403."""


class TableTransactionError(HttpResponseError):
    """A failure in a transaction: index of the failing operation (0 when none applies)."""

    def __init__(self, **kwargs: Any) -> None:
        index = kwargs.pop("index", None)
        super().__init__(**kwargs)
        self.index = index if index is not None else self._extract_index()

    def _extract_index(self) -> int:
        try:
            return int(self.message.split(":", 1)[0])
        except Exception:  # pylint: disable=broad-except
            return 0


class RequestTooLargeError(TableTransactionError):
    """413: the transaction's payload is too large."""


class TableErrorCode(str, enum.Enum):
    """The subset of azure.data.tables.TableErrorCode this fake raises."""

    ENTITY_ALREADY_EXISTS = "EntityAlreadyExists"
    ENTITY_NOT_FOUND = "EntityNotFound"
    ENTITY_TOO_LARGE = "EntityTooLarge"
    INVALID_DUPLICATE_ROW = "InvalidDuplicateRow"
    INVALID_INPUT = "InvalidInput"
    INVALID_RESOURCE_NAME = "InvalidResourceName"
    OUT_OF_RANGE_INPUT = "OutOfRangeInput"
    PROPERTY_NAME_INVALID = "PropertyNameInvalid"
    PROPERTY_NAME_TOO_LONG = "PropertyNameTooLong"
    PROPERTY_VALUE_TOO_LARGE = "PropertyValueTooLarge"
    RESOURCE_NOT_FOUND = "ResourceNotFound"
    TABLE_ALREADY_EXISTS = "TableAlreadyExists"
    TABLE_NOT_FOUND = "TableNotFound"
    TOO_MANY_PROPERTIES = "TooManyProperties"
    UPDATE_CONDITION_NOT_SATISFIED = "UpdateConditionNotSatisfied"
    REQUEST_BODY_TOO_LARGE = "RequestBodyTooLarge"


_EXCEPTION_OF_CODE = {
    TableErrorCode.ENTITY_ALREADY_EXISTS: ResourceExistsError,
    TableErrorCode.TABLE_ALREADY_EXISTS: ResourceExistsError,
    TableErrorCode.RESOURCE_NOT_FOUND: ResourceNotFoundError,
    TableErrorCode.ENTITY_NOT_FOUND: ResourceNotFoundError,
    TableErrorCode.TABLE_NOT_FOUND: ResourceNotFoundError,
    TableErrorCode.UPDATE_CONDITION_NOT_SATISFIED: ResourceModifiedError,
}

_STATUS_OF_CODE = {
    TableErrorCode.ENTITY_ALREADY_EXISTS: 409,
    TableErrorCode.TABLE_ALREADY_EXISTS: 409,
    TableErrorCode.RESOURCE_NOT_FOUND: 404,
    TableErrorCode.ENTITY_NOT_FOUND: 404,
    TableErrorCode.TABLE_NOT_FOUND: 404,
    TableErrorCode.UPDATE_CONDITION_NOT_SATISFIED: 412,
    TableErrorCode.REQUEST_BODY_TOO_LARGE: 413,
}

_MESSAGES = {
    TableErrorCode.ENTITY_ALREADY_EXISTS: "The specified entity already exists.",
    TableErrorCode.TABLE_ALREADY_EXISTS: "The table specified already exists.",
    TableErrorCode.RESOURCE_NOT_FOUND: "The specified resource does not exist.",
    TableErrorCode.TABLE_NOT_FOUND: "The table specified does not exist.",
    TableErrorCode.UPDATE_CONDITION_NOT_SATISFIED:
        "The update condition specified in the request was not satisfied.",
    TableErrorCode.INVALID_DUPLICATE_ROW: "The batch request contains multiple changes with same row key.",
}


class _ServiceError(Exception):
    """What the fake service answers with; the client turns it into the SDK's exception."""

    def __init__(self, code: TableErrorCode, detail: str = "", status: Optional[int] = None) -> None:
        super().__init__(detail or _MESSAGES.get(code, code.value))
        self.code = code
        self.status = status or _STATUS_OF_CODE.get(code, 400)
        self.detail = detail or _MESSAGES.get(code, code.value)


def _to_sdk_error(error: _ServiceError) -> HttpResponseError:
    cls = _EXCEPTION_OF_CODE.get(error.code, HttpResponseError)
    return cls(message="{}\nErrorCode:{}".format(error.detail, error.code.value),
               status_code=error.status, error_code=error.code)


# ---------------------------------------------------------------------------------------------
# azure.data.tables: entities and types
# ---------------------------------------------------------------------------------------------

class EdmType(str, enum.Enum):
    """The Edm types of Azure Table properties."""

    BINARY = "Edm.Binary"
    INT64 = "Edm.Int64"
    GUID = "Edm.Guid"
    DATETIME = "Edm.DateTime"
    STRING = "Edm.String"
    INT32 = "Edm.Int32"
    DOUBLE = "Edm.Double"
    BOOLEAN = "Edm.Boolean"


EntityProperty = NamedTuple("EntityProperty", [("value", Any), ("edm_type", Union[str, EdmType])])


class TableEntity(dict):
    """An entity dict with the service's metadata: {"etag": str, "timestamp": datetime}."""

    _metadata: Dict[str, Any] = {}

    @property
    def metadata(self) -> Dict[str, Any]:
        return self._metadata


class TablesEntityDatetime(_dt.datetime):
    """A datetime read from the service; tables_service_value is the service's text."""

    @property
    def tables_service_value(self) -> str:
        try:
            return self._service_value  # type: ignore[attr-defined]
        except AttributeError:
            return ""


class UpdateMode(str, enum.Enum):
    REPLACE = "replace"
    MERGE = "merge"


class TransactionOperation(str, enum.Enum):
    CREATE = "create"
    UPSERT = "upsert"
    UPDATE = "update"
    DELETE = "delete"


class TableItem:
    """A table, as list_tables and query_tables return it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "TableItem(name={})".format(self.name)


# ---------------------------------------------------------------------------------------------
# azure.core.paging
# ---------------------------------------------------------------------------------------------

class PageIterator(Iterator[Iterator[Any]]):
    """azure.core.paging.PageIterator: yields pages (iterators); continuation_token is the token of
    the next page, None after the last one."""

    def __init__(self, get_next: Callable[[Any], Any], extract_data: Callable[[Any], Tuple[Any, List[Any]]],
                 continuation_token: Any = None) -> None:
        self._get_next = get_next
        self._extract_data = extract_data
        self.continuation_token = continuation_token
        self._did_a_call_already = False
        self._response = None
        self._current_page: Optional[List[Any]] = None

    def __iter__(self) -> "PageIterator":
        return self

    def __next__(self) -> Iterator[Any]:
        if self.continuation_token is None and self._did_a_call_already:
            raise StopIteration("End of paging")
        self._response = self._get_next(self.continuation_token)
        self._did_a_call_already = True
        self.continuation_token, self._current_page = self._extract_data(self._response)
        return iter(self._current_page)

    next = __next__


class ItemPaged(Iterator[Any]):
    """azure.core.paging.ItemPaged: iterate items, or by_page(continuation_token=...) for pages."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._args = args
        self._kwargs = kwargs
        self._page_iterator: Optional[Iterator[Any]] = None
        self._page_iterator_class = self._kwargs.pop("page_iterator_class", PageIterator)

    def by_page(self, continuation_token: Any = None) -> PageIterator:
        return self._page_iterator_class(*self._args, continuation_token=continuation_token, **self._kwargs)

    def __repr__(self) -> str:
        return "<iterator object azure.core.paging.ItemPaged at {}>".format(hex(id(self)))

    def __iter__(self) -> "ItemPaged":
        return self

    def __next__(self) -> Any:
        if self._page_iterator is None:
            self._page_iterator = itertools.chain.from_iterable(self.by_page())
        return next(self._page_iterator)

    next = __next__


# ---------------------------------------------------------------------------------------------
# Values: the SDK's encoding and the service's storage
# ---------------------------------------------------------------------------------------------

_TICKS_AT_UNIX_EPOCH = 621355968000000000
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_MIN_TICKS = 504911232000000000  # 1601-01-01T00:00:00Z, Azure's smallest DateTime
_MAX_TICKS = 3155378975999999999
_INT32 = (-(2 ** 31), 2 ** 31 - 1)
_INT64 = (-(2 ** 63), 2 ** 63 - 1)

# Stored value: (type name, canonical Python value). Type names are the Edm names without "Edm.".
_Stored = Tuple[str, Any]


def _datetime_to_ticks(value: _dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.astimezone(_dt.timezone.utc)  # the SDK's astimezone: naive is local time
    delta = value - _EPOCH
    micros = (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
    return _TICKS_AT_UNIX_EPOCH + micros * 10


def _parse_datetime_text(text: str) -> int:
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,7}))?)?(Z|[+-]\d{2}:\d{2})?", text)
    if not m:
        raise ValueError("not an ISO 8601 date and time: {!r}".format(text))
    year, month, day, hour, minute = (int(m.group(i)) for i in range(1, 6))
    second = int(m.group(6) or 0)
    fraction = (m.group(7) or "").ljust(7, "0")
    base = _dt.datetime(year, month, day, hour, minute, second, tzinfo=_dt.timezone.utc)
    zone = m.group(8)
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        base -= sign * _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    return _datetime_to_ticks(base) + int(fraction)


def _ticks_to_text(ticks: int) -> str:
    micros, rest = divmod(ticks - _TICKS_AT_UNIX_EPOCH, 10)
    value = _EPOCH + _dt.timedelta(microseconds=micros)
    return "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:06d}{}Z".format(
        value.year, value.month, value.day, value.hour, value.minute, value.second,
        value.microsecond, rest)


def _ticks_to_datetime(ticks: int) -> TablesEntityDatetime:
    micros = (ticks - _TICKS_AT_UNIX_EPOCH) // 10
    base = _EPOCH + _dt.timedelta(microseconds=micros)
    value = TablesEntityDatetime(base.year, base.month, base.day, base.hour, base.minute,
                                 base.second, base.microsecond, tzinfo=_dt.timezone.utc)
    value._service_value = _ticks_to_text(ticks)  # pylint: disable=protected-access
    return value


def _bad_value(name: str, what: str) -> _ServiceError:
    return _ServiceError(TableErrorCode.INVALID_INPUT, "Property '{}': {}".format(name, what))


def _encode_typed(name: str, value: Any, edm: str) -> _Stored:
    """A value with an explicit Edm type (EntityProperty or (value, type) tuple)."""
    edm = getattr(edm, "value", edm)
    try:
        if edm == EdmType.STRING.value:
            return ("String", value.value if isinstance(value, enum.Enum) else str(value))
        if edm == EdmType.INT32.value:
            ivalue = int(value)
            if not _INT32[0] <= ivalue <= _INT32[1]:
                raise TypeError("{} is too large to be cast to type Edm.Int32.".format(value))
            return ("Int32", ivalue)
        if edm == EdmType.INT64.value:
            ivalue = int(value)
            if not _INT64[0] <= ivalue <= _INT64[1]:
                raise TypeError("{} is too large to be cast to type Edm.Int64.".format(value))
            return ("Int64", ivalue)
        if edm == EdmType.DOUBLE.value:
            return ("Double", float(value))
        if edm == EdmType.BOOLEAN.value:
            if isinstance(value, str):
                if value not in ("true", "false"):
                    raise _bad_value(name, "not a Boolean")
                return ("Boolean", value == "true")
            return ("Boolean", bool(value))
        if edm == EdmType.DATETIME.value:
            if isinstance(value, _dt.datetime):
                service_value = getattr(value, "tables_service_value", "")
                if service_value:
                    return ("DateTime", _parse_datetime_text(service_value))
                return ("DateTime", _datetime_to_ticks(value))
            return ("DateTime", _parse_datetime_text(str(value)))
        if edm == EdmType.GUID.value:
            return ("Guid", value if isinstance(value, uuid.UUID) else uuid.UUID(str(value)))
        if edm == EdmType.BINARY.value:
            if isinstance(value, (bytes, bytearray)):
                return ("Binary", bytes(value))
            return ("Binary", base64.b64decode(str(value), validate=True))
    except (ValueError, binascii.Error) as error:
        raise _bad_value(name, str(error)) from error
    raise _bad_value(name, "unknown Edm type {!r}".format(edm))


def _encode_value(name: str, value: Any) -> Optional[_Stored]:
    """The SDK's encoding of one property (None: the property is left out)."""
    if value is None:
        return None
    if isinstance(value, tuple):  # EntityProperty, or a (value, EdmType) tuple
        return _encode_typed(name, value[0], value[1])
    if isinstance(value, bool):
        return ("Boolean", value)
    if isinstance(value, enum.Enum):
        return _encode_value(name, value.value)
    if isinstance(value, str):
        return ("String", value)
    if isinstance(value, int):
        if not _INT32[0] <= value <= _INT32[1]:
            raise TypeError("{} is too large to be cast to type Edm.Int32.".format(value))
        return ("Int32", value)
    if isinstance(value, float):
        return ("Double", value)
    if isinstance(value, uuid.UUID):
        return ("Guid", value)
    if isinstance(value, (bytes, bytearray)):
        return ("Binary", bytes(value))
    if isinstance(value, _dt.datetime):
        return _encode_typed(name, value, EdmType.DATETIME)
    raise TypeError("Unsupported data type '{}' for entity property '{}'.".format(type(value), name))


def _decode_value(stored: _Stored) -> Any:
    """The SDK's decoding of one property of the service's minimal-metadata JSON."""
    kind, value = stored
    if kind == "Int64":
        return EntityProperty(value, EdmType.INT64)
    if kind == "DateTime":
        return _ticks_to_datetime(value)
    return value  # String, Int32, Boolean, Double, Guid (uuid.UUID), Binary (bytes)


_PROPERTY_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_FORBIDDEN_KEY_CHARS = re.compile("[/\\\\#?\x00-\x1f\x7f-\x9f]")
_SYSTEM_NAMES = {"PartitionKey", "RowKey", "Timestamp"}


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _encode_entity(entity: Mapping[str, Any]) -> Tuple[str, str, Dict[str, _Stored]]:
    """Keys and stored properties of an entity, validated as the service validates them."""
    if not isinstance(entity, Mapping):
        raise TypeError("An entity must be a dict or a TableEntity.")
    pk = entity.get("PartitionKey")
    rk = entity.get("RowKey")
    if pk is None:
        raise ValueError("PartitionKey must be present in an entity")
    if rk is None:
        raise ValueError("RowKey must be present in an entity")
    for key in (pk, rk):
        if not isinstance(key, str):
            raise TypeError("PartitionKey or RowKey must be of type string.")
        if _FORBIDDEN_KEY_CHARS.search(key) or _utf16_length(key) > 512:
            raise _ServiceError(TableErrorCode.INVALID_INPUT,
                                "The key {!r} is out of range or has a forbidden character.".format(key))
    properties: Dict[str, _Stored] = {}
    size = 0
    for name, value in entity.items():
        if name in _SYSTEM_NAMES:
            continue  # the keys are above; a Timestamp sent is ignored by the service
        stored = _encode_value(name, value)
        if stored is None:
            continue
        if not isinstance(name, str) or not _PROPERTY_NAME.match(name):
            raise _ServiceError(TableErrorCode.PROPERTY_NAME_INVALID,
                                "The property name {!r} is invalid.".format(name))
        if len(name) > 255:
            raise _ServiceError(TableErrorCode.PROPERTY_NAME_TOO_LONG, "The property name is too long.")
        kind, raw = stored
        if kind == "String" and _utf16_length(raw) > 32 * 1024:
            raise _ServiceError(TableErrorCode.PROPERTY_VALUE_TOO_LARGE,
                                "The property value of {!r} exceeds 64 KiB.".format(name))
        if kind == "Binary" and len(raw) > 64 * 1024:
            raise _ServiceError(TableErrorCode.PROPERTY_VALUE_TOO_LARGE,
                                "The property value of {!r} exceeds 64 KiB.".format(name))
        if kind == "DateTime" and not _MIN_TICKS <= raw <= _MAX_TICKS:
            raise _ServiceError(TableErrorCode.OUT_OF_RANGE_INPUT,
                                "The DateTime of {!r} is out of range.".format(name))
        size += 2 * len(name) + (2 * _utf16_length(raw) if kind == "String" else
                                 len(raw) if kind == "Binary" else 16)
        properties[name] = stored
    if len(properties) > 252:
        raise _ServiceError(TableErrorCode.TOO_MANY_PROPERTIES, "More than 252 properties.")
    if size > 1024 * 1024:
        raise _ServiceError(TableErrorCode.ENTITY_TOO_LARGE, "The entity is larger than 1 MiB.")
    return pk, rk, properties


# ---------------------------------------------------------------------------------------------
# OData $filter: parser and evaluator
# ---------------------------------------------------------------------------------------------

_KEYWORDS = {"and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le", "true", "false", "null"}
_COMPARISONS = {"eq", "ne", "gt", "ge", "lt", "le"}
_MAX_COMPARISONS = 15


class _FilterError(Exception):
    pass


def _tokenize(text: str) -> List[Tuple[str, Any, int]]:
    """Tokens: ("(", None), (")", None), ("word", str), ("literal", (type, value))."""
    tokens: List[Tuple[str, Any, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c in "()":
            tokens.append((c, None, i))
            i += 1
            continue
        m = re.match(r"(datetime|guid|X|binary)'", text[i:])
        if c == "'" or m:
            start = i
            prefix = m.group(1) if m and c != "'" else ""
            i += len(prefix) + 1
            chars = []
            while True:
                if i >= n:
                    raise _FilterError("unterminated string literal at position {}".format(start))
                if text[i] == "'":
                    if i + 1 < n and text[i + 1] == "'":
                        chars.append("'")
                        i += 2
                        continue
                    i += 1
                    break
                chars.append(text[i])
                i += 1
            body = "".join(chars)
            try:
                if prefix == "":
                    tokens.append(("literal", ("String", body), start))
                elif prefix == "datetime":
                    tokens.append(("literal", ("DateTime", _parse_datetime_text(body)), start))
                elif prefix == "guid":
                    tokens.append(("literal", ("Guid", uuid.UUID(body)), start))
                else:
                    if len(body) % 2:
                        raise ValueError("odd number of hex digits")
                    tokens.append(("literal", ("Binary", bytes.fromhex(body)), start))
            except ValueError as error:
                raise _FilterError("bad {} literal at position {}: {}".format(prefix or "string", start, error))
            continue
        m = re.match(r"-?\d+(\.\d+)?([eE][+-]?\d+)?([LldD])?", text[i:])
        if m:
            body = m.group(0)
            suffix = m.group(3) or ""
            digits = body[:-1] if suffix else body
            if suffix in ("L", "l"):
                if m.group(1) or m.group(2):
                    raise _FilterError("bad Int64 literal at position {}".format(i))
                value = int(digits)
                if not _INT64[0] <= value <= _INT64[1]:
                    raise _FilterError("Int64 literal out of range at position {}".format(i))
                tokens.append(("literal", ("Int64", value), i))
            elif m.group(1) or m.group(2) or suffix in ("d", "D"):
                tokens.append(("literal", ("Double", float(digits)), i))
            else:
                value = int(digits)
                if not _INT32[0] <= value <= _INT32[1]:
                    raise _FilterError("Int32 literal out of range at position {}".format(i))
                tokens.append(("literal", ("Int32", value), i))
            i += len(body)
            continue
        m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i:])
        if m:
            word = m.group(0)
            if word in ("true", "false"):
                tokens.append(("literal", ("Boolean", word == "true"), i))
            elif word == "null":
                raise _FilterError("null literals are not supported (position {})".format(i))
            else:
                tokens.append(("word", word, i))
            i += len(word)
            continue
        raise _FilterError("unexpected character {!r} at position {}".format(c, i))
    return tokens


class _Filter:
    """A parsed $filter: a tree of ("or", a, b), ("and", a, b), ("not", a), ("cmp", op, name, lit)."""

    def __init__(self, text: str) -> None:
        self._tokens = _tokenize(text)
        self._pos = 0
        self._comparisons = 0
        if not self._tokens:
            self.tree: Any = None
            return
        self.tree = self._or()
        if self._pos != len(self._tokens):
            raise _FilterError("unexpected token at position {}".format(self._tokens[self._pos][2]))

    def _peek(self) -> Optional[Tuple[str, Any, int]]:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _take(self) -> Tuple[str, Any, int]:
        token = self._peek()
        if token is None:
            raise _FilterError("unexpected end of filter")
        self._pos += 1
        return token

    def _is_word(self, word: str) -> bool:
        token = self._peek()
        return token is not None and token[0] == "word" and token[1] == word

    def _or(self) -> Any:
        node = self._and()
        while self._is_word("or"):
            self._pos += 1
            node = ("or", node, self._and())
        return node

    def _and(self) -> Any:
        node = self._unary()
        while self._is_word("and"):
            self._pos += 1
            node = ("and", node, self._unary())
        return node

    def _unary(self) -> Any:
        if self._is_word("not"):
            self._pos += 1
            return ("not", self._unary())
        token = self._peek()
        if token is not None and token[0] == "(":
            self._pos += 1
            node = self._or()
            closing = self._take()
            if closing[0] != ")":
                raise _FilterError("expected ')' at position {}".format(closing[2]))
            return node
        return self._comparison()

    def _operand(self) -> Tuple[str, Any]:
        token = self._take()
        if token[0] == "literal":
            return ("literal", token[1])
        if token[0] == "word" and token[1] not in _KEYWORDS:
            return ("property", token[1])
        raise _FilterError("expected a property or a literal at position {}".format(token[2]))

    def _comparison(self) -> Any:
        left = self._operand()
        op_token = self._take()
        if op_token[0] != "word" or op_token[1] not in _COMPARISONS:
            raise _FilterError("expected a comparison operator at position {}".format(op_token[2]))
        op = op_token[1]
        right = self._operand()
        if left[0] == right[0]:
            raise _FilterError("a comparison needs one property and one literal")
        if left[0] == "literal":  # 30 lt Age  ->  Age gt 30
            left, right = right, left
            op = {"gt": "lt", "lt": "gt", "ge": "le", "le": "ge"}.get(op, op)
        self._comparisons += 1
        if self._comparisons > _MAX_COMPARISONS:
            raise _FilterError("more than {} comparisons".format(_MAX_COMPARISONS))
        return ("cmp", op, left[1], right[1])

    def matches(self, pk: str, rk: str, timestamp: int, properties: Mapping[str, _Stored]) -> bool:
        return self.tree is None or self._eval(self.tree, pk, rk, timestamp, properties)

    def _eval(self, node: Any, pk: str, rk: str, ts: int, props: Mapping[str, _Stored]) -> bool:
        kind = node[0]
        if kind == "or":
            return self._eval(node[1], pk, rk, ts, props) or self._eval(node[2], pk, rk, ts, props)
        if kind == "and":
            return self._eval(node[1], pk, rk, ts, props) and self._eval(node[2], pk, rk, ts, props)
        if kind == "not":
            return not self._eval(node[1], pk, rk, ts, props)
        _, op, name, (lit_type, lit_value) = node
        if name == "PartitionKey":
            stored: Optional[_Stored] = ("String", pk)
        elif name == "RowKey":
            stored = ("String", rk)
        elif name == "Timestamp":
            stored = ("DateTime", ts)
        else:
            stored = props.get(name)
        if stored is None or stored[0] != lit_type:
            return False
        a, b = stored[1], lit_value
        if lit_type == "Guid":
            a, b = a.bytes, b.bytes
        if op == "eq":
            return a == b
        if op == "ne":
            return a != b
        if op == "gt":
            return a > b
        if op == "ge":
            return a >= b
        if op == "lt":
            return a < b
        return a <= b


# The SDK's parameter substitution (_serialize._parameter_filter_substitution): each space-separated
# word that starts with "@" is replaced by the parameter's literal form.
def _format_datetime_param(value: _dt.datetime) -> str:
    try:
        value = value.astimezone(_dt.timezone.utc)
    except ValueError:
        pass
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parameter_filter_substitution(parameters: Optional[Mapping[str, Any]], query_filter: str) -> str:
    if not parameters:
        return query_filter
    words = query_filter.split(" ")
    for index, word in enumerate(words):
        if not word or word[0] != "@":
            continue
        val = parameters[word[1:]]
        if val in [True, False]:
            words[index] = str(val).lower()
        elif isinstance(val, float):
            words[index] = str(val)
        elif isinstance(val, int):
            words[index] = str(val) if val.bit_length() <= 32 else "{}L".format(val)
        elif isinstance(val, _dt.datetime):
            words[index] = "datetime'{}'".format(_format_datetime_param(val))
        elif isinstance(val, uuid.UUID):
            words[index] = "guid'{}'".format(val)
        elif isinstance(val, bytes):
            words[index] = "X'{}'".format(binascii.hexlify(val).decode("ascii"))
        else:
            words[index] = "'{}'".format(str(val).replace("'", "''"))
    return " ".join(words)


# ---------------------------------------------------------------------------------------------
# The fake service: tables of rows kept in (PartitionKey, RowKey) order
# ---------------------------------------------------------------------------------------------

class _Row:
    __slots__ = ("properties", "timestamp", "etag")

    def __init__(self, properties: Dict[str, _Stored], timestamp: int, etag: str) -> None:
        self.properties = properties
        self.timestamp = timestamp
        self.etag = etag


class _Table:
    def __init__(self, name: str) -> None:
        self.name = name
        self.keys: List[Tuple[str, str]] = []  # sorted
        self.rows: Dict[Tuple[str, str], _Row] = {}

    def put(self, key: Tuple[str, str], row: _Row) -> None:
        if key not in self.rows:
            bisect.insort(self.keys, key)
        self.rows[key] = row

    def remove(self, key: Tuple[str, str]) -> None:
        del self.rows[key]
        index = bisect.bisect_left(self.keys, key)
        del self.keys[index]


_TABLE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]{2,62}$")
_MAX_PAGE = 1000


class _Service:
    """One account: its tables and its clock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.tables: Dict[str, _Table] = {}  # by lower-case name
        self._last_ticks = 0

    def tick(self) -> int:
        now = _TICKS_AT_UNIX_EPOCH + time.time_ns() // 100
        self._last_ticks = max(now, self._last_ticks + 1)
        return self._last_ticks

    def new_version(self) -> Tuple[int, str]:
        ticks = self.tick()
        return ticks, "W/\"datetime'{}'\"".format(quote(_ticks_to_text(ticks), safe=""))

    def table(self, name: str) -> _Table:
        table = self.tables.get(name.lower())
        if table is None:
            raise _ServiceError(TableErrorCode.TABLE_NOT_FOUND)
        return table

    # Tables.
    def create_table(self, name: str) -> str:
        if not isinstance(name, str) or not _TABLE_NAME.match(name) or name.lower() == "tables":
            raise _ServiceError(TableErrorCode.INVALID_RESOURCE_NAME,
                                "The specified resource name contains invalid characters.")
        with self.lock:
            if name.lower() in self.tables:
                raise _ServiceError(TableErrorCode.TABLE_ALREADY_EXISTS)
            self.tables[name.lower()] = _Table(name)
            return name

    def delete_table(self, name: str) -> None:
        with self.lock:
            if name.lower() not in self.tables:
                raise _ServiceError(TableErrorCode.RESOURCE_NOT_FOUND)
            del self.tables[name.lower()]

    def table_names(self) -> List[str]:
        with self.lock:
            return sorted((t.name for t in self.tables.values()), key=lambda n: (n.lower(), n))

    # Entities: one write, checked and applied under the lock.
    def _check(self, table: _Table, op: str, pk: str, rk: str, if_match: Optional[str]) -> None:
        row = table.rows.get((pk, rk))
        if op == "insert":
            if row is not None:
                raise _ServiceError(TableErrorCode.ENTITY_ALREADY_EXISTS)
        elif op in ("replace", "merge", "delete"):
            if row is None:
                raise _ServiceError(TableErrorCode.RESOURCE_NOT_FOUND)
            if if_match not in (None, "*") and if_match != row.etag:
                raise _ServiceError(TableErrorCode.UPDATE_CONDITION_NOT_SATISFIED)

    def _apply(self, table: _Table, op: str, pk: str, rk: str, props: Dict[str, _Stored]) -> Optional[Tuple[int, str]]:
        key = (pk, rk)
        if op == "delete":
            table.remove(key)
            return None
        if op in ("merge", "insert_or_merge") and key in table.rows:
            merged = dict(table.rows[key].properties)
            merged.update(props)
            props = merged
        ticks, etag = self.new_version()
        table.put(key, _Row(dict(props), ticks, etag))
        return ticks, etag

    def write(self, table_name: str, op: str, pk: str, rk: str, props: Dict[str, _Stored],
              if_match: Optional[str]) -> Optional[Tuple[int, str]]:
        with self.lock:
            table = self.table(table_name)
            self._check(table, op, pk, rk, if_match)
            return self._apply(table, op, pk, rk, props)

    def batch(self, table_name: str, ops: List[Tuple[str, str, str, Dict[str, _Stored], Optional[str]]]) -> List[Optional[Tuple[int, str]]]:
        with self.lock:
            table = self.table(table_name)
            if len(ops) > 100:
                raise _ServiceError(TableErrorCode.INVALID_INPUT,
                                    "The batch request operation exceeds the maximum 100 changes per change set.")
            # Check every operation first (its rows are distinct, so against the stored state),
            # then apply them all: all or nothing.
            seen = set()
            for index, (op, pk, rk, props, if_match) in enumerate(ops):
                key = (pk, rk)
                try:
                    if key in seen:
                        raise _ServiceError(TableErrorCode.INVALID_DUPLICATE_ROW)
                    seen.add(key)
                    self._check(table, op, pk, rk, if_match)
                except _ServiceError as error:
                    raise TableTransactionError(
                        message="{}:{}\nErrorCode:{}".format(index, error.detail, error.code.value),
                        status_code=error.status, error_code=error.code, index=index) from None
            return [self._apply(table, op, pk, rk, props) for op, pk, rk, props, _ in ops]

    def get(self, table_name: str, pk: str, rk: str) -> Tuple[Dict[str, _Stored], int, str]:
        with self.lock:
            row = self.table(table_name).rows.get((pk, rk))
            if row is None:
                raise _ServiceError(TableErrorCode.RESOURCE_NOT_FOUND)
            return row.properties, row.timestamp, row.etag

    def query(self, table_name: str, query_filter: Optional[str], top: Optional[int],
              select: Optional[List[str]], next_key: Optional[Tuple[str, str]]
              ) -> Tuple[List[TableEntity], Optional[Tuple[str, str]]]:
        with self.lock:
            table = self.table(table_name)
            if top is not None and not 1 <= int(top) <= _MAX_PAGE:
                raise _ServiceError(TableErrorCode.INVALID_INPUT, "$top must be 1 to 1000.")
            limit = int(top) if top is not None else _MAX_PAGE
            try:
                parsed = _Filter(query_filter or "")
            except _FilterError as error:
                raise _ServiceError(TableErrorCode.INVALID_INPUT, "Bad $filter: {}".format(error)) from None
            start = bisect.bisect_left(table.keys, next_key) if next_key else 0
            results: List[TableEntity] = []
            index = start
            while index < len(table.keys) and len(results) < limit:
                key = table.keys[index]
                row = table.rows[key]
                if parsed.matches(key[0], key[1], row.timestamp, row.properties):
                    results.append(_make_entity(key[0], key[1], row, select))
                index += 1
            following = table.keys[index] if index < len(table.keys) else None
            return results, following


def _make_entity(pk: str, rk: str, row: _Row, select: Optional[List[str]] = None) -> TableEntity:
    entity = TableEntity()
    timestamp: Any = _ticks_to_datetime(row.timestamp)
    if select is None:
        entity["PartitionKey"] = pk
        entity["RowKey"] = rk
        for name, stored in row.properties.items():
            entity[name] = _decode_value(stored)
    else:
        if "Timestamp" not in select:
            timestamp = None
        for name in select:
            if name == "PartitionKey":
                entity[name] = pk
            elif name == "RowKey":
                entity[name] = rk
            elif name == "Timestamp":
                continue
            elif name in row.properties:
                entity[name] = _decode_value(row.properties[name])
        for name in select:  # named properties the entity lacks come back as null
            if name not in _SYSTEM_NAMES and name not in row.properties:
                entity[name] = None
    entity._metadata = {"etag": row.etag, "timestamp": timestamp}  # pylint: disable=protected-access
    return entity


_SERVICES: Dict[str, _Service] = {}
_SERVICES_LOCK = threading.Lock()


def _service_for(location: Any) -> _Service:
    key = str(location)
    with _SERVICES_LOCK:
        service = _SERVICES.get(key)
        if service is None:
            service = _SERVICES[key] = _Service()
        return service


def _reset_all_services() -> None:
    """For tests: forget every location's data."""
    with _SERVICES_LOCK:
        _SERVICES.clear()


# ---------------------------------------------------------------------------------------------
# Clients
# ---------------------------------------------------------------------------------------------

def _select_list(select: Any) -> Optional[List[str]]:
    if not select:
        return None
    if isinstance(select, str):
        return [s.strip() for s in select.split(",") if s.strip()]
    return list(select)


def _if_match(etag: Optional[str], match_condition: Optional[MatchConditions], entity: Any = None) -> str:
    """The SDK's If-Match from etag and match_condition (the entity's metadata ETag when a
    condition is given without an etag)."""
    if match_condition and not etag and entity is not None:
        try:
            etag = entity.metadata.get("etag", None)
        except (AttributeError, TypeError):
            pass
    condition = match_condition or MatchConditions.Unconditionally
    if condition == MatchConditions.IfNotModified:
        if not etag:
            raise ValueError("IfNotModified must be specified with etag.")
        return etag
    if condition == MatchConditions.Unconditionally:
        if etag:
            raise ValueError("Etag is not supported for an Unconditional operation.")
        return "*"
    raise ValueError("Unsupported match condition: {}".format(condition))


def _write_metadata(version: Tuple[int, str]) -> Dict[str, Any]:
    """What create/update/upsert return: the response's date, etag and version headers."""
    return {"date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0),
            "etag": version[1], "version": "2019-02-02"}


class _EntityPages(PageIterator):
    """TableEntityPropertiesPaged: pages of a query; tokens {"PartitionKey", "RowKey"}."""

    def __init__(self, service: _Service, table: str, continuation_token: Any = None,
                 results_per_page: Optional[int] = None, query_filter: Optional[str] = None,
                 select: Optional[List[str]] = None) -> None:
        super().__init__(self._get_next, self._extract, continuation_token=continuation_token or {})
        self._service = service
        self.table = table
        self.results_per_page = results_per_page
        self.filter = query_filter
        self.select = select

    def _get_next(self, token: Any) -> Any:
        next_key = None
        if token:
            try:
                next_key = (token.get("PartitionKey"), token.get("RowKey") or "")
            except AttributeError:
                raise ValueError("Invalid continuation token format.") from None
        try:
            return self._service.query(self.table, self.filter, self.results_per_page, self.select, next_key)
        except _ServiceError as error:
            raise _to_sdk_error(error) from None

    @staticmethod
    def _extract(response: Any) -> Tuple[Any, List[TableEntity]]:
        entities, following = response
        token = {"PartitionKey": following[0], "RowKey": following[1]} if following else None
        return token, entities


class _TablePages(PageIterator):
    def __init__(self, service: _Service, continuation_token: Any = None,
                 results_per_page: Optional[int] = None, query_filter: Optional[str] = None) -> None:
        super().__init__(self._get_next, self._extract, continuation_token=continuation_token or "")
        self._service = service
        self.results_per_page = results_per_page
        self.filter = query_filter

    def _get_next(self, token: Any) -> Any:
        limit = int(self.results_per_page) if self.results_per_page else _MAX_PAGE
        try:
            parsed = _Filter(self.filter or "")
        except _FilterError as error:
            raise _to_sdk_error(_ServiceError(TableErrorCode.INVALID_INPUT, str(error))) from None
        names = [n for n in self._service.table_names()
                 if (not token or (n.lower(), n) >= (token.lower(), token))
                 and parsed.matches("", "", 0, {"TableName": ("String", n)})]
        return names[:limit], (names[limit] if len(names) > limit else None)

    @staticmethod
    def _extract(response: Any) -> Tuple[Any, List[TableItem]]:
        names, following = response
        return following, [TableItem(n) for n in names]


class TableClient:
    """A client of one table."""

    def __init__(self, endpoint: Any, table_name: str, **kwargs: Any) -> None:
        if not table_name:
            raise ValueError("Please specify a table name.")
        self.table_name = table_name
        self.url = str(endpoint)
        self.account_name = "fake"
        self._service = kwargs.pop("_service", None) or _service_for(endpoint)

    @classmethod
    def from_connection_string(cls, conn_str: str, table_name: str, **kwargs: Any) -> "TableClient":
        return cls(conn_str, table_name, **kwargs)

    def __enter__(self) -> "TableClient":
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    def close(self) -> None:
        pass

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except _ServiceError as error:
            raise _to_sdk_error(error) from None

    # Tables.
    def create_table(self, **kwargs: Any) -> TableItem:
        return TableItem(self._call(self._service.create_table, self.table_name))

    def delete_table(self, **kwargs: Any) -> None:
        try:
            self._service.delete_table(self.table_name)
        except _ServiceError as error:
            if error.status != 404:
                raise _to_sdk_error(error) from None

    # Entities.
    def create_entity(self, entity: Mapping[str, Any], **kwargs: Any) -> Dict[str, Any]:
        pk, rk, props = self._call(_encode_entity, entity)
        return _write_metadata(self._call(self._service.write, self.table_name, "insert", pk, rk, props, None))

    def upsert_entity(self, entity: Mapping[str, Any], mode: UpdateMode = UpdateMode.MERGE, **kwargs: Any) -> Dict[str, Any]:
        pk, rk, props = self._call(_encode_entity, entity)
        if mode == UpdateMode.MERGE:
            op = "insert_or_merge"
        elif mode == UpdateMode.REPLACE:
            op = "insert_or_replace"
        else:
            raise ValueError("Update mode {} is not supported. For a list of supported modes see the UpdateMode enum".format(mode))
        return _write_metadata(self._call(self._service.write, self.table_name, op, pk, rk, props, None))

    def update_entity(self, entity: Mapping[str, Any], mode: UpdateMode = UpdateMode.MERGE, **kwargs: Any) -> Dict[str, Any]:
        if_match = _if_match(kwargs.pop("etag", None), kwargs.pop("match_condition", None), entity)
        pk, rk, props = self._call(_encode_entity, entity)
        if mode == UpdateMode.REPLACE:
            op = "replace"
        elif mode == UpdateMode.MERGE:
            op = "merge"
        else:
            raise ValueError("Mode type '{}' is not supported.".format(mode))
        return _write_metadata(self._call(self._service.write, self.table_name, op, pk, rk, props, if_match))

    def delete_entity(self, *args: Any, **kwargs: Any) -> None:
        entity = kwargs.pop("entity", None)
        if entity is None and args and isinstance(args[0], Mapping):
            entity = args[0]
        if entity is not None:
            pk, rk = entity["PartitionKey"], entity["RowKey"]
        else:
            pk = kwargs.pop("partition_key", None) or args[0]
            rk = kwargs.pop("row_key", None)
            if rk is None:
                rk = args[1]
        match_condition = kwargs.pop("match_condition", None)
        etag = kwargs.pop("etag", None)
        if_match = _if_match(etag, match_condition, entity)
        try:
            self._service.write(self.table_name, "delete", pk, rk, {}, if_match)
        except _ServiceError as error:
            if error.status == 404:
                return  # 12.x: deleting a missing entity is not an error
            raise _to_sdk_error(error) from None

    def get_entity(self, partition_key: str, row_key: str, **kwargs: Any) -> TableEntity:
        select = _select_list(kwargs.pop("select", None))
        props, ticks, etag = self._call(self._service.get, self.table_name, partition_key, row_key)
        return _make_entity(partition_key, row_key, _Row(props, ticks, etag), select)

    def list_entities(self, **kwargs: Any) -> ItemPaged:
        return ItemPaged(self._service, self.table_name,
                         results_per_page=kwargs.pop("results_per_page", None),
                         select=_select_list(kwargs.pop("select", None)),
                         page_iterator_class=_EntityPages)

    def query_entities(self, query_filter: str, **kwargs: Any) -> ItemPaged:
        query_filter = _parameter_filter_substitution(kwargs.pop("parameters", None), query_filter)
        return ItemPaged(self._service, self.table_name,
                         results_per_page=kwargs.pop("results_per_page", None),
                         query_filter=query_filter,
                         select=_select_list(kwargs.pop("select", None)),
                         page_iterator_class=_EntityPages)

    def submit_transaction(self, operations: Iterable[Any], **kwargs: Any) -> List[Mapping[str, Any]]:
        ops: List[Tuple[str, str, str, Dict[str, _Stored], Optional[str]]] = []
        partition_key = None
        try:
            for operation in operations:
                try:
                    op_type, entity, op_kwargs = operation
                except ValueError:
                    op_type, entity, op_kwargs = operation[0], operation[1], {}
                op_kwargs = dict(op_kwargs or {})
                op_name = getattr(op_type, "value", op_type).lower()
                if partition_key is None:
                    partition_key = entity["PartitionKey"]
                elif entity["PartitionKey"] != partition_key:
                    raise ValueError("Partition Keys must all be the same")
                if op_name == "create":
                    pk, rk, props = self._call(_encode_entity, entity)
                    ops.append(("insert", pk, rk, props, None))
                elif op_name == "upsert":
                    mode = op_kwargs.pop("mode", UpdateMode.MERGE)
                    pk, rk, props = self._call(_encode_entity, entity)
                    if mode not in (UpdateMode.MERGE, UpdateMode.REPLACE):
                        raise ValueError("Mode type '{}' is not supported.".format(mode))
                    ops.append(("insert_or_merge" if mode == UpdateMode.MERGE else "insert_or_replace",
                                pk, rk, props, None))
                elif op_name == "update":
                    mode = op_kwargs.pop("mode", UpdateMode.MERGE)
                    if_match = _if_match(op_kwargs.pop("etag", None), op_kwargs.pop("match_condition", None), entity)
                    pk, rk, props = self._call(_encode_entity, entity)
                    if mode not in (UpdateMode.MERGE, UpdateMode.REPLACE):
                        raise ValueError("Mode type '{}' is not supported.".format(mode))
                    ops.append(("merge" if mode == UpdateMode.MERGE else "replace", pk, rk, props, if_match))
                elif op_name == "delete":
                    if_match = _if_match(op_kwargs.pop("etag", None), op_kwargs.pop("match_condition", None), entity)
                    ops.append(("delete", entity["PartitionKey"], entity["RowKey"], {}, if_match))
                else:
                    raise ValueError("Unrecognized operation: {}".format(operation))
        except TypeError as error:
            if "must be" in str(error) or "too large" in str(error) or "Unsupported" in str(error):
                raise
            raise TypeError("The value of 'operations' must be an iterator of Tuples. "
                            "Please check documentation for correct Tuple format.") from None
        if not ops:
            return []
        try:
            versions = self._service.batch(self.table_name, ops)
        except _ServiceError as error:
            raise TableTransactionError(message="0:{}\nErrorCode:{}".format(error.detail, error.code.value),
                                        status_code=error.status, error_code=error.code) from None
        return [{"etag": v[1]} if v else {} for v in versions]


class TableServiceClient:
    """A client of one account (here: one location in this process)."""

    def __init__(self, endpoint: Any, **kwargs: Any) -> None:
        self.url = str(endpoint)
        self.account_name = "fake"
        self._service = _service_for(endpoint)

    @classmethod
    def from_connection_string(cls, conn_str: str, **kwargs: Any) -> "TableServiceClient":
        return cls(conn_str, **kwargs)

    def __enter__(self) -> "TableServiceClient":
        return self

    def __exit__(self, *args: Any) -> None:
        self.close()

    def close(self) -> None:
        pass

    def get_table_client(self, table_name: str, **kwargs: Any) -> TableClient:
        return TableClient(self.url, table_name, _service=self._service)

    def create_table(self, table_name: str, **kwargs: Any) -> TableClient:
        client = self.get_table_client(table_name)
        client.create_table()
        return client

    def create_table_if_not_exists(self, table_name: str, **kwargs: Any) -> TableClient:
        client = self.get_table_client(table_name)
        try:
            client.create_table()
        except ResourceExistsError:
            pass
        return client

    def delete_table(self, table_name: str, **kwargs: Any) -> None:
        self.get_table_client(table_name).delete_table()

    def list_tables(self, **kwargs: Any) -> ItemPaged:
        return ItemPaged(self._service, results_per_page=kwargs.pop("results_per_page", None),
                         page_iterator_class=_TablePages)

    def query_tables(self, query_filter: str, **kwargs: Any) -> ItemPaged:
        query_filter = _parameter_filter_substitution(kwargs.pop("parameters", None), query_filter)
        return ItemPaged(self._service, results_per_page=kwargs.pop("results_per_page", None),
                         query_filter=query_filter, page_iterator_class=_TablePages)
