"""Issue 29: several outputs at once, and the stream output at /stream.opus, against a real crated.

One daemon plays a three-track album of tones (220, 440, 660 Hz; 44.1 kHz, so the stream resamples) through a WAV
file and the stream at once, in real time. Listeners are plain HTTP clients; what they received is checked with
ffprobe and decoded with ffmpeg. The MPD front end and `mpc` switch outputs beside the HTTP API.

Every wait is bounded (a hang guard with a message), never a sleep to synchronise."""
import http.client
import json
import socket
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.request
import wave

import pytest

from crate_harness import Crate, MPDSocket, wait_until

TRACK_SECONDS = 4
TONES = [220, 440, 660]


class Listener:
    """An HTTP client of /stream.opus that reads everything into memory on its own thread."""

    def __init__(self, port, path="/stream.opus"):
        self.data = bytearray()
        self.ended = None
        self.status = None
        self.lock = threading.Lock()
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.content_type = self.response.getheader("Content-Type")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                chunk = self.response.read1(65536)
                if not chunk:
                    self.ended = "end of stream"
                    return
                with self.lock:
                    self.data += chunk
        except (OSError, http.client.HTTPException) as error:
            self.ended = repr(error)

    def received(self):
        with self.lock:
            return bytes(self.data)

    def close(self):
        # Closing the socket ends the reading thread (its read fails), and the daemon sees the listener leave.
        self.connection.sock and self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(timeout=10)
        self.connection.close()


def ogg_pages(data):
    """(flags, granule, serial, body) of each whole Ogg page."""
    pages, i = [], 0
    while i + 27 <= len(data) and data[i:i + 4] == b"OggS":
        segments = data[i + 26]
        length = sum(data[i + 27:i + 27 + segments])
        start = i + 27 + segments
        if start + length > len(data):
            break
        flags, granule, serial = data[i + 5], struct.unpack_from("<q", data, i + 6)[0], struct.unpack_from("<I", data, i + 14)[0]
        pages.append((flags, granule, serial, data[start:start + length]))
        i = start + length
    return pages


def titles(data):
    """The TITLE of each chained stream's OpusTags, in order."""
    found = []
    for _, _, _, body in ogg_pages(data):
        if body.startswith(b"OpusTags"):
            text = body.decode("utf-8", "replace")
            found.append(text.split("TITLE=", 1)[1].split("\x00")[0].rstrip("\x00\x0c\x0e\x10")[:len("Song N")]
                         if "TITLE=" in text else None)
    return found


def decode(data, tmp_path, name):
    """The stream as 48 kHz mono 16-bit samples (ffmpeg reads the chained Ogg Opus)."""
    opus = tmp_path / f"{name}.opus"
    opus.write_bytes(data)
    out = tmp_path / f"{name}.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(opus), "-ac", "1", "-ar", "48000", str(out)], check=True, timeout=60)
    with wave.open(str(out)) as w:
        frames = w.readframes(w.getnframes())
    return struct.unpack(f"<{len(frames) // 2}h", frames)


def tones_heard(samples, rate=48000):
    """The tone of each half second that is not silence, by zero crossings, rounded to the album's tones."""
    heard = []
    step = rate // 2
    for start in range(0, len(samples) - step + 1, step):
        part = samples[start:start + step]
        if max(abs(x) for x in part) < 500:
            heard.append(0)
            continue
        crossings = sum(1 for a, b in zip(part, part[1:]) if (a < 0) != (b < 0))
        frequency = crossings / 2 / (len(part) / rate)
        heard.append(min(TONES, key=lambda t: abs(t - frequency)) if min(abs(t - frequency) for t in TONES) < 15 else -1)
    return heard


