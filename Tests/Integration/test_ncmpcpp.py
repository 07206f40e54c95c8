"""Issue 18: Debian's ncmpcpp against a real crated. It runs in a pseudo-terminal of a fixed size with a private HOME
(no user configuration), draws the queue, visits the file browser and the media library, and quits with `q`.
Between the two sits a recording relay, so the tests see every request ncmpcpp sends and every error it is
answered with."""
import fcntl
import os
import re
import select
import signal
import socket
import struct
import subprocess
import termios
import threading

import pytest

from conftest import SERVER_KIND, imported_home, library_folder
from crate_harness import MPDDaemon, MPDSocket, wait_until

NCMPCPP = os.environ.get("CRATE_NCMPCPP", "/usr/bin/ncmpcpp")
ROWS, COLUMNS = 40, 120
ANSI = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>])")


class RecordingRelay:
    """A loopback TCP relay to `port` that keeps what each side sent."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sent = bytearray()      # client → server
        self.answered = bytearray()  # server → client
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            threading.Thread(target=self._pump, args=(client, server, self.sent), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, self.answered), daemon=True).start()

    def _pump(self, source, sink, record):
        try:
            while data := source.recv(65536):
                with self.lock:
                    record.extend(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (sink, source):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def requests(self):
        with self.lock:
            return bytes(self.sent).decode(errors="replace").splitlines()

    def errors(self):
        with self.lock:
            return [line for line in bytes(self.answered).decode(errors="replace").splitlines() if line.startswith("ACK ")]

    def close(self):
        self.listener.close()


class Terminal:
    """A program in a pseudo-terminal of ROWS×COLUMNS; everything it draws is kept (escape sequences stripped in
    `text`)."""

    def __init__(self, argv, env):
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.master = master
        self.output = bytearray()
        self.lock = threading.Lock()
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                                        close_fds=True)
        os.close(slave)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.5)
                if not ready:
                    if self.process.poll() is not None:
                        return
                    continue
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.output.extend(data)

    def text(self):
        with self.lock:
            return ANSI.sub(b"", bytes(self.output)).decode(errors="replace")

    def type(self, keys):
        os.write(self.master, keys.encode())

    def wait(self, seconds):
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.reader.join(timeout=5)
        os.close(self.master)


@pytest.fixture(scope="module")
def session(music, tmp_path_factory):
    """One ncmpcpp session against crated: the queue drawn, the browser and the media library visited, `q`."""
    tmp = tmp_path_factory.mktemp("ncmpcpp")
    crate = imported_home(tmp, music)
    if SERVER_KIND == "mpd":  # the tests' own check (conftest.py): Debian's mpd in crated's place
        daemon = MPDDaemon(tmp / "mpd", library_folder(crate)).start(songs=music.songs)
        port, log = daemon.port, daemon.log.read_text
    else:
        daemon = crate.start(mpd=True, extra={"CRATE_LOG_LEVEL": "debug"})
        port, log = crate.mpd_port, crate.log_text
    relay = RecordingRelay(port)
    home = tmp / "ncmpcpp-home"
    home.mkdir()
    try:
        with MPDSocket(port) as mpd:
            assert mpd.send('add "Various Artists/Mix"') == ["OK"]
        log_start = len(log())
        env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TERM": "xterm-256color",
               "LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        terminal = Terminal([NCMPCPP, "--host", "127.0.0.1", "--port", str(relay.port)], env)
        record = {"relay": relay, "terminal": terminal, "home": home}
        try:
            # The queue, drawn on the first screen.
            record["queue drawn"] = wait_until_or_none(lambda: "Rock & Roll" in terminal.text() and "Café" in terminal.text())
            # The browser (key 2) lists the music folder; the media library (key 4) lists tags.
            terminal.type("2")
            record["browser"] = wait_until_or_none(lambda: any(r.startswith("lsinfo") for r in relay.requests()))
            terminal.type("4")
            record["library"] = wait_until_or_none(lambda: any(r.startswith("list ") for r in relay.requests()))
            terminal.type("1")
            # Repeat on and off (key r): each an options change that wakes ncmpcpp's idle while it may be sending
            # noidle itself.
            terminal.type("r")
            record["repeat on"] = wait_until_or_none(lambda: "Repeat mode is on" in terminal.text())
            terminal.type("r")
            # The screen only redraws what changed ("…is o" stays, "ff" is written): the requests tell instead —
            # repeat off, then the status read after idle reported the change.
            record["repeat off"] = wait_until_or_none(lambda: "status" in after(relay.requests(), 'repeat "0"'))
            terminal.type("q")
            record["exit"] = terminal.wait(30)
        finally:
            terminal.kill()
        record["screen"] = terminal.text()
        record["log"] = log()[log_start:]
        yield record
    finally:
        relay.close()
        daemon.stop()


def after(requests, request):
    """The requests sent after the first `request` (none when it was not sent)."""
    return requests[requests.index(request) + 1:] if request in requests else []


def wait_until_or_none(condition, seconds=30):
    """The condition's first true value, or None after `seconds` (the tests then fail, saying what was missing)."""
    try:
        return wait_until("ncmpcpp", condition, seconds=seconds)
    except AssertionError:
        return None


def test_ncmpcpp_draws_the_queue_and_quits(session):
    screen = session["screen"][-4000:]
    assert session["queue drawn"], f"the queue's titles never appeared; the screen:\n{screen}"
    assert session["browser"], f"the browser sent no lsinfo; requests: {sorted(set(session['relay'].requests()))}"
    assert session["library"], f"the media library sent no list; requests: {sorted(set(session['relay'].requests()))}"
    assert session["repeat on"] and session["repeat off"], f"repeat was not shown on and off; the screen:\n{screen}"
    assert session["exit"] == 0, f"ncmpcpp exited with {session['exit']} (None: still running after q); the screen:\n{screen}"
    error_log = session["home"] / ".config" / "ncmpcpp" / "error.log"
    assert not error_log.exists() or error_log.read_text() == "", error_log.read_text()


def test_ncmpcpp_does_not_poll_in_a_loop(session):
    """ncmpcpp asks for status when idle says something changed: a handful of times in this session (MPD: about
    two per key). A reply out of step with its request (an OK for a noidle sent after idle had already answered)
    makes it ask again and again, thousands of times a second."""
    requests = session["relay"].requests()
    statuses = sum(1 for r in requests if r == "status")
    assert statuses < 40, f"{statuses} status requests in {len(requests)}: ncmpcpp polled in a loop"


def test_crated_logs_no_error_for_ncmpcpp(session):
    troubles = [line for line in session["log"].splitlines()
                if re.match(r"\S+ (warning|error|critical) ", line) or "mpd: a connection ended" in line]
    assert not troubles, "\n".join(troubles)


def test_every_request_of_ncmpcpp_is_answered(session):
    """ncmpcpp shows an error for any ACK (and retries some requests at once, in a loop): crated answers all it sends."""
    errors = session["relay"].errors()
    requests = sorted({line.split(" ")[0] for line in session["relay"].requests() if line})
    assert not errors, f"errors answered to ncmpcpp: {sorted(set(errors))}; the commands it sent: {requests}"
