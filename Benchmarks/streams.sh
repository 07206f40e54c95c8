#!/usr/bin/env bash
# Stream benchmarks (issue 14's input layer): decode throughput through the stream layer against the build before
# it, over loopback HTTP, and against ffmpeg; stream start latency (play command -> first sample written) of
# crated against MPD playing the same URL from the same loopback server; and crated's memory with 10 stations
# played in turn. Prints Markdown tables.
#
#   bash Benchmarks/streams.sh [--before BIN | --before-commit REV] [--runs N] [--latency-runs N] [--no-build] [--no-mpd]
#
#   --before BIN          a crate-bench built from before the stream layer, for the "before" column
#   --before-commit REV   build that crate-bench from REV (a git worktree in .build/bench-before; ~11 min cold)
#   --runs N              decode runs per file (in-process best of N; default 3)
#   --latency-runs N      play commands timed per player (default 10, after 1 untimed warm-up)
#   --no-build            use the crated, crate and crate-bench already built in .build/release
#   --no-mpd              leave MPD out
#
# The audio files are decode.sh's (600 s, made by the codecs' reference encoders, cached in .build/bench-cache).
# The web server is the tests' loopback radio server (Tests/URLStreamSourceTests/radio_server.py): plain files
# with ranges, and /radio.mp3, an endless ICY stream. Everything runs on 127.0.0.1 and is removed at exit.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
source Benchmarks/common.sh
log() { echo "streams.sh: $*" >&2; }
RUNS=3
LAT_RUNS=10
BUILD=1
USE_MPD=1
BEFORE=""
BEFORE_COMMIT=""
while (($#)); do
    case "$1" in
        --before) BEFORE="${2:?--before needs a path}"; shift 2 ;;
        --before-commit) BEFORE_COMMIT="${2:?--before-commit needs a revision}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --latency-runs) LAT_RUNS="${2:?--latency-runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-mpd) USE_MPD=0; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "streams.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$RUNS" "$LAT_RUNS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "streams.sh: '$n' is not a positive whole number" >&2; exit 2; }
done

apt_install curl python3 || die "cannot install curl and python3"
MPD_WHY=""
if ((USE_MPD)) && ! apt_install mpd mpc; then
    USE_MPD=0
    MPD_WHY="mpd and mpc are not installed and could not be installed (installing needs root)"
fi
((USE_MPD)) || MPD_WHY="${MPD_WHY:-left out with --no-mpd}"

# --- Files, builds --------------------------------------------------------------------------------
CACHE="$(bash Benchmarks/decode.sh --files-only)"
build_release_daemon
if [[ -n "$BEFORE_COMMIT" ]]; then
    tree="$ROOT/.build/bench-before"
    [[ -d "$tree" ]] || git worktree add --detach "$tree" "$BEFORE_COMMIT" >&2
    git -C "$tree" checkout -q --detach "$BEFORE_COMMIT"
    log "building crate-bench at $BEFORE_COMMIT (release)"
    (cd "$tree" && swift build -c release --product crate-bench >&2)
    BEFORE="$(cd "$tree" && swift build -c release --show-bin-path)/crate-bench"
fi
[[ -z "$BEFORE" || -x "$BEFORE" ]] || die "--before: $BEFORE is not an executable"

