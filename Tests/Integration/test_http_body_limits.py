"""Issue 31, item 1: a request body over http.max_body_bytes (1 MiB by default) gets its 413 at once, whatever the
client: Python's urllib and http.client (which send the whole body without `Expect: 100-continue`, as browsers do),
curl (which asks with `Expect: 100-continue` first), declared (Content-Length) and chunked, 1.1 MB, 5 MB and 50 MB.
The connection is then closed (`Connection: close`), and the next request on a new connection is answered.
Chromium's fetch is in Tests/Browser/test_security.py.

The timeouts are hang guards: before the fix, a client writing a body the daemon had stopped reading blocked until
its own timeout."""
import http.client
import json
import subprocess
import urllib.error
import urllib.request

import pytest

from crate_harness import Crate

SIZES = {"1.1MB": 1_100_000, "5MB": 5_000_000, "50MB": 50_000_000}
GUARD = 20  # seconds: a hang guard, not a timing check


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    crate = Crate(tmp_path_factory.mktemp("limits")).start()
    yield crate
    crate.stop()


def big_json(size):
    """A JSON object of about `size` bytes: a long string in a field the route does not know."""
    return b'{"trackIDs": [], "padding": "' + b"x" * max(0, size - 32) + b'"}'


def assert_still_served(daemon):
    assert daemon.get("/api/v1/health")["status"] == "ok"


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_urllib_gets_the_413(daemon, size):
    request = urllib.request.Request(daemon.base + "/api/v1/queue", data=big_json(SIZES[size]), method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=GUARD)
    assert refused.value.code == 413
    assert refused.value.headers["Connection"] == "close"
    assert json.loads(refused.value.read())["error"]["code"] == "body_too_large"
    assert_still_served(daemon)


def chunks(body, size=65536):
    for start in range(0, len(body), size):
        yield body[start:start + size]


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
def test_http_client_gets_the_413(daemon, size, chunked):
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=GUARD)
    body = big_json(SIZES[size])
    headers = {"Content-Type": "application/json"}
    try:
        if chunked:
            connection.request("POST", "/api/v1/queue", body=chunks(body), headers=headers, encode_chunked=True)
        else:
            connection.request("POST", "/api/v1/queue", body=body, headers=headers)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the daemon may close before the last bytes are written; its answer must still be there to read
    answer = connection.getresponse()
    assert answer.status == 413
    assert answer.getheader("Connection") == "close"
    assert json.loads(answer.read())["error"]["code"] == "body_too_large"
    connection.close()
    assert_still_served(daemon)


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
@pytest.mark.parametrize("chunked", [False, True], ids=["declared", "chunked"])
def test_curl_gets_the_413(daemon, size, chunked, tmp_path):
    body = tmp_path / "body.json"
    body.write_bytes(big_json(SIZES[size]))
    headers = ["-H", "Content-Type: application/json"] + (["-H", "Transfer-Encoding: chunked"] if chunked else [])
    done = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", str(GUARD), *headers,
                           "--data-binary", f"@{body}", daemon.base + "/api/v1/queue"],
                          capture_output=True, text=True, timeout=GUARD + 10)
    assert done.stdout == "413", done.stderr
    assert_still_served(daemon)


def test_a_body_far_over_the_limit_and_a_refused_type_get_their_answer_too(daemon):
    """200 MB (read and dropped at loopback speed), and a 5 MB form POST refused for its type before any of it was
    read: the refusal also waits for the body, so the client is not left writing into a full socket."""
    for body, content_type, status in [(big_json(200_000_000), "application/json", 413),
                                       (b"a=" + b"x" * 5_000_000, "application/x-www-form-urlencoded", 415)]:
        request = urllib.request.Request(daemon.base + "/api/v1/queue", data=body, method="POST",
                                         headers={"Content-Type": content_type})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=GUARD)
        assert refused.value.code == status
        assert refused.value.headers["Connection"] == "close"
    assert_still_served(daemon)
