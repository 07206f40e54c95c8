#!/usr/bin/env bash
# Issue 30's goal table in one run: every row as Crate / anchor, the anchor (MPD, `find`, the 0.5 s goal in Chromium)
# measured in the same run, the machine's load before and after; the table goes into Benchmarks/README.md between
# <!-- compare:begin --> and <!-- compare:end --> (replaced in place on every run).
#
#   bash Benchmarks/compare.sh [--quick] [--wait-idle] [--no-readme | --readme] [--only PARTS] [--out DIR]
#   make bench                  # the same, full sizes
#
#   --quick       small sizes and few runs, to try the harness (a few minutes): marked QUICK in the output, not a goal
#                 run, and the README is left alone unless --readme is given
#   --wait-idle   before each timed part, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#   --no-readme   print the table only; --readme writes it even after --quick or --only
#   --only PARTS  comma-separated, of: library (import, rescan, idle memory), search, play, wake, web
#                 (default all; a partial run leaves the README alone unless --readme)
#   --out DIR     where each script's full report and key=value results go (default .build/bench-compare/DATE)
#
# It measures nothing itself: it runs the benchmark scripts with --kv FILE and reads their results.
#   library.sh --kind library --sizes 3000   the corpus generator's albums with covers, every format (cached corpus)
#   library.sh --kind search --sizes 100000  the 100,000 tiny WAVs of search.sh (cached corpus)
#       fresh import (crate import --mode reference vs mpc update --wait on an empty database), no-change rescan
#       (crate rescan vs mpc update --wait; `find` listing every file's size and mtime beside it as the floor), idle
#       daemon memory (crated vs MPD started on that library, VmRSS once quiet)
#   search.sh --tracks 100000                crated's GET /api/v1/search over one keep-alive connection, p99 per
#                                            1, 2 and 3 words; MPD's `search any` on the same queries beside it
#   player.sh --outputs pulse,pulse20        play latency on a private PulseAudio (null sink), crated vs MPD: `play` on
#                                            the queue held, and the queue replaced by an album and played
#   mpd.sh --idle-clients 200                200 clients in `idle`, one change, until the last is answered
#   web.sh --albums 10000 --fresh-import     the first screen in Chromium right after an import (cold) and warm,
#                                            and the sizes of the wall/more answers while scrolling
# `make test` is not run here: its row shows what Benchmarks/make-test-time.txt records (key=value lines: minutes,
# date, commit, how), or says it was not measured.
#
# Binaries: .build/release/{crate,crated,crate-bench} as they are; a missing one is built first (release, static Swift
# runtime, under flock /tmp/crate-build.lock). Every script is called with --no-build.
set -euo pipefail
export LC_ALL=C

SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
source Benchmarks/common.sh
ROOT="$PWD"
log() { echo "compare.sh: $*" >&2; }

QUICK=0
WAIT_IDLE=0
README=auto
ONLY=library,search,play,wake,web
OUT=""
while (($#)); do
    case "$1" in
        --quick) QUICK=1; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --no-readme) README=no; shift ;;
        --readme) README=yes; shift ;;
        --only) ONLY="${2:?--only needs a list}"; shift 2 ;;
        --out) OUT="${2:?--out needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,33p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "compare.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
declare -A PART=()
IFS=, read -r -a parts <<<"$ONLY"
for p in "${parts[@]}"; do
    [[ "$p" =~ ^(library|search|play|wake|web)$ ]] || { echo "compare.sh: unknown part '$p' (library, search, play, wake, web)" >&2; exit 2; }
    PART[$p]=1
done
ALL_PARTS=1
for p in library search play wake web; do [[ -n "${PART[$p]:-}" ]] || ALL_PARTS=0; done
if [[ "$README" == auto ]]; then
    if ((QUICK == 0 && ALL_PARTS)); then README=yes; else README=no; fi
fi

# --- Sizes: the goal run, or --quick ---------------------------------------------------------------------------------
if ((QUICK)); then
    LIB_SIZE=3000 BIG_SIZE=10000 LIB_RUNS=1
    SEARCH_TRACKS=10000 SEARCH_QUERIES=20 SEARCH_RUNS=1
    PLAY_RUNS=5 WAKE_TRACKS=2000 WAKE_RUNS=3 WEB_ALBUMS=1000 WEB_RUNS=2 WEB_SCROLL=1000
