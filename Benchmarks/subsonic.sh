#!/usr/bin/env bash
# The Subsonic API next to supysonic (Debian's 0.7.2, the reference server of Tests/Integration/test_subsonic_differential.py)
# on the same generated library: request latency, a Symfonium-style full sync and the memory it takes, time to the
# first byte of a stream, Opus transcoding speed (and ffmpeg's on the same file), and simultaneous transcodes.
# Prints Markdown tables.
#
#   bash Benchmarks/subsonic.sh [--tracks N] [--runs N] [--ttfb-runs N] [--streams N] [--no-build] [--wait-idle]
#
#   --tracks N     short tracks in the generated library (default 10000: albums of 10, artists of 10 albums)
#   --runs N       requests of each kind for the latency rows; p50 and p99 are reported (default 200)
#   --ttfb-runs N  streams started for the time-to-first-byte rows, each of another song (default 50)
#   --streams N    simultaneous Opus transcodes of the 5-minute song (default 20, at most 90)
#   --no-build     use the crated and crate already built in .build/release
#   --wait-idle    before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#
# The library (made once, cached in .build/bench-cache/subsonic-N): 1-second FLAC and MP3 copies of two seed files
# (half the albums each), retagged with Python's mutagen: varied artist, album and title words, genres, years, a tenth
# of the albums on two discs, two thirds with an embedded cover; and one 5-minute FLAC song (Benchmarks/common.sh's
# music_source) for the transcoding rows. crated imports it by reference; supysonic scans the same folder. Both serve
# on 127.0.0.1 and are asked by the same Python client (a new connection per request, `p=` auth as supysonic needs,
# f=json); both run in a temporary folder, stopped at exit. supysonic transcodes through its [transcoding] config:
# `transcoder = ffmpeg … -c:a libopus -b:a %outratek -f ogg -`, so every transcode asks for maxBitRate=128 (supysonic
# takes the song's own rate otherwise). supysonic keeps each transcode in a cache (by song, rate and format) and
# fails simultaneous streams of one song (its play count update: pony's OptimisticCheckError, HTTP 500), so after
# the latency rows it also scans a second folder of hard links to the long song (a song of its own each, found by no
# other row), and every transcode of supysonic's is of another of them; crated's are all of the one song (it keeps
# no transcodes).
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
source Benchmarks/common.sh
ROOT="$PWD"
TRACKS=10000
RUNS=200
TTFB_RUNS=50
STREAMS=20
BUILD=1
WAIT_IDLE=0
while (($#)); do
    case "$1" in
        --tracks) TRACKS="${2:?--tracks needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --ttfb-runs) TTFB_RUNS="${2:?--ttfb-runs needs a value}"; shift 2 ;;
        --streams) STREAMS="${2:?--streams needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "subsonic.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$TRACKS" "$RUNS" "$TTFB_RUNS" "$STREAMS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "subsonic.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
((STREAMS <= 90)) || { echo "subsonic.sh: --streams is at most 90" >&2; exit 2; }
((TRACKS >= 1000 && TRACKS % 100 == 0)) || { echo "subsonic.sh: --tracks must be a multiple of 100, at least 1000" >&2; exit 2; }
((TTFB_RUNS * 2 <= TRACKS)) || { echo "subsonic.sh: --ttfb-runs is more than the library has songs for" >&2; exit 2; }
log() { echo "subsonic.sh: $*" >&2; }
PY=/usr/bin/python3   # Debian's, with python3-mutagen for the generator
USER_NAME=bench
PASSWORD="bench password"

apt_install supysonic python3-waitress python3-mutagen ffmpeg sox flac || die "cannot install supysonic, python3-waitress, python3-mutagen, ffmpeg, sox and flac"

# --- Build (one swift build at a time on this machine: wait for any other to finish) ------------------------------
if ((BUILD)); then
    for ((i = 0; i < 720; i++)); do
        pgrep -f swift-build >/dev/null || break
        ((i % 12)) || log "waiting for another swift build to finish"
        sleep 5
    done
    for product in crated crate; do
        log "building $product (release)"
        swift build -c release --static-swift-stdlib --product "$product" >&2
    done
