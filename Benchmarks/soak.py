#!/usr/bin/env python3
"""The load of Benchmarks/soak.sh: every front end of one running crated at once, for a while.

  soak.py run --pid PID --http PORT --mpd PORT --subsonic PORT --password PW --seconds N --import-dir DIR
              --import-count N --out RESULTS.json
  soak.py report RESULTS.json --meta META.txt [--readme README.md]

run: starts, all at once, against crated on 127.0.0.1 (threads of this one process; plain sockets and http.client):
  - 50 HTTP clients, each on one keep-alive connection: GET /api/v1/player, and one time in ten
    POST /api/v1/player/volume {"value": N}; 100-400 ms between requests;
  - 20 event-stream clients on GET /api/v1/events, counting events (a disconnect is an error);
  - 50 MPD clients in `idle` (send idle, read to OK, again), counting wake-ups;
  - 5 MPD clients looping `search any WORD`, `addid URI` (a file the search found), `playlistinfo`,
    `deleteid ID` (ids, so that the five never delete each other's entries or the album), 50-200 ms apart;
  - 5 Subsonic clients streaming songs to their end (`stream?id=tr-N`, three raw, two `format=opus`), 100-300 ms
    apart, each on one keep-alive connection;
  - an album playing on repeat all (POST /api/v1/queue/play-album, PUT /api/v1/player/options), watched every 5 s;
  - a rescan (POST /api/v1/library/rescan) every minute, waited for (GET /api/v1/library/status);
  - one import of the files in --import-dir (POST /api/v1/library/import, reference) 15 s in, waited for;
  - a sampler reading /proc/PID every second: VmRSS, VmHWM, Threads, open descriptors, CPU time.
Every request's latency (ms) is recorded per front end: HTTP and MPD to the whole answer, Subsonic streams to the
answer's headers (the whole stream's time and bytes are kept too); `idle` and the event streams are not requests.
An error is any failed request, unexpected status, ACK, dropped connection or exception. Writes RESULTS.json.

report: the Markdown report from RESULTS.json and META.txt (key=value lines from soak.sh: machine, commit,
integrity check, ...); with --readme, also written into README.md after the soak section's results marker. Exits 1
when there were errors, the integrity check did not say ok, or the open descriptors grew by more than 20.
"""
import argparse
import collections
import http.client
import json
import os
import random
import re
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
WORDS = """River Night Velvet Golden Moon Heart Fire Star Silent Broken Electric Ocean Shadow Summer Winter Garden
Signal Highway Paper Glass Mirror Engine Falling Dancing Radio Storm Light Echo Lion Snow""".split()
README_HEADING = "## soak.sh: the whole daemon under load for 10 minutes"
README_MARKER = "<!-- soak.sh --readme writes the results below this line -->"


def log(msg):
    print(f"soak.py: {msg}", file=sys.stderr, flush=True)


# --- what the run records -----------------------------------------------------------------------------------

class Record:
    def __init__(self):
        self.lock = threading.Lock()
        self.start = time.monotonic()
        self.latency = collections.defaultdict(list)   # front end -> [ms]
        self.by_minute = collections.defaultdict(list) # "front end minute" -> [ms]
        self.errors = []                                # (seconds into the run, front end, text)
        self.error_kinds = collections.Counter()
        self.counters = collections.Counter()
        self.sse_events = collections.Counter()         # event name -> count
        self.idle_changes = collections.Counter()       # subsystem -> count
        self.notes = []

    def t(self):
        return time.monotonic() - self.start

    def ok(self, front, ms):
        with self.lock:
            self.latency[front].append(ms)
            self.by_minute[f"{front} {int(self.t() // 60)}"].append(ms)

    def error(self, front, text):
        text = " ".join(str(text).split())[:300]
        with self.lock:
            self.errors.append((round(self.t(), 1), front, text))
            self.error_kinds[f"{front}: {re.sub(r'[0-9]+', 'N', text)[:80]}"] += 1

    def count(self, key, n=1):
        with self.lock:
            self.counters[key] += n

    def note(self, text):
        with self.lock:
            self.notes.append(f"{self.t():.0f} s: {text}")


def describe(exc):
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# --- HTTP ---------------------------------------------------------------------------------------------------

