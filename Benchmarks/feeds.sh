#!/usr/bin/env bash
# Feeds benchmark: how long Crate takes to compose the Crate Wall (and a genre feed) on a library of
# 10,000 albums, with and without the Apple catalog, against a loopback catalog (fake_apple.py) that waits
# --latency-ms before every answer. Counts the catalog requests of each compose, the most in flight at once
# and the most in any 1-second window, next to the configured rate limit. Reference rows: the nearest
# thing MPD and beets have (40 random albums) on the same 10,000 albums. Prints Markdown.
#
#   bash Benchmarks/feeds.sh [--runs N] [--cold N] [--latency-ms N] [--rate N] [--genre NAME]
#                            [--corpus DIR] [--crate-bin DIR] [--no-build] [--debug] [--no-mpd] [--no-beets] [--wait-idle]
#
#   --runs N          composes timed on a warm runtime, per case (default 10)
#   --cold N          first composes, each on a fresh runtime (empty catalog cache), per case (default 3)
#   --latency-ms N    the fake catalog's delay before each answer (default 100)
#   --rate N          catalog.requests_per_second for Crate (default: Crate's own default, 20)
#   --genre NAME      the genre feed's genre (default Rock)
#   --corpus DIR      where the collection, Crate's library of it and MPD's and beets' databases are kept
#                     between runs (default /tmp/crate-bench-corpus; shared with search.sh)
#   --crate-bin DIR   where crate and crate-bench are (default .build/release, with --debug .build/debug)
#   --no-build        use the binaries as they are (default: swift build -c release --static-swift-stdlib
#                     --product crate-bench, then crate, under flock /tmp/crate-build.lock)
#   --debug           build and use the debug binaries (.build/debug): slower CPU work, same catalog figures
#   --no-mpd, --no-beets   leave the reference tools out
#   --wait-idle       before timing, wait (up to 10 minutes) for the 1-minute load average to fall below 0.3
#
# The library: search.sh's collection (corpus.py search: 100,000 tiny WAV files in 10,000 album folders, 20
# genre tags), imported once with `crate import --mode reference`, then given plays, likes and dislikes by
# `crate-bench wall --prepare-only` (seeded). Crate: `crate-bench wall` in-process (CrateRuntime from CRATE_*
# variables, FeedService.regenerateWall / .genre), plus `crate wall --json` as whole processes.
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME and awk with a '.' decimal point

SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
source Benchmarks/common.sh
ROOT="$PWD"
RUNS=10
COLD=3
LATENCY_MS=100
RATE=""
GENRE=Rock
CORPUS=/tmp/crate-bench-corpus
CRATE_BIN=""
BUILD=1
CONFIG=release
USE_MPD=1
USE_BEETS=1
WAIT_IDLE=0
ALBUMS=10000   # the collection: 10 tracks an album
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --cold) COLD="${2:?--cold needs a value}"; shift 2 ;;
        --latency-ms) LATENCY_MS="${2:?--latency-ms needs a value}"; shift 2 ;;
        --rate) RATE="${2:?--rate needs a value}"; shift 2 ;;
        --genre) GENRE="${2:?--genre needs a value}"; shift 2 ;;
        --corpus) CORPUS="${2:?--corpus needs a folder}"; shift 2 ;;
        --crate-bin) CRATE_BIN="${2:?--crate-bin needs a folder}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --debug) CONFIG=debug; shift ;;
        --no-mpd) USE_MPD=0; shift ;;
        --no-beets) USE_BEETS=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        -h|--help) sed -n '2,28p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "feeds.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$RUNS" "$COLD" "$LATENCY_MS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "feeds.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
