#!/usr/bin/env python3
"""The stream output next to MPD's httpd output with its Opus encoder, on the same album (Benchmarks/stream.sh runs
this after building; see its header for what each row means). Prints Markdown tables.

Both servers play through a null output that keeps time (the pace of a sound card) plus their stream; both decode
the same FLAC album (44.1 kHz), resample to 48 kHz and encode Opus at the same bit rate with libopus (complexity
10, the default of both). Listeners are this script's own sockets on 127.0.0.1."""
import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path


def log(text):
    print(f"stream-bench: {text}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, condition, seconds=60, every=0.02):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"stream-bench: timed out after {seconds} s waiting for {what}")
        time.sleep(every)


def port_answers(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def cpu_seconds(pid):
    """User + system CPU of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Listener:
    """A raw HTTP listener: reads the stream on its own thread and notes when each Ogg page arrived."""

    def __init__(self, port, path, host_header):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n".encode())
        self.buffer = bytearray()
        self.pages = []          # (arrival time, largest packet in the page)
        self.bytes = 0
        self.lock = threading.Lock()
        self.header_done = False
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                now = time.monotonic()
                with self.lock:
                    self.bytes += len(chunk)
                    self.buffer += chunk
                    if not self.header_done:
                        end = self.buffer.find(b"\r\n\r\n")
                        if end < 0:
                            continue
                        del self.buffer[:end + 4]
                        self.header_done = True
                    self._pages(now)
        except OSError:
            return

    def _pages(self, now):
        # Chunked transfer encoding (crated) or a plain body (MPD): find pages by their capture pattern either way.
        data = self.buffer
        while True:
            start = data.find(b"OggS")
            if start < 0 or start + 27 > len(data):
                return
            count = data[start + 26]
            if start + 27 + count > len(data):
                return
            lacing = data[start + 27:start + 27 + count]
            if start + 27 + count + sum(lacing) > len(data):
                return
            packets, size = [], 0
            for value in lacing:
                size += value
                if value < 255:
                    packets.append(size)
                    size = 0
            self.pages.append((now, max(packets, default=0)))
            del data[:start + 27 + count + sum(lacing)]

    def first_music_after(self, moment):
        """When the first page with a packet of music (not the few bytes of an encoded silence) arrived after moment."""
        with self.lock:
            for arrived, largest in self.pages:
                if arrived >= moment and largest > 40:
                    return arrived
        return None

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class Crated:
    name = "crated"

    def __init__(self, bin_dir, work, music, bitrate):
        self.bin = Path(bin_dir)
        self.work = work / "crated"
        self.port = free_port()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CRATE_")}
        self.env.update({"HOME": str(self.work), "XDG_CONFIG_HOME": str(self.work / "config"),
                         "CRATE_DATA_DIRECTORY": str(self.work / "data"), "CRATE_HTTP_ADDRESS": f"127.0.0.1:{self.port}",
                         "CRATE_MPD_ADDRESS": "off", "CRATE_SUBSONIC_ADDRESS": "off", "CRATE_MPRIS_ENABLED": "false",
                         "CRATE_OUTPUTS_STREAM_BITRATE": str(bitrate)})
        self.work.mkdir(parents=True)
        subprocess.run([str(self.bin / "crate"), "import", str(music)], env=self.env, check=True, capture_output=True, timeout=300)
        self.process = None

    def start(self, stream):
        env = dict(self.env, CRATE_OUTPUT_PLUGIN="null,stream" if stream else "null")
        self.process = subprocess.Popen([str(self.bin / "crated")], env=env, stdout=open(self.work / "crated.log", "ab"),
                                        stderr=subprocess.STDOUT)
        wait_until("crated to answer", lambda: self._answers(), 60)

    def _answers(self):
        try:
            self.api("GET", "/api/v1/health")
            return True
        except OSError:
            return False

    def api(self, method, path, body=None):
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        answer = connection.getresponse()
        text = answer.read()
        connection.close()
        if answer.status >= 300:
            raise OSError(f"{method} {path}: {answer.status} {text[:200]!r}")
        return text

    def play_album(self):
        self.api("POST", "/api/v1/queue/play-album", b'{"albumID": 1}')

    def pause(self):
        self.api("POST", "/api/v1/player/pause", b"{}")

    def resume(self):
        self.api("POST", "/api/v1/player/play", b"{}")

    def stopped(self):
        return b'"state":"stopped"' in self.api("GET", "/api/v1/player").replace(b" ", b"")

    def listener(self):
        return Listener(self.port, "/stream.opus", f"127.0.0.1:{self.port}")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


class MPD:
    name = "MPD"

    def __init__(self, work, music, bitrate):
        self.work = work / "mpd"
        self.work.mkdir(parents=True)
        self.music = music
        self.bitrate = bitrate
        self.port = free_port()
        self.stream_port = free_port()
        self.process = None

    def start(self, stream):
        self.port, self.stream_port = free_port(), free_port()
        httpd = f"""
audio_output {{
    type            "httpd"
    name            "stream"
    encoder         "opus"
    bitrate         "{self.bitrate * 1000}"
    complexity      "10"
    signal          "music"
    port            "{self.stream_port}"
    bind_to_address "127.0.0.1"
    format          "48000:16:2"
    always_on       "yes"
    max_clients     "0"
}}""" if stream else ""
        (self.work / "playlists").mkdir(exist_ok=True)
        (self.work / "mpd.conf").write_text(f"""music_directory "{self.music}"
playlist_directory "{self.work}/playlists"
db_file "{self.work}/database"
state_file "{self.work}/state"
log_file "{self.work}/mpd.log"
bind_to_address "127.0.0.1"
port "{self.port}"
zeroconf_enabled "no"
auto_update "no"
input {{
    plugin "curl"
    enabled "no"
}}
audio_output {{
    type "null"
    name "null"
}}
{httpd}
""")
        self.process = subprocess.Popen(["mpd", "--no-daemon", str(self.work / "mpd.conf")], stdout=subprocess.DEVNULL,
                                        stderr=open(self.work / "mpd.stderr", "ab"))
        wait_until("MPD to answer", lambda: port_answers(self.port), 60)
        self.mpc("update", "--wait")

    def mpc(self, *args):
        return subprocess.run(["mpc", "--host=127.0.0.1", f"--port={self.port}", *args], check=True, capture_output=True,
                              text=True, timeout=120).stdout

    def play_album(self):
        self.mpc("clear")
        self.mpc("add", "/")
        self.mpc("play")

    def pause(self):
        self.mpc("pause")

    def resume(self):
        self.mpc("play")

    def stopped(self):
        return "[playing]" not in self.mpc("status") and "[paused]" not in self.mpc("status")

    def listener(self):
        # MPD opens the httpd output's port when it first plays (always_on keeps it open after that).
        wait_until("MPD's httpd output to listen", lambda: port_answers(self.stream_port), 30)
        return Listener(self.stream_port, "/", f"127.0.0.1:{self.stream_port}")

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


def settle(server):
    """Waits (at most 60 s) until the server's start-up work is done (under 10 ms of CPU in half a second), so that
    only the album is measured."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        before = cpu_seconds(server.process.pid)
        time.sleep(0.5)
        if cpu_seconds(server.process.pid) - before < 0.01:
            return
    log(f"{server.name} did not settle within 60 s; measuring anyway")


def album_cpu(server, stream, audio_seconds):
    """CPU seconds the server spends playing the whole album (with one listener when it streams)."""
    server.start(stream)
    try:
        settle(server)
        before = cpu_seconds(server.process.pid)
        server.play_album()
        listener = server.listener() if stream else None
        # Asked once a second: each status request costs the server CPU that would be counted as the album's.
        wait_until("the album to end", lambda: server.stopped(), audio_seconds * 3 + 60, every=1)
        used = cpu_seconds(server.process.pid) - before
        heard = listener.bytes if listener else 0
        if listener:
            listener.close()
            if heard < 1000:
                raise SystemExit(f"stream-bench: {server.name}'s listener received {heard} bytes for the album")
        return used, heard
    finally:
        server.stop()


def listeners_and_latency(server, count, resumes):
    """RSS with `count` listeners while playing, and the time from a resume command to the first music page at a
    listener that stayed connected through the pause (median and max over `resumes` pauses)."""
    server.start(True)
    try:
        server.play_album()
        time.sleep(1)   # benchmark pacing, not synchronisation: let the first track settle
        idle_rss = rss_mib(server.process.pid)
        crowd = [server.listener() for _ in range(count)]
        wait_until(f"{count} listeners to receive music", lambda: all(x.bytes > 20000 for x in crowd), 60)
        crowd_rss = rss_mib(server.process.pid)
        for x in crowd[1:]:
            x.close()
        latencies = []
        for _ in range(resumes):
            server.pause()
            time.sleep(0.6)
            moment = time.monotonic()
            server.resume()
            wait_until("music after resume", lambda: crowd[0].first_music_after(moment) is not None, 10)
            latencies.append((crowd[0].first_music_after(moment) - moment) * 1000)
            time.sleep(0.4)
        crowd[0].close()
        return idle_rss, crowd_rss, latencies
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--music", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--bitrate", type=int, default=128)
    parser.add_argument("--listeners", type=int, default=50)
    parser.add_argument("--resumes", type=int, default=10)
    args = parser.parse_args()
    work, music = Path(args.work), Path(args.music)
    rows = {}
    for server in (Crated(args.bin, work, music, args.bitrate), MPD(work, music, args.bitrate)):
        log(f"{server.name}: the album with the null output alone")
        base, _ = album_cpu(server, False, args.seconds)
        log(f"{server.name}: the album with the null output and the stream")
        streamed, heard = album_cpu(server, True, args.seconds)
        log(f"{server.name}: {args.listeners} listeners, then {args.resumes} resumes")
        idle_rss, crowd_rss, latencies = listeners_and_latency(server, args.listeners, args.resumes)
        rows[server.name] = dict(base=base, streamed=streamed, heard=heard, idle_rss=idle_rss, crowd_rss=crowd_rss,
                                 latency_p50=statistics.median(latencies), latency_max=max(latencies))
    c, m = rows["crated"], rows["MPD"]

    def ratio(mpd_value, crate_value):
        return f"{mpd_value / crate_value:.2f}" if crate_value > 0 else "-"

    cost_c, cost_m = c["streamed"] - c["base"], m["streamed"] - m["base"]
    print(f"Album: {args.seconds:.0f} s of 44.1 kHz FLAC; Opus {args.bitrate} kbit/s; null output keeping time; "
          f"{args.listeners} listeners on loopback.\n")
    print("| measure | crated | MPD 0.23 httpd | ratio (MPD / crated) |")
    print("|---|---:|---:|---:|")
    print(f"| CPU for the album, null output alone, s | {c['base']:.2f} | {m['base']:.2f} | {ratio(m['base'], c['base'])} |")
    print(f"| CPU for the album, null + stream (1 listener), s | {c['streamed']:.2f} | {m['streamed']:.2f} | {ratio(m['streamed'], c['streamed'])} |")
    print(f"| the stream's own CPU, s (the difference) | {cost_c:.2f} | {cost_m:.2f} | {ratio(cost_m, cost_c)} |")
    xc = args.seconds / cost_c if cost_c > 0 else float("inf")
    xm = args.seconds / cost_m if cost_m > 0 else float("inf")
    print(f"| stream output, × real time on one core | {xc:.0f} | {xm:.0f} | {xc / xm:.2f} (crated / MPD) |")
    print(f"| bytes one listener received for the album, KiB | {c['heard'] / 1024:.0f} | {m['heard'] / 1024:.0f} | |")
    print(f"| RSS playing, 0 listeners, MiB | {c['idle_rss']:.1f} | {m['idle_rss']:.1f} | {ratio(m['idle_rss'], c['idle_rss'])} |")
    print(f"| RSS playing, {args.listeners} listeners, MiB | {c['crowd_rss']:.1f} | {m['crowd_rss']:.1f} | {ratio(m['crowd_rss'], c['crowd_rss'])} |")
    print(f"| resume → first music at a listener, p50 ms | {c['latency_p50']:.0f} | {m['latency_p50']:.0f} | {ratio(m['latency_p50'], c['latency_p50'])} |")
    print(f"| resume → first music at a listener, max ms | {c['latency_max']:.0f} | {m['latency_max']:.0f} | {ratio(m['latency_max'], c['latency_max'])} |")


if __name__ == "__main__":
    main()
