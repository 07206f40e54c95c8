#!/usr/bin/env bash
# Soak test of the whole daemon: one crated on a 3,000-track library with every front end busy at once for 10
# minutes (HTTP API, its event stream, MPD clients in idle and at work, Subsonic streams, rescans, an import,
# playback on repeat), then its errors, latencies, memory, descriptors, threads and the database's integrity.
# Not part of `make test`. Prints a Markdown report.
#
#   bash Benchmarks/soak.sh [--seconds N] [--readme] [--build] [--bin DIR]
#
#   --seconds N  how long the load runs (default 600)
#   --readme     also write the results into the soak section of Benchmarks/README.md (after its marker)
#   --build      first build crated and crate (release, static Swift runtime; under flock /tmp/crate-build.lock)
#   --bin DIR    where crated and crate are (default $CRATE_BIN_DIR, else .build/release)
#
# The library (made once, cached in .build/bench-cache/soak-3000, or $CRATE_BENCH_CACHE): Benchmarks/corpus.py's
# `library` collection of 3,000 files (FLAC, MP3, Ogg Vorbis, Opus, WAV; 1-3 s each; copied from library.sh's cache
# in /tmp/crate-bench-corpus when that one was made by the same generator), and, in soak-3000-extra, 50 FLAC files
# (5 albums of 10) kept aside for the import during the run. crated runs in a temporary home under /tmp with the
# null output in real time, HTTP, MPD and Subsonic on free ports of 127.0.0.1 and no MPRIS; the library is
# imported by reference (`crate import --mode reference`) and a Subsonic account added (`crate users add soak
# --admin --password-stdin`) before the load. The load itself is Benchmarks/soak.py (see there). At the end crated
# gets SIGTERM and its database `PRAGMA integrity_check`. The exit status is 1 when there were errors, the check
# did not say ok, or the open descriptors grew by more than 20; crated's log and the raw results are kept in
# .build/bench-cache/soak-last/, the temporary home is removed.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
ROOT="$PWD"
log() { echo "soak.sh: $*" >&2; }
source Benchmarks/common.sh

RUN_SECONDS=600
README=0
BUILD=0
BIN="${CRATE_BIN_DIR:-$ROOT/.build/release}"
CACHE="${CRATE_BENCH_CACHE:-$ROOT/.build/bench-cache}"
while (($#)); do
    case "$1" in
        --seconds) RUN_SECONDS="${2:?--seconds needs a value}"; shift 2 ;;
        --readme) README=1; shift ;;
        --build) BUILD=1; shift ;;
        --bin) BIN="${2:?--bin needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "soak.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ "$RUN_SECONDS" =~ ^[1-9][0-9]*$ ]] || die "--seconds takes a positive whole number"
# The daemon gets only the settings below: none of the caller's CRATE_* variables.
for var in $(compgen -e); do [[ "$var" == CRATE_* ]] && unset "$var"; done
PY=/usr/bin/python3   # Debian's, with python3-mutagen for the generator

if ((BUILD)); then
    for product in crated crate; do
        log "building $product (release)"
        flock /tmp/crate-build.lock swift build -c release --static-swift-stdlib --product "$product" >&2
    done
    BIN="$ROOT/.build/release"
fi
BIN="$(cd "$BIN" && pwd)"
for exe in crated crate; do
    [[ -x "$BIN/$exe" ]] || die "no $BIN/$exe: build it (--build) or pass --bin DIR"
done
command -v ffmpeg >/dev/null || apt_install ffmpeg
"$PY" -c 'import mutagen' 2>/dev/null || apt_install python3-mutagen

# --- The library, made once -----------------------------------------------------------------------------------
mkdir -p "$CACHE"
LIB="$CACHE/soak-3000"
SPEC="library size=3000 seed=1 generator=$(sha256sum Benchmarks/corpus.py | cut -c1-16)"
if [[ -f "$LIB/spec.txt" && "$(cat "$LIB/spec.txt")" == "$SPEC" && -d "$LIB/music" ]]; then
    LIBRARY_NOTE="cached"