else
    LIB_SIZE=3000 BIG_SIZE=100000 LIB_RUNS=3
    SEARCH_TRACKS=100000 SEARCH_QUERIES=100 SEARCH_RUNS=3
    PLAY_RUNS=20 WAKE_TRACKS=10000 WAKE_RUNS=10 WEB_ALBUMS=10000 WEB_RUNS=5 WEB_SCROLL=1000
fi
IDLE_CLIENTS=200
WAIT_ARGS=()
((WAIT_IDLE)) && WAIT_ARGS=(--wait-idle)

STAMP="$(date -u '+%Y%m%d-%H%M%S')"
OUT="${OUT:-.build/bench-compare/$STAMP}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
RUN_START=$EPOCHREALTIME

# --- Binaries: as they are; a missing one built under the lock -------------------------------------------------------
BIN=.build/release
for product in crate crated crate-bench; do
    if [[ ! -x "$BIN/$product" ]]; then
        log "no $BIN/$product: building it (release)"
        flock /tmp/crate-build.lock swift build -c release --static-swift-stdlib --product "$product" >&2
    fi
done
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
SOURCE="commit $COMMIT"
git diff --quiet HEAD -- Modules Plugins Apps Package.swift 2>/dev/null || SOURCE+=" + uncommitted changes in the tree"
NEWEST_BIN="$(stat -c %Y "$BIN/crate" "$BIN/crated" "$BIN/crate-bench" | sort -n | tail -1)"
OLDEST_BIN="$(stat -c %Y "$BIN/crate" "$BIN/crated" "$BIN/crate-bench" | sort -n | head -1)"
BIN_DATES="binaries built $(date -u -d "@$OLDEST_BIN" '+%Y-%m-%d %H:%M')–$(date -u -d "@$NEWEST_BIN" '+%H:%M UTC')"
HEAD_TIME="$(git log -1 --format=%ct 2>/dev/null || echo 0)"
((OLDEST_BIN >= HEAD_TIME)) || BIN_DATES+=" (one is older than the commit: rebuild to measure the commit)"

LOAD_BEFORE="$(machine_load)"
log "load $LOAD_BEFORE; $SOURCE; reports in $OUT"
declare -A KV=()
declare -A FAILED=()   # part -> why

# run_part NAME KV-NAME SCRIPT ARGS...: runs one benchmark script, its report to OUT/NAME.md and its log to
# OUT/NAME.log, its key=value results read into KV[KV-NAME:key]; a failure is recorded, not fatal.
run_part() {
    local name="$1" kvname="$2" script="$3" t0
    shift 3
    log "$name: bash Benchmarks/$script $*"
    t0=$EPOCHREALTIME
    if bash "Benchmarks/$script" "$@" --kv "$OUT/$name.kv" >"$OUT/$name.md" 2>"$OUT/$name.log"; then
        kv "$kvname" "$OUT/$name.kv"
        log "  done in $(seconds_since "$t0") s"
    else
        FAILED[$kvname]="Benchmarks/$script failed (exit $?): $(tail -1 "$OUT/$name.log")"
        log "  FAILED: ${FAILED[$kvname]} (log: $OUT/$name.log)"
    fi
}

if [[ -n "${PART[library]:-}" ]]; then
    common=(--runs "$LIB_RUNS" --no-beets --no-big --no-build "${WAIT_ARGS[@]}")
    run_part "library-$LIB_SIZE" lib library.sh --kind library --sizes "$LIB_SIZE" "${common[@]}"
    run_part "search-$BIG_SIZE-library" big library.sh --kind search --sizes "$BIG_SIZE" "${common[@]}"
fi
if [[ -n "${PART[search]:-}" ]]; then
    run_part "search-$SEARCH_TRACKS" search search.sh --tracks "$SEARCH_TRACKS" --queries "$SEARCH_QUERIES" \
        --runs "$SEARCH_RUNS" --process-queries 0 --no-beets --no-sql --no-groups --no-build "${WAIT_ARGS[@]}"
fi
if [[ -n "${PART[play]:-}" ]]; then
    run_part player play player.sh --runs "$PLAY_RUNS" --outputs pulse,pulse20 --no-queue --no-build "${WAIT_ARGS[@]}"
