#!/usr/bin/env bash
# Search benchmark: Crate's local full-text search next to MPD's `search any` and beets' queries, on the
# same generated library (100,000 tiny WAV files in 10,000 albums) in the same run. Prints Markdown tables.
#
#   bash Benchmarks/search.sh [--tracks N] [--queries N] [--runs N] [--beets-runs N] [--process-queries N]
#                             [--corpus DIR] [--crate-bin DIR] [--no-build] [--no-mpd] [--no-beets] [--no-sql]
#                             [--wait-idle] [--no-http] [--no-groups] [--kv FILE]
#
#   --tracks N           size of the library (default 100000; 10 tracks an album)
#   --queries N          queries of each class (1, 2 and 3 words; default 100 each)
#   --runs N             timed runs of every query, Crate and MPD (default 3)
#   --beets-runs N       timed runs of every query, beets (default 2: a beets query takes up to seconds)
#   --process-queries N  queries of each class timed as whole processes (crate search, mpc, beet ls; default 5)
#   --corpus DIR         where the collection (and beets' library of it) is kept between runs
#                        (default /tmp/crate-bench-corpus)
#   --crate-bin DIR      where crate and crate-bench are (default .build/release)
#   --no-build           use the binaries as they are (default: swift build -c release --static-swift-stdlib
#                        --product crate, then --product crate-bench, under flock /tmp/crate-build.lock)
#   --no-mpd, --no-beets leave MPD or beets out
#   --no-sql             leave out search_sql.py (the tracks group's SQL and cheaper variants, timed)
#   --wait-idle          before timing each tool, wait (up to 20 minutes) for the 1-minute load average to
#                        fall below 0.3 (the tools are timed one after the other: a busy machine skews the ratios)
#   --no-http            leave out crated over HTTP (`search_clients.py crated`: GET /api/v1/search over one
#                        keep-alive connection, the library crate-bench searched; default: measured)
#   --no-groups          leave out the per-group timings (crate-bench search --groups G)
#   --kv FILE            also write the latency results as key=value lines to FILE (for Benchmarks/compare.sh)
#
# Queries: the first 2-4 letters of 1, 2 or 3 words of one random file's artist, album and title
# (`corpus.py queries`, seeded). Crate: `crate-bench search` on a library made by `crate import --mode
# reference` (in-process, LibraryStore.search, 5 per group), the same through crated's HTTP API over one
# keep-alive connection, and `crate search` as whole processes.
# MPD: Debian's mpd on 127.0.0.1 (null output), queried over one TCP connection (search_clients.py), and
# `mpc search any` processes. beets: `beet import -A -q` once (kept in the corpus folder), queried with its
# library API in one Python process, and `beet ls` processes. Everything else lives in a temporary folder.
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME and awk with a '.' decimal point

SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
# Shared helpers (stop_pid, apt_install, tcp_request, ratio, ...).
source Benchmarks/common.sh
ROOT="$PWD"
TRACKS=100000
QUERIES=100
RUNS=3
BEETS_RUNS=2
PROCESS_QUERIES=5
CORPUS=/tmp/crate-bench-corpus
CRATE_BIN=.build/release
BUILD=1
USE_MPD=1
USE_BEETS=1
USE_SQL=1
WAIT_IDLE=0
USE_HTTP=1
USE_GROUPS=1
KV_OUT=""
while (($#)); do
    case "$1" in
        --tracks) TRACKS="${2:?--tracks needs a value}"; shift 2 ;;
        --queries) QUERIES="${2:?--queries needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --beets-runs) BEETS_RUNS="${2:?--beets-runs needs a value}"; shift 2 ;;
        --process-queries) PROCESS_QUERIES="${2:?--process-queries needs a value}"; shift 2 ;;
        --corpus) CORPUS="${2:?--corpus needs a folder}"; shift 2 ;;
        --crate-bin) CRATE_BIN="${2:?--crate-bin needs a folder}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-mpd) USE_MPD=0; shift ;;
        --no-beets) USE_BEETS=0; shift ;;
        --no-sql) USE_SQL=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --no-http) USE_HTTP=0; shift ;;
        --no-groups) USE_GROUPS=0; shift ;;
        --kv) KV_OUT="${2:?--kv needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,36p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "search.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$TRACKS" "$QUERIES" "$RUNS" "$BEETS_RUNS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "search.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
