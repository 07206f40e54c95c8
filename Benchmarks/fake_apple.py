#!/usr/bin/env python3
"""A loopback stand-in for api.music.apple.com for Benchmarks/feeds.sh, with a fixed delay per answer.

    fake_apple.py serve --latency-ms 100 --log FILE --port-file FILE [--port N] [--previews FILE.m4a]
    fake_apple.py analyze --log FILE --timeline FILE [--latency-ms 100]

`serve` answers the endpoints the wall and genre feeds call, in Apple's JSON shapes (see
Tests/AppleCatalogRESTTests/Support/FakeAppleMusicRoutes.swift and /work/shared/reference/apple-music-api.md),
with invented ids: /v1/me/storefront, /v1/me/recent/played, /v1/me/history/heavy-rotation,
/v1/me/recommendations, /v1/me/library/albums, /v1/catalog/{sf}/charts, /search, /albums?ids=,
/albums/{id} (with its tracks), /albums/{id}/view/related-albums. It sleeps --latency-ms before each answer (a transatlantic
round trip), does not check the JWT, and writes one JSON line per request to --log: method, target,
status, arrival and completion (Unix seconds, the clock crate-bench's timeline uses).

Songs have no preview unless --previews names an audio file (an .m4a made at test time): then each song's preview
URL is http://127.0.0.1:PORT/previews/<song id>.m4a on this server, which answers it with that file (audio/mp4),
so a catalog album's previews play from loopback (Tests/Browser/test_catalog.py).

`analyze` matches the log against crate-bench's timeline (one row per timed compose: label, kind, index,
start, end, ...) and prints key=value lines per label: catalog requests per compose, the most requests in
flight at once, the most that arrived within any 1-second window, and how long each compose worked before
its first request and after its last answer.
"""
import argparse
import hashlib
import json
import os
import signal
import sys
import threading
import time
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit

ARTWORK = "https://is1-ssl.mzstatic.com/image/thumb/Music/v4/fa/ke/00/{id}/cover.jpg/{{w}}x{{h}}bb.jpg"
# Chart genre ids the taxonomy uses, with the names Apple gives them (unknown ids get "Music").
GENRE_NAMES = {"21": "Rock", "20": "Alternative", "1153": "Metal", "14": "Pop", "18": "Hip-Hop/Rap",
               "7": "Electronic", "17": "Dance", "15": "R&B/Soul", "11": "Jazz", "6": "Country", "5": "Classical",
               "12": "Latin", "2": "Blues", "10": "Singer/Songwriter"}
CHART_TOTAL = 200      # albums per chart (charts are asked at offsets up to ~200)
SEARCH_TOTAL = 100     # albums per search term
LIBRARY_TOTAL = 250    # the account's library: more than one page of 100
RELATED_TOTAL = 30
TODAY = date.today()
PREVIEWS = {"file": None, "base": None}   # set by `serve --previews`: the audio file and this server's address


def number(*parts):
    """A stable 9-digit id from its parts."""
    return str(100_000_000 + int(hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:8], 16) % 800_000_000)


def album(album_id, name, artist, genres, sf="us"):
    h = int(album_id)
    # A third of the catalog was released in the last 180 days, so "new releases" finds some.
    released = TODAY - timedelta(days=h % 170) if h % 3 == 0 else date(1960 + h % 64, 1 + h % 12, 1 + h % 28)
    return {"id": album_id, "type": "albums", "href": f"/v1/catalog/{sf}/albums/{album_id}",
            "attributes": {"artistName": artist, "name": name, "genreNames": genres + ["Music"],
                           "releaseDate": released.isoformat(), "trackCount": 8 + h % 7, "isCompilation": False,
                           "isComplete": True, "isSingle": False, "recordLabel": "Loopback Records",
                           "url": f"https://music.apple.com/{sf}/album/x/{album_id}",
                           "playParams": {"id": album_id, "kind": "album"},
                           "artwork": {"url": ARTWORK.format(id=album_id), "width": 3000, "height": 3000}}}


def catalog_album(album_id, sf="us"):
    genre = sorted(GENRE_NAMES.values())[int(album_id) % len(GENRE_NAMES)]
    return album(album_id, f"Album {album_id}", f"Artist {int(album_id) % 997}", [genre], sf)


def playlist(pid):
    return {"id": f"pl.{pid:032d}", "type": "playlists", "href": f"/v1/catalog/us/playlists/pl.{pid:032d}",
            "attributes": {"name": f"Mix {pid}", "curatorName": "Apple Music", "playlistType": "editorial"}}