def mpd(port, *commands):
    """Each command's reply as text; an ACK fails the test."""
    with MPDSocket(port, timeout=10) as m:
        replies = [m.send(c) for c in commands]
    for lines in replies:
        assert lines[-1] == "OK", lines
    return ["".join(line + "\n" for line in lines[:-1]) for lines in replies]


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    home = tmp_path_factory.mktemp("stream")
    crate = Crate(home)
    crate.make_album(home / "in" / "Record", "Band", "Record", len(TONES), seconds=TRACK_SECONDS)
    crate.cli("import", str(home / "in"))
    crate.wav = home / "speakers.wav"
    crate.start(mpd=True, extra={"CRATE_OUTPUT_PLUGIN": "wav,stream", "CRATE_OUTPUTS_WAV_PATH": str(crate.wav),
                                 "CRATE_OUTPUTS_WAV_RENDER": "false", "CRATE_OUTPUTS_STREAM_BITRATE": "96"})
    yield crate
    crate.stop()


def status(crate):
    return crate.get("/api/v1/player")


def play_album(crate):
    crate.request("POST", "/api/v1/player/stop", {})
    albums = crate.get("/api/v1/albums")
    album_id = (albums["albums"] if isinstance(albums, dict) else albums)[0]["id"]
    crate.request("POST", "/api/v1/queue/play-album", {"albumID": album_id})


def stream_state(crate):
    return next(o for o in crate.get("/api/v1/outputs") if o["name"] == "stream")


def test_outputs_are_listed_alike_by_http_mpd_and_mpc(daemon):
    outputs = daemon.get("/api/v1/outputs")
    assert [(o["name"], o["enabled"]) for o in outputs] == [("wav", True), ("stream", True)]
    assert outputs[1]["stream"] == "/stream.opus" and outputs[0]["device"] is False
    listing = mpd(daemon.mpd_port, "outputs")[0]
    assert "outputid: 0\noutputname: wav\nplugin: wav\noutputenabled: 1\n" in listing
    assert "outputid: 1\noutputname: stream\nplugin: stream\noutputenabled: 1\n" in listing
    mpc = subprocess.run(["mpc", "-p", str(daemon.mpd_port), "outputs"], capture_output=True, text=True, timeout=30, check=True)
    assert mpc.stdout.splitlines() == ["Output 1 (wav) is enabled", "Output 2 (stream) is enabled"]
    shown = daemon.cli("outputs").stdout
    assert "wav" in shown and "stream  on   listen at /stream.opus" in shown
    # A switch wakes MPD clients idling on `output`, and the CLI's toggle answers with the output as it is now.
    with MPDSocket(daemon.mpd_port, timeout=30) as idle:
        woke = []
        waiting = threading.Thread(target=lambda: woke.append(idle.send("idle output")))
        # Whether the switch comes before or after the server reads `idle`, the change is the connection's to hear.
        waiting.start()
        assert "stream  off" in daemon.cli("outputs", "toggle", "stream").stdout
        waiting.join(timeout=30)
    assert woke and woke[0] == ["changed: output", "OK"], woke
    assert daemon.cli("outputs", "enable", "stream").returncode == 0 and stream_state(daemon)["enabled"] is True
    assert "no output named 'nowhere'" in daemon.cli("outputs", "disable", "nowhere", check=False).stderr