class HTTP:
    """One keep-alive connection to crated's HTTP API; every request is timed and recorded."""

    def __init__(self, rec, port, front="HTTP", timeout=30):
        self.rec, self.port, self.front, self.timeout = rec, port, front, timeout
        self.conn = None

    def request(self, method, path, body=None, expect=(200,), what=None):
        """The answer's (status, bytes), or None after an error (recorded)."""
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        t0 = time.perf_counter()
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
            self.conn.request(method, path, data, headers)
            answer = self.conn.getresponse()
            payload = answer.read()
        except Exception as exc:  # a dropped connection, a timeout, a malformed answer
            self.close()
            self.rec.error(self.front, f"{what or method + ' ' + path}: {describe(exc)}")
            return None
        ms = (time.perf_counter() - t0) * 1000
        if answer.status not in expect:
            self.rec.error(self.front, f"{what or method + ' ' + path}: HTTP {answer.status} {payload[:120]!r}")
            return None
        self.rec.ok(self.front, ms)
        return answer.status, payload

    def json(self, method, path, body=None, expect=(200,)):
        got = self.request(method, path, body, expect)
        if got is None:
            return None
        try:
            return json.loads(got[1]) if got[1] else {}
        except ValueError as exc:
            self.rec.error(self.front, f"{method} {path}: not JSON: {describe(exc)}")
            return None

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            self.conn = None


def http_client(rec, stop, port, index):
    rng = random.Random(index)
    client = HTTP(rec, port)
    while not stop.is_set():
        if rng.random() < 0.1:
            client.request("POST", "/api/v1/player/volume", {"value": rng.randint(20, 90)}, expect=(200, 204))
            rec.count("volume changes")
        else:
            status = client.json("GET", "/api/v1/player")
            if status is not None and "state" not in status:
                rec.error("HTTP", f"GET /api/v1/player: no state in {str(status)[:100]}")
        stop.wait(rng.uniform(0.1, 0.4))
    client.close()


def sse_client(rec, stop, port, index, sockets):
    """Reads the event stream until the run ends; counts `event:` lines."""
    conn = http.client.HTTPConnection(HOST, port, timeout=45)   # a keep-alive comment comes every 15 s
    try:
        conn.request("GET", "/api/v1/events", headers={"Accept": "text/event-stream"})
        answer = conn.getresponse()
    except Exception as exc:
        rec.error("HTTP events", f"connect: {describe(exc)}")
        return
    if answer.status != 200:
        rec.error("HTTP events", f"GET /api/v1/events: HTTP {answer.status}")
        return
    sockets.append(conn.sock)
    rec.count("event streams open")
    try:
        while True:
            line = answer.readline()
            if not line:
                if not stop.is_set():
                    rec.error("HTTP events", f"stream {index} ended by crated")
                break
            if line.startswith(b"event:"):
                with rec.lock:
                    rec.sse_events[line[6:].strip().decode(errors="replace")] += 1
    except Exception as exc:
        if not stop.is_set():
            rec.error("HTTP events", f"stream {index}: {describe(exc)}")
    finally:
        conn.close()


# --- MPD ----------------------------------------------------------------------------------------------------

def quote(arg):
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


class MPD:
    def __init__(self, port, timeout):
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        greeting = self.file.readline()
        if not greeting.startswith(b"OK MPD "):
            raise OSError(f"greeting {greeting[:80]!r}")

    def send(self, line):
        self.sock.sendall(line.encode() + b"\n")

    def answer(self):
        """The lines up to OK; raises on ACK or a closed connection."""
        lines = []
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("connection closed by crated")
            line = line.rstrip(b"\n").decode(errors="replace")
            if line == "OK":
                return lines
            if line.startswith("ACK"):
                raise MPDAck(line)
            lines.append(line)

    def command(self, line):
        self.send(line)
        return self.answer()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class MPDAck(Exception):
    pass


def mpd_idle_client(rec, stop, port, index, sockets):
    try:
        client = MPD(port, timeout=90)   # the volume changes all the time: 90 s without a wake-up is a fault
    except Exception as exc:
        rec.error("MPD idle", f"connect: {describe(exc)}")
        return
    sockets.append(client.sock)
    rec.count("idle clients connected")
    try:
        while not stop.is_set():
            client.send("idle")
            lines = client.answer()
            rec.count("idle wake-ups")
            with rec.lock:
                for line in lines:
                    if line.startswith("changed: "):
                        rec.idle_changes[line[9:]] += 1
    except Exception as exc:
        if not stop.is_set():
            rec.error("MPD idle", f"client {index}: {describe(exc)}")
    finally:
        client.close()