def error(status, code, title, detail=None):
    item = {"id": "FAKE", "status": str(status), "code": code, "title": title}
    if detail:
        item["detail"] = detail
    return status, {"errors": [item]}


def too_large(limit, most):
    return error(400, "40005", "Invalid Parameter Value", f"Value must be at most {most}, but was: {limit}")


def window(q, default, most):
    """(offset, limit) from the query, or an error reply when limit is over the endpoint's maximum."""
    limit = int(q.get("limit", default))
    offset = int(q.get("offset", 0))
    return offset, limit, (too_large(limit, most) if limit > most else None)


def paged(path, q, total, default, most, make, extra=None):
    offset, limit, bad = window(q, default, most)
    if bad:
        return bad
    doc = {"data": [make(i) for i in range(offset, min(offset + limit, total))]}
    if offset + limit < total:
        doc["next"] = f"{path}?offset={offset + limit}"
    doc.update(extra or {})
    return 200, doc


def preview(song_id):
    """A song's `previews`: one on this server with --previews, else none."""
    if not PREVIEWS["file"]:
        return []
    return [{"url": f"{PREVIEWS['base']}/previews/{song_id}.m4a"}]


def answer(method, path, q):
    """(status, JSON document or None) for one request."""
    s = [p for p in path.split("/") if p]
    if method != "GET" or len(s) < 3 or s[0] != "v1":
        return error(404, "40400", "Resource Not Found")
    if s[1] == "me":
        rest = s[2:]
        if rest == ["storefront"]:
            return 200, {"data": [{"id": "us", "type": "storefronts", "href": "/v1/storefronts/us",
                                   "attributes": {"name": "Loopback Land", "defaultLanguageTag": "en-US"}}]}
        if rest == ["recent", "played"]:
            # Albums mixed with playlists, as Apple answers (1 in 5 here).
            return paged(path, q, 60, 10, 10, lambda i: playlist(i) if i % 5 == 4 else catalog_album(number("recent", i)))
        if rest == ["history", "heavy-rotation"]:
            return paged(path, q, 30, 10, 10, lambda i: playlist(100 + i) if i % 4 == 3 else catalog_album(number("heavy", i)))
        if rest == ["recommendations"]:
            recs = [{"id": f"6-rec{r}", "type": "personal-recommendation", "href": f"/v1/me/recommendations/6-rec{r}",
                     "attributes": {"kind": "music-recommendations", "title": {"stringForDisplay": f"For You {r}"}},
                     "relationships": {"contents": {"href": f"/v1/me/recommendations/6-rec{r}/contents",
                                                    "data": [playlist(200 + r) if i == 9 else catalog_album(number("rec", r, i))
                                                             for i in range(10)]}}}
                    for r in range(6)]
            return 200, {"data": recs}
        if rest == ["library", "albums"]:
            offset, limit, bad = window(q, 25, 100)
            if bad:
                return bad
            if offset >= LIBRARY_TOTAL:   # Apple answers 404, not an empty page, past the end
                return error(404, "40400", "Resource Not Found")

            def lib(i):
                doc = album(number("lib", i), f"Library Album {i}", f"Library Artist {i % 61}", ["Rock"])
                doc.update(id=f"l.lib{i}", type="library-albums", href=f"/v1/me/library/albums/l.lib{i}")
                doc["attributes"]["dateAdded"] = "2024-05-01T10:00:00Z"
                return doc
            return paged(path, q, LIBRARY_TOTAL, 25, 100, lib, {"meta": {"total": LIBRARY_TOTAL}})
        return error(404, "40400", "Path Not Found")
    if s[1] != "catalog" or len(s) < 4:
        return error(404, "40400", "Resource Not Found")
    sf, rest = s[2], s[3:]
    if rest == ["charts"]:
        if q.get("types") != "albums":
            return error(400, "40003", "Missing Parameter")
        genre = q.get("genre")
        offset, limit, bad = window(q, 20, 50)
        if bad:
            return bad
        names = [GENRE_NAMES.get(genre, "Music")] if genre else []
        data = [album(number("chart", genre, i), f"Chart {genre or 'all'} #{i + 1}", f"Chart Artist {i % 83}",
                      names or [sorted(GENRE_NAMES.values())[i % len(GENRE_NAMES)]], sf)
                for i in range(offset, min(offset + limit, CHART_TOTAL))]
        chart = {"chart": "most-played", "name": "Top Albums", "orderId": "most-played:albums", "data": data,
                 "href": f"/v1/catalog/{sf}/charts?chart=most-played&types=albums"}
        if offset + limit < CHART_TOTAL:
            g = f"&genre={genre}" if genre else ""
            chart["next"] = f"/v1/catalog/{sf}/charts?chart=most-played{g}&limit={limit}&offset={offset + limit}&types=albums"
        return 200, {"results": {"albums": [chart]}, "meta": {"results": {"order": ["most-played:albums"]}}}
    if rest == ["search"]:
        term = q.get("term", "")
        if not term:
            return error(400, "40003", "Missing Parameter")
        offset, limit, bad = window(q, 5, 25)
        if bad:
            return bad
        data = [album(number("search", term, i), f"{term.title()} Album {i + 1}", f"{term.title()} Band {i % 9}",
                      [term.title()], sf) for i in range(offset, min(offset + limit, SEARCH_TOTAL))]
        section = {"href": f"/v1/catalog/{sf}/search?term={quote(term)}&types=albums", "data": data}
        if offset + limit < SEARCH_TOTAL:
            section["next"] = f"/v1/catalog/{sf}/search?offset={offset + limit}&term={quote(term)}&types=albums"
        return 200, {"results": {"albums": section} if data else {}, "meta": {"results": {"order": ["albums"]}}}
    if rest == ["albums"]:
        ids = [i for i in q.get("ids", "").split(",") if i]
        if len(ids) > 100:
            return error(400, "40005", "Invalid Parameter Value", "Too many ids")
        return 200, {"data": [catalog_album(i, sf) for i in ids if i.isdigit()]}
    if len(rest) == 2 and rest[0] == "albums" and rest[1].isdigit():
        # One album asked by id comes with its tracks, as Apple's does (relationships.tracks).
        doc = catalog_album(rest[1], sf)
        a = doc["attributes"]
        songs = [{"id": number("song", rest[1], n), "type": "songs", "href": f"/v1/catalog/{sf}/songs/{number('song', rest[1], n)}",
                  "attributes": {"name": f"Song {n} of {a['name']}", "artistName": a["artistName"], "albumName": a["name"],
                                 "trackNumber": n, "discNumber": 1, "durationInMillis": 180_000 + n * 7_000,
                                 "genreNames": a["genreNames"], "releaseDate": a["releaseDate"],
                                 "url": f"https://music.apple.com/{sf}/album/x/{rest[1]}?i={number('song', rest[1], n)}",
                                 "playParams": {"id": number("song", rest[1], n), "kind": "song"},
                                 "previews": preview(number("song", rest[1], n))}}
                 for n in range(1, a["trackCount"] + 1)]
        doc["relationships"] = {"tracks": {"href": f"/v1/catalog/{sf}/albums/{rest[1]}/tracks", "data": songs}}
        return 200, {"data": [doc]}
    if len(rest) == 4 and rest[0] == "albums" and rest[2:] == ["view", "related-albums"]:
        return paged(path, q, RELATED_TOTAL, 10, 10, lambda i: catalog_album(number("related", rest[1], i), sf))
    return error(404, "40400", "Resource Not Found")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128   # many parallel connections at once must not be refused

    def __init__(self, address, latency, log):
        super().__init__(address, Handler)
        self.latency = latency
        self.log = log
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.count = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, as the client expects of Apple

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def handle_any(self):
        server = self.server
        arrived = time.time()
        with server.lock:
            server.in_flight += 1
            server.count += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        status = 0
        try:
            time.sleep(server.latency)   # the round trip, before any answer
            parts = urlsplit(self.path)
            if parts.path.startswith("/previews/") and PREVIEWS["file"]:
                # A song's preview: the audio file, whatever the song (Apple's are AAC in MP4, index first).
                with open(PREVIEWS["file"], "rb") as f:
                    audio = f.read()
                status = 200
                self.send_response(status)
                self.send_header("Content-Type", "audio/mp4")
                self.send_header("Content-Length", str(len(audio)))
                self.end_headers()
                self.wfile.write(audio)
                self.wfile.flush()
                return
            query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            try:
                status, doc = answer(self.command, parts.path, query)
            except (ValueError, KeyError) as e:
                status, doc = error(400, "40005", "Invalid Parameter Value", str(e))
            body = json.dumps(doc, separators=(",", ":")).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        finally:
            done = time.time()
            with server.lock:
                server.in_flight -= 1
                server.log.write(json.dumps({"method": self.command, "target": self.path, "status": status,
                                             "arrive": round(arrived, 6), "done": round(done, 6)}) + "\n")
                server.log.flush()

    def log_message(self, *args):
        pass   # the JSON log says it all


