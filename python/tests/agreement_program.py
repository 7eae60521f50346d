"""One program, written once against the azure-data-tables 12.x API, that does what an app does
with the SDK; test_agreement.py runs it against partkv's package and against the fake of the SDK
(fake_azure_tables.py) and requires the same transcript from both.

    transcript = run(service_client_factory)            # sdk found from the client's package
    transcript = run(service_client_factory, sdk=module)

`service_client_factory()` returns a new TableServiceClient on the same store each time it is
called (the program closes one and opens another to find its data again). `sdk` is the module
that exports UpdateMode, MatchConditions, EntityProperty, EdmType and the exceptions
(ResourceExistsError, ResourceNotFoundError, ResourceModifiedError, HttpResponseError,
TableTransactionError); by default the top-level package of the client's class.

The transcript is a list of tuples of plain values (str, int, bool, None, tuples), deterministic:
ETags and Timestamps never appear, only facts about them ("changed", "same as the read",
"increased"). Exceptions appear as (the documented class that catches it, is an HttpResponseError,
status_code, error_code), with the index for a TableTransactionError.
"""

from __future__ import annotations

import datetime as dt
import sys
import uuid
from typing import Any, Callable, List, Tuple

UTC = dt.timezone.utc
Transcript = List[Tuple[Any, ...]]


# ---------------------------------------------------------------------------------------------
# Normalisation: SDK values to plain, comparable values
# ---------------------------------------------------------------------------------------------

def _text(value: Any) -> Any:
    """An enum's value (EdmType, TableErrorCode, UpdateMode), else the value."""
    return getattr(value, "value", value)