def test_the_album_plays_exactly_to_the_wav_file_while_two_listeners_hear_the_stream(daemon, tmp_path):
    first = Listener(daemon.port)
    assert first.status == 200 and first.content_type == "audio/ogg"
    play_album(daemon)
    wait_until("the second track to play", lambda: (status(daemon).get("entry") or {}).get("track", {}).get("title") == "Song 2",
               seconds=60)
    second = Listener(daemon.port)
    wait_until("the stream to show two listeners", lambda: stream_state(daemon).get("listeners") == 2, seconds=30)
    wait_until("the album to end", lambda: status(daemon)["state"] == "stopped", seconds=60)
    # The speakers' file holds the album's exact samples, back to back (the WAV output's own gapless check).
    expected = b"".join(subprocess.run(["ffmpeg", "-v", "error", "-i", str(daemon.home / "in" / "Record" / f"{n:02d}.flac"),
                                        "-f", "f32le", "-"], capture_output=True, check=True, timeout=60).stdout
                        for n in range(1, len(TONES) + 1))
    written = subprocess.run(["ffmpeg", "-v", "error", "-i", str(daemon.wav), "-f", "f32le", "-"], capture_output=True,
                             check=True, timeout=60).stdout
    assert written == expected
    # Let the silence after the album reach both listeners, then look at what each heard.
    wait_until("silence after the album", lambda: ogg_pages(second.received())[-1][1] > 48000 * 1, seconds=30)
    for listener in (first, second):
        assert listener.ended is None, listener.ended
    one, two = first.received(), second.received()
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "json", "-"],
                           input=one, capture_output=True, check=True, timeout=60)
    assert json.loads(probe.stdout)["streams"][0] == {"codec_name": "opus", "sample_rate": "48000", "channels": 2}
    # The first heard every track at its pitch, in order; each track is a chained stream named by its tags.
    heard = [t for t in tones_heard(decode(one, tmp_path, "first")) if t > 0]
    assert [t for i, t in enumerate(heard) if i == 0 or heard[i - 1] != t] == TONES, heard
    assert [t for t in titles(one) if t] == ["Song 1", "Song 2", "Song 3"]
    # The second joined during track 2: valid headers first (ffmpeg decodes it), then from that moment on.
    assert two.startswith(b"OggS") and ogg_pages(two)[0][3].startswith(b"OpusHead")
    heard = [t for t in tones_heard(decode(two, tmp_path, "second")) if t > 0]
    assert heard[0] == 440 and 660 in heard and 220 not in heard, heard
    # Its first stream is track 2's, or the last frames of track 1's when it joined just as the track changed.
    assert titles(two)[-2:] == ["Song 2", "Song 3"] and titles(two)[0] in ("Song 1", "Song 2"), titles(two)
    first.close()
    second.close()