fi
BIN="$(swift build -c release --show-bin-path)"
for exe in crated crate; do
    [[ -x "$BIN/$exe" ]] || die "no $BIN/$exe: build it with 'swift build -c release --product $exe'"
done

# --- The library (cached) ------------------------------------------------------------------------------------------
CACHE="${CRATE_BENCH_CACHE:-.build/bench-cache}/subsonic-$TRACKS"
GENERATOR_ID="$(sed -n '/^# --- The library/,/^# --- The servers/p' "$0" | sha256sum | cut -c1-16)"
if [[ ! -f "$CACHE/.done" || "$(cat "$CACHE/.done")" != "$GENERATOR_ID" ]]; then
    log "generating $TRACKS tagged files and a five-minute song in $CACHE (once)"
    t0=$EPOCHREALTIME
    rm -rf "$CACHE"
    mkdir -p "$CACHE/seed"
    ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=330:duration=1" -ac 2 -ar 44100 "$CACHE/seed/seed.flac"
    ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=330:duration=1" -ac 2 -ar 44100 -c:a libmp3lame -b:a 128k "$CACHE/seed/seed.mp3"
    for ((c = 0; c < 12; c++)); do
        ffmpeg -nostdin -v error -f lavfi -i "color=c=0x$(printf '%02x%02x%02x' $((c * 20)) $((200 - c * 15)) $((90 + c * 10))):s=96x96" \
            -frames:v 1 "$CACHE/seed/cover$c.jpg"
    done
    music_source "$CACHE/seed/long.wav" 300 "$CACHE/seed/work"
    flac -s -5 -o "$CACHE/seed/long.flac" "$CACHE/seed/long.wav"
    rm -rf "$CACHE/seed/work" "$CACHE/seed/long.wav"
    "$PY" - "$CACHE" "$TRACKS" "$ROOT/Benchmarks" <<'PY' || die "the library generator failed"
import os, random, shutil, sys
from multiprocessing import Pool
from mutagen.flac import FLAC, Picture
from mutagen.id3 import ID3, APIC, TALB, TCON, TDRC, TIT2, TPE1, TPE2, TPOS, TRCK

cache, tracks, benchmarks = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, benchmarks)
from corpus import ADJECTIVES, NOUNS, VERBS, GIVEN, FAMILY, ENSEMBLES, GENRES  # noqa: E402

SEED = {suffix: open(f"{cache}/seed/seed.{suffix}", "rb").read() for suffix in ("flac", "mp3")}
COVERS = [open(f"{cache}/seed/cover{c}.jpg", "rb").read() for c in range(12)]
rng = random.Random(1)

def artist_name(a):
    kind = a % 3
    if kind == 0:
        return f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}"
    if kind == 1:
        return f"The {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}s"
    return f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {rng.choice(ENSEMBLES)}"

def title():
    shape = rng.randrange(4)
    if shape == 0:
        return f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
    if shape == 1:
        return f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"
    if shape == 2:
        return f"{rng.choice(NOUNS)} of the {rng.choice(NOUNS)}"
    return rng.choice(NOUNS)

def safe(text):
    return "".join("_" if ch in '/\\:*?"<>|' else ch for ch in text)