def norm_value(value: Any) -> Tuple[Any, ...]:
    type_name = type(value).__name__
    if isinstance(value, tuple) and hasattr(value, "edm_type") and hasattr(value, "value"):
        return ("EntityProperty", str(_text(value.edm_type)), norm_value(value.value))
    if value is None:
        return ("None",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, str):
        return ("str", value if len(value) <= 64 else "len={} head={}".format(len(value), value[:16]))
    if isinstance(value, bytes):
        return ("bytes", value.hex())
    if isinstance(value, uuid.UUID):
        return ("UUID", str(value))
    if isinstance(value, dt.datetime):
        offset = value.utcoffset()
        service_value = getattr(value, "tables_service_value", None)
        round_trips = None
        if service_value:
            # the service's text, to 7 fractional digits, names the same instant (to the microsecond)
            digits = service_value.rstrip("Z").split(".")
            head = dt.datetime.strptime(digits[0], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
            micros = int((digits[1] + "000000")[:6]) if len(digits) > 1 else 0
            round_trips = head.replace(microsecond=micros) == value
        return (type_name, value.isoformat(), None if offset is None else offset.total_seconds(),
                "tables_service_value names it" if round_trips else ("no tables_service_value" if round_trips is None else "tables_service_value differs"))
    return (type_name, repr(value))


def norm_entity(entity: Any) -> Tuple[Any, ...]:
    return (type(entity).__name__, isinstance(entity, dict),
            tuple(sorted((str(k), norm_value(v)) for k, v in entity.items())))


def metadata_facts(entity: Any) -> Tuple[Any, ...]:
    """The documented TableEntity.metadata: its keys, an ETag string, a UTC timestamp."""
    metadata = entity.metadata
    etag = metadata.get("etag")
    timestamp = metadata.get("timestamp")
    return ("metadata", tuple(sorted(metadata.keys())),
            "etag is a non-empty str" if isinstance(etag, str) and etag else "etag: {!r}".format(type(etag).__name__),
            (type(timestamp).__name__, isinstance(timestamp, dt.datetime) and timestamp.utcoffset() == dt.timedelta(0)))


# The exceptions the SDK documents, most specific first: an error is recorded as the first of them
# it is an instance of (what `except` clause of an app catches it), so a package may raise
# subclasses of its own.
_DOCUMENTED_ERRORS = ("TableTransactionError", "ResourceExistsError", "ResourceNotFoundError",
                      "ResourceModifiedError", "ClientAuthenticationError", "HttpResponseError")


def caught_as(sdk: Any, error: BaseException) -> str:
    for name in _DOCUMENTED_ERRORS:
        cls = getattr(sdk, name, None)
        if cls is not None and isinstance(error, cls):
            return name
    for cls in (ValueError, TypeError, KeyError):
        if isinstance(error, cls):
            return cls.__name__
    return type(error).__name__


def exc_facts(sdk: Any, error: BaseException) -> Tuple[Any, ...]:
    facts: Tuple[Any, ...] = (caught_as(sdk, error), isinstance(error, sdk.HttpResponseError),
                              getattr(error, "status_code", None),
                              None if getattr(error, "error_code", None) is None else str(_text(error.error_code)))
    if isinstance(error, sdk.TableTransactionError):
        facts += ("index", getattr(error, "index", None))
    return facts


def attempt(sdk: Any, fn: Callable[[], Any], summary: Callable[[Any], Any] = lambda r: None,
            with_code: bool = True) -> Tuple[Any, ...]:
    """("ok", summary(result)) or ("raised", exception facts); with_code=False leaves the
    error_code out where the documentation does not say which one the service gives."""
    try:
        result = fn()
    except Exception as error:  # pylint: disable=broad-except
        facts = exc_facts(sdk, error)
        return ("raised",) + (facts if with_code else facts[:3])
    return ("ok", summary(result))


def page_sizes(pages: Any) -> Tuple[List[int], List[List[Any]], List[bool]]:
    """Sizes of every page, the entities, and whether a continuation token followed each page."""
    sizes, entities, tokens = [], [], []
    for page in pages:
        items = list(page)
        sizes.append(len(items))
        entities.append(items)
        tokens.append(pages.continuation_token is not None)
    return sizes, entities, tokens


def keys_of(entities: Any) -> List[Tuple[str, str]]:
    return [(e["PartitionKey"], e["RowKey"]) for e in entities]


def _sdk_of(client: Any) -> Any:
    return sys.modules[type(client).__module__.split(".")[0]]


# ---------------------------------------------------------------------------------------------
# The program
# ---------------------------------------------------------------------------------------------

def run(service_client_factory: Callable[[], Any], sdk: Any = None) -> Transcript:
    out: Transcript = []
    with service_client_factory() as service:
        sdk = sdk or _sdk_of(service)
        _tables(sdk, service, out)
        agreement = service.get_table_client("Agreement")
        _types(sdk, agreement, out)
        _keys(sdk, agreement, out)
        saved = _etags(sdk, agreement, out)
        _transactions(sdk, agreement, out)
        _queries(sdk, agreement, out)
        _paging(sdk, service, out)
    _reopen(sdk, service_client_factory, saved, out)
    return out


def _tables(sdk: Any, service: Any, out: Transcript) -> None:
    client = service.create_table("Agreement")
    out.append(("create_table", type(client).__name__, client.table_name))
    out.append(("create_table again, other case",) + attempt(sdk, lambda: service.create_table("agreement")))
    service.create_table("Scratch")
    out.append(("delete_table",) + attempt(sdk, lambda: service.delete_table("Scratch")))
    out.append(("delete_table of a missing table",) + attempt(sdk, lambda: service.delete_table("Scratch")))
    service.create_table("Paging")
    service.create_table_if_not_exists("Paging")
    out.append(("create_table_if_not_exists of an existing table: no error",))
    empty = service.create_table("Empty")
    sizes, _, tokens = page_sizes(empty.list_entities().by_page())
    out.append(("by_page of an empty table", sizes, tokens))
    out.append(("list_tables", [t.name for t in service.list_tables()]))
    out.append(("list_tables item type", sorted({type(t).__name__ for t in service.list_tables()})))
    out.append(("query_tables", [t.name for t in service.query_tables("TableName eq @name", parameters={"name": "Paging"})]))
    missing = service.get_table_client("Missing")
    out.append(("get_entity in a missing table",) + attempt(sdk, lambda: missing.get_entity("a", "b")))
    out.append(("create_entity in a missing table",) + attempt(sdk, lambda: missing.create_entity({"PartitionKey": "a", "RowKey": "b"})))
    out.append(("list_entities of a missing table is lazy",) + attempt(sdk, lambda: missing.list_entities()))
    out.append(("iterating it",) + attempt(sdk, lambda: list(missing.list_entities())))


def _types(sdk: Any, table: Any, out: Transcript) -> None:
    when = dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    entity = {
        "PartitionKey": "types", "RowKey": "all",
        "Text": "héllo ✓ 𝄞", "Empty": "", "Long": "x" * 20000,
        "Int": 7, "IntMin": -(2 ** 31), "IntMax": 2 ** 31 - 1,
        "Int64": sdk.EntityProperty(2 ** 40, sdk.EdmType.INT64),
        "Int64Small": sdk.EntityProperty(5, sdk.EdmType.INT64),
        "Int64Min": sdk.EntityProperty(-(2 ** 63), sdk.EdmType.INT64),
        "Int64Max": sdk.EntityProperty(2 ** 63 - 1, sdk.EdmType.INT64),
        "Int32Typed": sdk.EntityProperty(42, sdk.EdmType.INT32),
        "StringTyped": sdk.EntityProperty("typed", sdk.EdmType.STRING),
        "GuidFromText": sdk.EntityProperty("12345678-1234-5678-1234-567812345678", sdk.EdmType.GUID),
        "Double": 9.75, "DoubleBig": 1e300, "DoubleNeg": -0.5,
        "DoubleNaN": float("nan"), "DoubleInf": float("inf"), "DoubleNegInf": float("-inf"),
        "True": True, "False": False,
        "When": when,
        "WhenOffset": dt.datetime(2024, 1, 2, 5, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2))),
        "WhenOld": dt.datetime(1700, 6, 1, tzinfo=UTC),
        "Id": uuid.UUID("a455c695-df98-5678-aaaa-81d3367e5a34"),
        "Blob": b"\x00\x01\xfe\xff", "BlobEmpty": b"",
        "Nothing": None,
    }
    created = table.create_entity(entity)
    out.append(("create_entity returns a dict with an etag", isinstance(created, dict),
                isinstance(created.get("etag"), str) and bool(created.get("etag"))))
    got = table.get_entity("types", "all")
    out.append(("get_entity", norm_entity(got)))
    out.append(("get_entity metadata",) + metadata_facts(got))
    out.append(("get_entity etag is create_entity's", got.metadata["etag"] == created["etag"]))
    # A read entity written back unchanged: every value keeps its type and value.
    table.update_entity(got, mode=sdk.UpdateMode.REPLACE)
    again = table.get_entity("types", "all")
    out.append(("read, written back, read again: same entity", norm_entity(again) == norm_entity(got)))
    out.append(("get_entity with select", norm_entity(table.get_entity("types", "all", select=["Int", "Id", "Nope"]))))