def mpd_worker(rec, stop, port, index):
    rng = random.Random(1000 + index)
    client = None
    while not stop.is_set():
        step = "connect"
        try:
            if client is None:
                t0 = time.perf_counter()
                client = MPD(port, timeout=30)
                rec.ok("MPD", (time.perf_counter() - t0) * 1000)
            word = rng.choice(WORDS)
            step = f"search any {word}"
            t0 = time.perf_counter()
            lines = client.command(f"search any {quote(word)}")
            rec.ok("MPD", (time.perf_counter() - t0) * 1000)
            files = [line[6:] for line in lines if line.startswith("file: ")]
            rec.count("MPD search results", len(files))
            if files:
                uri = rng.choice(files)
                step = "addid"
                t0 = time.perf_counter()
                lines = client.command(f"addid {quote(uri)}")
                rec.ok("MPD", (time.perf_counter() - t0) * 1000)
                ids = [line[4:] for line in lines if line.startswith("Id: ")]
                if not ids:
                    raise OSError(f"addid gave no Id: {lines[:3]}")
                step = "playlistinfo"
                t0 = time.perf_counter()
                lines = client.command("playlistinfo")
                rec.ok("MPD", (time.perf_counter() - t0) * 1000)
                if f"Id: {ids[0]}" not in lines:
                    rec.error("MPD", f"playlistinfo does not list the entry {ids[0]} just added")
                step = "deleteid"
                t0 = time.perf_counter()
                client.command(f"deleteid {ids[0]}")
                rec.ok("MPD", (time.perf_counter() - t0) * 1000)
                rec.count("MPD queue edits", 2)
        except Exception as exc:
            rec.error("MPD", f"{step}: {describe(exc)}")
            if client is not None and not isinstance(exc, MPDAck):
                client.close()
                client = None
        stop.wait(rng.uniform(0.05, 0.2))
    if client is not None:
        try:
            client.send("close")
        except OSError:
            pass
        client.close()


# --- Subsonic -----------------------------------------------------------------------------------------------

def subsonic_client(rec, stop, port, index, password, song_ids, opus):
    rng = random.Random(2000 + index)
    conn = None
    while not stop.is_set():
        song = rng.choice(song_ids)
        path = f"/rest/stream?id=tr-{song}&u=soak&p={password}&v=1.16.1&c=soak"
        if opus:
            path += "&format=opus"
        t0 = time.perf_counter()
        try:
            if conn is None:
                conn = http.client.HTTPConnection(HOST, port, timeout=60)
            conn.request("GET", path)
            answer = conn.getresponse()
            headers_ms = (time.perf_counter() - t0) * 1000
            kind = answer.getheader("Content-Type", "")
            total = 0
            while True:
                chunk = answer.read(65536)
                if not chunk:
                    break
                total += len(chunk)
            whole_ms = (time.perf_counter() - t0) * 1000
            if answer.status != 200 or not (kind.startswith("audio/") or kind.startswith("application/octet-stream")):
                rec.error("Subsonic", f"stream tr-{song}{' opus' if opus else ''}: HTTP {answer.status} {kind}")
            elif total == 0:
                rec.error("Subsonic", f"stream tr-{song}{' opus' if opus else ''}: empty body")
            else:
                rec.ok("Subsonic", headers_ms)
                with rec.lock:
                    rec.counters["Subsonic bytes"] += total
                    rec.counters["Subsonic streams opus" if opus else "Subsonic streams raw"] += 1
                    rec.latency["Subsonic whole stream"].append(whole_ms)
        except Exception as exc:
            rec.error("Subsonic", f"stream tr-{song}{' opus' if opus else ''}: {describe(exc)}")
            if conn is not None:
                conn.close()
            conn = None
        stop.wait(rng.uniform(0.1, 0.3))
    if conn is not None:
        conn.close()


# --- library jobs, playback, the process ----------------------------------------------------------------------

def wait_job(rec, client, stop_at, kind):
    """Polls the library status until the job is over; its job object, or None."""
    while time.monotonic() < stop_at:
        status = client.json("GET", "/api/v1/library/status")
        job = (status or {}).get("job") or {}
        if job.get("state") in ("done", "failed"):
            if job.get("state") == "failed":
                rec.error("HTTP", f"{kind} job failed: {job.get('error')}")
            return job
        time.sleep(1)
    rec.error("HTTP", f"{kind} job still running when the run ended")
    return None