jobs, seen_artists, seen_albums = [], set(), set()
for a in range(tracks // 100):
    name = artist_name(a)
    while name in seen_artists:
        name = artist_name(a)
    seen_artists.add(name)
    genre = GENRES[a % len(GENRES)]
    for b in range(10):
        album = title()
        if album in seen_albums:   # one album of each name: both servers group songs into albums by name
            album = f"{album} ({a * 10 + b})"
        seen_albums.add(album)
        year = 1960 + (a * 7 + b * 3) % 64
        suffix = "flac" if (a * 10 + b) % 2 == 0 else "mp3"
        two_discs = (a * 10 + b) % 10 == 3
        cover = (a * 10 + b) % 12 if (a * 10 + b) % 3 else None
        folder = f"{cache}/music/{safe(name)}/{year} {safe(album)}"
        for t in range(10):
            disc, number = (1 + t // 5, t % 5 + 1) if two_discs else (None, t + 1)
            prefix = f"{disc}-" if disc else ""
            song = title()
            jobs.append((f"{folder}/{prefix}{number:02d} {safe(song)}.{suffix}", suffix, name, album, song, number,
                         disc, year, genre, cover))

def write(job):
    path, suffix, artist, album, song, number, disc, year, genre, cover = job
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(SEED[suffix])
    if suffix == "flac":
        tags = FLAC(path)
        tags.update({"ARTIST": artist, "ALBUMARTIST": artist, "ALBUM": album, "TITLE": song,
                     "TRACKNUMBER": str(number), "DATE": str(year), "GENRE": genre})
        if disc:
            tags["DISCNUMBER"] = str(disc)
        if cover is not None:
            picture = Picture()
            picture.type, picture.mime, picture.data = 3, "image/jpeg", COVERS[cover]
            tags.add_picture(picture)
        tags.save()
    else:
        tags = ID3()
        for frame in (TPE1(encoding=3, text=artist), TPE2(encoding=3, text=artist), TALB(encoding=3, text=album),
                      TIT2(encoding=3, text=song), TRCK(encoding=3, text=str(number)), TDRC(encoding=3, text=str(year)),
                      TCON(encoding=3, text=genre)):
            tags.add(frame)
        if disc:
            tags.add(TPOS(encoding=3, text=str(disc)))
        if cover is not None:
            tags.add(APIC(encoding=3, mime="image/jpeg", type=3, desc="", data=COVERS[cover]))
        tags.save(path)

with Pool(os.cpu_count()) as pool:
    for done, _ in enumerate(pool.imap_unordered(write, jobs, chunksize=200), 1):
        if done % 10000 == 0:
            print(f"subsonic.sh: {done} files", file=sys.stderr, flush=True)

# The 5-minute song, for the transcoding rows.
folder = f"{cache}/music/Test Signal/2024 Five Minutes"
os.makedirs(folder, exist_ok=True)
path = f"{folder}/01 Long Take.flac"
shutil.move(f"{cache}/seed/long.flac", path)
tags = FLAC(path)
tags.update({"ARTIST": "Test Signal", "ALBUMARTIST": "Test Signal", "ALBUM": "Five Minutes", "TITLE": "Long Take",
             "TRACKNUMBER": "1", "DATE": "2024", "GENRE": "Ambient"})
tags.save()
PY
    echo "$GENERATOR_ID" >"$CACHE/.done"
    log "  made in $(seconds_since "$t0") s"
fi
MUSIC="$(cd "$CACHE/music" && pwd)"
LONG_FILE="$MUSIC/Test Signal/2024 Five Minutes/01 Long Take.flac"

# --- The servers ---------------------------------------------------------------------------------------------------
WORK="$(mktemp -d /tmp/crate-subsonic.XXXXXX)"
CRATED_PID=""
SUP_PID=""
cleanup() { stop_pid "$CRATED_PID"; stop_pid "$SUP_PID"; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd

wait_idle 20
LOAD_BEFORE="$(machine_load)"

CRATED_PORT="$(free_port)"
CRATE_SUBSONIC_PORT="$(free_port)"
CRATE_ENV=(HOME="$WORK/home" CRATE_DATA_DIRECTORY="$WORK/data" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT"
           XDG_CONFIG_HOME="$WORK/config" CRATE_MPD_ADDRESS=off CRATE_MPRIS_ENABLED=false CRATE_OUTPUT_PLUGIN=null
           CRATE_SUBSONIC_ADDRESS="127.0.0.1:$CRATE_SUBSONIC_PORT")
mkdir -p "$WORK/home"
log "crated: importing $MUSIC by reference"
t0=$EPOCHREALTIME
env "${CRATE_ENV[@]}" "$BIN/crate" import --mode reference --quiet "$MUSIC" >"$WORK/import.log" 2>&1 ||
    die "crate import failed: $(tail -5 "$WORK/import.log")"
CRATE_IMPORT_S="$(seconds_since "$t0")"
printf '%s\n' "$PASSWORD" | env "${CRATE_ENV[@]}" "$BIN/crate" users add "$USER_NAME" --admin --password-stdin >/dev/null ||
    die "crate users add failed"
start_crated

SUP="$WORK/supysonic"
mkdir -p "$SUP"
cat >"$SUP/supysonic.conf" <<CONF
[base]
database_uri = sqlite:///$SUP/supysonic.db
[webapp]
cache_dir = $SUP/cache
mount_webui = off
index_ignored_prefixes = The A An
[daemon]
socket = $SUP/supysonic.sock
run_watcher = no
[transcoding]
transcoder = ffmpeg -nostdin -v error -i %srcpath -map 0:a:0 -c:a libopus -b:a %outratek -f ogg -
CONF
# supysonic reads supysonic.conf from its working folder (and ~/.supysonic: HOME is the folder too).
sup_cli() { (cd "$SUP" && HOME="$SUP" supysonic-cli "$@"); }
sup_cli user add "$USER_NAME" -p "$PASSWORD" >/dev/null
sup_cli user setroles -A "$USER_NAME" >/dev/null
sup_cli folder add Music "$MUSIC" >/dev/null
log "supysonic: scanning $MUSIC"
t0=$EPOCHREALTIME
sup_cli folder scan Music >"$WORK/scan.log" 2>&1 || die "supysonic's scan failed: $(tail -5 "$WORK/scan.log")"
SUP_SCAN_S="$(seconds_since "$t0")"
SUP_PORT="$(free_port)"
# waitress with a thread per simultaneous stream (its default is 4, which would queue them).
(cd "$SUP" && HOME="$SUP" exec supysonic-server -S waitress -h 127.0.0.1 -p "$SUP_PORT" --threads $((STREAMS + 8))) >"$SUP/server.log" 2>&1 &
SUP_PID=$!
# The hard links supysonic transcodes from (a folder it scans after the sync; "Copy NN.flac").
mkdir -p "$WORK/long"
for ((i = 1; i <= STREAMS + 3; i++)); do
    ln "$LONG_FILE" "$WORK/long/Copy $(printf '%02d' "$i").flac" 2>/dev/null || cp "$LONG_FILE" "$WORK/long/Copy $(printf '%02d' "$i").flac"
done

# --- Timings -------------------------------------------------------------------------------------------------------
"$PY" - "$CRATE_SUBSONIC_PORT" "$CRATED_PID" "$SUP_PORT" "$SUP_PID" "$USER_NAME" "$PASSWORD" "$RUNS" "$TTFB_RUNS" \
    "$STREAMS" "$LONG_FILE" "$SUP" "$WORK/long" >"$WORK/results.txt" <<'PY'
import http.client, json, os, random, statistics, subprocess, sys, threading, time, urllib.parse

crate_port, crate_pid, sup_port, sup_pid, user, password = sys.argv[1:7]
runs, ttfb_runs, streams = map(int, sys.argv[7:10])
long_file, sup_dir, long_copies = sys.argv[10:13]
LONG_SECONDS = 300.0

def log(text):
    print(f"subsonic.sh: {text}", file=sys.stderr, flush=True)

class Server:
    def __init__(self, name, port, pid):
        self.name, self.port, self.pid = name, int(port), int(pid)

    def path(self, endpoint, params):
        query = [("u", user), ("p", password), ("v", "1.10.2"), ("c", "bench"), ("f", "json"), *params]
        return f"/rest/{endpoint}?{urllib.parse.urlencode(query)}"

    def get(self, endpoint, *params):
        """One request on a new connection: (seconds, parsed JSON)."""
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        conn.request("GET", self.path(endpoint, params))
        body = conn.getresponse().read()
        took = time.perf_counter() - t0
        conn.close()
        answer = json.loads(body)["subsonic-response"]
        if answer["status"] != "ok":
            raise RuntimeError(f"{self.name} {endpoint} {params}: {answer}")
        return took, answer

    def stream(self, song, *params, first_byte_only=False):
        """(seconds to the first body byte, seconds to the end, bytes)."""
        t0 = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        conn.request("GET", self.path("stream", [("id", song), *params]))
        answer = conn.getresponse()
        first = answer.read(1)
        ttfb = time.perf_counter() - t0
        if answer.status != 200 or not first or answer.getheader("Content-Type", "").startswith(("text/", "application/json")):
            raise RuntimeError(f"{self.name} stream {song} {params}: {answer.status} {first + answer.read(300)}")
        size = 1
        if not first_byte_only:
            while True:
                chunk = answer.read(1 << 16)
                if not chunk:
                    break
                size += len(chunk)
        conn.close()
        return ttfb, time.perf_counter() - t0, size

    def status(self, key):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def cpu(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self):
        """Waits (up to 5 minutes) until the server uses under 2 % of a core for a second: nothing left over from
        its start-up (crated looks at its library when it starts) is timed."""
        for _ in range(300):
            before = self.cpu()
            time.sleep(1)
            if self.cpu() - before < 0.02:
                return
        log(f"{self.name} did not settle within 5 minutes")

servers = [Server("crated", crate_port, crate_pid), Server("supysonic", sup_port, sup_pid)]
crate, sup = servers

def wait_ping(server):
    for _ in range(6000):
        try:
            server.get("ping")
            return
        except (OSError, ValueError, http.client.HTTPException):
            time.sleep(0.05)
    raise RuntimeError(f"{server.name} does not answer")

def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(p / 100 * len(ordered) + 0.5)) - 1))] * 1000

