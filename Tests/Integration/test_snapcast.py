"""Issue 29, item 4: Snapcast multiroom fed by crated's fifo output, with real processes.

Debian's snapserver (0.26) reads a named pipe that crated's `fifo` output writes (48000:16:2, the album resampled from
44.1 kHz), and three `snapclient --player file` on loopback play it into raw files: A and B as two rooms, C as a room
told its sound card is 100 ms late (`--latency 100`), so it must play 100 ms early. The album is two 3-s tones made
now, 440 Hz then 660 Hz.

How the rooms' positions are compared. A file player writes, every 50 ms by its own steady timer, the 50 ms of audio
the stream says is heard from 10 ms later on (client/player/file_player.cpp: `getPlayerChunkOrSilence(buffer, 10ms,
2400)` then `fflush`). So block k of a file (bytes 9600k to 9600(k+1)) is written at t0 + k * 50 ms, and sample n of
the file is heard at t0 + n / 48000 + 10 ms, where t0 is that client's own start. The files cannot be compared by
offset alone (each client started at its own moment), and comparing wall-clock sleeps would measure the test, not
Snapcast. Instead a thread watches the files grow and notes when each block lands (polled every millisecond); the
median of (landing time - k * 50 ms) over the blocks around an event is t0 for that client, to about a millisecond. The events are found in the audio itself, the same stream sample in every file: the first sound of the
album, and the first 660 Hz period after the 440 Hz track (the gapless border between the tracks). Their moments,
t0 + n / 48000, must agree between A and B within SYNC_TOLERANCE, and C's must come 100 ms earlier within the same
tolerance: the check that the measurement sees a difference when there is one. Snapcast promises clients in step to
well under a millisecond, and on an idle machine this measures 0.1 ms; the tolerance, 10 ms, is what it resolves on a
2-core machine busy compiling (file-player timers firing late, polling), still a small fraction of the 3 s between
the clients' starts or of the room 100 ms off.

Snapcast realigns when snapserver or a client fell behind (a machine busy with something else), dropping or
inserting audio on purpose, and logs it; the rooms are then out of step for a moment, by design. So the album is
played again, three times at most, until a play without a realignment, and that play is measured; only the last
one is measured whatever happened. Each tone must be heard whole, 3 s to 2 ms, in a play without a realignment;
the tones' pitch is checked in every play.

Nothing here sleeps to synchronise: every wait is for a condition (clients connected as the server's JSON-RPC says,
the player stopped, the files long enough), with a bound and a message."""
import array
import json
import shutil
import socket
import statistics
import subprocess
import threading
import time
from pathlib import Path

import pytest

from crate_harness import Crate, free_ports, make_track, stop_process, wait_until

RATE = 48000
FRAME = 4  # bytes: 16-bit stereo
BLOCK_FRAMES = RATE * 50 // 1000  # a file player's write: 50 ms
TONE_SECONDS = 3
SYNC_TOLERANCE = 0.010  # seconds
THRESHOLD = 200  # sound, of tones peaking near 4096 (ffmpeg's sine source plays at 1/8 of full scale)
LATE_ROOM = 0.100  # C's --latency, in seconds


def _require(tool):
    path = shutil.which(tool)
    assert path, f"{tool} is not installed (scripts/install-deps.sh test installs Debian's snapserver and snapclient)"
    return path


def tail(path, lines=25, skipping=None):
    """The last lines of a log file (without those holding `skipping`), or a note that there is none."""
    try:
        kept = [line for line in path.read_text(errors="replace").splitlines() if not skipping or skipping not in line]
        return "\n".join(kept[-lines:])
    except FileNotFoundError:
        return f"({path} does not exist)"


