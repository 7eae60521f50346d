"""partkv's Python package against the documented azure-data-tables behaviour.

agreement_program.run() is one program written against the SDK's API; it runs here against
partkv's package (on a store in the test's own tmp_path) and against fake_azure_tables (the SDK's
documented behaviour, in memory), and the two transcripts must be equal entry for entry.

partkv is imported with the environment the package documents (PARTKV_LIBRARY, PARTKV_C_HEADER);
when they are unset and the repository's build/ holds libpartkv.so, that library and
api/include/partkv/c.h are used. Nothing is skipped: without an importable partkv the partkv tests
fail, saying why.
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PYTHON_DIR = HERE.parent
REPO = PYTHON_DIR.parent
for path in (str(HERE), str(PYTHON_DIR)):
    if path not in sys.path:
        sys.path.insert(0, path)

import agreement_program  # noqa: E402
import fake_azure_tables  # noqa: E402

PAGE_SIZES = [1000, 1000, 500]


def _import_partkv():
    if "PARTKV_LIBRARY" not in os.environ and (REPO / "build" / "libpartkv.so").exists():
        os.environ["PARTKV_LIBRARY"] = str(REPO / "build" / "libpartkv.so")
    if "PARTKV_C_HEADER" not in os.environ:
        os.environ["PARTKV_C_HEADER"] = str(REPO / "api" / "include" / "partkv" / "c.h")
    try:
        import partkv  # noqa: WPS433
    except Exception as error:  # pylint: disable=broad-except
        pytest.fail("cannot import partkv (PARTKV_LIBRARY={!r}): {}: {}".format(
            os.environ.get("PARTKV_LIBRARY"), type(error).__name__, error))
    return partkv


def _fake_transcript(tmp_path):
    location = str(tmp_path / "fake-account")
    return agreement_program.run(lambda: fake_azure_tables.TableServiceClient(location), sdk=fake_azure_tables)


def _partkv_transcript(tmp_path):
    partkv = _import_partkv()
    location = str(tmp_path / "store")
    return agreement_program.run(lambda: partkv.TableServiceClient(location), sdk=partkv)


def _entry(transcript, name):
    found = [t for t in transcript if t[0] == name]
    assert found, "no {!r} in the transcript".format(name)
    return found[0]


def _check_nontrivial(transcript):
    """The program really paged, failed and conflicted (a transcript of errors everywhere, or one
    cut short, would not pass)."""
    assert len(transcript) > 100
    assert _entry(transcript, "list_entities by_page")[1:] == (PAGE_SIZES, [True, True, False], True)
    assert _entry(transcript, "resumed from the first page's token")[1:] == (1000, [1000, 500], True)
    assert _entry(transcript, "results_per_page=300")[1] == [300] * 8 + [100]
    assert _entry(transcript, "iterating ItemPaged directly")[1] == 2500
    assert _entry(transcript, "update REPLACE with a stale etag")[1:3] == ("raised", "ResourceModifiedError")
    assert _entry(transcript, "transaction with a create of an existing row")[1:3] == ("raised", "TableTransactionError")
    assert _entry(transcript, "query: Int32 range") == ("query: Int32 range", "ok", ["05", "06", "07", "08"])
    assert _entry(transcript, "list_tables") == ("list_tables", ["Agreement", "Empty", "Paging"])


def _differences(expected, actual):
    lines = []
    for index in range(max(len(expected), len(actual))):
        e = expected[index] if index < len(expected) else "<missing>"
        a = actual[index] if index < len(actual) else "<missing>"
        if e != a:
            lines.append("#{}\n  SDK (fake): {!r}\n  partkv:     {!r}".format(index, e, a))
    return lines


def test_the_fake_gives_a_nontrivial_transcript(tmp_path):
    _check_nontrivial(_fake_transcript(tmp_path))


def test_the_fake_is_deterministic(tmp_path):
    assert _fake_transcript(tmp_path / "one") == _fake_transcript(tmp_path / "two")


def test_partkv_gives_a_nontrivial_transcript(tmp_path):
    _check_nontrivial(_partkv_transcript(tmp_path))


def test_partkv_agrees_with_the_documented_sdk(tmp_path):
    expected = _fake_transcript(tmp_path)
    actual = _partkv_transcript(tmp_path)
    differences = _differences(expected, actual)
    assert not differences, "{} of {} transcript entries differ:\n{}".format(
        len(differences), len(expected), "\n".join(differences))