def _keys(sdk: Any, table: Any, out: Transcript) -> None:
    row_keys = ["b", "a", "B", "10", "9", "é", "O'Brien", "z z", "~", "A-1"]
    for rk in row_keys:
        table.create_entity({"PartitionKey": "keys", "RowKey": rk, "Len": len(rk)})
    listed = table.query_entities("PartitionKey eq @pk", parameters={"pk": "keys"})
    out.append(("RowKey order", [e["RowKey"] for e in listed]))
    out.append(("get_entity with a quote in the key", norm_entity(table.get_entity("keys", "O'Brien"))))
    out.append(("query with a quote in a parameter",
                [e["RowKey"] for e in table.query_entities("PartitionKey eq @pk and RowKey eq @rk",
                                                           parameters={"pk": "keys", "rk": "O'Brien"})]))
    out.append(("a '/' in a RowKey",) + attempt(
        sdk, lambda: table.create_entity({"PartitionKey": "keys", "RowKey": "a/b"}), with_code=False))
    out.append(("no PartitionKey",) + attempt(sdk, lambda: table.create_entity({"RowKey": "x"})))
    out.append(("get_entity of a missing row",) + attempt(sdk, lambda: table.get_entity("keys", "nope")))


def _etags(sdk: Any, table: Any, out: Transcript) -> Any:
    MC, UM = sdk.MatchConditions, sdk.UpdateMode
    base = {"PartitionKey": "etag", "RowKey": "1", "Name": "a", "Qty": 1, "Note": "keep"}
    e1 = table.create_entity(base)["etag"]
    got1 = table.get_entity("etag", "1")
    out.append(("read etag is the write's", got1.metadata["etag"] == e1))
    out.append(("create again",) + attempt(sdk, lambda: table.create_entity(base)))

    e2 = table.upsert_entity({"PartitionKey": "etag", "RowKey": "1", "Qty": 2, "Extra": True}, mode=UM.MERGE)["etag"]
    got2 = table.get_entity("etag", "1")
    out.append(("upsert MERGE: etag changed", e2 != e1, "timestamp increased",
                got2.metadata["timestamp"] > got1.metadata["timestamp"], norm_entity(got2)))

    out.append(("update REPLACE with a stale etag",) + attempt(
        sdk, lambda: table.update_entity({"PartitionKey": "etag", "RowKey": "1", "Qty": 99},
                                         mode=UM.REPLACE, etag=e1, match_condition=MC.IfNotModified)))
    out.append(("after the failed update: unchanged", table.get_entity("etag", "1").metadata["etag"] == e2,
                norm_entity(table.get_entity("etag", "1")) == norm_entity(got2)))

    e3 = table.update_entity({"PartitionKey": "etag", "RowKey": "1", "Qty": 3, "Note": None},
                             mode=UM.MERGE, etag=e2, match_condition=MC.IfNotModified)["etag"]
    out.append(("update MERGE with the current etag; None leaves Note", e3 != e2,
                norm_entity(table.get_entity("etag", "1"))))

    e4 = table.update_entity({"PartitionKey": "etag", "RowKey": "1", "Qty": 4}, mode=UM.REPLACE)["etag"]
    out.append(("update REPLACE unconditionally drops the rest", e4 != e3, norm_entity(table.get_entity("etag", "1"))))

    read = table.get_entity("etag", "1")
    read["Qty"] = 5
    out.append(("update of a read entity, IfNotModified from its metadata",) + attempt(
        sdk, lambda: table.update_entity(read, mode=UM.REPLACE, match_condition=MC.IfNotModified),
        lambda r: r["etag"] != read.metadata["etag"]))
    out.append(("the same read entity again: stale",) + attempt(
        sdk, lambda: table.update_entity(read, mode=UM.REPLACE, match_condition=MC.IfNotModified)))
    out.append(("IfNotModified without any etag",) + attempt(
        sdk, lambda: table.update_entity({"PartitionKey": "etag", "RowKey": "1"}, match_condition=MC.IfNotModified)))

    out.append(("update MERGE of a missing row",) + attempt(
        sdk, lambda: table.update_entity({"PartitionKey": "etag", "RowKey": "missing", "Qty": 1}, mode=UM.MERGE)))
    out.append(("update REPLACE of a missing row",) + attempt(
        sdk, lambda: table.update_entity({"PartitionKey": "etag", "RowKey": "missing", "Qty": 1}, mode=UM.REPLACE)))
    out.append(("upsert REPLACE of a missing row inserts",) + attempt(
        sdk, lambda: table.upsert_entity({"PartitionKey": "etag", "RowKey": "2", "Qty": 1}, mode=UM.REPLACE),
        lambda r: norm_entity(table.get_entity("etag", "2"))))
    out.append(("upsert MERGE of a missing row inserts",) + attempt(
        sdk, lambda: table.upsert_entity({"PartitionKey": "etag", "RowKey": "3", "Qty": 1}),
        lambda r: norm_entity(table.get_entity("etag", "3"))))

    current = table.get_entity("etag", "2")
    stale = current.metadata["etag"]
    table.upsert_entity({"PartitionKey": "etag", "RowKey": "2", "Qty": 2})
    out.append(("delete_entity with a stale etag",) + attempt(
        sdk, lambda: table.delete_entity("etag", "2", etag=stale, match_condition=MC.IfNotModified)))
    fresh = table.get_entity("etag", "2")
    out.append(("delete_entity(entity) IfNotModified from its metadata",) + attempt(
        sdk, lambda: table.delete_entity(fresh, match_condition=MC.IfNotModified)))
    out.append(("get after delete",) + attempt(sdk, lambda: table.get_entity("etag", "2")))
    out.append(("delete_entity of a missing row",) + attempt(sdk, lambda: table.delete_entity("etag", "2")))
    out.append(("delete_entity(partition_key=, row_key=)",) + attempt(
        sdk, lambda: table.delete_entity(partition_key="etag", row_key="3"),
        lambda r: [e["RowKey"] for e in table.query_entities("PartitionKey eq 'etag'")]))

    # What the reopened store must still hold.
    final = table.get_entity("etag", "1")
    return {"etag": final.metadata["etag"], "entity": norm_entity(final)}