def sync(server):
    """Symfonium's first sync: every artist, album and song by search3 with an empty query, 500 a page, until a page
    comes back short."""
    t0 = time.perf_counter()
    found, requests = {}, 0
    for kind in ("artist", "album", "song"):
        offset, items = 0, []
        while True:
            counts = [(f"{k}Count", "500" if k == kind else "0") for k in ("artist", "album", "song")]
            _, answer = server.get("search3", ("query", ""), *counts, (f"{kind}Offset", str(offset)))
            requests += 1
            page = answer.get("searchResult3", {}).get(kind, [])
            items += page
            if len(page) < 500:
                break
            offset += 500
        found[kind] = items
    return time.perf_counter() - t0, found, requests

rows, notes = {}, []
for server in servers:
    wait_ping(server)
for server in servers:
    log(f"{server.name}: waiting until it is idle")
    server.settle()

# The full sync first, on a server that has answered nothing but ping: its peak memory is the sync's.
library = {}
for server in servers:
    log(f"{server.name}: full sync")
    took, found, requests = sync(server)
    rows.setdefault("sync", {})[server.name] = took
    rows.setdefault("sync_hwm", {})[server.name] = server.status("VmHWM")
    library[server.name] = found
    notes.append(f"{server.name}: the sync took {requests} requests: {len(found['artist'])} artists, "
                 f"{len(found['album'])} albums, {len(found['song'])} songs")