else
    rm -rf "$LIB" "$LIB.partial"
    shared=/tmp/crate-bench-corpus/library-3000   # library.sh's, when made by this generator
    if [[ -f "$shared/spec.txt" && "$(cat "$shared/spec.txt")" == "$SPEC" && -d "$shared/music" ]]; then
        log "copying the library from $shared"
        cp -a "$shared" "$LIB.partial"
        mv "$LIB.partial" "$LIB"
        LIBRARY_NOTE="copied from library.sh's cache"
    else
        log "making the library $LIB (3,000 files)"
        "$PY" Benchmarks/corpus.py library --out "$LIB" --size 3000 --jobs "$(nproc)" --spec "$SPEC" >&2 ||
            die "the corpus generator failed"
        LIBRARY_NOTE="generated"
    fi
fi
EXTRA="$CACHE/soak-3000-extra"
EXTRA_SPEC="50 FLAC files, 5 albums of 10, 2 s sine tones, v1"
if ! [[ -f "$EXTRA/spec.txt" && "$(cat "$EXTRA/spec.txt")" == "$EXTRA_SPEC" ]]; then
    log "making the 50 files for the import during the run ($EXTRA)"
    rm -rf "$EXTRA" "$EXTRA.partial"
    for a in 1 2 3 4 5; do
        mkdir -p "$EXTRA.partial/music/Late Arrival $a/Soak Album $a"
        for t in $(seq 1 10); do
            ffmpeg -nostdin -v error -f lavfi -i "sine=frequency=$((200 + 37 * a + 11 * t)):duration=2" -ac 2 \
                -ar 44100 -c:a flac -metadata title="Soak Song $a-$t" -metadata artist="Late Arrival $a" \
                -metadata album_artist="Late Arrival $a" -metadata album="Soak Album $a" -metadata track="$t/10" \
                -metadata date="2024" -metadata genre="Soak" \
                "$EXTRA.partial/music/Late Arrival $a/Soak Album $a/$(printf %02d "$t") Soak Song $a-$t.flac"
        done
    done
    echo "$EXTRA_SPEC" >"$EXTRA.partial/spec.txt"
    mv "$EXTRA.partial" "$EXTRA"
fi
LIBRARY_DESC="corpus.py library, $(jq -r '"\(.audio_files) audio files (\(.duplicates) byte-identical copies) in \(.albums) albums"' "$LIB/expected.json" 2>/dev/null || echo "3000 files") ($LIBRARY_NOTE)"