def test_switching_the_speakers_off_leaves_the_stream_and_the_player_going(daemon):
    listener = Listener(daemon.port)
    play_album(daemon)
    wait_until("the album to play", lambda: status(daemon)["state"] == "playing" and status(daemon)["elapsed"] > 0.5, seconds=30)
    # Off through MPD: the WAV file stops growing while the player and the stream go on.
    mpd(daemon.mpd_port, "disableoutput 0")
    wav = daemon.get("/api/v1/outputs")[0]
    assert wav["name"] == "wav" and wav["enabled"] is False
    # The file is closed at the player's next write (its last buffered bytes written then); from then on it rests.
    elapsed_then = status(daemon)["elapsed"]
    wait_until("the player to go on", lambda: status(daemon)["elapsed"] > elapsed_then + 0.5, seconds=30)
    size = daemon.wav.stat().st_size
    heard_then, elapsed_then = len(listener.received()), status(daemon)["elapsed"]
    wait_until("the player and the stream to go on without the speakers",
               lambda: status(daemon)["elapsed"] > elapsed_then + 1 and len(listener.received()) > heard_then + 8000, seconds=30)
    assert status(daemon)["state"] == "playing" and daemon.wav.stat().st_size == size
    assert "Output 1 (wav) is disabled" in subprocess.run(["mpc", "-p", str(daemon.mpd_port), "outputs"], capture_output=True,
                                                          text=True, timeout=30, check=True).stdout
    # On again with mpc: writing resumes.
    subprocess.run(["mpc", "-p", str(daemon.mpd_port), "enable", "wav"], capture_output=True, timeout=30, check=True)
    wait_until("the speakers' file to grow again", lambda: daemon.wav.stat().st_size > size + 44100 * 8 // 2, seconds=30)
    assert daemon.get("/api/v1/outputs")[0]["enabled"] is True
    # The stream output off: its listeners' streams end (players stop), the player goes on, a new listener is told why.
    daemon.request("POST", "/api/v1/outputs/stream", {"enabled": False})
    wait_until("the listener's stream to end", lambda: listener.ended == "end of stream", seconds=30)
    assert status(daemon)["state"] == "playing"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(daemon.base + "/stream.opus", timeout=10)
    assert refused.value.code == 503 and "switched off" in json.loads(refused.value.read())["error"]["message"]
    daemon.request("POST", "/api/v1/outputs/stream", {"enabled": True})
    with pytest.raises(urllib.error.HTTPError) as unknown:
        daemon.request("POST", "/api/v1/outputs/nowhere", {"enabled": True})
    assert unknown.value.code == 404
    listener.close()
    daemon.request("POST", "/api/v1/player/stop", {})


def test_a_listener_joining_while_paused_stays_and_hears_the_music_after_resume(daemon, tmp_path, request):
    play_album(daemon)
    wait_until("the album to play", lambda: status(daemon)["state"] == "playing", seconds=30)
    daemon.request("POST", "/api/v1/player/pause", {})
    listener = Listener(daemon.port)
    request.addfinalizer(listener.close)
    # Two seconds of stream while paused (granule positions count 48 kHz samples): silence, and the connection stays.
    def span(data):
        granules = [g for _, g, _, _ in ogg_pages(data) if g > 0]
        return granules[-1] - granules[0] if granules else 0
    wait_until("two seconds of silence to flow to a listener while paused", lambda: span(listener.received()) >= 96000, seconds=30)
    assert listener.ended is None
    paused = len(listener.received())
    daemon.request("POST", "/api/v1/player/play", {})
    wait_until("music after resume", lambda: len(listener.received()) > paused + 30000, seconds=30)
    heard = tones_heard(decode(listener.received(), tmp_path, "paused"))
    # Silence first (the first half-second may hold the decoder's start mid-stream), then the music from where it was.
    assert 220 in heard, heard
    before = heard[:heard.index(220)]
    assert before.count(0) >= 3 and set(before) <= {0, -1}, heard
    daemon.request("POST", "/api/v1/player/stop", {})


def test_fifty_listeners_and_one_that_stops_reading(daemon):
    """50 listeners on loopback while the player keeps time, and a reader that stops reading: it is let go (bounded
    wait) while the others and the player go on. The album repeats, so music (not the lighter silence) flows."""
    daemon.request("PUT", "/api/v1/player/options", {"repeat": "all"})
    play_album(daemon)
    wait_until("the album to play", lambda: status(daemon)["state"] == "playing", seconds=30)
    # The stuck reader: a small receive buffer, a request, and never a read.
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.connect(("127.0.0.1", daemon.port))
    stuck.sendall(f"GET /stream.opus HTTP/1.1\r\nHost: 127.0.0.1:{daemon.port}\r\n\r\n".encode())
    listeners = [Listener(daemon.port) for _ in range(50)]
    wait_until("51 listeners", lambda: stream_state(daemon).get("listeners") == 51, seconds=30)
    started = [len(x.received()) for x in listeners]
    track = status(daemon)["entry"]["id"]
    let_go = time.monotonic()
    wait_until("the stuck reader to be let go", lambda: stream_state(daemon).get("listeners") == 50, seconds=120)
    print(f"the stuck reader was let go after {time.monotonic() - let_go:.1f} s")
    # Meanwhile everyone else heard on, and the player moved on through the album at its pace.
    wait_until("every listener to receive more", lambda: all(len(x.received()) > s + 4000 for x, s in zip(listeners, started)),
               seconds=30)
    assert all(x.ended is None for x in listeners)
    wait_until("the player to reach the next track", lambda: status(daemon)["state"] != "playing"
               or status(daemon)["entry"]["id"] != track, seconds=60)
    for x in listeners:
        x.close()
    stuck.close()
    wait_until("the listeners to be gone", lambda: stream_state(daemon).get("listeners") == 0, seconds=30)
    daemon.request("POST", "/api/v1/player/stop", {})
    daemon.request("PUT", "/api/v1/player/options", {"repeat": "off"})


def test_the_choice_of_outputs_survives_a_restart(tmp_path):
    crate = Crate(tmp_path)
    crate.make_album(tmp_path / "in" / "A", "Band", "A", 1, seconds=1)
    crate.cli("import", str(tmp_path / "in"))
    extra = {"CRATE_OUTPUT_PLUGIN": "null,stream"}
    crate.start(extra=extra)
    crate.request("POST", "/api/v1/outputs/stream", {"enabled": False})
    crate.stop()
    crate.start(extra=extra)
    try:
        assert [(o["name"], o["enabled"]) for o in crate.get("/api/v1/outputs")] == [("null", True), ("stream", False)]
    finally:
        crate.stop()
