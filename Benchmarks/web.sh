#!/usr/bin/env bash
# The web page on a library of 10,000 albums (each with its own cover), in Debian's Chromium: time to the first
# cover painted and to a full first screen, bytes before the first paint (artwork excluded), API requests of a page
# load, and scrolling through 1,000 albums (long frames, requests). Prints a Markdown table. Targets (issue 15):
# full first screen under 1 s, under 150 KB before first paint, the wall in one API request.
#
#   bash Benchmarks/web.sh [--albums N] [--runs N] [--scroll N] [--no-build] [--fresh-import] [--kv FILE]
#
#   --albums N   library size (default 10000); made once under /tmp/crate-web-corpus-N and imported once
#   --runs N     warm page loads (default 5) after one cold load (thumbnails not made yet)
#   --scroll N   albums to scroll through (default 1000)
#   --no-build   use the crated and crate already built in .build/release
#   --fresh-import  import into a new data folder in this run and load the page right after it (cold = right after
#                an import, with whatever the import made); default: the import kept in the corpus folder, its
#                thumbnails removed
#   --kv FILE    also write the results as key=value lines to FILE (for Benchmarks/compare.sh)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
source Benchmarks/common.sh
log() { echo "web.sh: $*" >&2; }
ALBUMS=10000
RUNS=5
SCROLL=1000
BUILD=1
FRESH=0
KV_OUT=""
while (($#)); do
    case "$1" in
        --albums) ALBUMS="${2:?}"; shift 2 ;;
        --runs) RUNS="${2:?}"; shift 2 ;;
        --scroll) SCROLL="${2:?}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --fresh-import) FRESH=1; shift ;;
        --kv) KV_OUT="${2:?--kv needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "web.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ -z "$KV_OUT" || "$KV_OUT" == /* ]] || KV_OUT="$PWD/$KV_OUT"
scripts/browser-venv.sh
build_release_daemon
PY=.build/browser-venv/bin/python

CORPUS="/tmp/crate-web-corpus-$ALBUMS"
log "making $ALBUMS albums in $CORPUS (once)"
$PY Benchmarks/web_bench.py make "$CORPUS" --albums "$ALBUMS"
WORK="$(mktemp -d /tmp/crate-web.XXXXXX)"
CRATED_PID=""
cleanup() { stop_crated; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd
CRATED_PORT="$(free_port)"
API="http://127.0.0.1:$CRATED_PORT/api/v1"
DATA="$CORPUS/data"
if ((FRESH)); then DATA="$WORK/data"; fi
CRATE_ENV=(CRATE_DATA_DIRECTORY="$DATA" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT" XDG_CONFIG_HOME="$WORK/config"
           CRATE_MPD_ADDRESS="127.0.0.1:$(free_port)" CRATE_SUBSONIC_ADDRESS="127.0.0.1:$(free_port)" CRATE_OUTPUT_PLUGIN=null)
IMPORT_S="-"
if [[ ! -s "$DATA/library.sqlite" ]]; then
    log "importing (reference mode)"
    t0=$EPOCHREALTIME
    env "${CRATE_ENV[@]}" "$BIN/crate" import --mode reference "$CORPUS/music" >&2
    IMPORT_S="$(seconds_since "$t0")"
    log "  imported in $IMPORT_S s"
fi
if ((FRESH)); then
    COLD_LABEL="cold = first load right after a fresh import (crated started when the import returned)"
else
    # The thumbnails are made on first request: a cold load pays for them, as the first visit after an import does.
    rm -rf "$DATA/artwork/thumbs"
    COLD_LABEL="cold = first load after start (thumbnails made on request)"
fi
start_crated
LOAD_BEFORE="$(machine_load)"
log "measuring: 1 cold + $RUNS warm loads, scrolling to $SCROLL albums"
declare -A KV
$PY Benchmarks/web_bench.py measure "http://127.0.0.1:$CRATED_PORT/" --runs "$RUNS" --scroll "$SCROLL" >"$WORK/kv"
kv web "$WORK/kv"
LOAD_AFTER="$(machine_load)"
COUNTS="$(curl -s "$API/health" | sed -n 's/.*"albums" *: *\([0-9]*\).*/\1/p')"

ms() { awk -v v="$1" 'BEGIN { printf "%.0f", v }'; }
kb() { awk -v v="$1" 'BEGIN { printf "%.1f", v / 1024 }'; }
echo "# Crate web page benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load $LOAD_BEFORE before, $LOAD_AFTER after"
echo "- library: ${COUNTS:-$ALBUMS} albums, one cover each (600×600 JPEG, distinct bytes); Chromium $(chromium --version 2>/dev/null | awk '{print $2}'), 1440×900"
echo "- release crated (null output); page load to \`/\`; $COLD_LABEL; warm = median of $RUNS"
echo
echo "| measure | cold | warm (median) | target |"
echo "|---|---:|---:|---|"
echo "| first cover painted (ms from navigation) | $(ms "${KV[web:cold_firstCover]}") | $(ms "${KV[web:warm_firstCover]}") | |"
echo "| full first screen, ${KV[web:warm_firstScreenCovers]} covers (ms) | $(ms "${KV[web:cold_firstScreen]}") | $(ms "${KV[web:warm_firstScreen]}") | < 1000 |"
echo "| first contentful paint (ms) | $(ms "${KV[web:cold_fcp]}") | $(ms "${KV[web:warm_fcp]}") | |"
echo "| bytes before first paint, artwork excluded (KB) | $(kb "${KV[web:cold_bytesBeforePaint]}") | $(kb "${KV[web:warm_bytesBeforePaint]}") | < 150 |"
echo "| API requests of the load (of which the wall) | ${KV[web:cold_apiRequestsAtLoad]} (${KV[web:cold_wallRequestsAtLoad]}) | ${KV[web:warm_apiRequestsAtLoad]} (${KV[web:warm_wallRequestsAtLoad]}) | wall: 0 (it comes in the page) |"
echo "| scrolling to ${KV[web:warm_scrollAlbums]} albums (${KV[web:warm_scrollUnique]} different): seconds | $(awk -v v="${KV[web:cold_scrollSeconds]}" 'BEGIN{printf "%.1f", v}') | $(awk -v v="${KV[web:warm_scrollSeconds]}" 'BEGIN{printf "%.1f", v}') | |"
echo "| … frames, of which longer than 25 ms | ${KV[web:cold_scrollFrames]}, ${KV[web:cold_scrollLongFrames]} | ${KV[web:warm_scrollFrames]}, ${KV[web:warm_scrollLongFrames]} | |"
echo "| … API requests, artwork requests | ${KV[web:cold_scrollApiRequests]}, ${KV[web:cold_scrollArtworkRequests]} | ${KV[web:warm_scrollApiRequests]}, ${KV[web:warm_scrollArtworkRequests]} | |"
echo "| \`wall/more\` answers while scrolling: count, first and last (bytes) | ${KV[web:cold_wallMoreRequests]}: ${KV[web:cold_wallMoreFirstBytes]}, ${KV[web:cold_wallMoreLastBytes]} | ${KV[web:warm_wallMoreRequests]}: ${KV[web:warm_wallMoreFirstBytes]}, ${KV[web:warm_wallMoreLastBytes]} | constant |"
if [[ -n "$KV_OUT" ]]; then
    { cat "$WORK/kv"; echo "albums=${COUNTS:-$ALBUMS}"; echo "runs=$RUNS"; echo "fresh_import=$FRESH"; echo "import_s=$IMPORT_S"
      echo "load_before=$LOAD_BEFORE"; echo "load_after=$LOAD_AFTER"; } >"$KV_OUT"
fi