def _transactions(sdk: Any, table: Any, out: Transcript) -> None:
    MC, UM = sdk.MatchConditions, sdk.UpdateMode

    def row(rk: str, **props: Any) -> dict:
        return dict({"PartitionKey": "tx", "RowKey": rk}, **props)

    for rk in "abcd":
        table.create_entity(row(rk, Qty=1, Tag=rk))
    etag_c = table.get_entity("tx", "c").metadata["etag"]

    result = table.submit_transaction([
        ("create", row("new1", Qty=0)),
        ("upsert", row("a", Qty=10), {"mode": UM.REPLACE}),
        ("update", row("b", Qty=20)),
        ("update", row("c", Qty=30), {"mode": UM.MERGE, "etag": etag_c, "match_condition": MC.IfNotModified}),
        ("delete", row("d")),
        (sdk.TransactionOperation.UPSERT if hasattr(sdk, "TransactionOperation") else "upsert", row("new2", Qty=2)),
    ])
    out.append(("submit_transaction result", type(result).__name__, len(result),
                [sorted(r.keys()) for r in result]))
    out.append(("transaction etags are the entities'",
                [result[i]["etag"] == table.get_entity("tx", rk).metadata["etag"]
                 for i, rk in ((0, "new1"), (1, "a"), (2, "b"), (3, "c"), (5, "new2"))]))

    def state() -> List[Tuple[str, Any]]:
        return [(e["RowKey"], e.get("Qty"), e.get("Tag")) for e in table.query_entities("PartitionKey eq 'tx'")]

    out.append(("after the transaction", state()))
    before = state()
    failing = [
        ("a create of an existing row", [("create", row("x1", Qty=1)), ("create", row("a", Qty=1))]),
        ("an update of a missing row", [("upsert", row("x2", Qty=1)), ("update", row("missing", Qty=1))]),
        ("a stale etag", [("upsert", row("x3")), ("update", row("c", Qty=31), {"etag": etag_c, "match_condition": MC.IfNotModified})]),
        ("a delete of a missing row", [("delete", row("missing"))]),
        ("the same row twice", [("create", row("dup", Qty=1)), ("upsert", row("dup", Qty=2))]),
    ]
    for name, ops in failing:
        out.append(("transaction with " + name,) + attempt(sdk, lambda ops=ops: table.submit_transaction(ops)))
        out.append(("nothing written", state() == before))
    out.append(("transaction over two PartitionKeys",) + attempt(
        sdk, lambda: table.submit_transaction([("create", row("y1")), ("create", {"PartitionKey": "other", "RowKey": "y2"})])))
    out.append(("nothing written", state() == before,
                [e["RowKey"] for e in table.query_entities("PartitionKey eq 'other'")]))
    out.append(("transaction of 100 creates",) + attempt(
        sdk, lambda: table.submit_transaction([("create", {"PartitionKey": "tx100", "RowKey": "%03d" % i}) for i in range(100)]),
        lambda r: (len(r), sum(1 for _ in table.query_entities("PartitionKey eq 'tx100'")))))


