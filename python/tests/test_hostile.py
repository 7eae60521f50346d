"""The package against a Table endpoint that misbehaves on purpose (tests/testing/hostile_endpoint.h,
run as the program $PARTKV_HOSTILE_ENDPOINT, which CTest sets; the tests are skipped without it).

Each behaviour ends in the exception docs/remote.md "What the client checks" names, within a bound
on time, on the requests' count where it matters, and on the process's peak memory; no secret the
server echoes reaches an exception's text.
"""

import os
import resource
import subprocess
import time

import pytest

import partkv

DEV_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
           "KBHBeksoGMGw==")
# Retries that give up at once: the throttling behaviours are about the numbers, not the waits.
FAST_RETRY = {"remote_retry": (2, 1, 10, 2000)}


@pytest.fixture
def hostile():
    program = os.environ.get("PARTKV_HOSTILE_ENDPOINT")
    if not program or not os.access(program, os.X_OK):
        pytest.skip("no partkv-hostile-endpoint program (set PARTKV_HOSTILE_ENDPOINT)")
    started = []

    def start(behaviour):
        server = subprocess.Popen([program, behaviour], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        started.append(server)
        line = server.stdout.readline()  # blocks until the endpoint listens
        assert line.startswith("listening on "), line
        url = line[len("listening on "):].strip()
        return url, ("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;"
                     "TableEndpoint=%s;" % (DEV_KEY, url))

    yield start
    for server in started:
        server.stdin.close()  # the endpoint stops when its standard input closes
        server.wait(timeout=30)


def _peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _list_all(conn, **options):
    with partkv.TableClient.from_connection_string(conn, "Hostile", **options) as table:
        return list(table.list_entities())


def test_a_continuation_handed_back_is_an_error_not_a_loop(hostile):
    _, conn = hostile("same-continuation")
    start = time.monotonic()
    with pytest.raises(partkv.StoreCorruptionError, match="very continuation it was sent"):
        _list_all(conn)
    assert time.monotonic() - start < 10


def test_a_cycle_of_continuations_is_an_error_not_a_loop(hostile):
    _, conn = hostile("continuation-cycle")
    start = time.monotonic()
    with pytest.raises(partkv.StoreCorruptionError):
        _list_all(conn)
    assert time.monotonic() - start < 10


def test_the_same_row_again_and_again_is_yielded_once(hostile):
    _, conn = hostile("same-continuation-same-row")
    seen = []
    with partkv.TableClient.from_connection_string(conn, "Hostile") as table:
        with pytest.raises(partkv.StoreCorruptionError):
            for entity in table.list_entities():
                seen.append(entity["RowKey"])
    assert len(seen) == 1


def test_an_endless_body_stops_at_the_memory_budget(hostile):
    _, conn = hostile("endless-chunked-body")
    start = time.monotonic()
    with pytest.raises(partkv.StoreIOError, match="max_response_memory"):
        _list_all(conn)
    assert time.monotonic() - start < 60
    assert _peak_rss_mib() < 600


def test_an_echoed_signature_never_reaches_an_exception(hostile):
    url, _ = hostile("echo-403")
    signature = "PythonSecretSignature0123456789abc%3D"
    sas_url = url + "?sv=2019-02-02&ss=t&srt=sco&sp=rwdlacu&se=2099-01-01T00:00:00Z&sig=" + signature
    with pytest.raises(partkv.ClientAuthenticationError) as caught:
        _list_all(sas_url)
    text = str(caught.value) + repr(caught.value)
    assert caught.value.error_code == "AuthenticationFailed"
    for secret in (signature, "PythonSecretSignature0123456789abc="):
        assert secret not in text


def test_answers_for_other_keys_are_refused(hostile):
    _, conn = hostile("other-keys")
    # Every table lookup is answered about "OtherTable": "Hostile" does not open, "OtherTable" does.
    with partkv.TableClient.from_connection_string(conn, "Hostile") as table:
        with pytest.raises(partkv.StoreCorruptionError, match="answered about table 'OtherTable'"):
            table.get_entity("p", "r")
    with partkv.TableClient.from_connection_string(conn, "OtherTable") as table:
        with pytest.raises(partkv.StoreCorruptionError, match="otherpk"):
            table.get_entity("p", "r")
        with pytest.raises(partkv.StoreCorruptionError, match="did not ask for"):
            list(table.query_entities("PartitionKey eq 'p'"))


def test_rows_of_another_table_are_refused(hostile):
    _, conn = hostile("other-table-metadata")
    with pytest.raises(partkv.StoreCorruptionError, match="OtherTable"):
        _list_all(conn)


@pytest.mark.parametrize("behaviour", ["retry-after-overflow", "retry-after-ms-overflow"])
def test_an_absurd_retry_after_is_clamped(hostile, behaviour):
    _, conn = hostile(behaviour)
    start = time.monotonic()
    with pytest.raises(partkv.ServerBusyError) as caught:
        _list_all(conn, **FAST_RETRY)
    assert time.monotonic() - start < 10
    assert 0 <= caught.value.retry_after_ms <= 3600 * 1000


def test_a_malformed_page_is_an_error_not_the_end(hostile):
    _, conn = hostile("malformed-page")
    with pytest.raises(partkv.StoreCorruptionError, match="is not an object"):
        _list_all(conn)


def test_a_continuation_too_long_for_a_token_is_refused_at_the_first_page(hostile):
    _, conn = hostile("long-continuation")
    with pytest.raises(partkv.StoreCorruptionError, match="more than the 4096"):
        _list_all(conn)
