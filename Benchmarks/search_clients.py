#!/usr/bin/env python3
"""Timed search clients for Benchmarks/search.sh, next to `crate-bench search`.

  search_clients.py mpd   --port P --queries FILE [--runs N] [--window A:B] [--per-query FILE]
  search_clients.py beets --db PATH --queries FILE [--runs N] [--first N] [--per-query FILE]
  search_clients.py crated --port P --queries FILE [--runs N] [--per-query FILE]

mpd: one persistent TCP connection to MPD on 127.0.0.1:P; each query is one request, timed from sending
  it until the whole answer is read. One word: `search any "w"`; more: the filter
  `search "((any contains 'w1') AND (any contains 'w2'))"` (MPD 0.21+); both case-insensitive substring
  matches over every tag. --window A:B asks MPD for only those songs.
beets: one Python process with beets' own library API: `list(lib.items(query))`, what `beet ls` fetches;
  with --first N, `len()` of the results and only the first N items made into objects.
crated: one persistent HTTP/1.1 keep-alive connection to crated on 127.0.0.1:P (http.client); each query is
  `GET /api/v1/search?q=…&scope=local` (every group, 5 each, as the search box asks), timed from sending it until
  the whole JSON answer is read and parsed; the matches counted are the tracks group's total.

Every query runs once to warm up, then --runs times (default 3). Prints key=value lines per query class
wordsN (N words): p50/p90/p99/max/mean milliseconds and the median and mean number of matches.
Run beets with Debian's /usr/bin/python3 (the one beets is installed for).
"""
import argparse
import itertools
import math
import os
import socket
import sys
import time


def percentile(values, p):
    """Nearest rank, as crate-bench does it."""
    s = sorted(values)
    if not s:
        return 0.0
    k = max(0, min(len(s) - 1, math.ceil(p * len(s) - 1e-9) - 1))
    return s[k]


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class MPD:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        greeting = self.sock.recv(4096)
        if not greeting.startswith(b"OK MPD"):
            raise SystemExit(f"search_clients.py: not MPD on port {port}: {greeting[:80]!r}")

    def request(self, line):
        """Sends one command; returns the whole answer (bytes) once its closing OK has arrived."""
        self.sock.sendall(line.encode("utf-8") + b"\n")
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        buf = bytearray()
        while True:
            part = self.sock.recv(1 << 20)
            # Acknowledge at once: with Linux's delayed ACK, MPD's next write of a long answer would wait
            # for it (Nagle) up to 40 ms. The flag does not stick, so it is set again after every read.
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            if not part:
                raise SystemExit("search_clients.py: MPD closed the connection (max_output_buffer_size?)")
            buf += part
            if buf.endswith(b"\n"):
                start = buf.rfind(b"\n", 0, len(buf) - 1) + 1
                last = bytes(buf[start:])
                if last == b"OK\n":
                    return bytes(buf)
                if last.startswith(b"ACK "):
                    raise SystemExit(f"search_clients.py: MPD refused {line!r}: {last.decode().strip()}")


def mpd_command(words, window):
    if len(words) == 1:
        cmd = f"search any {quoted(words[0])}"
    else:
        expr = "(" + " AND ".join(f"(any contains {quoted(w)})" for w in words) + ")"
        cmd = f"search {quoted(expr)}"
    return cmd + (f" window {window}" if window else "")


def mpd_search(args, queries):
    mpd = MPD(args.port)

    def run(q):
        answer = mpd.request(mpd_command(q.split(), args.window))
        return answer.count(b"\nfile: ") + answer.startswith(b"file: ")
    return run


def crated_search(args, queries):
    import http.client
    import json
    import urllib.parse
    conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    host = {"Host": f"127.0.0.1:{args.port}"}   # crated answers only to its own address

    def run(q):
        conn.request("GET", "/api/v1/search?" + urllib.parse.urlencode({"q": q, "scope": "local"}), headers=host)
        reply = conn.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise SystemExit(f"search_clients.py: crated answered {reply.status} to {q!r}: {body[:200]!r}")
        if reply.will_close:
            raise SystemExit("search_clients.py: crated closed the keep-alive connection")
        groups = json.loads(body).get("groups", [])
        return next((g.get("total", 0) for g in groups if g.get("group") == "tracks"), 0)
    return run


def beets_search(args, queries):
    if os.path.isdir("/usr/share/beets"):
        sys.path.insert(0, "/usr/share/beets")   # where Debian's beets package keeps its modules
    from beets.library import Library   # BEETSDIR (set by search.sh) holds the config it reads
    lib = Library(args.db)

    def run(q):
        results = lib.items(q)
        if args.first:
            count = len(results)
            list(itertools.islice(results, args.first))
            return count
        return len(list(results))
    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="engine", required=True)
    m = sub.add_parser("mpd")
    m.add_argument("--port", type=int, required=True)
    m.add_argument("--window")
    b = sub.add_parser("beets")
    b.add_argument("--db", required=True)
    b.add_argument("--first", type=int, default=0)
    c = sub.add_parser("crated")
    c.add_argument("--port", type=int, required=True)
    for s in (m, b, c):
        s.add_argument("--queries", required=True)
        s.add_argument("--runs", type=int, default=3)
        s.add_argument("--per-query")
    args = p.parse_args()
    with open(args.queries, encoding="utf-8") as f:
        queries = [line.strip() for line in f if line.strip()]
    run = {"mpd": mpd_search, "beets": beets_search, "crated": crated_search}[args.engine](args, queries)
    t0 = time.perf_counter()
    found = [run(q) for q in queries]   # warm-up; keeps the match counts
    out = [f"queries={len(queries)}", f"runs={args.runs}", f"warmup_ms={(time.perf_counter() - t0) * 1000:.3f}"]
    samples = [[] for _ in queries]
    for _ in range(args.runs):
        for i, q in enumerate(queries):
            t = time.perf_counter()
            run(q)
            samples[i].append((time.perf_counter() - t) * 1000)
    for n in sorted({len(q.split()) for q in queries}):
        idx = [i for i, q in enumerate(queries) if len(q.split()) == n]
        all_ms = [ms for i in idx for ms in samples[i]]
        counts = [found[i] for i in idx]
        key = f"words{n}"
        out += [f"{key}_queries={len(idx)}", f"{key}_samples={len(all_ms)}"]
        out += [f"{key}_{name}_ms={percentile(all_ms, pc):.3f}" for name, pc in (("p50", .5), ("p90", .9), ("p99", .99))]
        out += [f"{key}_max_ms={max(all_ms):.3f}", f"{key}_mean_ms={sum(all_ms) / len(all_ms):.3f}",
                f"{key}_matches_median={percentile(counts, .5):.0f}", f"{key}_matches_mean={sum(counts) / len(counts):.1f}",
                f"{key}_empty={sum(1 for c in counts if c == 0)}"]
    print("\n".join(out))
    if args.per_query:
        with open(args.per_query, "w", encoding="utf-8") as f:
            for i, q in enumerate(queries):
                f.write(f"{percentile(samples[i], .5):.3f}\t{max(samples[i]):.3f}\t{found[i]}\t{q}\n")


if __name__ == "__main__":
    sys.exit(main())