def start_job(rec, stop, client, path, body, kind):
    """POSTs a job; waits while another job runs (409 busy). True once accepted."""
    while not stop.is_set():
        got = client.request("POST", path, body, expect=(202, 409), what=f"{kind} POST {path}")
        if got is None:
            return False
        if got[0] == 202:
            return True
        stop.wait(1)
    return False


def rescans(rec, stop, port, deadline):
    client = HTTP(rec, port)
    n = 0
    while not stop.wait(60):
        # crated closes a keep-alive connection after 30 s without a request (http.idle_timeout): a new one each time.
        client.close()
        n += 1
        t0 = time.monotonic()
        if not start_job(rec, stop, client, "/api/v1/library/rescan", None, f"rescan {n}"):
            continue
        job = wait_job(rec, client, deadline + 120, f"rescan {n}")
        if job is not None:
            report = job.get("report") or {}
            with rec.lock:
                rec.latency["rescan seconds"].append(time.monotonic() - t0)
            rec.count("rescans")
            summary = ", ".join(f"{k} {report[k]}" for k in ("imported", "updated", "unchanged", "duplicateCount",
                                                              "failureCount") if k in report)
            if isinstance(report.get("missing"), dict):
                summary += f", newly missing {report['missing'].get('newlyMissing')}"
            rec.note(f"rescan {n}: {job.get('state')} in {time.monotonic() - t0:.1f} s ({summary})")
    client.close()


def one_import(rec, stop, port, folder, count, deadline):
    if stop.wait(15):
        return
    client = HTTP(rec, port)
    t0 = time.monotonic()
    if start_job(rec, stop, client, "/api/v1/library/import", {"paths": [folder], "mode": "reference"}, "import"):
        job = wait_job(rec, client, deadline + 120, "import")
        if job is not None:
            report = job.get("report") or {}
            imported = report.get("imported")
            rec.counters["import seconds x10"] = int((time.monotonic() - t0) * 10)
            summary = ", ".join(f"{k} {report[k]}" for k in ("imported", "duplicateCount", "failureCount") if k in report)
            rec.note(f"import of {count} files: {job.get('state')} in {time.monotonic() - t0:.1f} s ({summary})")
            if imported != count:
                rec.error("HTTP", f"import: {imported} of {count} files imported ({json.dumps(report)[:200]})")
            else:
                rec.count("files imported during the run", imported)
    client.close()


def playback(rec, stop, port, album_id):
    """Starts the album on repeat, then checks every 5 s that it plays (a stop is noted and restarted)."""
    client = HTTP(rec, port)
    client.request("POST", "/api/v1/queue/play-album", {"albumID": album_id}, expect=(200, 202, 204))
    client.request("PUT", "/api/v1/player/options", {"repeat": "all"}, expect=(200, 204))
    last_entry = None
    while not stop.wait(5):
        status = client.json("GET", "/api/v1/player")
        if status is None:
            continue
        entry = (status.get("entry") or {}).get("id")
        with rec.lock:
            rec.counters["queue length at the end"] = status.get("queueLength", 0)
            rec.counters.setdefault("queue length at the start", status.get("queueLength", 0))
        if entry != last_entry:
            rec.count("tracks seen playing")
            last_entry = entry
        if status.get("state") != "playing":
            rec.count("playback found stopped")
            rec.note(f"playback {status.get('state')} (queue {status.get('queueLength')}, "
                     f"last skip {status.get('lastSkip')}); playing the album again")
            client.request("POST", "/api/v1/queue/play-album", {"albumID": album_id}, expect=(200, 202, 204))
            client.request("PUT", "/api/v1/player/options", {"repeat": "all"}, expect=(200, 204))
    client.close()


def proc_sample(pid):
    """VmRSS, VmHWM (MiB), threads, open descriptors, CPU seconds of PID; None when it is gone."""
    try:
        fields = {}
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.split()
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read().rsplit(")", 1)[1].split()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, IndexError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return {"rss": int(fields["VmRSS"][0]) / 1024, "hwm": int(fields["VmHWM"][0]) / 1024,
            "threads": int(fields["Threads"][0]), "fds": fds,
            "cpu": (int(stat[11]) + int(stat[12])) / tick}


def sampler(rec, stop, pid, samples):
    while not stop.wait(1):
        s = proc_sample(pid)
        if s is None:
            rec.error("crated", "the process is gone")
            return
        s["t"] = round(rec.t(), 1)
        samples.append(s)


