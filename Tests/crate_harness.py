"""What the Python tests share (Tests/Browser, Tests/Integration): a real crated on a private home with a generated
library, on loopback ports; a private PulseAudio server; a raw MPD protocol connection. Imported by each folder's
conftest.py (which puts Tests/ on sys.path)."""
import contextlib
import json
import os
import socket
import struct
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(os.environ.get("CRATE_BIN_DIR", ROOT / ".build" / "debug"))
# Debian's Chromium, never a downloaded browser.
CHROMIUM = os.environ.get("CRATE_CHROMIUM", "/usr/bin/chromium")


def free_port():
    return free_ports(1)[0]


def free_ports(count):
    """`count` different free ports: the sockets stay bound until all are picked (two picks one after the other
    can get the same port back, and crated's HTTP and MPD front ends then fight over it)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


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


def wait_for_binary(name):
    """A binary under test may be being rebuilt (`swift build` replaces it): wait until it is there again."""
    path = BIN / name
    wait_until(f"{path} to exist (being rebuilt?)", lambda: path.exists() and os.access(path, os.X_OK), seconds=600)


def make_cover(path: Path, colour="red", size=64, noise=False):
    """A small PNG or JPEG (by the name's extension), for embedded or folder artwork; `noise` makes it grainy, so
    that it compresses badly (a picture of some tens of KiB, sent in several chunks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    source = (f"nullsrc=s={size}x{size},geq=lum='random(1)*255':cb=128:cr=128" if noise
              else f"color=c={colour}:s={size}x{size}")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", str(path)],
                   check=True, timeout=60)
    return path


def make_track(path: Path, tags: dict, seconds: float = 2.0, frequency: int = 440, cover: Path = None):
    """One audio file (its format by the name's extension) of a sine tone, tagged in the order of `tags`; with
    `cover`, the picture is embedded as its front cover (attached picture)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    art = ["-i", str(cover), "-map", "0", "-map", "1", "-c:v", "copy", "-disposition:v", "attached_pic"] if cover else []
    metadata = [arg for key, value in tags.items() for arg in ("-metadata", f"{key}={value}")]
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={frequency}:duration={seconds}", *art,
                    "-ac", "2", "-ar", "44100", *metadata, str(path)], check=True, timeout=120)
    return path


def make_tiny_albums(folder: Path, albums: int):
    """`albums` album folders under `folder`/music, fast to make by the thousand: one tiny WAV each (8 kHz, tagged in
    RIFF INFO) and a distinct 600×600 cover.jpg (one picture made by ffmpeg, then 8 bytes of its own after its end).
    Folders already there are kept (Benchmarks/web_bench.py makes its 10,000 once)."""
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / "base-cover.jpg"
    if not base.exists():
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "gradients=s=600x600:n=4:seed=7",
                        "-frames:v", "1", "-q:v", "4", str(base)], check=True, timeout=60)
    picture = base.read_bytes()
    samples = bytes(200)
    for i in range(albums):
        album = folder / "music" / f"Artist {i % 997:03d}" / f"Album {i:05d}"
        if (album / "cover.jpg").exists():
            continue
        album.mkdir(parents=True, exist_ok=True)
        (album / "cover.jpg").write_bytes(picture + struct.pack("<Q", i))
        info = b"INFO"
        for key, value in [(b"INAM", f"Track of {i}"), (b"IART", f"Artist {i % 997:03d}"), (b"IPRD", f"Album {i:05d}"),
                           (b"IGNR", ["Rock", "Jazz", "Electronic", "Pop", "Classical"][i % 5])]:
            text = value.encode() + b"\0"
            if len(text) % 2:
                text += b"\0"
            info += key + struct.pack("<I", len(text)) + text
        fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"LIST" + struct.pack("<I", len(info)) + info \
            + b"data" + struct.pack("<I", len(samples)) + samples
        (album / "01 Track.wav").write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return folder / "music"


class Crate:
    """A private crate home: its own config, data and library, and the crate/crated binaries under test."""

    def __init__(self, home: Path):
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CRATE_")}
        self.env.update({
            "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"), "CRATE_DATA_DIRECTORY": str(home / "data"),
            "CRATE_OUTPUT_PLUGIN": "null", "CRATE_OUTPUTS_NULL_RENDER": "true",
            # The MPD front end stays off unless asked for (start(mpd=True)): tests run side by side, and port 6600
            # may be MPD's own.
            "CRATE_MPD_ADDRESS": "off",
            # The Subsonic API too (port 4533 may be Navidrome's): its tests give it a free port.
            "CRATE_SUBSONIC_ADDRESS": "off",
            # No MPRIS: a desktop session bus, when there is one, is the user's, not the tests'.
            "CRATE_MPRIS_ENABLED": "false",
        })
        self.process = None
        self.port = None
        self.mpd_port = None
        self.log = home / "crated.log"

    def cli(self, *args, check=True, input=None):
        """Runs `crate ARGS` against this home (and its daemon, once started); `input` goes to its standard input
        (passwords: `crate users add NAME --password-stdin`)."""
        env = dict(self.env)
        if self.port:
            env["CRATE_HTTP_ADDRESS"] = f"127.0.0.1:{self.port}"
        wait_for_binary("crate")
        done = subprocess.run([str(BIN / "crate"), *args], env=env, capture_output=True, text=True, timeout=300,
                              input=input)
        if check and done.returncode != 0:
            raise AssertionError(f"crate {' '.join(args)} failed: {done.stderr}")
        return done

    def make_album(self, folder: Path, artist: str, album: str, tracks: int, seconds: float = 2.0, cover: Path = None,
                   genre: str = None):
        """FLAC files `01.flac`… titled `Song N`; with `cover`, each carries it as embedded front cover art."""
        for n in range(1, tracks + 1):
            tags = {"title": f"Song {n}", "artist": artist, "album": album, "track": f"{n}/{tracks}", "date": "2001"}
            if genre:
                tags["genre"] = genre
            make_track(folder / f"{n:02d}.flac", tags, seconds=seconds, frequency=220 * n, cover=cover)

    def start(self, extra=None, mpd=False):
        """Starts crated on a free HTTP port; with `mpd`, its MPD front end on another free port (`mpd_port`)."""
        self.port, mpd_port = free_ports(2)
        env = dict(self.env, CRATE_HTTP_ADDRESS=f"127.0.0.1:{self.port}")
        if mpd:
            self.mpd_port = mpd_port
            env["CRATE_MPD_ADDRESS"] = f"127.0.0.1:{self.mpd_port}"
        env.update(extra or {})
        wait_for_binary("crated")
        self.process = subprocess.Popen([str(BIN / "crated")], env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        wait_until(f"crated to answer on port {self.port} (log: {self.log})", lambda: self.ping(), seconds=120)
        if mpd:
            wait_until(f"crated's MPD front end on port {self.mpd_port} (log: {self.log})", self._mpd_greets, seconds=60)
        return self

    def _mpd_greets(self):
        try:
            with MPDSocket(self.mpd_port, timeout=5):
                return True
        except OSError:
            return False

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
        stop_process(self.process)


def stop_process(process, seconds=30):
    """SIGTERM, a bounded wait (a hang guard, not a timing check), then SIGKILL."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()


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
        stop_process(self.process, seconds=10)


class MPDSocket:
    """One raw MPD protocol connection: a request line out, the reply up to its final `OK` or `ACK` line in, as text
    lines; the data after a `binary: N` line comes as one `bytes` item after it."""

    def __init__(self, port, host="127.0.0.1", timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        self.greeting = self.file.readline().decode()
        if not self.greeting.startswith("OK MPD "):
            raise OSError(f"not an MPD greeting: {self.greeting!r}")

    def send(self, text):
        """Sends `text` (one or more lines) and returns every line of the reply, the final OK/ACK line included."""
        self.sock.sendall((text + "\n").encode())
        lines = []
        while True:
            raw = self.file.readline()
            if not raw:
                raise AssertionError(f"the connection ended; reply so far: {lines}")
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if line.startswith("binary: "):
                size = int(line.split(": ", 1)[1])
                data = self.file.read(size + 1)
                if len(data) != size + 1 or data[-1:] != b"\n":
                    raise AssertionError(f"a binary chunk of {size} bytes and a line feed expected, got {len(data)} bytes")
                lines.append(data[:-1])
            if line == "OK" or line.startswith("ACK "):
                return lines

    def close(self):
        self.file.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class MPDDaemon:
    """Debian's own MPD (/usr/bin/mpd) on a private configuration: its database, state, stickers and playlists in
    `folder`, loopback only on a free port, a null output that keeps time with a software mixer (so `setvol` works
    as on crated), no zeroconf. The reference the differential tests compare crated with."""

    BINARY = os.environ.get("CRATE_MPD_BINARY", "/usr/bin/mpd")

    def __init__(self, folder: Path, music: Path):
        self.folder = folder
        self.music = music
        self.port = None
        self.process = None
        self.log = folder / "mpd.log"

    def start(self, songs: int):
        """Starts MPD and waits until its first database update is done and holds `songs` songs."""
        (self.folder / "playlists").mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        config = self.folder / "mpd.conf"
        config.write_text("\n".join([
            f'music_directory "{self.music}"',
            f'playlist_directory "{self.folder / "playlists"}"',
            f'db_file "{self.folder / "database"}"',
            f'state_file "{self.folder / "state"}"',
            f'sticker_file "{self.folder / "sticker.sql"}"',
            'bind_to_address "127.0.0.1"',
            f'port "{self.port}"',
            'zeroconf_enabled "no"',
            'auto_update "no"',
            'audio_output {',
            '    type "null"',
            '    name "null"',
            '    mixer_type "software"',
            '}',
            '']))
        self.process = subprocess.Popen([self.BINARY, "--no-daemon", "--stderr", str(config)],
                                        stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        wait_until(f"mpd to greet on port {self.port} (log: {self.log})", self._greets, seconds=60)

        def updated():
            with MPDSocket(self.port) as m:
                status = dict(line.split(": ", 1) for line in m.send("status")[:-1])
                stats = dict(line.split(": ", 1) for line in m.send("stats")[:-1])
            return "updating_db" not in status and stats.get("songs") == str(songs)

        wait_until(f"mpd's database update to find {songs} songs (log: {self.log})", updated, seconds=120)
        return self

    def _greets(self):
        if self.process.poll() is not None:
            raise AssertionError(f"mpd exited: {self.log.read_text(errors='replace')}")
        try:
            with MPDSocket(self.port, timeout=5):
                return True
        except OSError:
            return False

    def stop(self):
        stop_process(self.process)


@contextlib.contextmanager
def serving(crate, music: Path, pulse):
    """crated with `music` imported, playing through the private PulseAudio server `pulse`, for the with-block."""
    crate.env.update({"CRATE_OUTPUT_PLUGIN": "pulse", "CRATE_OUTPUTS_PULSE_SERVER": pulse.address})
    crate.cli("import", str(music))
    crate.start()
    try:
        yield crate
    finally:
        crate.stop()


def album_id(daemon, title):
    """The library id of the album titled `title`."""
    return next(a["id"] for a in daemon.get("/api/v1/albums") if a["title"] == title)


def player(daemon):
    return daemon.get("/api/v1/player")
