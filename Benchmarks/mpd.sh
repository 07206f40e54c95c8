#!/usr/bin/env bash
# The MPD protocol front end next to MPD itself, on the same library: `mpc search` and `mpc list album`
# latency, idle clients woken by one change, and memory with them connected. Prints Markdown tables.
#
#   bash Benchmarks/mpd.sh [--tracks N] [--runs N] [--idle-clients N] [--no-build] [--wait-idle] [--kv FILE]
#
#   --tracks N        tracks in the generated library (default 10000: 100 artists x 10 albums x 10 tracks)
#   --runs N          timed runs of each mpc command; the median is reported (default 20)
#   --idle-clients N  connections waiting in `idle player` when one change is made (default 200)
#   --no-build        use the crated and crate already built in .build/release
#   --wait-idle       before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#   --kv FILE         also write the results as key=value lines to FILE (for Benchmarks/compare.sh)
#
# The library is one short FLAC file copied and retagged (metaflac), cached in .build/bench-cache. crated imports it
# by reference; MPD (Debian's, bound to 127.0.0.1) reads the same folder. Both run in a temporary folder and are
# stopped at exit. Both are asked through the same client: the same mpc binary, or the same Python code.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
source Benchmarks/common.sh
TRACKS=10000
RUNS=20
IDLE_CLIENTS=200
BUILD=1
WAIT_IDLE=0
KV_OUT=""
while (($#)); do
    case "$1" in
        --tracks) TRACKS="${2:?--tracks needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --idle-clients) IDLE_CLIENTS="${2:?--idle-clients needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --kv) KV_OUT="${2:?--kv needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "mpd.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$TRACKS" "$RUNS" "$IDLE_CLIENTS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "mpd.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
log() { echo "mpd.sh: $*" >&2; }
[[ -z "$KV_OUT" || "$KV_OUT" == /* ]] || KV_OUT="$PWD/$KV_OUT"

apt_install mpd mpc flac sox python3 || die "cannot install mpd, mpc, flac, sox and python3"
build_release_daemon

# --- The library (cached) ------------------------------------------------------------------------------------------
CACHE="${CRATE_BENCH_CACHE:-.build/bench-cache}/mpd-$TRACKS"
if [[ ! -f "$CACHE/.done" ]]; then
    log "generating $TRACKS tagged FLAC files in $CACHE (once)"
    rm -rf "$CACHE"
    mkdir -p "$CACHE/music"
    sox -n -r 44100 -c 2 -b 16 "$CACHE/seed.flac" synth 0.2 sine 440
    for ((i = 0; i < TRACKS; i++)); do
        artist=$((i / 100)) album=$(((i / 10) % 10)) track=$((i % 10 + 1))
        dir="$CACHE/music/Artist $artist/Album $artist-$album"
        mkdir -p "$dir"
        file="$dir/$(printf '%02d' "$track") Track $i.flac"
        cp "$CACHE/seed.flac" "$file"
        metaflac --remove-all-tags --set-tag="ARTIST=Artist $artist" --set-tag="ALBUMARTIST=Artist $artist" \
            --set-tag="ALBUM=Album $artist-$album" --set-tag="TITLE=Track $i" --set-tag="TRACKNUMBER=$track" \
            --set-tag="DATE=$((1960 + artist % 60))" --set-tag="GENRE=Genre $((artist % 20))" "$file"
    done
    touch "$CACHE/.done"
fi
MUSIC="$(cd "$CACHE/music" && pwd)"

WORK="$(mktemp -d /tmp/crate-mpd.XXXXXX)"
CRATED_PID=""
MPD_PID=""
cleanup() { stop_pid "$CRATED_PID"; stop_pid "$MPD_PID"; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd   # pause_ms (start_crated's polling) waits on it

wait_idle 20
LOAD_BEFORE="$(machine_load)"

# --- crated, with the library imported by reference -------------------------------------------------------------------
CRATED_PORT="$(free_port)"
CRATE_MPD_PORT="$(free_port)"
API="http://127.0.0.1:$CRATED_PORT/api/v1"
CRATE_ENV=(CRATE_DATA_DIRECTORY="$WORK/data" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT" XDG_CONFIG_HOME="$WORK/config"
           CRATE_MPD_ADDRESS="127.0.0.1:$CRATE_MPD_PORT" CRATE_OUTPUT_PLUGIN=null)
log "importing $TRACKS tracks into crated (by reference)"
env "${CRATE_ENV[@]}" "$BIN/crate" import --mode reference "$MUSIC" >"$WORK/import.log" 2>&1 || die "crate import failed: $(tail -5 "$WORK/import.log")"
start_crated

# --- MPD on the same folder -------------------------------------------------------------------------------------------
MPD_PORT="$(free_port)"
write_mpd_config "$WORK/mpd" "$MUSIC" "$MPD_PORT" "max_connections \"$((IDLE_CLIENTS + 20))\""
mpd --no-daemon "$WORK/mpd/mpd.conf" >"$WORK/mpd/stdout.log" 2>&1 &
MPD_PID=$!
for ((i = 0; i < 6000; i++)); do mpd_request ping && break; sleep 0.01; done
log "MPD: reading the library (mpc update --wait)"
mpcc update --wait >/dev/null

# --- Timings ------------------------------------------------------------------------------------------------------------
python3 - "$RUNS" "$IDLE_CLIENTS" "$CRATE_MPD_PORT" "$MPD_PORT" "$CRATED_PID" "$MPD_PID" "$KV_OUT" >"$WORK/results.txt" <<'PY'
import os, selectors, socket, statistics, subprocess, sys, time

runs, clients = int(sys.argv[1]), int(sys.argv[2])
daemons = {"crated": (int(sys.argv[3]), int(sys.argv[5])), "MPD": (int(sys.argv[4]), int(sys.argv[6]))}

def mpc(port, *args):
    return subprocess.run(["mpc", "--host", "127.0.0.1", "--port", str(port), *args], capture_output=True, text=True, check=True).stdout

def timed(port, *args):
    mpc(port, *args)   # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter(); out = mpc(port, *args); times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), len(out.splitlines())

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
    return 0.0

def read_until_ok(sock, buffer=b""):
    while not (buffer.endswith(b"OK\n") or b"ACK" in buffer):
        data = sock.recv(4096)
        if not data: raise RuntimeError("connection closed")
        buffer += data
    return buffer

def idle_wake(port, pid):
    socks = []
    for _ in range(clients):
        s = socket.create_connection(("127.0.0.1", port))
        greeting = b""
        while not greeting.endswith(b"\n"): greeting += s.recv(64)
        socks.append(s)
    for s in socks: s.sendall(b"idle options\n")
    # Nothing answers an idle until a change: give the servers a moment to take all of them (a benchmark, not a test).
    time.sleep(0.5)
    held = rss(pid)
    sel = selectors.DefaultSelector()
    for s in socks: sel.register(s, selectors.EVENT_READ)
    t0 = time.perf_counter()
    mpc(port, "random")   # toggles: always a change
    pending, got = set(socks), {s: b"" for s in socks}
    while pending:
        for key, _ in sel.select(timeout=30):
            s = key.fileobj
            got[s] += s.recv(4096)
            if got[s].endswith(b"OK\n"):
                pending.discard(s); sel.unregister(s)
        if time.perf_counter() - t0 > 30:
            sample = next(iter(pending))
            raise RuntimeError(f"{len(pending)} idle clients not woken in 30 s (port {port}; one of them got {got[sample]!r})")
    took = (time.perf_counter() - t0) * 1000
    for s in socks: s.close()
    return took, held

print("| measure | crated | MPD | ratio (MPD / crated) |")
print("|---|---:|---:|---:|")
rows = {}
for name, (port, pid) in daemons.items():
    rows.setdefault("search", {})[name] = timed(port, "search", "title", "Track 12")
    rows.setdefault("list", {})[name] = timed(port, "list", "album")
    rows.setdefault("find", {})[name] = timed(port, "find", "artist", "Artist 42")
    rows.setdefault("rss_idle", {})[name] = (rss(pid), 0)
    print(f"mpd.sh: waking idle clients of {name}", file=sys.stderr)
    wakes = [idle_wake(port, pid) for _ in range(5)]
    rows.setdefault("wake", {})[name] = (statistics.median(w[0] for w in wakes), 0)
    rows.setdefault("rss_clients", {})[name] = (max(w[1] for w in wakes), 0)
labels = {"search": "`mpc search title \"Track 12\"` ms (median)", "list": "`mpc list album` ms (median)",
          "find": "`mpc find artist \"Artist 42\"` ms (median)", "wake": f"{clients} idle clients woken by one change, ms until the last answer (median of 5)",
          "rss_idle": "VmRSS MiB, no client", "rss_clients": f"VmRSS MiB, {clients} clients in idle"}
for key, label in labels.items():
    c, m = rows[key]["crated"][0], rows[key]["MPD"][0]
    print(f"| {label} | {c:.1f} | {m:.1f} | {m / c:.2f} |")
if sys.argv[7]:   # key=value lines for compare.sh: KEY_crated and KEY_mpd per measure
    with open(sys.argv[7], "w") as f:
        f.write(f"clients={clients}\nruns={runs}\n")
        for key in labels:
            f.write(f"{key}_crated={rows[key]['crated'][0]:.2f}\n{key}_mpd={rows[key]['MPD'][0]:.2f}\n")
print()
print(f"Lines answered: search {rows['search']['crated'][1]} / {rows['search']['MPD'][1]}, list {rows['list']['crated'][1]} / {rows['list']['MPD'][1]}, "
      f"find {rows['find']['crated'][1]} / {rows['find']['MPD'][1]} (crated / MPD).")
PY

echo "# MPD protocol: crated next to MPD"
echo
echo "- $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo); load before $LOAD_BEFORE, after $(machine_load)"
echo "- $TRACKS tracks; MPD $(version_of mpd), mpc $(version_of mpc); $RUNS runs of each mpc command, each a whole mpc process"
echo
cat "$WORK/results.txt"