class SnapServer:
    """snapserver on private loopback ports with its state in `folder`, reading `fifo` (made by it, mode=create)."""

    def __init__(self, folder: Path, fifo: Path):
        self.stream_port, self.control_port = free_ports(2)
        self.log = folder / "snapserver.log"
        self.config = folder / "snapserver.conf"
        self.config.write_text(f"""[server]
datadir = {folder}
[http]
enabled = false
[tcp]
enabled = true
bind_to_address = 127.0.0.1
port = {self.control_port}
[stream]
bind_to_address = 127.0.0.1
port = {self.stream_port}
source = pipe://{fifo}?name=Crate&sampleformat=48000:16:2&mode=create
codec = pcm
[logging]
sink = stderr
""")
        self.start()

    def start(self):
        self.process = subprocess.Popen([_require("snapserver"), "-c", str(self.config)], stdout=open(self.log, "ab"),
                                        stderr=subprocess.STDOUT)
        wait_until(f"snapserver to answer JSON-RPC on port {self.control_port} (log: {self.log})", self._answers, seconds=30)

    def rpc(self, method, params=None):
        """One JSON-RPC request on the control port; the answer's `result` (notifications before it are skipped)."""
        with socket.create_connection(("127.0.0.1", self.control_port), timeout=10) as s:
            request = {"id": 1, "jsonrpc": "2.0", "method": method}
            if params is not None:
                request["params"] = params
            s.sendall(json.dumps(request).encode() + b"\r\n")
            stream = s.makefile("rb")
            while True:
                line = stream.readline()
                assert line, f"snapserver closed the control connection (log: {self.log})"
                answer = json.loads(line)
                if answer.get("id") == 1:
                    assert "error" not in answer, answer
                    return answer["result"]

    def _answers(self):
        assert self.process.poll() is None, f"snapserver exited: {self.log.read_text(errors='replace')}"
        try:
            self.rpc("Server.GetRPCVersion")
            return True
        except OSError:
            return False

    def connected_clients(self):
        status = self.rpc("Server.GetStatus")["server"]
        # A client's id is its host id, with "#N" for instances after the first (-i N).
        return {c["id"].split("#")[0] for g in status["groups"] for c in g["clients"] if c["connected"]}

    def wait_for_clients(self, clients, seconds=30):
        """Waits until snapserver reports every one of `clients` connected; on a timeout the failure carries the
        tails of snapserver's and the clients' logs and whether each client process still runs (a CI failure is
        read from its message alone)."""
        names = {c.name for c in clients}
        try:
            wait_until(f"snapserver to see clients {', '.join(sorted(names))} connected",
                       lambda: names <= self.connected_clients(), seconds=seconds)
        except AssertionError as timeout:
            report = [str(timeout), f"snapserver log, without the test's own JSON-RPC polls:\n{tail(self.log, skipping='(Control')}"]
            for c in clients:
                state = "running" if c.process.poll() is None else f"exited with {c.process.returncode}"
                report.append(f"snapclient {c.name} ({state}) log:\n{tail(c.log)}")
            raise AssertionError("\n".join(report)) from None

    def stop(self):
        stop_process(self.process, seconds=10)