# The same albums and songs on both, matched by what they are.
def album_key(a):
    return (a.get("artist"), a["name"])
albums = {s.name: {album_key(a): a["id"] for a in library[s.name]["album"]} for s in servers}
common = sorted(set(albums["crated"]) & set(albums["supysonic"]), key=str)
rng = random.Random(7)
picks = [rng.choice(common) for _ in range(runs)]
def song_key(s):
    return (s.get("album"), s.get("track"), s.get("discNumber", 1), s["title"])
songs = {s.name: {song_key(x): x for x in library[s.name]["song"]} for s in servers}
short = sorted((k for k in set(songs["crated"]) & set(songs["supysonic"]) if k[0] != "Five Minutes"), key=str)
rng.shuffle(short)
long_song = next(x["id"] for x in library["crated"]["song"] if x["title"] == "Long Take")
OPUS = [("format", "opus"), ("maxBitRate", "128")]

def latency(name, requests):
    for server in servers:
        log(f"{server.name}: {name} x {len(requests)}")
        for endpoint, params in requests[:5]:
            server.get(endpoint, *params(server))   # warm-up
        times = [server.get(endpoint, *params(server))[0] for endpoint, params in requests]
        rows.setdefault(name + "_p50", {})[server.name] = pct(times, 50)
        rows.setdefault(name + "_p99", {})[server.name] = pct(times, 99)