WORK="$(mktemp -d /tmp/crate-streams.XXXXXX)"
SERVER_PID=""
CRATED_PID=""
MPD_PID=""
cleanup() {
    stop_pid "$CRATED_PID"
    stop_pid "$MPD_PID"
    stop_pid "$SERVER_PID"
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
open_pause_fd

# --- The loopback web server -----------------------------------------------------------------------
SERVE="$WORK/www"
mkdir -p "$SERVE"
ln -s "$CACHE/bench.mp3" "$SERVE/file.mp3"
ln -s "$CACHE/bench.ogg" "$SERVE/file.ogg"
ln -s "$CACHE/bench.opus" "$SERVE/file.opus"
ln -s "$CACHE/bench.flac" "$SERVE/file.flac"
python3 Tests/URLStreamSourceTests/radio_server.py "$SERVE" >"$WORK/server.port" 2>"$WORK/server.log" &
SERVER_PID=$!
for ((i = 0; i < 200; i++)); do [[ -s "$WORK/server.port" ]] && break; pause_ms 10; done
HTTP_PORT="$(head -1 "$WORK/server.port")"
[[ "$HTTP_PORT" =~ ^[0-9]+$ ]] || die "the loopback server did not start: $(cat "$WORK/server.log")"
BASE="http://127.0.0.1:$HTTP_PORT"

# --- 1. Decode throughput -------------------------------------------------------------------------
declare -A T_BEFORE T_FILE T_HTTP T_FFMPEG
best() { sed -n 's/^best_seconds=//p' "$1"; }
ffmpeg_time() {   # in-process comparable: ffmpeg's own benchmark line (utime of the decode, wall clock)
    local t0 t1
    t0=$EPOCHREALTIME
    ffmpeg -nostdin -v error -i "$1" -f null - 2>/dev/null
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
LOAD_BEFORE="$(machine_load)"
for codec in opus vorbis mp3 flac; do
    case "$codec" in opus) f=file.opus ;; vorbis) f=file.ogg ;; mp3) f=file.mp3 ;; flac) f=file.flac ;; esac
    log "decoding $codec: file, loopback HTTP${BEFORE:+, before}, ffmpeg"
    for ((round = 1; round <= RUNS; round++)); do
        if [[ -n "$BEFORE" ]]; then
            "$BEFORE" decode "$SERVE/$f" >"$WORK/out" || die "the before build failed on $f"
            T_BEFORE[$codec]="$(min "${T_BEFORE[$codec]:-}" "$(best "$WORK/out")")"
        fi
        "$BIN/crate-bench" decode "$SERVE/$f" >"$WORK/out" || die "crate-bench failed on $f"
        T_FILE[$codec]="$(min "${T_FILE[$codec]:-}" "$(best "$WORK/out")")"
        "$BIN/crate-bench" decode "$BASE/$f" >"$WORK/out" || die "crate-bench failed on $BASE/$f"
        T_HTTP[$codec]="$(min "${T_HTTP[$codec]:-}" "$(best "$WORK/out")")"
        T_FFMPEG[$codec]="$(min "${T_FFMPEG[$codec]:-}" "$(ffmpeg_time "$SERVE/$f")")"
    done
done

# --- 2. Stream start latency: crated and MPD, the same URL -----------------------------------------
declare -A LAT_MEDIAN LAT_P95 RSS
CRATED_PORT="$(free_port)"
API="http://127.0.0.1:$CRATED_PORT/api/v1"
CRATE_ENV=(CRATE_DATA_DIRECTORY="$WORK/data" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT"
           XDG_CONFIG_HOME="$WORK/config" CRATE_OUTPUT_PLUGIN=null)

LOAD_LATENCY="$(machine_load)"
start_crated
runs=""
log "crated: $LAT_RUNS play-url commands of $BASE/radio.mp3 (+1 warm-up)"
for ((run = 0; run <= LAT_RUNS; run++)); do
    crate_play_latency queue/play-url "{\"url\": \"$BASE/radio.mp3\"}"
    ((run == 0)) || runs+=" $(us_to_ms "$LAT_US")"
    crate_post player/stop '' >/dev/null
    sleep 0.3
done
LAT_MEDIAN[crate]="$(median "$runs")"
LAT_P95[crate]="$(p95 "$runs")"
log "  ms:$runs"

# --- 3. Memory: 10 stations played in turn ----------------------------------------------------------
RSS[idle]="$(rss "$CRATED_PID")"
for i in $(seq 1 10); do
    crate_post stations "{\"name\": \"Bench $i\", \"url\": \"$BASE/radio.mp3?station=$i\"}" >/dev/null
done
log "crated: 10 stations, 5 s each"
for i in $(seq 1 10); do
    crate_post "stations/$i/play" '' >/dev/null
    sleep 5
    http_get_crated /api/v1/player || true
    crate_started "$REPLY_TEXT" || die "station $i is not playing after 5 s: $REPLY_TEXT"
    RSS[station$i]="$(rss "$CRATED_PID")"
done
crate_post player/stop '' >/dev/null
sleep 1
RSS[stopped]="$(rss "$CRATED_PID")"
stop_crated