[[ -z "$RATE" || "$RATE" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "feeds.sh: --rate needs a number" >&2; exit 2; }
[[ "$CORPUS" == /* ]] || CORPUS="$ROOT/$CORPUS"
CRATE_BIN="${CRATE_BIN:-.build/$CONFIG}"
[[ "$CRATE_BIN" == /* ]] || CRATE_BIN="$ROOT/$CRATE_BIN"

log() { echo "feeds.sh: $*" >&2; }
RUN_START=$EPOCHREALTIME
NOTES=()
MPD_WHY="left out with --no-mpd"
BEETS_WHY="left out with --no-beets"

# --- Packages (root only; the reference tools are optional) ----------------------------------------
apt_install sqlite3 openssl || die "cannot install sqlite3 and openssl"
command -v python3 >/dev/null || die "python3 not found"
if ((USE_MPD)) && ! apt_install mpd mpc; then USE_MPD=0; MPD_WHY="mpd and mpc are not installed (installing needs root)"; fi
if ((USE_BEETS)) && ! apt_install beets; then USE_BEETS=0; BEETS_WHY="beets is not installed (installing needs root)"; fi

# --- Build -----------------------------------------------------------------------------------------
build_flags=(-c release --static-swift-stdlib)
[[ "$CONFIG" == debug ]] && build_flags=(-c debug)
if ((BUILD)); then
    log "building crate-bench ($CONFIG)"
    flock /tmp/crate-build.lock swift build "${build_flags[@]}" --product crate-bench >&2
    # crate is only needed to import the library (once) and for the whole-process rows.
    log "building crate ($CONFIG)"
    flock /tmp/crate-build.lock swift build "${build_flags[@]}" --product crate >&2 ||
        NOTES+=("building crate failed: the binary in $CRATE_BIN (if any) was used as it was")
fi
SOURCE="commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
git diff --quiet HEAD -- Modules Plugins Apps 2>/dev/null || SOURCE+=" + uncommitted changes"
BENCH="$CRATE_BIN/crate-bench"
CRATE="$CRATE_BIN/crate"
[[ -x "$BENCH" ]] || die "no $BENCH: build it or pass --crate-bin DIR"
"$BENCH" wall --help >/dev/null 2>&1 || die "$BENCH has no wall command: rebuild it"
CRATE_HAS_WALL=0
if [[ -x "$CRATE" ]] && "$CRATE" --help 2>/dev/null | grep -E '^ +wall( |$)' >/dev/null; then CRATE_HAS_WALL=1; fi

# --- Temporary folder, processes, cleanup ----------------------------------------------------------
WORK="$(mktemp -d /tmp/crate-feeds.XXXXXX)"
FAKE_PID=""
MPD_PID=""
cleanup() {
    stop_pid "$FAKE_PID" 5
    stop_pid "$MPD_PID"
    if [[ -n "${CRATE_BENCH_KEEP:-}" ]]; then echo "feeds.sh: kept $WORK (request log, timeline)" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd

ms_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }
stat_of() {   # stat_of median|p90 "values": nearest rank for p90
    tr ' ,' '\n\n' <<<"$2" | awk NF | sort -g | awk -v w="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        if (w == "p90") { i = int(0.9 * NR); if (i < 0.9 * NR) i++; printf "%.1f", v[i] }
        else printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A KV   # KV[case:key] from crate-bench and fake_apple.py key=value lines
LOAD_BEFORE="$(machine_load)"

# --- The collection (search.sh's, cached in CORPUS) ------------------------------------------------
TRACKS=$((ALBUMS * 10))
search_collection "$TRACKS"
declare -A BUILT   # how each tool's database came to be

# --- Crate's library of it (cached next to it) -----------------------------------------------------
# Made again when the collection, the storage or import code, or the preparation changed.
DATA="$CORPUS_DIR.crate-feeds"
DATA_SPEC="$SPEC storage=$(cat Modules/CrateStorage/*.swift Plugins/Sources/LocalFiles/*.swift | sha256sum | cut -c1-16)"
DATA_SPEC+=" prepare=1"   # raise when prepareWallLibrary (WallBench.swift) changes
isolated=(env XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data" CRATE_LOG_LEVEL=warning
          CRATE_HTTP_ADDRESS="127.0.0.1:$(free_port)")   # no daemon there: crate works on the library directly
if [[ -f "$DATA/spec.txt" && "$(cat "$DATA/spec.txt")" == "$DATA_SPEC" && -s "$DATA/library.sqlite" ]]; then
    BUILT[crate]="kept from an earlier run"
else
    [[ -x "$CRATE" ]] || die "no $CRATE to import the library with"
    log "crate import --mode reference ($TRACKS files into $DATA)"
    rm -rf "$DATA"
    t0=$EPOCHREALTIME
    "${isolated[@]}" CRATE_DATA_DIRECTORY="$DATA" "$CRATE" import --mode reference --json "$MUSIC" \
        >"$WORK/crate-import.json" 2>"$WORK/crate-import.err" || die "crate import failed: $(tail -3 "$WORK/crate-import.err")"
    BUILT[crate]="crate import --mode reference: $(seconds_since "$t0") s"
    "${isolated[@]}" "$BENCH" wall --local-only --data-dir "$DATA" --prepare-only >"$WORK/prepare.kv" ||
        die "crate-bench wall --prepare-only failed"
    echo "$DATA_SPEC" >"$DATA/spec.txt"
fi
CRATE_COUNTS="$(sqlite3 "$DATA/library.sqlite" "SELECT (SELECT count(*) FROM album) || ' albums, ' || (SELECT count(*) FROM track) || ' tracks; ' || (SELECT count(*) FROM album WHERE play_count > 0) || ' albums played (' || (SELECT sum(play_count) FROM album) || ' plays), ' || (SELECT count(*) FROM opinion WHERE kind = 'album' AND value = 'favorite') || ' liked, ' || (SELECT count(*) FROM opinion WHERE kind = 'album' AND value = 'dislike') || ' disliked'")"
log "Crate library: ${BUILT[crate]}: $CRATE_COUNTS"

# --- The loopback catalog --------------------------------------------------------------------------
# A fresh P-256 key as PKCS#8 PEM (what `.p8` files from Apple hold), readable by its owner only.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/AuthKey_BENCHKEY01.p8" 2>/dev/null ||
    die "openssl could not make a P-256 key"
chmod 600 "$WORK/AuthKey_BENCHKEY01.p8"
python3 Benchmarks/fake_apple.py serve --latency-ms "$LATENCY_MS" --log "$WORK/requests.jsonl" \
    --port-file "$WORK/fake.port" 2>"$WORK/fake.err" &
FAKE_PID=$!
for ((i = 0; i < 500; i++)); do
    [[ -s "$WORK/fake.port" ]] && break
    kill -0 "$FAKE_PID" 2>/dev/null || die "fake_apple.py did not start: $(tail -3 "$WORK/fake.err")"
    pause_ms 10
done
[[ -s "$WORK/fake.port" ]] || die "fake_apple.py did not start"
FAKE_URL="http://127.0.0.1:$(cat "$WORK/fake.port")"
catalog=(CRATE_SOURCES_APPLECATALOG_BASE_URL="$FAKE_URL" CRATE_SOURCES_APPLECATALOG_TEAM_ID=BENCHTEAM1 CRATE_SOURCES_APPLECATALOG_KEY_ID=BENCHKEY01
         CRATE_SOURCES_APPLECATALOG_KEY_PATH="$WORK/AuthKey_BENCHKEY01.p8" CRATE_SOURCES_APPLECATALOG_USER_TOKEN=bench-music-user-token)
[[ -n "$RATE" ]] && catalog+=(CRATE_SOURCES_APPLECATALOG_REQUESTS_PER_SECOND="$RATE")
log "fake catalog on $FAKE_URL, ${LATENCY_MS} ms before each answer"

# --- Crate, in-process -----------------------------------------------------------------------------
CASES=(local catalog catalog-fast both genre-local genre-both)
declare -A CASE_ARGS=([local]="--local-only" [catalog]="--catalog-only" [catalog-fast]="--catalog-only" [both]="--both"
                      [genre-local]="--local-only --genre $GENRE" [genre-both]="--both --genre $GENRE")
# The same catalog compose with the limit at the setting's maximum: how parallel the fetch is when the
# rate window never holds it back.
declare -A CASE_ENV=([catalog-fast]="CRATE_SOURCES_APPLECATALOG_REQUESTS_PER_SECOND=100")
declare -A CASE_TITLE=([local]="Wall, library only (10,000 albums)" [catalog]="Wall, catalog only (empty library)"
                       [catalog-fast]="Wall, catalog only, limit raised to 100/s" [both]="Wall, library + catalog"
                       [genre-local]="$GENRE feed, library only" [genre-both]="$GENRE feed, library + catalog")
wait_idle 10
LOAD_CRATE="$(machine_load)"
for c in "${CASES[@]}"; do
    log "crate-bench wall: $c ($COLD fresh runtimes, then $RUNS composes)"
    # shellcheck disable=SC2086  # CASE_ARGS and CASE_ENV hold several words on purpose
    "${isolated[@]}" "${catalog[@]}" ${CASE_ENV[$c]:-} "$BENCH" wall ${CASE_ARGS[$c]} --data-dir "$DATA" --cold "$COLD" --runs "$RUNS" \
        --label "$c" --timeline "$WORK/timeline.tsv" >"$WORK/$c.kv" 2>"$WORK/$c.err" || {
        status=$?
        # 132: SIGILL, a Swift trap (release builds of f2ab683–eb06c67 trapped in every compose; README).
        ((status != 132)) || die "crate-bench wall ($c) crashed (SIGILL, a Swift trap): try --debug"
        die "crate-bench wall ($c) failed (status $status): $(tail -3 "$WORK/$c.err")"
    }
    kv "$c" "$WORK/$c.kv"
    [[ -z "${KV[$c:failures]:-}" ]] || NOTES+=("$c: signals failed: ${KV[$c:failures]}")
    pause_ms 500   # the cases' request windows apart
done

# crate wall as a whole process: start-up, library, catalog, JSON out. Rows go into the timeline too, so
# the request counts cover them.
CRATE_PROC=()
declare -A PROC_MS PROC_ALBUMS
if ((CRATE_HAS_WALL)); then
    for c in local both; do
        CRATE_PROC+=("$c")
        extra=(CRATE_DATA_DIRECTORY="$DATA")
        [[ "$c" == local ]] && extra+=(CRATE_SOURCES_ENABLED=localfiles)
        for ((r = 0; r <= 5; r++)); do   # run 0 warms the page cache and is not counted
            t0=$EPOCHREALTIME
            "${isolated[@]}" "${catalog[@]}" "${extra[@]}" "$CRATE" wall --json >"$WORK/crate-wall.json" 2>>"$WORK/crate-wall.err" ||
                { NOTES+=("crate wall ($c) exited with status $?: $(tail -1 "$WORK/crate-wall.err")"); continue; }
            t1=$EPOCHREALTIME
            ((r > 0)) || continue
            n="$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["entries"]; print(len(e), sum(x["source"]=="local" for x in e), sum(x["source"]=="catalog" for x in e))' "$WORK/crate-wall.json")"
            read -r albums nlocal ncatalog <<<"$n"
            PROC_MS[$c]+=" $(ms_between "$t0" "$t1")"
            PROC_ALBUMS[$c]="$albums ($nlocal local, $ncatalog catalog)"
            printf 'proc-%s\tlater\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t0\n' "$c" "$r" "$t0" "$t1" "$(ms_between "$t0" "$t1")" \
                "$albums" "$nlocal" "$ncatalog" >>"$WORK/timeline.tsv"
        done
        pause_ms 500
    done
fi
stop_pid "$FAKE_PID" 5
FAKE_PID=""
python3 Benchmarks/fake_apple.py analyze --log "$WORK/requests.jsonl" --timeline "$WORK/timeline.tsv" \
    --latency-ms "$LATENCY_MS" >"$WORK/analysis.kv" || die "fake_apple.py analyze failed"
kv fake "$WORK/analysis.kv"
FAKE_SUMMARY="$(tail -1 "$WORK/fake.err")"

# --- MPD: list every album, pick 40 ----------------------------------------------------------------
declare -A REF_MS REF_ALBUMS
if ((USE_MPD)); then
    # The database is kept next to the collection; MPD builds a missing one at start-up.
    MPD_DIR="$CORPUS_DIR.mpd"
    MPD_PORT="$(free_port)"
    [[ -f "$MPD_DIR/spec.txt" && "$(cat "$MPD_DIR/spec.txt")" == "$SPEC" ]] || rm -rf "$MPD_DIR"
    write_mpd_config "$MPD_DIR" "$MUSIC" "$MPD_PORT" 'max_output_buffer_size "262144"'
    [[ -s "$MPD_DIR/database" ]] && BUILT[mpd]="kept from an earlier run" || log "MPD: building its database ($TRACKS files)"
    t0=$EPOCHREALTIME
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/stderr.log" 2>&1 &
    MPD_PID=$!
    for ((i = 0; ; i++)); do
        if mpd_request status && [[ "$REPLY_TEXT" == "OK MPD"* && "$REPLY_TEXT" != *updating_db* ]]; then break; fi
        kill -0 "$MPD_PID" 2>/dev/null && ((i < 30000)) || die "MPD did not start: $(tail -5 "$MPD_DIR/mpd.log")"
        pause_ms 10
    done
    [[ -n "${BUILT[mpd]:-}" ]] || BUILT[mpd]="start-up with a database update: $(seconds_since "$t0") s"
    echo "$SPEC" >"$MPD_DIR/spec.txt"
    MPD_ALBUMS="$(mpcc list album | wc -l)"
    wait_idle 10
    LOAD_MPD="$(machine_load)"
    for ((r = 0; r <= 5; r++)); do
        t0=$EPOCHREALTIME
        # shuf reads all of its input: no SIGPIPE for mpc under pipefail.
        mpcc list album | shuf -n 40 >"$WORK/mpd-pick.txt"
        t1=$EPOCHREALTIME
        ((r > 0)) && REF_MS[mpd]+=" $(ms_between "$t0" "$t1")"
    done
    REF_ALBUMS[mpd]="$(wc -l <"$WORK/mpd-pick.txt")"
    stop_mpd
fi

# --- beets: beet random -a -n 40 -------------------------------------------------------------------
if ((USE_BEETS)); then
    # search.sh's beets library of the same collection (importing 100,000 files takes minutes).
    BEETS_LIB="$CORPUS_DIR.beets"
    BEETS_SPEC="$SPEC beets=$(version_of beets)"
    if [[ -f "$BEETS_LIB/spec.txt" && "$(cat "$BEETS_LIB/spec.txt")" == "$BEETS_SPEC" && -s "$BEETS_LIB/beets.db" ]]; then
        BUILT[beets]="kept from an earlier run (search.sh's)"
    else
        log "beets: beet import -A -q ($TRACKS files; minutes)"
        rm -f "$BEETS_LIB/beets.db" "$BEETS_LIB/spec.txt"
        write_beets_config "$BEETS_LIB" no
        t0=$EPOCHREALTIME
        env BEETSDIR="$BEETS_LIB" beet -c "$BEETS_LIB/config.yaml" import -A -q "$MUSIC" >"$WORK/beets-import.log" 2>&1 ||
            die "beet import failed: $(tail -3 "$WORK/beets-import.log")"
        BUILT[beets]="beet import -A -q: $(seconds_since "$t0") s"
        echo "$BEETS_SPEC" >"$BEETS_LIB/spec.txt"
    fi
    # Our own config (the random plugin on) over that library, read only.
    mkdir -p "$WORK/beets"
    printf 'directory: %s\nlibrary: %s\nstatefile: %s\nplugins: [random]\n' "$WORK/beets/folder" "$BEETS_LIB/beets.db" \
        "$WORK/beets/state.pickle" >"$WORK/beets/config.yaml"
    BEETS_ALBUMS="$(sqlite3 "$BEETS_LIB/beets.db" 'SELECT count(*) FROM albums')"
    wait_idle 10
    LOAD_BEETS="$(machine_load)"
    for ((r = 0; r <= 5; r++)); do
        t0=$EPOCHREALTIME
        env BEETSDIR="$WORK/beets" beet random -a -n 40 >"$WORK/beets-pick.txt"
        t1=$EPOCHREALTIME
        ((r > 0)) && REF_MS[beets]+=" $(ms_between "$t0" "$t1")"
    done
    REF_ALBUMS[beets]="$(wc -l <"$WORK/beets-pick.txt")"
    # In-process, what the random plugin does: every album object, then 40 of them.
    REF_MS[beets-api]="$(env BEETSDIR="$WORK/beets" /usr/bin/python3 - "$BEETS_LIB/beets.db" <<'PY'
import os, random, sys, time
if os.path.isdir("/usr/share/beets"):
    sys.path.insert(0, "/usr/share/beets")   # Debian's beets keeps its modules there
from beets.library import Library
lib = Library(sys.argv[1])
times = []
for r in range(6):
    t0 = time.perf_counter()
    picked = random.sample(list(lib.albums()), 40)
    times.append((time.perf_counter() - t0) * 1000)
print(" ".join(f"{t:.1f}" for t in times[1:]))
PY
)"
    REF_ALBUMS[beets-api]=40
fi
LOAD_AFTER="$(machine_load)"

# --- Report ----------------------------------------------------------------------------------------
RATE_SHOWN="${KV[both:requests_per_second]:-20}"
num() { awk -v x="$1" 'BEGIN { printf "%g", x }'; }
num1() { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }
# crate_row CASE KIND LABEL: one row from crate-bench's and the fake's figures.
crate_row() {
    local c="$1" k="$2" med p90 reqs albums flight window sum rtt floor rate
    med="${KV[$c:${k}_median_ms]:-0}"; p90="${KV[$c:${k}_p90_ms]:-0}"
    albums="${KV[$c:${k}_albums_median]:--} (${KV[$c:${k}_local_median]:--} local, ${KV[$c:${k}_catalog_median]:--} catalog)"
    reqs="${KV[fake:${c}_requests_${k}_median]:-0}"
    if [[ "${KV[$c:mode]:-}" == local ]]; then
        echo "| $3 | $albums | $(num1 "$med") | $(num1 "$p90") | 0 | - | - | - | - | - |"
        return
    fi
    sum="$(awk -v n="$reqs" -v l="$LATENCY_MS" 'BEGIN { printf "%g", n * l }')"
    rtt="$(awk -v m="$med" -v l="$LATENCY_MS" 'BEGIN { printf "%.1f", m / l }')"
    rate="${KV[$c:requests_per_second]:-$RATE_SHOWN}"
    # The sliding window lets `rate` requests leave at once: one round trip per full second's worth.
    floor="$(awk -v n="$reqs" -v l="$LATENCY_MS" -v r="$rate" 'BEGIN { printf "%g", (n > 0) ? l + int((n - 1) / int(r)) * 1000 : 0 }')"
    flight="${KV[fake:${c}_max_in_flight]:--}"; window="${KV[fake:${c}_max_per_1s]:--}"
    echo "| $3 | $albums | $(num1 "$med") | $(num1 "$p90") | $(num "$reqs") | $sum | $rtt | $floor | $flight | $window / $(num "$rate") |"
}
echo "# Crate feeds benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average (1/5/15 min): $LOAD_BEFORE before; when timing Crate $LOAD_CRATE, MPD ${LOAD_MPD:--}, beets ${LOAD_BEETS:--}; $LOAD_AFTER after"
echo "- Crate, $CONFIG build ($CRATE_BIN, $SOURCE): $CRATE_COUNTS (${BUILT[crate]})"
echo "- catalog: fake_apple.py on 127.0.0.1, ${LATENCY_MS} ms before every answer; Crate's rate limit catalog.requests_per_second = $(num "$RATE_SHOWN"); $FAKE_SUMMARY"
if ((USE_MPD)); then echo "- $(mpd --version | sed -n 1p), mpc $(version_of mpc): $MPD_ALBUMS distinct album tags (${BUILT[mpd]})"
else echo "- MPD: not measured: $MPD_WHY"; fi
if ((USE_BEETS)); then echo "- beets $(version_of beets): $BEETS_ALBUMS albums (${BUILT[beets]})"
else echo "- beets: not measured: $BEETS_WHY"; fi
echo "- collection $CORPUS_DIR ($CORPUS_NOTE): $TRACKS tiny WAV files in $ALBUMS album folders, 20 genre tags"
echo
echo "Crate: \`crate-bench wall\`, in-process, FeedService as crated uses it. \"first\": the first compose of a fresh"
echo "runtime (median of $COLD: empty catalog cache, storefront lookup, token signing); \"later\": $RUNS more composes"
echo "on the last runtime, back to back (its cache may answer repeated catalog URLs). Requests: median per compose, from"
echo "the fake's log. Floor: what the client's rate window allows at best: one round trip while the requests fit in one"
echo "second's worth, a second more for each further second's worth. In flight: the most over all composes of the row's"
echo "case; per 1 s: the most over the later composes (one client, one rate window; the first composes are separate clients)."
echo
echo "| case | albums on wall | median ms | p90 ms | catalog requests | sum of latencies ms | wall time / round trip | rate-limit floor ms | max in flight | max requests in 1 s / limit |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${CASES[@]}"; do
    crate_row "$c" first "${CASE_TITLE[$c]}: first"
    crate_row "$c" later "${CASE_TITLE[$c]}: later"
done
if [[ -n "${PROC_MS[both]:-}" ]]; then
    p=proc-both
    reqs="${KV[fake:${p}_requests_later_median]:-0}"
    echo "| \`crate wall --json\`, whole process, library + catalog | ${PROC_ALBUMS[both]:--} | $(stat_of median "${PROC_MS[both]}") | $(stat_of p90 "${PROC_MS[both]}") | $reqs | $(awk -v n="$reqs" -v l="$LATENCY_MS" 'BEGIN { printf "%g", n * l }') | - | - | ${KV[fake:${p}_max_in_flight]:--} | - (a client per process) |"
fi
echo
echo "## Library only, next to the nearest equivalents"
echo
echo "Neither MPD nor beets composes a wall; the nearest thing each has is 40 random albums of the same 10,000"
echo "(MPD's albums are distinct album tags). Median and p90 ms of 5 runs after one warm-up; ratio = other / Crate"
echo "of the same kind (whole process against \`crate wall --json\`, in-process against \`crate-bench wall\`;"
echo "> 1: Crate faster)."
echo
echo "| what | albums | median ms | p90 ms | ratio |"
echo "|---|---|---:|---:|---:|"
crate_in="${KV[local:later_median_ms]:-0}"
crate_proc="$(stat_of median "${PROC_MS[local]:-}")"
echo "| Crate wall in-process, \`crate-bench wall --local-only\` (later composes) | ${KV[local:later_albums_median]:--} | $(num1 "$crate_in") | $(num1 "${KV[local:later_p90_ms]:-0}") | 1.00 |"
[[ -z "${PROC_MS[local]:-}" ]] ||
    echo "| Crate wall, \`crate wall --json\`, whole process | ${PROC_ALBUMS[local]:--} | $crate_proc | $(stat_of p90 "${PROC_MS[local]}") | 1.00 |"
if ((USE_MPD)); then
    m="$(stat_of median "${REF_MS[mpd]}")"
    echo "| MPD: \`mpc list album \\| shuf -n 40\`, whole processes | ${REF_ALBUMS[mpd]} | $m | $(stat_of p90 "${REF_MS[mpd]}") | $(ratio "$m" "$crate_proc") |"
fi
if ((USE_BEETS)); then
    b="$(stat_of median "${REF_MS[beets]}")"
    echo "| beets: \`beet random -a -n 40\`, whole process | ${REF_ALBUMS[beets]} | $b | $(stat_of p90 "${REF_MS[beets]}") | $(ratio "$b" "$crate_proc") |"
    b="$(stat_of median "${REF_MS[beets-api]}")"
    echo "| beets library API in-process: \`random.sample(list(lib.albums()), 40)\` | ${REF_ALBUMS[beets-api]} | $b | $(stat_of p90 "${REF_MS[beets-api]}") | $(ratio "$b" "$crate_in") |"
fi
echo
echo "Per case: catalog requests of each compose (first runs; later runs), and what the last page held:"
echo
for c in "${CASES[@]}"; do
    line="- $c: requests ${KV[fake:${c}_requests_first_runs]:--}; ${KV[fake:${c}_requests_later_runs]:--}"
    if [[ "${KV[$c:mode]:-}" != local ]]; then
        line+="; first request after ${KV[fake:${c}_lead_ms_median]:--} ms, compose done ${KV[fake:${c}_tail_ms_median]:--} ms"
        line+=" after the last answer (medians); error answers ${KV[fake:${c}_errors]:-0} ${KV[fake:${c}_error_targets]:-}"
    fi
    echo "$line; last page: ${KV[$c:last_contributions]:-}"
done
if ((${#NOTES[@]})); then
    echo
    echo "Problems seen:"
    echo
    printf -- '- %s\n' "${NOTES[@]}" | sed -n 1,20p
fi
echo
echo "- whole run: $(seconds_since "$RUN_START") s"