fi
if [[ -n "${PART[wake]:-}" ]]; then
    run_part mpd-protocol wake mpd.sh --tracks "$WAKE_TRACKS" --runs "$WAKE_RUNS" --idle-clients "$IDLE_CLIENTS" \
        --no-build "${WAIT_ARGS[@]}"
fi
if [[ -n "${PART[web]:-}" ]]; then
    wait_idle 20   # web.sh has no --wait-idle of its own
    run_part "web-$WEB_ALBUMS" web web.sh --albums "$WEB_ALBUMS" --runs "$WEB_RUNS" --scroll "$WEB_SCROLL" --fresh-import --no-build
fi
LOAD_AFTER="$(machine_load)"

# --- The table -------------------------------------------------------------------------------------------------------
# v NAME KEY: a result, or "-" when missing or empty.
v() { local x="${KV[$1:$2]:-}"; [[ -n "$x" ]] && printf '%s' "$x" || printf '%s' "-"; }
num() { [[ "$1" =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
# met VALUE OP LIMIT: yes / no, or - when VALUE is not a number.
met() { num "$1" || { printf '%s' "-"; return; }; awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { ok = (op == "<") ? a < b : a <= b; printf "%s", ok ? "yes" : "no" }'; }
fmt() { num "$1" && awk -v a="$1" -v d="${2:-2}" 'BEGIN { printf "%.*f", d, a }' || printf '%s' "$1"; }
ROWS=()
NOTES=()
MET_YES=0 MET_NO=0 MET_NONE=0
# row MEASURE CRATE ANCHOR RATIO GOAL MET BESIDE
row() {
    ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 |")
    case "$6" in yes) ((++MET_YES)) ;; no) ((++MET_NO)) ;; *) ((++MET_NONE)) ;; esac
}
failed_row() { row "$1" "not measured: ${FAILED[$2]}" "-" "-" "$3" "-" "-"; }

# Import, rescan and idle memory for the two corpora.
lib_rows() {   # lib_rows KVNAME SIZE LABEL KIND
    local k="$1" s="$2" label="$3" c m f r
    if [[ -n "${FAILED[$k]:-}" ]]; then
        failed_row "fresh import, reference mode, vs MPD: $label" "$k" "≤ 0.5×"
        failed_row "no-change rescan vs MPD: $label" "$k" "≤ 0.1×"
        failed_row "idle crated RSS vs idle MPD: $label" "$k" "≤ 1.0×"
        return
    fi
    label="$label ($(v "$k" "${s}_files") files, $(v "$k" "${s}_albums") albums)"
    c="$(v "$k" "${s}_fresh_crate_s")"; m="$(v "$k" "${s}_fresh_mpd_s")"; r="$(ratio "$c" "$m")"
    row "fresh import, reference mode, vs MPD: $label" "$c s" "$m s" "$r×" "≤ 0.5×" "$(met "$r" "<=" 0.5)" \
        "Crate $(v "$k" "${s}_crate_tracks") tracks, MPD $(v "$k" "${s}_mpd_songs") songs"
    c="$(v "$k" "${s}_rescan_crate_s")"; m="$(v "$k" "${s}_rescan_mpd_s")"; r="$(ratio "$c" "$m")"
    f="$(v "$k" "${s}_rescan_find_s")"
    row "no-change rescan vs MPD: $label" "$c s" "$m s" "$r×" "≤ 0.1×" "$(met "$r" "<=" 0.1)" \
        "floor: \`find\` $f s (Crate $(ratio "$c" "$f")× find)"
    c="$(v "$k" "${s}_idle_crate_mib")"; m="$(v "$k" "${s}_idle_mpd_mib")"; r="$(ratio "$c" "$m")"
    row "idle crated RSS vs idle MPD: $label" "$c MiB" "$m MiB" "$r×" "≤ 1.0×" "$(met "$r" "<=" 1.0)" \
        "quiet after $(v "$k" "${s}_idle_crate_quiet_s") / $(v "$k" "${s}_idle_mpd_quiet_s") s"
    [[ "$(v "$k" mpd_why)" == "-" ]] || NOTES+=("$label: MPD not measured: $(v "$k" mpd_why)")
    [[ "$(v "$k" idle_why)" == "-" ]] || NOTES+=("$label: idle memory not measured: $(v "$k" idle_why)")
}
if [[ -n "${PART[library]:-}" ]]; then
    lib_rows lib "$LIB_SIZE" "library-$LIB_SIZE, albums with covers"
    lib_rows big "$BIG_SIZE" "search-$BIG_SIZE, tiny WAVs"
fi

if [[ -n "${PART[search]:-}" ]]; then
    for n in 1 2 3; do
        words="$n words"; ((n > 1)) || words="1 word"
        label="search at $SEARCH_TRACKS tracks, $words, HTTP keep-alive, p99"
        if [[ -n "${FAILED[search]:-}" ]]; then failed_row "$label" search "≤ 5 ms"; continue; fi
        c="$(v search "http_words${n}_p99_ms")"; m="$(v search "mpd_words${n}_p99_ms")"
        row "$label" "$(fmt "$c") ms" "MPD \`search any\` $(fmt "$m") ms" "$(ratio "$c" "$m")×" "≤ 5 ms (absolute)" \
            "$(met "$c" "<=" 5)" "p50 $(fmt "$(v search "http_words${n}_p50_ms")") ms; in-process p99 $(fmt "$(v search "crate_words${n}_p99_ms")") ms"
    done
    [[ -n "${FAILED[search]:-}" || "$(v search http_why)" == "-" ]] || NOTES+=("search over HTTP: $(v search http_why)")
fi

if [[ -n "${PART[play]:-}" ]]; then
    # Two pairs doing the same work (player.sh): play on the queue each daemon holds, and replacing the queue with an
    # album and playing it (crated's play-album; MPD's clear + add + play in one command list).
    for pair in held album; do
        if [[ "$pair" == held ]]; then
            label="play latency on PulseAudio vs MPD, \`play\` on the queue held (null sink, median of $PLAY_RUNS)"
            c="$(v play held_pulse_median_ms)"; m="$(v play mpd_pulse_median_ms)"
            c20="$(v play held_pulse20_median_ms)"; m20="$(v play mpd_pulse20_median_ms)"
        else
            label="play latency on PulseAudio vs MPD, the queue replaced by an album and played (median of $PLAY_RUNS)"
            c="$(v play crate_pulse_median_ms)"; m="$(v play mpd_album_pulse_median_ms)"
            c20="$(v play crate_pulse20_median_ms)"; m20="$(v play mpd_album_pulse20_median_ms)"
        fi
        if [[ -n "${FAILED[play]:-}" ]]; then failed_row "$label" play "≤ 1.0×"; continue; fi
        r="$(ratio "$c" "$m")"
        row "$label" "$c ms" "$m ms" "$r×" "≤ 1.0×" "$(met "$r" "<=" 1.0)" \
            "with a 20 ms recorder on the sink: $c20 / $m20 ms = $(ratio "$c20" "$m20")×"
    done
fi

if [[ -n "${PART[wake]:-}" ]]; then
    label="$IDLE_CLIENTS idle MPD-protocol clients woken vs MPD (median of 5)"
    if [[ -n "${FAILED[wake]:-}" ]]; then
        failed_row "$label" wake "≤ 1.0×"
    else
        c="$(v wake wake_crated)"; m="$(v wake wake_mpd)"; r="$(ratio "$c" "$m")"
        row "$label" "$c ms" "$m ms" "$r×" "≤ 1.0×" "$(met "$r" "<=" 1.0)" \
            "VmRSS with them: $(v wake rss_clients_crated) / $(v wake rss_clients_mpd) MiB"
    fi
fi

if [[ -n "${PART[web]:-}" ]]; then
    albums="$WEB_ALBUMS"
    if [[ -n "${FAILED[web]:-}" ]]; then
        failed_row "web first screen, $albums albums, cold right after import (Chromium)" web "< 0.5 s"
        failed_row "web first screen, $albums albums, warm (Chromium)" web "< 0.5 s"
        failed_row "\`wall/more\` answer sizes" web "constant"
    else
        albums="$(v web albums)"
        for when in cold warm; do
            ms="$(v web "${when}_firstScreen")"
            s="$(num "$ms" && awk -v a="$ms" 'BEGIN { printf "%.3f", a / 1000 }' || echo "$ms")"
            label="web first screen, $albums albums, $when (Chromium)"
            [[ $when != cold ]] || label="web first screen, $albums albums, cold right after import (Chromium)"
            beside="$(fmt "$(v web "${when}_firstScreenCovers")" 0) covers; first cover $(fmt "$(v web "${when}_firstCover")" 0) ms"
            [[ $when == cold ]] && beside+="; import took $(v web import_s) s"
            row "$label" "$s s" "goal 0.5 s" "$(ratio "$s" 0.5)×" "< 0.5 s" "$(met "$s" "<" 0.5)" "$beside"
        done
        n="$(v web cold_wallMoreRequests)"; first="$(v web cold_wallMoreFirstBytes)"; last="$(v web cold_wallMoreLastBytes)"
        label="\`wall/more\` answers while scrolling to $WEB_SCROLL albums (cold load): first and last"
        if num "$n" && awk -v n="$n" 'BEGIN { exit !(n >= 2) }'; then
            r="$(ratio "$last" "$first")"
            row "$label" "last $(fmt "$last" 0) B" "first $(fmt "$first" 0) B" "$r×" "constant (≤ 1.1×)" "$(met "$r" "<=" 1.1)" \
                "$(fmt "$n" 0) answers; warm load: $(fmt "$(v web warm_wallMoreRequests)" 0), first $(fmt "$(v web warm_wallMoreFirstBytes)" 0) B, last $(fmt "$(v web warm_wallMoreLastBytes)" 0) B"
        else
            row "$label" "$(fmt "$n" 0) answers" "-" "-" "constant" "-" "fewer than 2 answers: nothing to compare (the page had what it needed)"
        fi
    fi
fi

# make test: never run here; what a file records, if one does.
TEST_RECORD=Benchmarks/make-test-time.txt
if [[ -f "$TEST_RECORD" ]]; then
    kv test "$TEST_RECORD"
    mins="$(v test minutes)"
    row "\`make test\` on a fresh clone" "$mins min" "goal 15 min" "$(ratio "$mins" 15)×" "≤ 15 min" "$(met "$mins" "<=" 15)" \
        "recorded $(v test date), commit $(v test commit) ($TEST_RECORD; not run by compare.sh)"
else
    row "\`make test\` on a fresh clone" "not measured here" "goal 15 min" "-" "≤ 15 min" "-" \
        "see issue 30 (28 min then); time it on a fresh clone and record minutes=, date=, commit=, how= in $TEST_RECORD"
fi

# --- Print, and write into the README --------------------------------------------------------------------------------
MODE="goal run"
((QUICK)) && MODE="QUICK RUN (--quick: small sizes, few runs; NOT a goal run)"
((ALL_PARTS)) || MODE+="; only: $ONLY"
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
{
    echo "- $MODE; $(date -u '+%Y-%m-%d %H:%M UTC'); $SOURCE; $BIN_DATES"
    echo "- machine: $machine; load average (1/5/15 min) $LOAD_BEFORE before, $LOAD_AFTER after$( ((WAIT_IDLE)) && echo "; each part waited for a load below 0.3")"
    echo "- $(mpd --version 2>/dev/null | head -1 || echo 'MPD ?'); Chromium $(chromium --version 2>/dev/null | awk '{print $2}')"
    echo "- goals met: $MET_YES, missed: $MET_NO, not measured: $MET_NONE; whole run $(seconds_since "$RUN_START") s"
    echo
    echo "| measure | Crate | anchor | ratio | goal | met | beside |"
    echo "|---|---:|---:|---:|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
    if ((${#NOTES[@]})); then echo; printf -- '- %s\n' "${NOTES[@]}"; fi
} >"$OUT/table.md"

echo "# Issue 30's goals, side by side"
echo
cat "$OUT/table.md"
echo
echo "Full reports and key=value results: $OUT"

README_FILE=Benchmarks/README.md
if [[ "$README" == yes ]]; then
    begin='<!-- compare:begin -->' end='<!-- compare:end -->'
    if ! grep -qF "$begin" "$README_FILE" || ! grep -qF "$end" "$README_FILE"; then
        die "$README_FILE has no $begin … $end section to replace"
    fi
    awk -v b="$begin" -v e="$end" -v table="$OUT/table.md" '
        $0 == b { print; print ""; while ((getline line < table) > 0) print line; print ""; skip = 1; next }
        $0 == e { skip = 0 }
        !skip { print }' "$README_FILE" >"$OUT/README.md.new"
    cat "$OUT/README.md.new" >"$README_FILE"
    log "wrote the table into $README_FILE"
else
    log "$README_FILE left as it is$( ((QUICK)) && echo " (--quick; --readme writes it anyway)")"
fi