latency("newest", [("getAlbumList2", lambda s: [("type", "newest"), ("size", "50")])] * runs)
latency("album", [("getAlbum", lambda s, k=k: [("id", albums[s.name][k])]) for k in picks])
latency("song", [("getSong", lambda s, k=k: [("id", songs[s.name][k]["id"])]) for k in short[:runs]])
latency("search", [("search3", lambda s: [("query", "river")])] * runs)
latency("genres", [("getGenres", lambda s: [])] * max(10, runs // 10))
hits = {s.name: sum(len(v) for k, v in s.get("search3", ("query", "river"))[1]["searchResult3"].items()) for s in servers}
notes.append(f"search3 query=river (20 of each kind at most): {hits['crated']} hits from crated, {hits['supysonic']} from supysonic")

# Time to the first byte of a stream: each request another short song (no cache on either side).
for fmt, params, keys in (("raw", [], short[:ttfb_runs]),
                          ("opus", OPUS, short[ttfb_runs:2 * ttfb_runs])):
    for server in servers:
        log(f"{server.name}: stream {fmt} x {len(keys)}")
        server.stream(songs[server.name][short[-1]]["id"], *params)   # warm-up (another song)
        times = [server.stream(songs[server.name][k]["id"], *params, first_byte_only=True)[0] for k in keys]
        rows.setdefault(f"ttfb_{fmt}_p50", {})[server.name] = pct(times, 50)
        rows.setdefault(f"ttfb_{fmt}_p99", {})[server.name] = pct(times, 99)

# supysonic's copies of the long song: a second music folder of hard links, scanned now (after the sync).
log("supysonic: scanning the copies of the long song")
subprocess.run(["supysonic-cli", "folder", "add", "Long", long_copies], cwd=sup_dir, env=dict(os.environ, HOME=sup_dir),
               check=True, capture_output=True)
subprocess.run(["supysonic-cli", "folder", "scan", "Long"], cwd=sup_dir, env=dict(os.environ, HOME=sup_dir), check=True,
               capture_output=True)
_, found = sup.get("search3", ("query", "Long Take"), ("songCount", "500"), ("artistCount", "0"), ("albumCount", "0"))
copies = [x["id"] for x in found["searchResult3"]["song"] if x["path"].startswith("Copy")]
if len(copies) < streams + 3:
    raise RuntimeError(f"supysonic found {len(copies)} copies of the long song")
long_ids = {"crated": [long_song] * (streams + 3), "supysonic": copies}

# Opus transcoding speed of the 5-minute FLAC song: best of 3.
speed = {}
best = None
for _ in range(3):
    t0 = time.perf_counter()
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", long_file, "-map", "0:a:0", "-c:a", "libopus", "-b:a",
                    "128k", "-f", "ogg", "-y", "/dev/null"], check=True)
    took = time.perf_counter() - t0
    best = took if best is None else min(best, took)
speed["ffmpeg"] = best
for server in servers:
    log(f"{server.name}: transcoding a 5-minute song to Opus, 3 times")
    results = [server.stream(song, *OPUS) for song in long_ids[server.name][streams:streams + 3]]
    speed[server.name] = min(total for _, total, _ in results)
    notes.append(f"{server.name}: the 5-minute song in Opus at maxBitRate=128 is {results[0][2] / 1024:.0f} KiB "
                 f"({results[0][2] * 8 / LONG_SECONDS / 1000:.0f} kbit/s on average: libopus' VBR on a noisy mix)")