[[ "$PROCESS_QUERIES" =~ ^[0-9]+$ ]] || { echo "search.sh: --process-queries needs a whole number" >&2; exit 2; }
((TRACKS >= 100)) || { echo "search.sh: --tracks starts at 100" >&2; exit 2; }
((PROCESS_QUERIES <= QUERIES)) || PROCESS_QUERIES=$QUERIES
[[ "$CORPUS" == /* ]] || CORPUS="$ROOT/$CORPUS"
[[ "$CRATE_BIN" == /* ]] || CRATE_BIN="$ROOT/$CRATE_BIN"
[[ -z "$KV_OUT" || "$KV_OUT" == /* ]] || KV_OUT="$ROOT/$KV_OUT"

log() { echo "search.sh: $*" >&2; }
RUN_START=$EPOCHREALTIME
MPD_WHY="left out with --no-mpd"
BEETS_WHY="left out with --no-beets"
NOTES=()

# --- Debian packages, installed only when missing (root only) --------------------------------------
apt_install sqlite3 || die "cannot install sqlite3"
if ((USE_MPD)) && ! apt_install mpd mpc; then
    USE_MPD=0; MPD_WHY="mpd and mpc are not installed and could not be installed (installing needs root)"
fi
# beets brings python3-mutagen with it; the collection itself is written by plain Python.
if ((USE_BEETS)) && ! apt_install beets; then
    USE_BEETS=0; BEETS_WHY="beets is not installed and could not be installed (installing needs root)"
fi
command -v python3 >/dev/null || die "python3 not found"

# --- Build -----------------------------------------------------------------------------------------
if ((BUILD)); then
    for product in crate crate-bench $( ((USE_HTTP)) && echo crated); do
        log "building $product (release)"
        flock /tmp/crate-build.lock swift build -c release --static-swift-stdlib --product "$product" >&2
    done
fi
# The source the binaries were built from (with --no-build: the tree as it is now).
SOURCE="commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
git diff --quiet HEAD -- Modules Plugins Apps 2>/dev/null || SOURCE+=" + uncommitted changes"
CRATE="$CRATE_BIN/crate"
BENCH="$CRATE_BIN/crate-bench"
[[ -x "$CRATE" && -x "$BENCH" ]] || die "no $CRATE or $BENCH: build them or pass --crate-bin DIR"
"$BENCH" --help 2>/dev/null | grep 'crate-bench search' >/dev/null || die "$BENCH has no search command: rebuild it"
HTTP_WHY="left out with --no-http"
if ((USE_HTTP)) && [[ ! -x "$CRATE_BIN/crated" ]]; then
    USE_HTTP=0; HTTP_WHY="no $CRATE_BIN/crated (swift build -c release --product crated)"
fi
CRATE_HAS_SEARCH=0
if "$CRATE" --help 2>/dev/null | grep -E '^ +search( |$)' >/dev/null; then CRATE_HAS_SEARCH=1; fi

# --- Temporary folder, processes, cleanup ----------------------------------------------------------
WORK="$(mktemp -d /tmp/crate-search.XXXXXX)"
MPD_PID=""
CRATED_PID=""
cleanup() {
    stop_pid "$MPD_PID"
    stop_pid "$CRATED_PID"
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd


# KV[ENGINE:key], filled by kv (common.sh) from crate-bench / search_clients.py key=value lines.
declare -A KV

# process_times NAME COMMAND...: runs COMMAND once per query of the first PROCESS_QUERIES of each class,
# the query's words as its last arguments, 3 times each, output discarded; PT[NAME:wordsN] = "ms ms ...".
declare -A PT
process_times() {
    local name="$1" q n t0 r
    shift
    for q in "${PROCESS_LIST[@]}"; do
        read -r -a words <<<"$q"
        n=${#words[@]}
        for ((r = 0; r < 3; r++)); do
            now_us; t0=$NOW_US
            "$@" "${words[@]}" >/dev/null 2>>"$WORK/$name.err" || NOTES+=("$name '$q' exited with status $?")
            now_us
            PT[$name:words$n]+=" $(awk -v u="$((NOW_US - t0))" 'BEGIN { printf "%.1f", u / 1000 }')"
        done
    done
}
stat_of() {   # stat_of median|max "values"
    tr ' ' '\n' <<<"$2" | awk NF | sort -g | awk -v w="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        if (w == "max") printf "%.1f", v[NR]; else printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

LOAD_BEFORE="$(machine_load)"

# --- The collection and the queries (cached in CORPUS) ---------------------------------------------
GENERATOR="$ROOT/Benchmarks/corpus.py"
search_collection "$TRACKS"
python3 "$GENERATOR" queries --from "$CORPUS_DIR" --count "$QUERIES" --seed 1 >"$WORK/queries.txt"
# The whole-process rows use the first PROCESS_QUERIES queries of each class.
mapfile -t PROCESS_LIST < <(awk -v k="$PROCESS_QUERIES" '{ n = NF; if (++seen[n] <= k) print }' "$WORK/queries.txt")
log "warming the page cache"
find "$MUSIC" -type f -exec cat {} + >/dev/null
declare -A IMPORT   # what building each tool's database took

# --- Crate -----------------------------------------------------------------------------------------
CRATE_DATA="$WORK/crate-data"
crate_env=(env CRATE_DATA_DIRECTORY="$CRATE_DATA" CRATE_IMPORT_MODE=reference
           XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data")
log "crate import --mode reference ($TRACKS files)"
t0=$EPOCHREALTIME
"${crate_env[@]}" "$CRATE" import --mode reference --json "$MUSIC" >"$WORK/crate-import.json" 2>"$WORK/crate-import.err" ||
    die "crate import failed: $(tail -3 "$WORK/crate-import.err")"
IMPORT[crate]="$(seconds_since "$t0") s"
CRATE_DB="$CRATE_DATA/library.sqlite"
CRATE_COUNTS="$(sqlite3 "$CRATE_DB" "SELECT (SELECT count(*) FROM track) || ' tracks, ' || (SELECT count(*) FROM album) || ' albums, ' || (SELECT count(*) FROM artist) || ' artists'")"
log "  ${IMPORT[crate]}: $CRATE_COUNTS"
wait_idle 20
LOAD_CRATE="$(machine_load)"
log "crate-bench search: ${RUNS} runs of $((QUERIES * 3)) queries"
"$BENCH" search --db "$CRATE_DB" --queries "$WORK/queries.txt" --runs "$RUNS" --per-query "$WORK/crate-per-query.tsv" \
    >"$WORK/crate.kv" || die "crate-bench search failed"
kv crate "$WORK/crate.kv"
if ((USE_HTTP)); then
    # crated on the same library (null output, its other front ends on free ports), asked over one connection.
    BIN="$CRATE_BIN"
    CRATED_PORT="$(free_port)"
    CRATE_ENV=(CRATE_DATA_DIRECTORY="$CRATE_DATA" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT"
               CRATE_MPD_ADDRESS="127.0.0.1:$(free_port)" CRATE_SUBSONIC_ADDRESS="127.0.0.1:$(free_port)"
               CRATE_OUTPUT_PLUGIN=null XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data")
    start_crated
    # What crated does once after starting on a library (the wall, the MPD database snapshot, artwork checks) is
    # not search: the queries start once it has used no CPU for 2 s, as the in-process and MPD runs do.
    idle_rss "$CRATED_PID" 180
    log "crated quiet after ${IDLE_WAITED} s"
    wait_idle 20
    LOAD_HTTP="$(machine_load)"
    log "crated over HTTP: ${RUNS} runs of $((QUERIES * 3)) queries over one keep-alive connection"
    python3 Benchmarks/search_clients.py crated --port "$CRATED_PORT" --queries "$WORK/queries.txt" --runs "$RUNS" \
        >"$WORK/http.kv" || die "the crated HTTP client failed; crated's log: $(tail -5 "$WORK/crated.log")"
    kv http "$WORK/http.kv"
    stop_crated
fi
# Where the time goes: each group alone.
GROUP_LIST=()
if ((USE_GROUPS)); then GROUP_LIST=(artists albums tracks playlists lyrics); fi
for g in "${GROUP_LIST[@]}"; do
    "$BENCH" search --db "$CRATE_DB" --queries "$WORK/queries.txt" --runs "$RUNS" --groups "$g" >"$WORK/crate-$g.kv" ||
        die "crate-bench search --groups $g failed"
    kv "crate-$g" "$WORK/crate-$g.kv"
done
if ((USE_SQL)); then
    log "search_sql.py: the tracks group's statements"
    /usr/bin/python3 Benchmarks/search_sql.py "$CRATE_DB" "$WORK/queries.txt" --runs 3 >"$WORK/sql.md" ||
        die "search_sql.py failed"
fi
if ((CRATE_HAS_SEARCH)); then
    log "crate search: whole processes"
    process_times crate "${crate_env[@]}" "$CRATE" search
fi

# --- MPD -------------------------------------------------------------------------------------------
if ((USE_MPD)); then
    MPD_DIR="$WORK/mpd"
    MPD_PORT="$(free_port)"
    # A search answer lists every matching song: up to tens of MB, more than the default 8 MiB buffer.
    write_mpd_config "$MPD_DIR" "$MUSIC" "$MPD_PORT" 'max_output_buffer_size "262144"'
    log "MPD: building its database of $TRACKS files"
    t0=$EPOCHREALTIME
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/stderr.log" 2>&1 &
    MPD_PID=$!
    # With no database MPD starts an update by itself; wait until it answers and that update is done.
    for ((i = 0; ; i++)); do
        if mpd_request status && [[ "$REPLY_TEXT" == "OK MPD"* && "$REPLY_TEXT" != *updating_db* ]]; then break; fi
        kill -0 "$MPD_PID" 2>/dev/null && ((i < 60000)) || die "MPD did not start: $(tail -5 "$MPD_DIR/mpd.log")"
        pause_ms 10
    done
    mpcc update --wait >/dev/null
    IMPORT[mpd]="$(seconds_since "$t0") s"
    MPD_SONGS="$(mpcc stats | awk '$1 == "Songs:" { print $2 }')"
    log "  ${IMPORT[mpd]}: $MPD_SONGS songs"
    wait_idle 20
    LOAD_MPD="$(machine_load)"
    log "MPD: $RUNS runs of $((QUERIES * 3)) queries over one connection"
    python3 Benchmarks/search_clients.py mpd --port "$MPD_PORT" --queries "$WORK/queries.txt" --runs "$RUNS" \
        --per-query "$WORK/mpd-per-query.tsv" >"$WORK/mpd.kv" || die "the MPD client failed"
    kv mpd "$WORK/mpd.kv"
    python3 Benchmarks/search_clients.py mpd --port "$MPD_PORT" --queries "$WORK/queries.txt" --runs "$RUNS" \
        --window 0:5 >"$WORK/mpd5.kv" || die "the MPD client failed"
    kv mpd5 "$WORK/mpd5.kv"
    # mpc search any w1 [any w2 ...]: the query's words as type/value pairs.
    mpc_search() { local args=() w; for w in "$@"; do args+=(any "$w"); done; mpcc search "${args[@]}"; }
    log "mpc search any: whole processes"
    process_times mpc mpc_search
    stop_mpd
fi

# --- beets -----------------------------------------------------------------------------------------
if ((USE_BEETS)); then
    # beets' library of the collection is kept next to it: importing 100,000 files takes minutes.
    BEETS_DIR="$CORPUS_DIR.beets"
    BEETS_SPEC="$SPEC beets=$(version_of beets)"
    write_beets_config "$BEETS_DIR" no
    beet_cmd() { env BEETSDIR="$BEETS_DIR" beet -c "$BEETS_DIR/config.yaml" "$@"; }
    if [[ -f "$BEETS_DIR/spec.txt" && "$(cat "$BEETS_DIR/spec.txt")" == "$BEETS_SPEC" && -s "$BEETS_DIR/beets.db" ]]; then
        IMPORT[beets]="kept from an earlier run"
    else
        log "beets: beet import -A -q ($TRACKS files; minutes)"
        rm -f "$BEETS_DIR/beets.db" "$BEETS_DIR/spec.txt"
        t0=$EPOCHREALTIME
        beet_cmd import -A -q "$MUSIC" >"$WORK/beets-import.log" 2>&1 || die "beet import failed: $(tail -3 "$WORK/beets-import.log")"
        IMPORT[beets]="$(seconds_since "$t0") s"
        echo "$BEETS_SPEC" >"$BEETS_DIR/spec.txt"
    fi
    BEETS_ITEMS="$(sqlite3 "$BEETS_DIR/beets.db" 'SELECT count(*) FROM items')"
    log "  beets: ${IMPORT[beets]}: $BEETS_ITEMS items"
    wait_idle 20
    LOAD_BEETS="$(machine_load)"
    log "beets: $BEETS_RUNS runs of $((QUERIES * 3)) queries in one process"
    env BEETSDIR="$BEETS_DIR" /usr/bin/python3 Benchmarks/search_clients.py beets --db "$BEETS_DIR/beets.db" \
        --queries "$WORK/queries.txt" --runs "$BEETS_RUNS" --per-query "$WORK/beets-per-query.tsv" >"$WORK/beets.kv" ||
        die "the beets client failed"
    kv beets "$WORK/beets.kv"
    env BEETSDIR="$BEETS_DIR" /usr/bin/python3 Benchmarks/search_clients.py beets --db "$BEETS_DIR/beets.db" \
        --queries "$WORK/queries.txt" --runs "$BEETS_RUNS" --first 5 >"$WORK/beets5.kv" || die "the beets client failed"
    kv beets5 "$WORK/beets5.kv"
    log "beet ls: whole processes"
    process_times beet beet_cmd ls
fi
LOAD_AFTER="$(machine_load)"

# --- Report ----------------------------------------------------------------------------------------
row() {   # row WORDS LABEL ENGINE RUNS: p50, p99, ratios to Crate in-process, median matches
    local w="words$1" p50 p99
    p50="${KV[$3:${w}_p50_ms]:--}"; p99="${KV[$3:${w}_p99_ms]:--}"
    echo "| $1 | $2 | $4 | $p50 | $p99 | $(ratio "$p50" "${KV[crate:${w}_p50_ms]}") | $(ratio "$p99" "${KV[crate:${w}_p99_ms]}") |"
}
echo "# Crate search benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average (1/5/15 min): $LOAD_BEFORE before; when timing Crate ${LOAD_CRATE:-}, crated over HTTP ${LOAD_HTTP:--}, MPD ${LOAD_MPD:--}, beets ${LOAD_BEETS:--}; $LOAD_AFTER after"
echo "- Crate $("$CRATE" --version 2>/dev/null || echo '?') ($CRATE_BIN, $SOURCE), system SQLite $(/usr/bin/python3 -c 'import sqlite3; print(sqlite3.sqlite_version)'); library: $CRATE_COUNTS"
if ((USE_MPD)); then
    echo "- $(mpd --version | head -1), mpc $(version_of mpc); $MPD_SONGS songs"
else
    echo "- MPD: not measured: $MPD_WHY"
fi
if ((USE_BEETS)); then
    echo "- beets $(version_of beets) (Debian), Python $(/usr/bin/python3 -c 'import platform; print(platform.python_version())'); $BEETS_ITEMS items"
else
    echo "- beets: not measured: $BEETS_WHY"
fi
echo "- collection $CORPUS_DIR ($CORPUS_NOTE): $TRACKS tiny WAV files, 10 per album folder, RIFF INFO + ID3 tags"
echo "- databases built in: Crate ${IMPORT[crate]} (crate import --mode reference); MPD ${IMPORT[mpd]:--} (start-up + update); beets ${IMPORT[beets]:--} (beet import -A -q)"
echo "- queries: $QUERIES per class (1, 2, 3 words), the first 2-4 letters of words of one random file's tags"
echo
echo "## Latency per query"
echo
echo "Milliseconds per query, warm (every query ran once before). p50 and p99 over all runs of the class's"
echo "queries (nearest rank). ratio = other / Crate in-process (> 1: Crate is faster)."
echo
echo "- Crate: \`crate-bench search\`: \`LibraryStore.search(SearchQuery.parse(q), text: q)\` in-process: every group"
echo "  (artists, albums, tracks, playlists, lyrics), each its total count and first 5, as the search box asks."
echo "- crated over HTTP: the same library served by a release crated, \`GET /api/v1/search?q=…&scope=local\` over one"
echo "  keep-alive connection (Python's http.client), timed until the whole JSON answer is read and parsed."
echo "- MPD: one persistent TCP connection, request sent until the whole answer is read (Python client):"
echo "  \`search any \"w\"\` or \`search \"((any contains 'w1') AND (any contains 'w2'))\"\`: every matching song;"
echo "  \"first 5\" adds \`window 0:5\`."
echo "- beets: its library API in one Python process: \`list(lib.items(\"w1 w2\"))\` (what \`beet ls\` fetches);"
echo "  \"count + first 5\": \`len()\` of the results and only the first 5 made into items."
echo
echo "| words | engine | samples | p50 ms | p99 ms | ratio p50 | ratio p99 |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for n in 1 2 3; do
    row "$n" "Crate in-process (all groups, 5 each)" crate "${KV[crate:words${n}_samples]:--}"
    if ((USE_HTTP)); then row "$n" "crated over HTTP keep-alive (all groups, 5 each)" http "${KV[http:words${n}_samples]:--}"; fi
    if ((USE_MPD)); then
        row "$n" "MPD, all matches" mpd "${KV[mpd:words${n}_samples]:--}"
        row "$n" "MPD, first 5 (window 0:5)" mpd5 "${KV[mpd5:words${n}_samples]:--}"
    fi
    if ((USE_BEETS)); then
        row "$n" "beets, all matches" beets "${KV[beets:words${n}_samples]:--}"
        row "$n" "beets, count + first 5" beets5 "${KV[beets5:words${n}_samples]:--}"
    fi
done
echo
echo "## Matches"
echo
echo "Median (mean) per query. Crate matches word prefixes in artist, album and title (and playlist names,"
echo "lyrics); MPD and beets match substrings of tag values (\"lo\" also finds \"hello\", \"gloria\"), and also"
echo "look in genre (both) and date (MPD), so they find more. Crate's tracks group is the one to compare."
echo
echo "| words | Crate artists | Crate albums | Crate tracks | MPD songs | beets items | Crate queries with no match |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in 1 2 3; do
    w="words$n"
    cell() { echo "${KV[$1:${w}_$2_median]:--} (${KV[$1:${w}_$2_mean]:--})"; }
    echo "| $n | $(cell crate artists) | $(cell crate albums) | $(cell crate tracks) | $(cell mpd matches) | $(cell beets matches) | ${KV[crate:${w}_empty]:--} |"
done
echo
((USE_HTTP)) || { echo; echo "crated over HTTP: not measured: $HTTP_WHY."; }
echo
echo "## Where Crate's time goes: one group at a time"
echo
echo "\`crate-bench search --groups G\`, same queries and runs; p50 / p99 ms. Each group counts its matches"
echo "and picks its first 5 (by bm25; since 748353a in library order when more than 1,000 match)."
echo
echo "| words | all groups | artists | albums | tracks | playlists | lyrics |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for n in 1 2 3; do
    line="| $n | ${KV[crate:words${n}_p50_ms]} / ${KV[crate:words${n}_p99_ms]}"
    for g in artists albums tracks playlists lyrics; do line+=" | ${KV[crate-$g:words${n}_p50_ms]:--} / ${KV[crate-$g:words${n}_p99_ms]:--}"; done
    echo "$line |"
done
echo
if ((USE_SQL)); then
    echo "The tracks group's statements alone and their variants (\`search_sql.py\`: Python's sqlite3 on a copy of"
    echo "the library, the same system SQLite; with a copy of track_fts with or without an FTS5 prefix index):"
    echo
    cat "$WORK/sql.md"
    echo
fi
echo "Slowest queries for Crate (median ms, max ms, artists, albums, tracks matched, query):"
echo
echo '```'
sort -t$'\t' -k1,1 -g -r "$WORK/crate-per-query.tsv" | sed -n 1,8p   # sed reads it all: no SIGPIPE under pipefail
echo '```'
echo
echo "## Whole processes"
echo
echo "The first $PROCESS_QUERIES queries of each class, 3 times each, as whole processes (start-up, opening the"
echo "library or connecting, printing); wall clock in ms; ratio = other / \`crate search\`."
echo
echo "| words | command | median ms | max ms | ratio |"
echo "|---:|---|---:|---:|---:|"
for n in 1 2 3; do
    c="$(stat_of median "${PT[crate:words$n]:-}")"
    if ((CRATE_HAS_SEARCH)); then echo "| $n | \`crate search W…\` | $c | $(stat_of max "${PT[crate:words$n]:-}") | 1.00 |"; fi
    if ((USE_MPD)); then
        m="$(stat_of median "${PT[mpc:words$n]:-}")"
        echo "| $n | \`mpc search any W [any W…]\` | $m | $(stat_of max "${PT[mpc:words$n]:-}") | $(ratio "$m" "$c") |"
    fi
    if ((USE_BEETS)); then
        b="$(stat_of median "${PT[beet:words$n]:-}")"
        echo "| $n | \`beet ls W…\` | $b | $(stat_of max "${PT[beet:words$n]:-}") | $(ratio "$b" "$c") |"
    fi
done
((CRATE_HAS_SEARCH)) || echo "(\`crate search\` is not in this build of crate: no Crate whole-process row.)"
if ((${#NOTES[@]})); then
    echo
    echo "## Problems seen"
    echo
    printf -- '- %s\n' "${NOTES[@]}" | sed -n 1,20p
fi
echo
echo "- whole run: $(seconds_since "$RUN_START") s"

# --- Machine-readable results (compare.sh) -----------------------------------------------------------
if [[ -n "$KV_OUT" ]]; then
    {
        echo "tracks=$TRACKS"
        echo "queries=$QUERIES"
        echo "runs=$RUNS"
        echo "load_before=$LOAD_BEFORE"
        echo "load_after=$LOAD_AFTER"
        echo "http_why=$( ((USE_HTTP)) || echo "$HTTP_WHY")"
        echo "mpd_why=$( ((USE_MPD)) || echo "$MPD_WHY")"
        echo "crate_counts=$CRATE_COUNTS"
        for engine in crate http mpd mpd5; do
            for n in 1 2 3; do
                for stat in p50 p99; do echo "${engine}_words${n}_${stat}_ms=${KV[$engine:words${n}_${stat}_ms]:--}"; done
                echo "${engine}_words${n}_samples=${KV[$engine:words${n}_samples]:--}"
            done
        done
    } >"$KV_OUT"
fi