def _queries(sdk: Any, table: Any, out: Transcript) -> None:
    base_time = dt.datetime(2024, 3, 1, tzinfo=UTC)
    ops = []
    for i in range(30):
        ops.append(("create", {
            "PartitionKey": "q", "RowKey": "%02d" % i, "Seq": i, "Name": "n%02d" % i if i != 17 else "it's",
            "Even": i % 2 == 0, "When": base_time + dt.timedelta(hours=i), "Id": uuid.UUID(int=i),
            "Big": sdk.EntityProperty(i * 2 ** 33, sdk.EdmType.INT64), "Price": i + 0.25, "Blob": bytes([i, 255 - i]),
        }))
    table.submit_transaction(ops)

    def rows(query_filter: str, **kwargs: Any) -> List[str]:
        return [e["RowKey"] for e in table.query_entities(query_filter, **kwargs)]

    in_q = "PartitionKey eq 'q' and "
    cases = [
        ("Int32 range", "PartitionKey eq @pk and Seq ge @lo and Seq lt @hi", {"pk": "q", "lo": 5, "hi": 9}),
        ("Boolean", in_q + "Even eq @flag and Seq lt 6", {"flag": True}),
        ("DateTime", in_q + "When lt @t", {"t": base_time + dt.timedelta(hours=3, minutes=30)}),
        ("DateTime, another zone", in_q + "When ge @t",
         {"t": dt.datetime(2024, 3, 2, 6, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))}),
        ("Guid", in_q + "Id eq @g", {"g": uuid.UUID(int=12)}),
        ("Int64 (L)", in_q + "Big gt @b", {"b": 26 * 2 ** 33}),
        ("Double", in_q + "Price le @p", {"p": 2.25}),
        ("String with a quote", in_q + "Name eq @n", {"n": "it's"}),
        ("Binary", in_q + "Blob eq @blob", {"blob": bytes([7, 248])}),
        ("literal types", "PartitionKey eq 'q' and Seq ge 28 and Even eq true and Price gt 27.5", None),
        ("datetime literal", "PartitionKey eq 'q' and When ge datetime'2024-03-02T04:00:00Z'", None),
        ("guid literal", "PartitionKey eq 'q' and Id eq guid'00000000-0000-0000-0000-000000000003'", None),
        ("Int64 literal", "PartitionKey eq 'q' and Big eq 34359738368L", None),
        ("not", "PartitionKey eq 'q' and not (Seq lt 25)", None),
        ("or", "PartitionKey eq 'q' and (Seq lt 2 or Seq gt 27)", None),
        ("ne", "PartitionKey eq 'q' and Seq ne 3 and Seq lt 6", None),
        ("literal on the left", "PartitionKey eq 'q' and 3 gt Seq", None),
        ("Int32 against an Int64 literal: no match", "PartitionKey eq 'q' and Seq eq 5L", None),
        ("Int32 against a String literal: no match", "PartitionKey eq 'q' and Seq eq '5'", None),
        ("Int64 against an Int32 literal: no match", "PartitionKey eq 'q' and Big eq 0", None),
        ("a missing property: no match, ne included", "PartitionKey eq 'q' and (Missing eq 1 or Missing ne 1)", None),
        ("not of a missing property", "PartitionKey eq 'q' and not (Missing eq 1) and Seq lt 2", None),
        ("RowKey range", "PartitionKey eq 'q' and RowKey gt '07' and RowKey le '10'", None),
        ("Timestamp", "PartitionKey eq 'q' and Timestamp ge @t and Seq lt 3",
         {"t": dt.datetime.now(UTC) - dt.timedelta(days=1)}),
    ]
    for name, query_filter, parameters in cases:
        out.append(("query: " + name,) + attempt(sdk, lambda f=query_filter, p=parameters: rows(f, parameters=p), lambda r: r))

    selected = list(table.query_entities("PartitionKey eq 'q' and Seq lt 2", select=["Name", "Seq"]))
    out.append(("select", [norm_entity(e) for e in selected], [metadata_facts(e) for e in selected]))
    out.append(("select, a comma string and a missing name",
                [norm_entity(e) for e in table.query_entities("PartitionKey eq 'q' and Seq eq 3", select="RowKey,Nope")]))
    out.append(("list_entities with select", [norm_entity(e) for e in table.list_entities(select=["Tag"])
                                                if e.get("Tag") is not None]))

    pager = None
    def make() -> Any:
        nonlocal pager
        pager = table.query_entities("Seq eqq 5")
        return pager
    out.append(("a bad filter: building the pager",) + attempt(sdk, make, lambda r: type(r).__name__))
    out.append(("iterating it",) + attempt(sdk, lambda: list(pager)))

    sizes, pages, tokens = page_sizes(table.query_entities("PartitionKey eq 'q'", results_per_page=7).by_page())
    out.append(("pages of 7 in one partition", sizes, tokens, [k for p in pages for k in keys_of(p)] == sorted(
        ("q", "%02d" % i) for i in range(30))))