class SnapClient:
    """`snapclient --player file` into `out`, as host `host_id`."""

    def __init__(self, folder: Path, server: SnapServer, host_id: str, instance: int, latency_ms=0, append=False):
        self.name = host_id
        self.out = folder / f"{host_id}.raw"
        self.log = folder / f"{host_id}.log"
        self.process = subprocess.Popen(
            [_require("snapclient"), "-h", "127.0.0.1", "-p", str(server.stream_port), "--hostID", host_id,
             "-i", str(instance), "--latency", str(latency_ms), "--player", f"file:filename={self.out}" + (",mode=a" if append else ""),
             "--logsink", f"file:{self.log}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def size(self):
        try:
            return self.out.stat().st_size
        except FileNotFoundError:
            return 0

    def samples(self):
        """The left channel as 16-bit integers."""
        data = array.array("h")
        data.frombytes(self.out.read_bytes()[: self.size() // FRAME * FRAME])
        return data[0::2]

    def stop(self):
        stop_process(self.process, seconds=10)


class GrowthWatch:
    """Notes, on a thread of its own, when each client's file grows: [(monotonic time, size)] per client."""

    def __init__(self, clients):
        self.clients = clients
        self.seen = {c.name: [] for c in clients}
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        last = {c.name: -1 for c in self.clients}
        while self.running:
            for c in self.clients:
                size = c.size()
                if size != last[c.name]:
                    self.seen[c.name].append((time.monotonic(), size))
                    last[c.name] = size
            time.sleep(0.001)  # the sampling interval of the measurement, not a wait for anything

    def stop(self):
        self.running = False
        self.thread.join(timeout=10)

    def start_time(self, name, around_block, span=3):
        """t0 of a client: the median, over the blocks within `span` of `around_block` whose landing was seen by
        itself (one whole block more than the time before), of (landing time - block index * 50 ms). Near the event
        only: a file player whose timer fires more than a block late starts a new grid of blocks."""
        block = BLOCK_FRAMES * FRAME
        estimates = []
        seen = self.seen[name]
        for (_, before), (t, size) in zip(seen, seen[1:]):
            if size // block == before // block + 1:
                k = size // block - 1
                if abs(k - around_block) <= span:
                    estimates.append(t - k * BLOCK_FRAMES / RATE)
        assert len(estimates) >= span, f"{name}: only {len(estimates)} file-player blocks seen near block {around_block}"
        return statistics.median(estimates)


def rising_crossings(x, start, end):
    """Rising zero crossings of x[start:end], each to a fraction of a sample (linear interpolation)."""
    out = []
    armed = False
    for i in range(max(start, 1), end):
        if x[i - 1] < -THRESHOLD:
            armed = True
        if armed and x[i - 1] < 0 <= x[i]:
            out.append(i - 1 + (-x[i - 1]) / (x[i] - x[i - 1]))
            armed = False
    return out


def frequency(crossings):
    """The tone's frequency from its median period: a gap (an underrun on a starved machine) changes a few periods,
    not the median."""
    assert len(crossings) >= 3, "no tone"
    return RATE / statistics.median(b - a for a, b in zip(crossings, crossings[1:]))


def gaps(x, start, end):
    """Silent stretches inside x[start:end] longer than 1 ms, as (start, length) in samples: silence the rooms got
    where the pipe ran dry or Snapcast realigned. Within a tone the signal stays below THRESHOLD for under 2 samples
    at a crossing."""
    out = []
    run = 0
    for i in range(start, end):
        if abs(x[i]) <= THRESHOLD:
            run += 1
        else:
            if run > RATE // 1000:
                out.append((i - run, run))
            run = 0
    return out


def events(x, start):
    """The album's first sound from sample `start` on, the border between the tones and its last sound, as sample
    indexes of this file, with the crossings of each tone. The border is the rising crossing that starts the first
    run of 20 periods of 660 Hz (within 3 %): the same stream sample in every file."""
    onset = next((i for i in range(start, len(x)) if abs(x[i]) > THRESHOLD), None)
    assert onset is not None, "the file is silent"
    end = next(i for i in range(len(x) - 1, onset - 1, -1) if abs(x[i]) > THRESHOLD) + 1
    crossings = rising_crossings(x, onset, end)
    high = [abs((b - a) - RATE / 660) < RATE / 660 * 0.03 for a, b in zip(crossings, crossings[1:])]
    at = next((j for j in range(len(high) - 20) if all(high[j:j + 20])), None)
    assert at is not None, "no 660 Hz tone after the 440 Hz one"
    border = crossings[at]
    return onset, border, end, crossings[:at + 1], crossings[at:]


def make_album(folder: Path, seconds):
    """The album Tones: 440 Hz, then 660 Hz, FLAC at 44.1 kHz (so the fifo output resamples)."""
    for n, hz in ((1, 440), (2, 660)):
        make_track(folder / f"{n:02d}.flac", {"title": f"Tone {hz}", "artist": "Tester", "album": "Tones",
                                              "album_artist": "Tester", "track": f"{n}/2", "date": "2024"},
                   seconds=seconds, frequency=hz)


@pytest.fixture
def rooms(tmp_path):
    _require("snapserver")
    _require("snapclient")
    music = tmp_path / "music"
    make_album(music, TONE_SECONDS)
    snap = tmp_path / "snap"
    snap.mkdir()
    fifo = snap / "snapfifo"
    server = SnapServer(snap, fifo)
    crate = Crate(tmp_path / "home")
    crate.home.mkdir(parents=True)
    clients = []
    try:
        crate.cli("import", "--quiet", str(music))
        crate.start(extra={"CRATE_OUTPUT_PLUGIN": "fifo", "CRATE_OUTPUTS_FIFO_PATH": str(fifo)})
        for i, (name, latency) in enumerate((("A", 0), ("B", 0), ("C", int(LATE_ROOM * 1000))), 1):
            clients.append(SnapClient(snap, server, name, i, latency))
        server.wait_for_clients(clients)
        yield crate, server, clients
    finally:
        for c in clients:
            c.stop()
        crate.stop()
        server.stop()


def log_lines(path, since=0):
    """The lines of a log from byte `since` on, and its size now."""
    if not path.exists():
        return [], 0
    data = path.read_bytes()
    return data[since:].decode(errors="replace").splitlines(), len(data)


def play_and_measure(crate, server, clients, watch):
    """Plays the album once; answers, per room, the moments of its first sound and of the 440 -> 660 Hz border, and
    the lines in which Snapcast said it realigned meanwhile. Checks the tones' pitch always and, without a
    realignment, that each tone is heard whole."""
    logs = [server.log] + [c.log for c in clients]
    offsets = {log: log_lines(log)[1] for log in logs}
    starts = {c.name: c.size() // FRAME for c in clients}
    done = crate.cli("play-album", "Tones")
    assert "Tone 440" in done.stdout, done.stdout
    wait_until("the album to end (player stopped)", lambda: crate.get("/api/v1/player")["state"] == "stopped", seconds=60)
    # What the player wrote last reaches the rooms after snapserver's buffer (1 s): wait for 2 s more in every file.
    ended = {c.name: c.size() for c in clients}
    wait_until("every room's file to run 2 s past the album's end",
               lambda: all(c.size() >= ended[c.name] + 2 * RATE * FRAME for c in clients), seconds=30)

    # Snapcast realigns when it falls behind (snapserver reading its pipe late, a client's timer firing late: a
    # machine busy with something else), dropping or inserting audio on purpose, and its logs say so.
    realigned = [line for log in logs for line in log_lines(log, offsets[log])[0]
                 if "onResync" in line or "->full() &&" in line or "hard sync" in line.lower()]
    moments = {}
    for c in clients:
        x = c.samples()
        onset, border, end, low, high = events(x, starts[c.name])
        # The album's tones at their pitch: 3 s of 440 Hz, then 3 s of 660 Hz.
        first, second = frequency(low), frequency(high)
        assert abs(first - 440) < 1 and abs(second - 660) < 1, f"room {c.name}: {first:.2f} Hz, then {second:.2f} Hz"
        for name, a, b in (("440 Hz", onset, int(border)), ("660 Hz", int(border), end)):
            # Silence where the pipe ran dry (crated starved for longer than its lead) adds nothing and loses nothing.
            silent = gaps(x, a, b)
            heard = (b - a - sum(n for _, n in silent)) / RATE
            if silent or realigned:
                print(f"room {c.name}: {heard:.4f} s of the {name} tone, silences (sample, length) {silent}")
            if not realigned:
                assert abs(heard - TONE_SECONDS) < 0.002, \
                    f"room {c.name}: {heard:.4f} s of the {name} tone heard, silences (sample, length): {silent}"
        moments[c.name] = [watch.start_time(c.name, int(n) // BLOCK_FRAMES) + n / RATE for n in (onset, border)]
    return moments, realigned


def test_rooms_play_the_album_in_step(rooms):
    crate, server, clients = rooms
    assert any(o["name"] == "fifo" and o["enabled"] and not o.get("error") for o in crate.get("/api/v1/outputs")), \
        crate.get("/api/v1/outputs")
    watch = GrowthWatch(clients)
    try:
        # While Snapcast realigns, its rooms are out of step on purpose: the album is played again (three times at
        # most) until once it is not, and that play is measured; the last is measured whatever happened.
        for attempt in range(1, 4):
            moments, realigned = play_and_measure(crate, server, clients, watch)
            if not realigned:
                break
            print(f"play {attempt}: Snapcast realigned (a busy machine):", *realigned, sep="\n  ")
    finally:
        watch.stop()

    report = {name: [f"{t - moments['A'][i]:+.4f}" for i, t in enumerate(ts)] for name, ts in moments.items()}
    for i, event in enumerate(("first sound", "440 -> 660 Hz")):
        a, b, c = moments["A"][i], moments["B"][i], moments["C"][i]
        assert abs(a - b) < SYNC_TOLERANCE, f"{event}: rooms A and B differ by {abs(a - b) * 1000:.1f} ms ({report})"
        assert abs((a - c) - LATE_ROOM) < SYNC_TOLERANCE, \
            f"{event}: room C (--latency 100) should play 100 ms early, it plays {(a - c) * 1000:.1f} ms early ({report})"
    print("room moments relative to A (s):", report)


def sounding(client, since, seconds=0.5):
    """Whether the client's file holds at least `seconds` of tone after byte `since` (a restart's moment)."""
    x = array.array("h")
    data = client.out.read_bytes()[since:]
    x.frombytes(data[: len(data) // FRAME * FRAME])
    left = x[0::2]
    return sum(1 for v in left if abs(v) > THRESHOLD) >= seconds * RATE * 0.6  # a sine is above 5% of its peak 97% of the time


def test_a_restarted_snapserver_hears_the_music_again(tmp_path):
    """snapserver stops mid-album and starts again: crated plays on meanwhile, without an output error and at the
    pace of the music, and the room hears the album again once snapserver and its client are back.

    The room's snapclient is stopped and started with the server: whether a snapclient finds a restarted server by
    itself is Snapcast's business (0.26 retries every second, and once in a CI run did not come back in 60 s),
    while what is Crate's is that the new snapserver, reading the pipe afresh, gets the album from crated."""
    music = tmp_path / "music"
    make_album(music, 15)
    snap = tmp_path / "snap"
    snap.mkdir()
    fifo = snap / "snapfifo"
    server = SnapServer(snap, fifo)
    crate = Crate(tmp_path / "home")
    crate.home.mkdir(parents=True)
    client = None
    try:
        crate.cli("import", "--quiet", str(music))
        crate.start(extra={"CRATE_OUTPUT_PLUGIN": "fifo", "CRATE_OUTPUTS_FIFO_PATH": str(fifo)})
        # Appending: the room's second snapclient writes on after the first one's audio.
        client = SnapClient(snap, server, "A", 1, append=True)
        server.wait_for_clients([client])
        crate.cli("play-album", "Tones")
        wait_until("room A to hear the album", lambda: sounding(client, 0), seconds=30)

        client.stop()
        server.stop()
        player = crate.get("/api/v1/player")
        assert player["state"] == "playing" and "outputError" not in player, player
        # The player keeps the music's pace with nobody reading the pipe: a second of music takes a second.
        before, started = player["elapsed"], time.monotonic()
        wait_until("the album to play on for a second", lambda: crate.get("/api/v1/player")["elapsed"] >= before + 1,
                   seconds=30)
        assert time.monotonic() - started >= 0.9, "the player raced ahead with nobody reading the pipe"

        restart = client.size()
        server.start()
        client = SnapClient(snap, server, "A", 1, append=True)
        server.wait_for_clients([client])
        wait_until("room A to hear the album again", lambda: sounding(client, restart), seconds=30)
        player = crate.get("/api/v1/player")
        assert player["state"] == "playing" and "outputError" not in player, player
    finally:
        if client:
            client.stop()
        crate.stop()
        server.stop()