# --- The daemon's home, processes, cleanup -------------------------------------------------------------------
WORK="$(mktemp -d /tmp/crate-soak.XXXXXX)"
CRATED_PID=""
DRIVER_PID=""
KEEP="$CACHE/soak-last"
cleanup() {
    [[ -z "$DRIVER_PID" ]] || { kill -TERM "$DRIVER_PID" 2>/dev/null || true; wait "$DRIVER_PID" 2>/dev/null || true; }
    stop_pid "$CRATED_PID"
    if [[ -f "$WORK/crated.log" ]]; then
        rm -rf "$KEEP"; mkdir -p "$KEEP"
        cp "$WORK/crated.log" "$KEEP/" 2>/dev/null || true
        cp "$WORK/results.json" "$WORK/meta.txt" "$KEEP/" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd

HOME_DIR="$WORK/home"
mkdir -p "$HOME_DIR/config" "$HOME_DIR/data"
CRATED_PORT="$(free_port)"
MPD_PORT="$(free_port)"
SUBSONIC_PORT="$(free_port)"
while [[ "$MPD_PORT" == "$CRATED_PORT" ]]; do MPD_PORT="$(free_port)"; done
while [[ "$SUBSONIC_PORT" == "$CRATED_PORT" || "$SUBSONIC_PORT" == "$MPD_PORT" ]]; do SUBSONIC_PORT="$(free_port)"; done
CRATE_ENV=(HOME="$HOME_DIR" XDG_CONFIG_HOME="$HOME_DIR/config" CRATE_DATA_DIRECTORY="$HOME_DIR/data"
           CRATE_OUTPUT_PLUGIN=null CRATE_OUTPUTS_NULL_RENDER=false CRATE_MPRIS_ENABLED=false
           CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT" CRATE_MPD_ADDRESS="127.0.0.1:$MPD_PORT"
           CRATE_SUBSONIC_ADDRESS="127.0.0.1:$SUBSONIC_PORT")
crate() { env "${CRATE_ENV[@]}" "$BIN/crate" "$@"; }

LOAD_BEFORE="$(machine_load)"
log "starting crated (HTTP $CRATED_PORT, MPD $MPD_PORT, Subsonic $SUBSONIC_PORT; home $HOME_DIR)"
start_crated
log "importing the library by reference"
t0=$EPOCHREALTIME
crate import --mode reference "$LIB/music" >"$WORK/import.out" 2>&1 || die "the import failed: $(tail -5 "$WORK/import.out")"
IMPORT_SECONDS="$(seconds_since "$t0")"
log "imported in $IMPORT_SECONDS s: $(tail -1 "$WORK/import.out")"
PASSWORD="soak-$RANDOM$RANDOM"
printf '%s\n' "$PASSWORD" | crate users add soak --admin --password-stdin >/dev/null 2>&1 || die "crate users add failed"
cp -r "$EXTRA/music" "$WORK/incoming"

"$PY" Benchmarks/soak.py run --pid "$CRATED_PID" --http "$CRATED_PORT" --mpd "$MPD_PORT" --subsonic "$SUBSONIC_PORT" \
    --password "$PASSWORD" --seconds "$RUN_SECONDS" --import-dir "$WORK/incoming" --import-count 50 \
    --out "$WORK/results.json" &
DRIVER_PID=$!
DRIVER_RC=0
wait "$DRIVER_PID" || DRIVER_RC=$?
DRIVER_PID=""
((DRIVER_RC == 0)) || die "the load driver failed (status $DRIVER_RC); crated's log: $(tail -20 "$WORK/crated.log")"
LOAD_AFTER="$(machine_load)"

log "stopping crated"
CRATED_EXIT=gone
if kill -TERM "$CRATED_PID" 2>/dev/null; then
    CRATED_EXIT=0
    for ((i = 0; i < 300; i++)); do kill -0 "$CRATED_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$CRATED_PID" 2>/dev/null; then
        kill -KILL "$CRATED_PID" 2>/dev/null || true
        CRATED_EXIT="killed after 30 s"
    fi
    wait "$CRATED_PID" || CRATED_EXIT=$?
    [[ "$CRATED_EXIT" != "killed after 30 s" ]] || CRATED_EXIT="hung: killed after 30 s"
fi
CRATED_PID=""
DB="$(find "$HOME_DIR/data" -name '*.sqlite' | head -1)"
INTEGRITY="no database found"
if [[ -n "$DB" ]]; then
    INTEGRITY="$("$PY" -c 'import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchall()
print("; ".join(r[0] for r in rows)[:300])' "$DB" 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
fi
log "integrity_check: $INTEGRITY"

LOG_LINES="$(wc -l <"$WORK/crated.log")"
LOG_ERRORS="$(grep -ciE 'error|fatal|crash|warning' "$WORK/crated.log" || true)"
DIRTY="$(git status --porcelain --untracked-files=no | wc -l)"
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine=$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
    echo "load_before=$LOAD_BEFORE"
    echo "load_after=$LOAD_AFTER"
    echo "commit=$(git log -1 --format=%h)"
    if ((DIRTY)); then echo "dirty=yes"; echo "dirty_detail=$DIRTY tracked files modified"; else echo "dirty=no"; fi
    echo "bin=${BIN#"$ROOT/"}"
    echo "version=$("$BIN/crate" --version 2>/dev/null | head -1)"
    echo "library=$LIBRARY_DESC"
    echo "import_seconds=$IMPORT_SECONDS"
    echo "crated_exit=$CRATED_EXIT"
    echo "integrity=$INTEGRITY"
    echo "log_summary=$LOG_LINES lines, $LOG_ERRORS mentioning error, fatal, crash or warning (kept in ${KEEP#"$ROOT/"}/crated.log)"
} >"$WORK/meta.txt"

REPORT_ARGS=()
((README)) && REPORT_ARGS=(--readme Benchmarks/README.md)
echo
echo "# crated soak test"
echo
RC=0
"$PY" Benchmarks/soak.py report "$WORK/results.json" --meta "$WORK/meta.txt" "${REPORT_ARGS[@]}" || RC=$?
if ((LOG_ERRORS)); then
    log "crated's log lines mentioning error, fatal, crash or warning (first 20):"
    grep -iE 'error|fatal|crash|warning' "$WORK/crated.log" | head -20 >&2
fi
exit "$RC"