def _paging(sdk: Any, service: Any, out: Transcript) -> None:
    table = service.get_table_client("Paging")
    for p in range(25):
        table.submit_transaction([("create", {"PartitionKey": "pk-%02d" % p, "RowKey": "%04d" % r,
                                              "Seq": p * 100 + r, "Pad": "x" * 20}) for r in range(100)])
    expected = [("pk-%02d" % p, "%04d" % r) for p in range(25) for r in range(100)]

    pages = table.list_entities().by_page()
    out.append(("by_page returns", "an iterator of pages" if iter(pages) is pages else type(pages).__name__))
    sizes, entities, tokens = page_sizes(pages)
    out.append(("list_entities by_page", sizes, tokens, [k for p in entities for k in keys_of(p)] == expected))
    out.append(("the pages' entities", sorted({type(e).__name__ for p in entities for e in p}),
                sorted({len(e) for p in entities for e in p})))

    pages = table.list_entities().by_page()
    first = list(next(pages))
    token = pages.continuation_token
    resumed_sizes, resumed, _ = page_sizes(table.list_entities().by_page(continuation_token=token))
    out.append(("resumed from the first page's token", len(first), resumed_sizes,
                keys_of(first) + [k for p in resumed for k in keys_of(p)] == expected))
    # A token stays valid: the same token resumed twice gives the same entities.
    again_sizes, again, _ = page_sizes(table.list_entities().by_page(continuation_token=token))
    out.append(("the same token again", again_sizes, [keys_of(p) for p in again] == [keys_of(p) for p in resumed]))

    sizes, _, _ = page_sizes(table.list_entities(results_per_page=300).by_page())
    out.append(("results_per_page=300", sizes))
    sizes, entities, _ = page_sizes(table.list_entities(select=["Seq"]).by_page())
    out.append(("list_entities select by_page", sizes, sorted({tuple(sorted(e.keys())) for p in entities for e in p}),
                [e["Seq"] for p in entities for e in p] == list(range(2500))))
    out.append(("iterating ItemPaged directly", sum(1 for _ in table.list_entities())))

    ranged = list(table.query_entities("PartitionKey ge @lo and PartitionKey lt @hi", parameters={"lo": "pk-05", "hi": "pk-15"}))
    out.append(("PartitionKey range", len(ranged), keys_of(ranged) == expected[500:1500]))
    selective = list(table.query_entities("Seq ge 2400 or Seq lt 3"))
    out.append(("selective filter over the table", len(selective), keys_of(selective) == expected[:3] + expected[2400:]))

    # Writes between pages: a row before the cursor is not seen, a row after it is.
    pages = table.list_entities().by_page()
    first = list(next(pages))
    table.upsert_entity({"PartitionKey": "pk-00", "RowKey": "0000a", "Seq": -1})
    table.upsert_entity({"PartitionKey": "pk-24", "RowKey": "0099a", "Seq": -2})
    rest = [e for p in pages for e in p]
    out.append(("writes between pages", len(first) + len(rest),
                ("pk-00", "0000a") in keys_of(first + rest), ("pk-24", "0099a") in keys_of(rest)))


def _reopen(sdk: Any, factory: Callable[[], Any], saved: Any, out: Transcript) -> None:
    with factory() as service:
        out.append(("reopened: list_tables", [t.name for t in service.list_tables()]))
        with service.get_table_client("Agreement") as table:
            entity = table.get_entity("etag", "1")
            out.append(("reopened: same entity, same etag", norm_entity(entity) == saved["entity"],
                        entity.metadata["etag"] == saved["etag"]))
            out.append(("reopened: a write changes the etag",
                        table.upsert_entity({"PartitionKey": "etag", "RowKey": "1", "Qty": 6})["etag"] != saved["etag"]))
            table.delete_table()
            out.append(("TableClient.delete_table, then get_entity",) + attempt(sdk, lambda: table.get_entity("etag", "1")))
            out.append(("TableClient.delete_table again",) + attempt(sdk, table.delete_table))
        out.append(("list_tables at the end", [t.name for t in service.list_tables()]))