# --- run ----------------------------------------------------------------------------------------------------

def setup(rec, port):
    """Song ids (for Subsonic) and an album of at least 8 tracks to play."""
    client = HTTP(rec, port, front="setup")
    songs, offset = [], 0
    while True:
        page = client.json("GET", f"/api/v1/tracks?sort=title&order=asc&offset={offset}&limit=500")
        if not page:
            break
        songs += [t["id"] for t in page]
        offset += len(page)
    albums = client.json("GET", "/api/v1/albums?sort=title&order=asc") or []
    album = None
    for a in albums:
        tracks = client.json("GET", f"/api/v1/albums/{a['id']}/tracks") or []
        if len(tracks) >= 8:
            album = a
            break
    client.close()
    if not songs or album is None:
        sys.exit(f"soak.py: the library has no songs or no album of 8 tracks ({len(songs)} songs)")
    return songs, album


def run(args):
    rec = Record()
    songs, album = setup(rec, args.http)
    log(f"{len(songs)} songs; playing album {album['id']} ({album.get('title')}) on repeat")
    start = proc_sample(args.pid)
    if start is None:
        sys.exit("soak.py: crated is not running")
    rec = Record()   # the setup's requests are not part of the run
    stop = threading.Event()
    deadline = time.monotonic() + args.seconds
    samples = []
    stream_sockets, idle_sockets = [], []
    threads = []

    def spawn(target, *a):
        th = threading.Thread(target=target, args=(rec, stop, *a), daemon=True)
        th.start()
        threads.append(th)

    spawn(sampler, args.pid, samples)
    spawn(playback, args.http, album["id"])
    for i in range(20):
        spawn(sse_client, args.http, i, stream_sockets)
    for i in range(50):
        spawn(mpd_idle_client, args.mpd, i, idle_sockets)
    time.sleep(1)   # listeners first, then the load
    for i in range(50):
        spawn(http_client, args.http, i)
    for i in range(5):
        spawn(mpd_worker, args.mpd, i)
    for i in range(5):
        spawn(subsonic_client, args.subsonic, i, args.password, songs, i >= 3)
    spawn(rescans, args.http, deadline)
    spawn(one_import, args.http, args.import_dir, args.import_count, deadline)
    log(f"{len(threads)} client threads for {args.seconds} s")

    next_log = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        if time.monotonic() >= next_log:
            next_log += 60
            s = samples[-1] if samples else {}
            log(f"{rec.t():.0f} s: {sum(len(v) for k, v in rec.latency.items() if k in ('HTTP', 'MPD', 'Subsonic'))} "
                f"requests, {len(rec.errors)} errors, RSS {s.get('rss', 0):.1f} MiB, fds {s.get('fds')}, "
                f"threads {s.get('threads')}")
        if samples and proc_sample(args.pid) is None:
            break
    end_loaded = proc_sample(args.pid)
    stop.set()
    log("stopping the clients")
    for sock in stream_sockets + idle_sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    for th in threads:
        th.join(timeout=60)
    stuck = sum(th.is_alive() for th in threads)
    if stuck:
        rec.error("driver", f"{stuck} client threads did not finish within 60 s of the end")
    # Let crated close the connections the clients left, then sample once more.
    end = proc_sample(args.pid)
    for _ in range(50):
        if end is None or end["fds"] <= start["fds"] + 20:
            break
        time.sleep(0.2)
        end = proc_sample(args.pid)
    if end is None:
        rec.error("crated", "crated is not running at the end of the run")
    peak = max([s["rss"] for s in samples] + [start["rss"]])
    results = {
        "seconds": args.seconds, "songs": len(songs), "album": album,
        "start": start, "end_loaded": end_loaded, "end": end,
        "peak_rss": max(peak, end["hwm"] if end else 0), "peak_rss_sampled": peak,
        "peak_fds": max([s["fds"] for s in samples] + [start["fds"]]),
        "peak_threads": max([s["threads"] for s in samples] + [start["threads"]]),
        "minutes": [next(s for s in samples if s["t"] >= 60 * m) for m in range(1, int(samples[-1]["t"] // 60) + 1)]
                   if samples else [],
        "latency": {k: v for k, v in rec.latency.items()}, "by_minute": dict(rec.by_minute),
        "errors": rec.errors, "error_kinds": rec.error_kinds.most_common(),
        "counters": dict(rec.counters), "sse_events": dict(rec.sse_events),
        "idle_changes": dict(rec.idle_changes), "notes": rec.notes,
    }
    with open(args.out, "w") as f:
        json.dump(results, f)
    log(f"done: {sum(len(rec.latency[k]) for k in ('HTTP', 'MPD', 'Subsonic'))} requests, {len(rec.errors)} errors")


# --- report -------------------------------------------------------------------------------------------------

def percentile(values, p):
    if not values:
        return None
    v = sorted(values)
    i = min(len(v) - 1, max(0, int(round(p / 100 * len(v) + 0.5)) - 1))
    return v[i]


def fmt(x, digits=1):
    return "-" if x is None else f"{x:,.{digits}f}"


def report(args):
    with open(args.results) as f:
        r = json.load(f)
    meta = {}
    with open(args.meta) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                meta[key] = value
    lat, c = r["latency"], r["counters"]
    start, end, loaded = r["start"], r["end"] or {}, r["end_loaded"] or {}
    fd_growth = (end.get("fds", 10 ** 6) - start["fds"])
    integrity = meta.get("integrity", "?")
    errors = r["errors"]
    failed = []
    if errors:
        failed.append(f"{len(errors)} errors")
    if integrity != "ok":
        failed.append(f"integrity check: {integrity}")
    if fd_growth > 20:
        failed.append(f"open descriptors grew by {fd_growth}")
    if meta.get("crated_exit") not in ("0", None):
        failed.append(f"crated exited with status {meta.get('crated_exit')} on SIGTERM")

    out = []
    w = out.append
    w(f"### Results: {meta.get('date', '?')}, {r['seconds']} s")
    w("")
    w(f"- machine: {meta.get('machine', '?')}; load average (1/5/15 min) {meta.get('load_before', '?')} before, "
      f"{meta.get('load_after', '?')} after")
    w(f"- commit {meta.get('commit', '?')}{' with uncommitted changes in the tree' if meta.get('dirty') not in ('', 'no', None) else ', clean tree'}"
      f" ({meta.get('dirty_detail', '')}); binaries {meta.get('bin', '?')} ({meta.get('version', '?')})".replace(" ()", ""))
    w(f"- library: {meta.get('library', '?')}; imported by reference in {meta.get('import_seconds', '?')} s before the "
      f"run; {r['songs']} songs when the load began; album {r['album']['id']} ({r['album'].get('title')}) on repeat")
    w(f"- **{'FAILED: ' + '; '.join(failed) if failed else 'passed: no errors, integrity ok, descriptors flat'}**")
    w("")
    w("| front end | requests | per second | errors | p50 ms | p99 ms | max ms |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    by_front = collections.Counter(e[1] for e in errors)
    rows = [("HTTP API (player, volume, jobs)", "HTTP", ["HTTP", "HTTP events"]),
            ("MPD (search, addid, playlistinfo, deleteid)", "MPD", ["MPD", "MPD idle"]),
            ("Subsonic stream (to the headers)", "Subsonic", ["Subsonic"])]
    for label, key, fronts in rows:
        v = lat.get(key, [])
        w(f"| {label} | {len(v):,} | {len(v) / r['seconds']:.1f} | {sum(by_front[x] for x in fronts)} | "
          f"{fmt(percentile(v, 50), 2)} | {fmt(percentile(v, 99), 2)} | {fmt(max(v) if v else None, 1)} |")
    whole = lat.get("Subsonic whole stream", [])
    other = sum(n for k, n in by_front.items() if k not in ("HTTP", "HTTP events", "MPD", "MPD idle", "Subsonic"))
    w("")
    w(f"- Subsonic: {c.get('Subsonic streams raw', 0):,} raw and {c.get('Subsonic streams opus', 0):,} Opus streams read "
      f"to the end, {c.get('Subsonic bytes', 0) / 1e6:,.1f} MB; whole stream p50 {fmt(percentile(whole, 50))} ms, "
      f"p99 {fmt(percentile(whole, 99))} ms")
    sse_total = sum(r["sse_events"].values())
    w(f"- event streams: {c.get('event streams open', 0)} open, {sse_total:,} events received "
      f"({', '.join(f'{k} {v:,}' for k, v in sorted(r['sse_events'].items(), key=lambda kv: -kv[1]))})")
    w(f"- MPD idle: {c.get('idle clients connected', 0)} clients, {c.get('idle wake-ups', 0):,} wake-ups "
      f"({', '.join(f'{k} {v:,}' for k, v in sorted(r['idle_changes'].items(), key=lambda kv: -kv[1]))})")
    w(f"- volume changes {c.get('volume changes', 0):,}; MPD queue edits {c.get('MPD queue edits', 0):,}; "
      f"tracks seen playing (5 s checks) {c.get('tracks seen playing', 0)}; playback found stopped "
      f"{c.get('playback found stopped', 0)} times; queue length {c.get('queue length at the start', '?')} at the "
      f"start, {c.get('queue length at the end', '?')} at the end")
    resc = lat.get("rescan seconds", [])
    w(f"- rescans: {c.get('rescans', 0)} (every 60 s, each waited for), {fmt(min(resc) if resc else None)}–"
      f"{fmt(max(resc) if resc else None)} s; import of 50 files during the run: "
      f"{c.get('files imported during the run', 0)} imported in {c.get('import seconds x10', 0) / 10:.1f} s")
    if other:
        w(f"- other errors (crated itself, the driver): {other}")
    w("")
    w("| crated | at the start (after the import) | at the end, clients connected | at the end, clients gone | peak |")
    w("|---|---:|---:|---:|---:|")
    w(f"| RSS MiB | {start['rss']:.1f} | {fmt(loaded.get('rss'))} | {fmt(end.get('rss'))} | {r['peak_rss']:.1f} (VmHWM) |")
    w(f"| open descriptors | {start['fds']} | {loaded.get('fds', '-')} | {end.get('fds', '-')} | {r['peak_fds']} |")
    w(f"| threads | {start['threads']} | {loaded.get('threads', '-')} | {end.get('threads', '-')} | {r['peak_threads']} |")
    cpu = (end.get("cpu", 0) - start["cpu"]) if end else None
    w(f"| CPU seconds used (of {r['seconds']} s) | - | - | {fmt(cpu)} | - |")
    w("")
    bym = r.get("by_minute", {})
    for front in ("HTTP", "MPD", "Subsonic"):
        cells = [f"{m} {fmt(percentile(bym[f'{front} {m}'], 50), 1)}/{fmt(percentile(bym[f'{front} {m}'], 99), 0)}"
                 for m in range(r["seconds"] // 60 + 1) if len(bym.get(f"{front} {m}", [])) >= 100]
        if cells:
            w(f"{front} p50/p99 ms by minute of the run: {', '.join(cells)}.")
            w("")
    mins = [s for s in r["minutes"] if s["t"] >= 59]
    if mins:
        w("RSS MiB / open descriptors / threads each minute: " +
          ", ".join(f"{int(s['t'] // 60)} min {s['rss']:.0f}/{s['fds']}/{s['threads']}" for s in mins) + ".")
        w("")
    w(f"After SIGTERM crated exited with status {meta.get('crated_exit', '?')}; `PRAGMA integrity_check` on its "
      f"database: `{integrity}`. Its log: {meta.get('log_summary', '?')}.")
    if errors:
        w("")
        w(f"Errors by kind ({len(errors)} in all):")
        w("")
        for kind, n in r["error_kinds"][:10]:
            w(f"- {n} × {kind}")
        w("")
        w("First errors:")
        w("")
        for t, front, text in errors[:8]:
            w(f"- {t} s, {front}: {text}")
    if r["notes"]:
        w("")
        w("Notes from the run:")
        w("")
        for n in r["notes"][:30]:
            w(f"- {re.sub(r', missing [{].*[}][)]$', ')', n)}")
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.readme:
        with open(args.readme) as f:
            readme = f.read()
        if README_MARKER in readme:
            readme = readme[:readme.index(README_MARKER)]
        else:
            if README_HEADING not in readme:
                readme = readme.rstrip("\n") + "\n\n" + README_HEADING + "\n\n"
        readme = readme.rstrip("\n") + "\n\n" + README_MARKER + "\n\n" + text
        with open(args.readme, "w") as f:
            f.write(readme)
        log(f"results written to {args.readme}")
    if failed:
        log("FAILED: " + "; ".join(failed))
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--http", type=int, required=True)
    p.add_argument("--mpd", type=int, required=True)
    p.add_argument("--subsonic", type=int, required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--seconds", type=int, default=600)
    p.add_argument("--import-dir", required=True)
    p.add_argument("--import-count", type=int, default=50)
    p.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("results")
    p.add_argument("--meta", required=True)
    p.add_argument("--readme")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