def serve(args):
    with open(args.log, "a", encoding="utf-8") as log:
        server = Server(("127.0.0.1", args.port), args.latency_ms / 1000, log)
        if args.previews:
            PREVIEWS.update(file=args.previews, base=f"http://127.0.0.1:{server.server_address[1]}")
        # Written only once the socket listens: the caller waits for this file.
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(args.port_file + ".tmp", args.port_file)

        def stop(*_):
            threading.Thread(target=server.shutdown, daemon=True).start()
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        server.serve_forever(poll_interval=0.1)
        print(f"fake_apple.py: {server.count} requests, at most {server.max_in_flight} in flight", file=sys.stderr)


def max_overlap(intervals):
    """The most intervals open at one instant (an answer that ends as another arrives does not overlap)."""
    events = sorted([(a, 1) for a, _ in intervals] + [(d, -1) for _, d in intervals], key=lambda e: (e[0], e[1]))
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def max_in_window(times, seconds=1.0):
    """The most arrivals within any half-open window [t, t + seconds)."""
    times, most, first = sorted(times), 0, 0
    for last, t in enumerate(times):
        while t - times[first] >= seconds:
            first += 1
        most = max(most, last - first + 1)
    return most


def median(values):
    v = sorted(values)
    if not v:
        return 0
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def analyze(args):
    with open(args.log, encoding="utf-8") as f:
        requests = [json.loads(line) for line in f if line.strip()]
    composes = {}
    with open(args.timeline, encoding="utf-8") as f:
        for line in f:
            row = line.rstrip("\n").split("\t")
            if len(row) >= 5:
                composes.setdefault(row[0], []).append((row[1], float(row[3]), float(row[4])))
    slack = 0.002   # the two clocks are one, but timestamps are taken a little apart
    for label, rows in composes.items():
        per = {"first": [], "later": []}
        overlaps, case, lead, tail = [], [], [], []
        one_client = []   # the later composes share one runtime, so one client and one rate limiter
        for kind, start, end in rows:
            mine = [r for r in requests if start - slack <= r["arrive"] <= end + slack]
            per.setdefault(kind, []).append(len(mine))
            case += mine
            if kind == "later":
                one_client += [r for r in mine if not any(r is seen for seen in one_client)]   # slack: once each
            overlaps.append(max_overlap([(r["arrive"], r["done"]) for r in mine]) if mine else 0)
            if mine:
                # Before the first request left, and after the last answer came: the compose's own work.
                lead.append((min(r["arrive"] for r in mine) - start) * 1000)
                tail.append((end - max(r["done"] for r in mine)) * 1000)
        out = {
            "requests_total": len(case),
            "requests_first_median": median(per["first"]),
            "requests_later_median": median(per["later"]),
            "requests_first_runs": ",".join(map(str, per["first"])),
            "requests_later_runs": ",".join(map(str, per["later"])),
            "max_in_flight": max(overlaps) if overlaps else 0,
            "lead_ms_median": round(median(lead), 1),
            "tail_ms_median": round(median(tail), 1),
            "max_per_1s": max_in_window([r["arrive"] for r in one_client or case]),
            "errors": sum(1 for r in case if r["status"] >= 400),
            "error_targets": " ".join(sorted({f"{r['status']}:{urlsplit(r['target']).path}" for r in case if r["status"] >= 400})[:5]),
            "latency_ms": args.latency_ms,
        }
        for key, value in out.items():
            print(f"{label}_{key}={value}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, default=0)
    s.add_argument("--latency-ms", type=float, default=100)
    s.add_argument("--log", required=True)
    s.add_argument("--port-file", required=True)
    s.add_argument("--previews", help="an audio file every song's preview URL serves (none: songs have no preview)")
    a = sub.add_parser("analyze")
    a.add_argument("--log", required=True)
    a.add_argument("--timeline", required=True)
    a.add_argument("--latency-ms", type=float, default=100)
    args = p.parse_args()
    (serve if args.command == "serve" else analyze)(args)


if __name__ == "__main__":
    main()
