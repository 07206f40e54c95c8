"""Issue 31, item 2: `crate play-url` and `crate stations play` wait for the stream's first sound or its failure,
print what plays or why not, and exit 1 on failure; `POST /api/v1/queue/play-url` does the same with `wait`.

A local web server serves an MP3 file (a stream that plays), a 404, and a page that is not audio. The 20-s bound on
each command is a hang guard, not a timing check."""
import http.server
import json
import subprocess
import threading
import urllib.error
import urllib.request

import pytest

from crate_harness import Crate, free_port


class Site(http.server.BaseHTTPRequestHandler):
    song = b""

    def do_GET(self):
        if self.path == "/song.mp3":
            self.send_response(200)
            self.send_header("Content-Type", "audio/mpeg")
            self.send_header("Content-Length", str(len(self.song)))
            self.end_headers()
            self.wfile.write(self.song)
        elif self.path == "/page.mp3":
            page = b"<!doctype html><title>not here</title><p>" + b"Nothing to hear. " * 400
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        else:
            self.send_error(404)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("playurl")
    song = root / "song.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=30", "-ac", "2",
                    "-ar", "44100", "-b:a", "128k", str(song)], check=True, timeout=120)
    Site.song = song.read_bytes()
    site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Site)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    # The null output keeps time as a device does, so the song is still playing when the command answers.
    (root / "home").mkdir()
    crate = Crate(root / "home").start(extra={"CRATE_OUTPUTS_NULL_RENDER": "false"})
    yield crate, f"http://127.0.0.1:{site.server_address[1]}"
    crate.stop()
    site.shutdown()


def test_a_stream_that_plays_is_shown_playing(setup):
    crate, site = setup
    done = crate.cli("play-url", f"{site}/song.mp3", check=False)
    assert done.returncode == 0, done.stderr
    assert "▶ playing" in done.stdout and "mp3 44100 Hz" in done.stdout, done.stdout
    crate.request("POST", "/api/v1/player/stop", {})


@pytest.mark.parametrize("path, reason", [("/gone.mp3", "404"), ("/page.mp3", "")], ids=["404", "not-audio"])
def test_a_stream_that_cannot_play_says_why_and_fails(setup, path, reason):
    crate, site = setup
    done = crate.cli("play-url", f"{site}{path}", check=False)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "cannot play" in done.stderr and f"{site}{path}" in done.stderr and reason in done.stderr, done.stderr
    assert "▶" not in done.stdout


def test_the_http_api_waits_when_asked(setup):
    crate, site = setup
    body = json.dumps({"url": f"{site}/gone.mp3", "wait": 10}).encode()
    request = urllib.request.Request(crate.base + "/api/v1/queue/play-url", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as failed:
        urllib.request.urlopen(request, timeout=20)
    assert failed.value.code == 502
    error = json.loads(failed.value.read())["error"]
    assert error["code"] == "stream_failed" and "404" in error["message"], error
    # Without wait, the answer comes at once, as before.
    status = crate.request("POST", "/api/v1/queue/play-url", {"url": f"{site}/song.mp3"})
    assert status["entry"]["track"]["title"].endswith("/song.mp3")
    crate.request("POST", "/api/v1/player/stop", {})


def test_a_station_waits_too(setup):
    crate, site = setup
    crate.cli("stations", "add", "Gone FM", f"{site}/gone.mp3")
    done = crate.cli("stations", "play", "Gone FM", check=False)
    assert done.returncode == 1 and "404" in done.stderr, (done.stdout, done.stderr)
    crate.cli("stations", "add", "Tone FM", f"{site}/song.mp3")
    done = crate.cli("stations", "play", "Tone FM", check=False)
    assert done.returncode == 0 and "▶ playing" in done.stdout, (done.stdout, done.stderr)
    crate.request("POST", "/api/v1/player/stop", {})
