"""Shared parts of the browser tests: a real crated on a loopback port with a generated library, and Debian's
Chromium driven by Playwright (never a downloaded browser)."""
import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("CRATE_BIN_DIR", ROOT / ".build" / "debug"))
CHROMIUM = os.environ.get("CRATE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / ".build" / "browser-artifacts"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, condition, seconds=60.0):
    """Waits for a condition (polled), failing with what was awaited: never a bare sleep as synchronisation."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")
        time.sleep(0.05)


class Crate:
    """A private crate home: its own config, data and library, and the crate/crated binaries under test."""

    def __init__(self, home: Path):
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CRATE_")}
        self.env.update({
            "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "CRATE_DATA_DIRECTORY": str(home / "data"),
            "CRATE_OUTPUT_PLUGIN": "null", "CRATE_OUTPUTS_NULL_RENDER": "true",
            # The MPD front end stays off: tests run side by side, and port 6600 may be MPD's own.
            "CRATE_MPD_ADDRESS": "off",
        })
        self.process = None
        self.port = None
        self.log = home / "crated.log"

    def cli(self, *args, check=True):
        env = dict(self.env)
        if self.port:
            env["CRATE_HTTP_ADDRESS"] = f"127.0.0.1:{self.port}"
        done = subprocess.run([str(BIN / "crate"), *args], env=env, capture_output=True, text=True, timeout=300)
        if check and done.returncode != 0:
            raise AssertionError(f"crate {' '.join(args)} failed: {done.stderr}")
        return done

    def make_album(self, folder: Path, artist: str, album: str, tracks: int, seconds: float = 2.0):
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(1, tracks + 1):
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={220 * n}:duration={seconds}",
                            "-ac", "2", "-ar", "44100", "-metadata", f"title=Song {n}", "-metadata", f"artist={artist}",
                            "-metadata", f"album={album}", "-metadata", f"track={n}/{tracks}", "-metadata", "date=2001",
                            str(folder / f"{n:02d}.flac")], check=True, timeout=120)

    def start(self, extra=None):
        self.port = free_port()
        env = dict(self.env, CRATE_HTTP_ADDRESS=f"127.0.0.1:{self.port}", **(extra or {}))
        self.process = subprocess.Popen([str(BIN / "crated")], env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        wait_until(f"crated to answer on port {self.port} (log: {self.log})", lambda: self.ping(), seconds=120)
        return self

    def ping(self):
        if self.process.poll() is not None:
            raise AssertionError(f"crated exited: {self.log.read_text()}")
        try:
            return self.get("/api/v1/health")["status"] == "ok"
        except (OSError, urllib.error.URLError):
            return False

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as answer:
            text = answer.read()
            return json.loads(text) if text else None

    def get(self, path):
        return self.request("GET", path)

    def log_text(self):
        return self.log.read_text(errors="replace")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def crate_home():
    with tempfile.TemporaryDirectory(prefix="crate-browser-") as tmp:
        crate = Crate(Path(tmp))
        try:
            yield crate
        finally:
            crate.stop()


class PulseServer:
    """A private PulseAudio server with a null sink: a real output that keeps time (toolchain.md §3)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.address = f"unix:{folder}/native"
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--enable-memfd=no",
             "--use-pid-file=no", f"--log-target=file:{folder}/pulse.log",
             "-L", f"module-native-protocol-unix socket={folder}/native auth-anonymous=1",
             "-L", "module-null-sink sink_name=browser_sink rate=44100 channels=2"],
            env=dict(os.environ, PULSE_RUNTIME_PATH=str(folder), PULSE_STATE_PATH=str(folder)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until("the private PulseAudio server", lambda: subprocess.run(
            ["pactl", "info"], env=dict(os.environ, PULSE_SERVER=self.address), capture_output=True).returncode == 0, seconds=30)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture(scope="module")
def pulse():
    folder = Path(tempfile.mkdtemp(prefix="crate-pa-", dir="/tmp"))
    server = PulseServer(folder)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []
    pg.failed_requests = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.on("requestfailed", lambda r: pg.failed_requests.append(f"{r.method} {r.url}: {r.failure}")
          if "/api/v1/events" not in r.url else None)
    pg.on("response", lambda r: pg.failed_requests.append(f"{r.request.method} {r.url}: {r.status}") if r.status >= 400 else None)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)
