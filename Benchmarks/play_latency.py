#!/usr/bin/env python3
"""Play-command latency of crated or MPD, measured by one client for both: from just before the play command is sent
until the daemon's status first shows a sample written (state playing, elapsed > 0), polled every millisecond over a
fresh connection each time. Prints the milliseconds of each run on one line.

    play_latency.py crated PORT RUNS GAP       # POST /api/v1/queue/play-album {"albumID":1}, then stop
    play_latency.py crated-held PORT RUNS GAP  # the album queued once; POST /api/v1/player/play {"index":1}, then stop
    play_latency.py mpd PORT RUNS GAP URI    # clear, add URI (untimed), play, then stop
    play_latency.py mpd-album PORT RUNS GAP DIR   # clear, add DIR (the album) and play in one command list, then stop

`crated` and `mpd-album` time the same work, replacing the queue with an album and playing it; `crated-held` and
`mpd` time `play` on a queue the daemon already holds.

(bash's /dev/tcp reads a reply one byte per system call: 6 ms for crated's 2.5 KB status against 1 ms for MPD's
0.4 KB one, which made the old bash loop time mostly itself.)"""
import json
import socket
import sys
import time


def exchange(port, data):
    with socket.create_connection(("127.0.0.1", port), timeout=15) as s:
        s.sendall(data)
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return b"".join(chunks).decode(errors="replace")
            chunks.append(chunk)


def http(port, method, path, body=None):
    payload = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    reply = exchange(port, head.encode() + b"\r\n" + payload)
    if not reply.startswith("HTTP/1.1 2"):
        sys.exit(f"crated refused {method} {path}: {reply.splitlines()[0] if reply else 'no answer'}")
    return json.loads(reply.split("\r\n\r\n", 1)[1] or "null")


def mpd(port, *commands):
    return exchange(port, ("\n".join(commands + ("close",)) + "\n").encode())


def crated_started(status):
    return status.get("state") == "playing" and (status.get("elapsed") or 0) > 0


def mpd_started(text):
    fields = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    return fields.get("state") == "play" and float(fields.get("elapsed", "0")) > 0


queued = []


def run(kind, port, uri):
    if kind == "mpd":
        mpd(port, "stop", "clear", f'add "{uri}"')
    if kind == "mpd-album":
        mpd(port, "stop")
    if kind == "crated-held" and not queued:
        http(port, "POST", "/api/v1/queue/play-album", {"albumID": 1})
        http(port, "POST", "/api/v1/player/stop", {})
        queued.append(True)
    deadline = time.perf_counter() + 15
    t0 = time.perf_counter()
    if kind.startswith("crated"):
        started = crated_started(http(port, "POST", "/api/v1/queue/play-album", {"albumID": 1}) if kind == "crated"
                                 else http(port, "POST", "/api/v1/player/play", {"index": 1}))
        while not started:
            time.sleep(0.001)
            started = crated_started(http(port, "GET", "/api/v1/player"))
            if time.perf_counter() > deadline:
                sys.exit("crated did not start playing within 15 s")
    else:
        if kind == "mpd-album":
            mpd(port, "command_list_begin", "clear", f'add "{uri}"', "play", "command_list_end")
        else:
            mpd(port, "play")
        while not mpd_started(mpd(port, "status")):
            time.sleep(0.001)
            if time.perf_counter() > deadline:
                sys.exit("MPD did not start playing within 15 s")
    took = (time.perf_counter() - t0) * 1000
    if kind.startswith("crated"):
        http(port, "POST", "/api/v1/player/stop", {})
    else:
        mpd(port, "stop")
    return took


def main():
    kind, port, runs, gap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    uri = sys.argv[5] if len(sys.argv) > 5 else ""
    results = []
    for i in range(runs + 1):   # the first run is a warm-up
        took = run(kind, port, uri)
        if i > 0:
            results.append(took)
        time.sleep(gap)
    print(" ".join(f"{t:.2f}" for t in results))


main()