# --- MPD, the same URL -----------------------------------------------------------------------------
if ((USE_MPD)); then
    MPD_PORT="$(free_port)"
    MPD_DIR="$WORK/mpd"
    mkdir -p "$MPD_DIR/music"
    write_mpd_config "$MPD_DIR" "$MPD_DIR/music" "$MPD_PORT" "" network
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/stderr.log" 2>&1 &
    MPD_PID=$!
    for ((i = 0; i < 2000; i++)); do mpd_request status && [[ "$REPLY_TEXT" == "OK MPD"* ]] && break; pause_ms 5; done
    runs=""
    log "MPD: $LAT_RUNS plays of the same URL (+1 warm-up)"
    for ((run = 0; run <= LAT_RUNS; run++)); do
        mpd_play_latency "$BASE/radio.mp3"
        ((run == 0)) || runs+=" $(us_to_ms "$LAT_US")"
        sleep 0.3
    done
    LAT_MEDIAN[mpd]="$(median "$runs")"
    LAT_P95[mpd]="$(p95 "$runs")"
    log "  ms:$runs"
    mpcc -q clear
    for i in $(seq 1 10); do mpcc -q add "$BASE/radio.mp3?station=$i"; done
    log "MPD: 10 streams, 5 s each"
    for i in $(seq 1 10); do
        mpcc -q play "$i"
        sleep 5
        RSS[mpd$i]="$(rss "$MPD_PID")"
    done
    mpcc -q stop
    stop_mpd
fi
LOAD_AFTER="$(machine_load)"

# --- Tables -----------------------------------------------------------------------------------------
echo "# Crate stream benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average (1/5/15 min): $LOAD_BEFORE before; $LOAD_LATENCY at the latency runs; $LOAD_AFTER after"
echo "- $(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*'), release builds; $(ffmpeg -version | head -1 | cut -d' ' -f1-3); libcurl $(curl --version | head -1 | awk '{print $2}')"
((USE_MPD)) && echo "- MPD $(mpd --version | head -1 | awk '{print $NF}')" || echo "- MPD: $MPD_WHY"
echo
echo "## Decode throughput through the stream layer (600 s files, in-process best of $RUNS, seconds)"
echo
echo "before = crate-bench built before decoders read through ByteStream (paths: op_open_file, ov_fopen, mpg123_open,"
echo "FLAC__stream_decoder_init_file); file = now (FileByteStream + the libraries' callback APIs); HTTP = now, from"
echo "the loopback server through libcurl; ffmpeg = \`ffmpeg -i FILE -f null -\`, whole process."
echo
echo "| codec | before s | file s | file/before | HTTP s | HTTP/file | ffmpeg s | realtime × (file) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for codec in opus vorbis mp3 flac; do
    b="${T_BEFORE[$codec]:--}"
    echo "| $codec | $b | ${T_FILE[$codec]} | $(ratio "${T_FILE[$codec]}" "$b") | ${T_HTTP[$codec]} | $(ratio "${T_HTTP[$codec]}" "${T_FILE[$codec]}") | ${T_FFMPEG[$codec]} | $(awk -v t="${T_FILE[$codec]}" 'BEGIN { printf "%.0f", 600 / t }') |"
done
echo
echo "file/before < 1 means faster than before. (ratio = column / column.)"
echo
echo "## Stream start latency: play command to the first sample written (null outputs, ms, $LAT_RUNS runs)"
echo
echo "Both play $BASE/radio.mp3 (an endless MP3 stream with ICY metadata every 8,192 bytes) from the same server."
echo "crated: \`POST /api/v1/queue/play-url\` (queue and play in one command) until its status shows elapsed > 0;"
echo "MPD: \`mpc play\` after \`mpc add URL\` (which does not open the stream) until \`status\` shows elapsed > 0."
echo
echo "| player | median ms | p95 ms | ratio (MPD / Crate median) |"
echo "|---|---:|---:|---:|"
echo "| crated | ${LAT_MEDIAN[crate]} | ${LAT_P95[crate]} | $(ratio "${LAT_MEDIAN[mpd]:--}" "${LAT_MEDIAN[crate]}") |"
((USE_MPD)) && echo "| MPD | ${LAT_MEDIAN[mpd]} | ${LAT_P95[mpd]} | |"
echo
echo "## Memory: 10 stations played in turn, 5 s each (VmRSS / VmHWM MiB)"
echo
echo "| after | crated RSS | crated peak |$( ((USE_MPD)) && echo " MPD RSS | MPD peak |")"
echo "|---|---:|---:|$( ((USE_MPD)) && echo "---:|---:|")"
echo "| idle | ${RSS[idle]% *} | ${RSS[idle]#* } |$( ((USE_MPD)) && echo " | |")"
for i in $(seq 1 10); do
    line="| station $i | ${RSS[station$i]% *} | ${RSS[station$i]#* } |"
    ((USE_MPD)) && line+=" ${RSS[mpd$i]% *} | ${RSS[mpd$i]#* } |"
    echo "$line"
done
echo "| stopped | ${RSS[stopped]% *} | ${RSS[stopped]#* } |$( ((USE_MPD)) && echo " | |")"