# Simultaneous transcodes of the 5-minute song.
concurrent = {}
for server in servers:
    log(f"{server.name}: {streams} simultaneous Opus transcodes")
    results, errors = [None] * streams, []
    def one(i):
        try:
            results[i] = server.stream(long_ids[server.name][i], *OPUS)
        except Exception as error:   # noqa: BLE001 (reported below)
            errors.append(repr(error))
    threads = [threading.Thread(target=one, args=(i,)) for i in range(streams)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.perf_counter() - t0
    complete = sum(1 for r in results if r and r[2] > 100_000)
    concurrent[server.name] = (took, complete, max((r[1] for r in results if r), default=0))
    if errors:
        notes.append(f"{server.name}: {len(errors)} of the simultaneous streams failed: {errors[0]}")
    rows.setdefault("hwm_end", {})[server.name] = server.status("VmHWM")

def ms(v):
    return f"{v:.1f}"

print("| measure | crated | supysonic | ratio (supysonic / crated) |")
print("|---|---:|---:|---:|")
labels = [
    ("newest_p50", f"`getAlbumList2` type=newest size=50, ms p50 ({runs} requests)", ms),
    ("newest_p99", "`getAlbumList2` type=newest size=50, ms p99", ms),
    ("album_p50", f"`getAlbum` ({runs} albums picked at random), ms p50", ms),
    ("album_p99", "`getAlbum`, ms p99", ms),
    ("song_p50", f"`getSong` ({runs} songs picked at random), ms p50", ms),
    ("song_p99", "`getSong`, ms p99", ms),
    ("search_p50", f"`search3` query=river, ms p50 ({runs} requests)", ms),
    ("search_p99", "`search3` query=river, ms p99", ms),
    ("genres_p50", f"`getGenres`, ms p50 ({max(10, runs // 10)} requests)", ms),
    ("sync", "full sync (`search3` query=\"\", pages of 500 artists, albums, songs), s", lambda v: f"{v:.2f}"),
    ("sync_hwm", "peak RSS after the sync (VmHWM), MiB", ms),
    ("ttfb_raw_p50", f"`stream` raw, first byte, ms p50 ({ttfb_runs} songs)", ms),
    ("ttfb_raw_p99", "`stream` raw, first byte, ms p99", ms),
    ("ttfb_opus_p50", f"`stream` format=opus, first byte, ms p50 ({ttfb_runs} songs)", ms),
    ("ttfb_opus_p99", "`stream` format=opus, first byte, ms p99", ms),
    ("hwm_end", f"peak RSS at the end (after {streams} simultaneous transcodes; supysonic's ffmpeg processes not counted), MiB", ms),
]
for key, label, fmt in labels:
    c, s = rows[key]["crated"], rows[key]["supysonic"]
    print(f"| {label} | {fmt(c)} | {fmt(s)} | {s / c:.2f} |")
print()
print("| Opus from a 5-minute FLAC song (44.1 kHz stereo) | s (best of 3) | × real time | ratio (ffmpeg / it) |")
print("|---|---:|---:|---:|")
for name, label in (("ffmpeg", "`ffmpeg -c:a libopus -b:a 128k`, to /dev/null"),
                    ("crated", "crated `stream?format=opus&maxBitRate=128`, read to the end"),
                    ("supysonic", "supysonic `stream?format=opus` (ffmpeg through its config)")):
    print(f"| {label} | {speed[name]:.2f} | {LONG_SECONDS / speed[name]:.0f} | {speed['ffmpeg'] / speed[name]:.2f} |")
print()
print(f"| {streams} simultaneous `format=opus` streams of the 5-minute song, {os.cpu_count()} cores | crated | supysonic | ratio (supysonic / crated) |")
print("|---|---:|---:|---:|")
(c, cn, _), (s, sn, _) = concurrent["crated"], concurrent["supysonic"]
print(f"| all done, s | {c:.1f} | {s:.1f} | {s / c:.2f} |")
print(f"| complete streams | {cn} of {streams} | {sn} of {streams} | |")
print(f"| audio made, × real time | {streams * LONG_SECONDS / c:.0f} | {streams * LONG_SECONDS / s:.0f} | |")
print()
for note in notes:
    print(f"- {note}")
PY

echo "# Subsonic API: crated next to supysonic"
echo
echo "- $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo); load before $LOAD_BEFORE, after $(machine_load)"
echo "- crated: release build ($BIN, built $(date -u -r "$BIN/crated" '+%Y-%m-%d %H:%M UTC'); the tree is now at $(git log -1 --format=%h)$(git diff --quiet HEAD -- Modules Apps Plugins Package.swift 2>/dev/null || echo ' with uncommitted changes')); supysonic $(version_of supysonic) on waitress $(version_of python3-waitress) ($((STREAMS + 8)) threads), ffmpeg $(version_of ffmpeg)"
echo "- library: $TRACKS one-second tracks ($(find "$MUSIC" -name '*.flac' | wc -l) FLAC files with the long one, $(find "$MUSIC" -name '*.mp3' | wc -l) MP3) and a five-minute FLAC song; crate import --mode reference ${CRATE_IMPORT_S} s, supysonic-cli folder scan ${SUP_SCAN_S} s"
echo "- client: Python http.client, a new connection per request, GET with u/p (password) and f=json"
echo
cat "$WORK/results.txt"
