#!/usr/bin/env bash
# Player benchmarks of the real daemon: play latency, memory while playing, and the play queue at
# 100,000 entries; each next to MPD (Debian's mpd + mpc) on the same files. Prints Markdown tables.
#
#   bash Benchmarks/player.sh [--runs N] [--gap S] [--queue-entries N] [--queue-runs N] [--no-build] [--no-mpd] [--wait-idle]
#                             [--outputs LIST] [--no-queue] [--kv FILE]
#
#   --runs N            play commands timed per output (default 20, after 1 untimed warm-up)
#   --gap S             seconds between a stop command and the next play command (default 0.3)
#   --queue-entries N   queue length for the queue benchmark (default 100000)
#   --queue-runs N      runs of each queue operation; the median is reported (default 5)
#   --no-build          use the crated, crate and crate-bench already built in .build/release
#   --no-mpd            leave MPD out (by default it is installed when missing and we are root)
#   --wait-idle         before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#   --outputs LIST      the play-latency outputs, comma-separated, of null, wav, pulse, pulse20 (default all four)
#   --no-queue          leave out the queue benchmark
#   --kv FILE           also write the latency and memory results as key=value lines to FILE (Benchmarks/compare.sh)
#
# Everything runs in a temporary folder under /tmp and talks to 127.0.0.1 only: a generated FLAC album
# (sox + ffmpeg), a private PulseAudio server with a null sink, crated on a free port with its own
# data directory, and MPD (bound to 127.0.0.1, null and pulse outputs). All of it is stopped and
# removed at exit.
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME and awk with a '.' decimal point

cd "$(dirname "$0")/.."
# Shared helpers (stop_pid, apt_install, tcp_request, ratio, ...).
source Benchmarks/common.sh
RUNS=20
GAP=0.3
QUEUE_ENTRIES=100000
QUEUE_RUNS=5
BUILD=1
USE_MPD=1
WAIT_IDLE=0
OUTPUTS=null,wav,pulse,pulse20
QUEUE=1
KV_OUT=""
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --gap) GAP="${2:?--gap needs a value}"; shift 2 ;;
        --queue-entries) QUEUE_ENTRIES="${2:?--queue-entries needs a value}"; shift 2 ;;
        --queue-runs) QUEUE_RUNS="${2:?--queue-runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-mpd) USE_MPD=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --outputs) OUTPUTS="${2:?--outputs needs a list}"; shift 2 ;;
        --no-queue) QUEUE=0; shift ;;
        --kv) KV_OUT="${2:?--kv needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "player.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$RUNS" "$QUEUE_ENTRIES" "$QUEUE_RUNS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "player.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
[[ "$GAP" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "player.sh: --gap needs a number of seconds" >&2; exit 2; }
((QUEUE_ENTRIES >= 4)) || { echo "player.sh: --queue-entries needs at least 4" >&2; exit 2; }
IFS=, read -r -a OUTPUT_LIST <<<"$OUTPUTS"
for output in "${OUTPUT_LIST[@]}"; do
    [[ "$output" =~ ^(null|wav|pulse|pulse20)$ ]] || { echo "player.sh: unknown output '$output' (null, wav, pulse, pulse20)" >&2; exit 2; }
done
((${#OUTPUT_LIST[@]})) || { echo "player.sh: --outputs needs at least one output" >&2; exit 2; }
[[ -z "$KV_OUT" || "$KV_OUT" == /* ]] || KV_OUT="$PWD/$KV_OUT"

log() { echo "player.sh: $*" >&2; }
MPD_WHY=""   # why MPD is left out, when it is

# --- Debian packages, installed only when missing (root only) --------------------------------------
apt_install sox ffmpeg pulseaudio pulseaudio-utils curl python3 || die "cannot install the tools this benchmark needs"
for tool in sox ffmpeg pulseaudio pactl curl awk python3; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
if ((USE_MPD)); then
    if ! apt_install mpd mpc; then
        USE_MPD=0
        MPD_WHY="mpd and mpc are not installed and could not be installed (installing needs root)"
    fi
else
    MPD_WHY="left out with --no-mpd"
fi

# --- Build -----------------------------------------------------------------------------------------
build_release_daemon

# --- Temporary folder, processes, cleanup ----------------------------------------------------------
# A short path: unix socket paths are limited to 108 bytes.
WORK="$(mktemp -d /tmp/crate-player.XXXXXX)"
CRATED_PID=""
PA_PID=""
MPD_PID=""
REC_PID=""

cleanup() {
    stop_pid "$CRATED_PID"
    stop_pid "$MPD_PID"
    stop_pid "$REC_PID"
    stop_pid "$PA_PID"
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Sleeping 5 ms without starting a process: read with a timeout from a fifo nobody writes to.
open_pause_fd

wait_idle 20
LOAD_BEFORE="$(machine_load)"

# --- A small tagged library: one album of 4 FLAC tracks, 60 s each (sox, then ffmpeg tags) ---------
MUSIC="$WORK/music"
ALBUM_DIR="$MUSIC/bench-artist/bench-album"
mkdir -p "$ALBUM_DIR"
log "generating the library (4 FLAC tracks of 60 s)"
notes=("220 330" "247 370" "262 392" "294 440")
for i in 1 2 3 4; do
    read -r low high <<<"${notes[$((i - 1))]}"
    sox -n -r 44100 -c 2 -b 16 "$WORK/t$i.wav" synth 60 sine "$low" sine "$high" synth 60 pinknoise mix \
        tremolo 3 40 gain -n -3
    ffmpeg -nostdin -v error -i "$WORK/t$i.wav" -c:a flac \
        -metadata title="Track $i" -metadata artist="Bench Artist" -metadata album_artist="Bench Artist" \
        -metadata album="Bench Album" -metadata date=2024 -metadata track="$i/4" "$ALBUM_DIR/0$i-track.flac"
    rm -f "$WORK/t$i.wav"
done
MPD_URI="bench-artist/bench-album/01-track.flac"
MPD_ALBUM="bench-artist/bench-album"

# --- Private PulseAudio server with a null sink (Shared reference toolchain.md, section 3) ----------
PA_DIR="$WORK/pa"
mkdir -p "$PA_DIR"
export PULSE_SERVER="unix:$PA_DIR/native"
# PULSE_RUNTIME_PATH/PULSE_STATE_PATH keep its runtime and state files in the temp folder too.
PULSE_RUNTIME_PATH="$PA_DIR" PULSE_STATE_PATH="$PA_DIR" \
    pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit \
    --enable-memfd=no --use-pid-file=no --log-target="file:$PA_DIR/pulse.log" \
    -L "module-native-protocol-unix socket=$PA_DIR/native auth-anonymous=1" \
    -L "module-null-sink sink_name=bench_sink rate=44100 channels=2" >/dev/null 2>&1 &
PA_PID=$!
for ((i = 0; i < 100; i++)); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || die "the PulseAudio server did not start; its log: $(cat "$PA_DIR/pulse.log" 2>/dev/null)"

# The null sink renders in blocks as long as the smallest latency its clients ask for, 2 s when
# nobody asks, and picks up a new latency only at the end of the current block: a player's writes
# then stall for up to 2 s, which a sound card would not do. The "pulse20" runs attach a recorder to
# the sink's monitor asking for 20 ms, so the sink runs in 20 ms blocks, more like a card.
start_recorder() {
    parec --device=bench_sink.monitor --latency-msec=20 --format=s16le --rate=44100 --channels=2 --raw >/dev/null 2>&1 &
    REC_PID=$!
    sleep 2.1   # the 2 s block that was running ends
}
stop_recorder() { stop_pid "$REC_PID"; REC_PID=""; }

# --- crated ----------------------------------------------------------------------------------------
CRATED_PORT="$(free_port)"
API="http://127.0.0.1:$CRATED_PORT/api/v1"
CRATE_ENV=(CRATE_DATA_DIRECTORY="$WORK/data" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT"
           XDG_CONFIG_HOME="$WORK/config" PULSE_SERVER="$PULSE_SERVER")

declare -A LAT_MEDIAN LAT_P95 RSS
# crate_latency LABEL: LABEL is an output plugin, or pulse20 (pulse with the 20 ms recorder).
crate_latency() {
    local output="$1" runs=""
    [[ "$output" != pulse20 ]] || start_recorder
    start_crated CRATE_OUTPUT_PLUGIN="${output%20}"
    log "crated, output $output: $RUNS play-album commands (+1 warm-up)"
    runs="$(python3 Benchmarks/play_latency.py crated "$CRATED_PORT" "$RUNS" "$GAP")" || die "the crated latency run failed"
    LAT_MEDIAN[crate-$output]="$(median "$runs")"
    LAT_P95[crate-$output]="$(p95 "$runs")"
    log "  ms:$runs"
    log "crated, output $output: $RUNS play commands on the queue it holds (+1 warm-up)"
    runs="$(python3 Benchmarks/play_latency.py crated-held "$CRATED_PORT" "$RUNS" "$GAP")" || die "the crated latency run failed"
    LAT_MEDIAN[held-$output]="$(median "$runs")"
    log "  ms:$runs"
    stop_crated
    stop_recorder
}

log "importing the library with crate import"
start_crated CRATE_OUTPUT_PLUGIN=null
env "${CRATE_ENV[@]}" "$BIN/crate" import "$MUSIC" >&2
albums="$(curl -sS -f "$API/albums")"
[[ "$albums" == *'"Bench Album"'* ]] || die "the imported library has no Bench Album: $albums"
tracks="$(curl -sS -f "$API/albums/1/tracks")"
track_re='"id" *: *([0-9]+)'
[[ "$tracks" =~ $track_re ]] || die "album 1 has no tracks: $tracks"
TRACK_ID="${BASH_REMATCH[1]}"
stop_crated

LOAD_LATENCY="$(machine_load)"
for output in "${OUTPUT_LIST[@]}"; do crate_latency "$output"; done

log "crated memory: idle, then after 5 s of playing through pulse"
start_crated CRATE_OUTPUT_PLUGIN=pulse
sleep 2
RSS[crate-idle]="$(rss "$CRATED_PID")"
crate_post queue/play-album '{"albumID":1}' >/dev/null
sleep 5
http_get_crated /api/v1/player || true
crate_started "$REPLY_TEXT" || die "crated is not playing after 5 s: $REPLY_TEXT"
RSS[crate-playing]="$(rss "$CRATED_PID")"
crate_post player/stop '' >/dev/null
sleep 1
RSS[crate-stopped]="$(rss "$CRATED_PID")"
stop_crated

# --- MPD ---------------------------------------------------------------------------------------------
MPD_DIR="$WORK/mpd"
MPD_PORT=""

start_mpd() {
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/stderr.log" 2>&1 &
    MPD_PID=$!
    for ((i = 0; i < 6000; i++)); do
        if mpd_request status && [[ "$REPLY_TEXT" == "OK MPD"* ]]; then return 0; fi
        kill -0 "$MPD_PID" 2>/dev/null || break
        pause_ms 5
    done
    return 1
}

mpd_latency() {
    local output="$1" runs=""
    [[ "$output" != pulse20 ]] || start_recorder
    mpcc -q enable only "${output%20}" >&2
    log "MPD, output $output: $RUNS play commands (+1 warm-up)"
    runs="$(python3 Benchmarks/play_latency.py mpd "$MPD_PORT" "$RUNS" "$GAP" "$MPD_URI")" || die "the MPD latency run failed"
    LAT_MEDIAN[mpd-$output]="$(median "$runs")"
    LAT_P95[mpd-$output]="$(p95 "$runs")"
    log "  ms:$runs"
    log "MPD, output $output: $RUNS command lists clear + add the album + play (+1 warm-up)"
    runs="$(python3 Benchmarks/play_latency.py mpd-album "$MPD_PORT" "$RUNS" "$GAP" "$MPD_ALBUM")" || die "the MPD latency run failed"
    LAT_MEDIAN[mpdalbum-$output]="$(median "$runs")"
    LAT_P95[mpdalbum-$output]="$(p95 "$runs")"
    log "  ms:$runs"
    stop_recorder
}

if ((USE_MPD)); then
    MPD_PORT="$(free_port)"
    mkdir -p "$MPD_DIR/playlists"
    # Loopback only, no zeroconf, no database watching; big enough for a queue of QUEUE_ENTRIES songs
    # (the defaults are 16384 songs, a 2 MiB command list and an 8 MiB output buffer).
    cat >"$MPD_DIR/mpd.conf" <<EOF
music_directory        "$MUSIC"
playlist_directory     "$MPD_DIR/playlists"
db_file                "$MPD_DIR/database"
state_file             "$MPD_DIR/state"
log_file               "$MPD_DIR/mpd.log"
bind_to_address        "127.0.0.1"
port                   "$MPD_PORT"
zeroconf_enabled       "no"
auto_update            "no"
max_playlist_length    "$((QUEUE_ENTRIES + 1000))"
max_command_list_size  "$((QUEUE_ENTRIES / 8 + 4096))"
max_output_buffer_size "$((QUEUE_ENTRIES / 2 + 16384))"
input {
    plugin "curl"
    enabled "no"
}
audio_output {
    type  "null"
    name  "null"
}
audio_output {
    type   "pulse"
    name   "pulse"
    server "$PULSE_SERVER"
}
EOF
    if start_mpd && mpcc -q update --wait && [[ "$(mpcc listall | wc -l)" -eq 4 ]]; then
        for output in "${OUTPUT_LIST[@]}"; do [[ "$output" == wav ]] || mpd_latency "$output"; done

        log "MPD memory: idle, then after 5 s of playing through pulse"
        mpcc -q clear
        stop_mpd
        start_mpd || die "MPD did not restart"
        mpcc -q enable only pulse >&2
        sleep 2
        RSS[mpd-idle]="$(rss "$MPD_PID")"
        mpcc -q add "$MPD_URI"
        mpcc -q play
        sleep 5
        mpd_request status || true
        mpd_started "$REPLY_TEXT" || die "MPD is not playing after 5 s: $REPLY_TEXT"
        RSS[mpd-playing]="$(rss "$MPD_PID")"
        mpcc -q stop
        sleep 1
        RSS[mpd-stopped]="$(rss "$MPD_PID")"
        mpcc -q clear
        mpcc -q enable only null >&2
    else
        MPD_WHY="MPD did not start or did not find the 4 files; its log: $(tail -5 "$MPD_DIR/mpd.log" 2>/dev/null | tr '\n' ' ')"
        log "$MPD_WHY"
        stop_mpd
        USE_MPD=0
    fi
fi

# --- Queue -------------------------------------------------------------------------------------------
if ((QUEUE)); then
log "queue: crate-bench queue --entries $QUEUE_ENTRIES --runs $QUEUE_RUNS (store level)"
LOAD_QUEUE="$(machine_load)"
"$BIN/crate-bench" queue --entries "$QUEUE_ENTRIES" --runs "$QUEUE_RUNS" >"$WORK/queue.md"

# Through the daemons, each operation as one client process (curl for crated, mpc or curl's telnet
# for MPD's text protocol), wall clock.
declare -A QT   # "crate:OPERATION" and "mpd:OPERATION" -> the milliseconds of each run
N=$QUEUE_ENTRIES
MID=$((N / 2 + 1))
# timed KEY COMMAND...: appends the wall milliseconds of COMMAND (stdout discarded) to QT[KEY].
timed() {
    local key="$1" t0
    shift
    now_us; t0=$NOW_US
    "$@" >/dev/null || die "failed: $*"
    now_us
    QT["$key"]+=" $(us_to_ms "$((NOW_US - t0))")"
}
ids_file="$WORK/ids.json"
awk -v n="$N" -v id="$TRACK_ID" 'BEGIN { printf "{\"trackIDs\":["; for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), id; print "]}" }' >"$ids_file"
uris_file="$WORK/uris.txt"
awk -v n="$N" -v u="$MPD_URI" 'BEGIN { for (i = 1; i <= n; i++) print u }' >"$uris_file"
read_all_urls=()
for ((offset = 0; offset < N + 10; offset += 10000)); do read_all_urls+=("$API/queue?offset=$offset&limit=10000"); done

crate_add_all() { curl -sS -f -X POST -H 'Content-Type: application/json' --data-binary "@$ids_file" "$API/queue"; }
crate_read_all() { curl -sS -f "${read_all_urls[@]}" | wc -c; }
crate_delete() { curl -sS -f -X DELETE "$API/$1"; }
crate_total() { curl -sS -f "$API/queue?offset=0&limit=0"; }
mpd_add_all() { mpcc -q add <"$uris_file"; }
mpd_playlist() { mpcc playlist | wc -l; }
# mpd_proto COMMAND: one command over MPD's protocol through curl's telnet client (mpc has no insert
# at a position); fails on an ACK.
mpd_proto() {
    local out
    out="$(printf '%s\nclose\n' "$1" | curl -sS --max-time 120 "telnet://127.0.0.1:$MPD_PORT")"
    [[ "$out" != *ACK* ]] || { log "MPD: $out"; return 1; }
    printf '%s\n' "$out"
}

# wait_restart PORT-KIND: polls (5 ms) until the daemon answers with a queue of N entries.
crate_queue_total() { http_get_crated "/api/v1/queue?offset=0&limit=0" || return 1; local re='"total" *: *([0-9]+)'; [[ "$REPLY_TEXT" =~ $re ]] && ((BASH_REMATCH[1] == QUEUE_EXPECT)); }
mpd_queue_total() { mpd_request status || return 1; local re='playlistlength: ([0-9]+)'; [[ "$REPLY_TEXT" =~ $re ]] && ((BASH_REMATCH[1] == QUEUE_EXPECT)); }
restart_timed() {
    local kind="$1" t0
    now_us; t0=$NOW_US
    if [[ "$kind" == crate ]]; then
        start_crated CRATE_OUTPUT_PLUGIN=null
        until crate_queue_total; do pause_ms 5; done
    else
        start_mpd || die "MPD did not restart"
        until mpd_queue_total; do pause_ms 5; done
    fi
    now_us
    QT["$kind:restart"]+=" $(us_to_ms "$((NOW_US - t0))")"
}

# The cost of starting the client alone: each against a port nothing listens on (refused at once).
CLOSED_PORT="$(free_port)"
refused() { ! "$@" >/dev/null 2>&1; }
for ((run = 1; run <= 20; run++)); do
    timed crate:floor refused curl -s "http://127.0.0.1:$CLOSED_PORT/"
    if ((USE_MPD)); then timed mpd:floor refused mpc --host=127.0.0.1 --port="$CLOSED_PORT" status; fi
done

log "queue through crated (curl), $QUEUE_RUNS runs"
start_crated CRATE_OUTPUT_PLUGIN=null
for ((run = 1; run <= QUEUE_RUNS; run++)); do
    crate_delete queue >/dev/null
    timed crate:add_all crate_add_all
    timed crate:append crate_post queue "{\"trackIDs\":[$TRACK_ID]}"
    timed crate:insert_first crate_post queue "{\"trackIDs\":[$TRACK_ID],\"index\":1}"
    timed crate:insert_middle crate_post queue "{\"trackIDs\":[$TRACK_ID],\"index\":$MID}"
    timed crate:move_last_first crate_post queue/move "{\"from\":$((N + 3)),\"to\":1}"
    timed crate:remove_middle crate_delete "queue/$MID"
    timed crate:page_first curl -sS -f "$API/queue?offset=0&limit=500"
    timed crate:page_50000 curl -sS -f "$API/queue?offset=$((N >= 50500 ? 49999 : N / 2))&limit=500"
    timed crate:read_all crate_read_all
    timed crate:count crate_total
    QUEUE_EXPECT=$((N + 2))
    stop_crated
    restart_timed crate
    timed crate:entry_far curl -sS -f "$API/queue?offset=$((N >= 100000 ? 99999 : N - 1))&limit=1"
    timed crate:clear crate_delete queue
done
stop_crated

if ((USE_MPD)); then
    log "queue through MPD (mpc), $QUEUE_RUNS runs"
    for ((run = 1; run <= QUEUE_RUNS; run++)); do
        mpcc -q clear
        timed mpd:add_all mpd_add_all
        timed mpd:append mpcc -q add "$MPD_URI"
        timed mpd:insert_first mpd_proto "add \"$MPD_URI\" 0"
        timed mpd:insert_middle mpd_proto "add \"$MPD_URI\" $((MID - 1))"
        timed mpd:move_last_first mpcc -q move $((N + 3)) 1
        timed mpd:remove_middle mpcc -q del "$MID"
        timed mpd:page_first mpd_proto "playlistinfo 0:500"
        timed mpd:page_50000 mpd_proto "playlistinfo $((N >= 50500 ? 49999 : N / 2)):$((N >= 50500 ? 50499 : N / 2 + 500))"
        timed mpd:read_all mpd_playlist
        timed mpd:count mpd_proto status
        QUEUE_EXPECT=$((N + 2))
        stop_mpd
        restart_timed mpd
        timed mpd:entry_far mpd_proto "playlistinfo $((N >= 100000 ? 99999 : N - 1))"
        timed mpd:clear mpcc -q clear
    done
    stop_mpd
fi
fi   # QUEUE
LOAD_AFTER="$(machine_load)"

# --- Report ------------------------------------------------------------------------------------------
mpd_or_dash() { if ((USE_MPD)); then printf '%s' "$1"; else printf '%s' "-"; fi; }

echo "# Crate player benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average (1/5/15 min): $LOAD_BEFORE before; $LOAD_LATENCY at the latency runs; ${LOAD_QUEUE:--} at the queue runs; $LOAD_AFTER after"
echo "- $(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*'), release build; pulseaudio $(version_of pulseaudio), curl $(version_of curl)"
if ((USE_MPD)); then
    echo "- MPD $(version_of mpd), mpc $(version_of mpc) (Debian); bound to 127.0.0.1, null and pulse outputs"
else
    echo "- MPD: not measured: $MPD_WHY"
fi
echo "- library: 1 album, 4 FLAC tracks of 60 s, 44.1 kHz 16-bit stereo (sox + ffmpeg)"
echo
echo "## Play latency: HTTP play command to the first chunk written to the output"
echo
echo "Both measured by one client, Benchmarks/play_latency.py: from just before the command is sent until the"
echo "daemon first reports a sample written (crated: \`GET /api/v1/player\` with \`state == playing\` and"
echo "\`elapsed > 0\`, elapsed counting the frames the engine has written; MPD: \`status\` with \`state: play\` and"
echo "\`elapsed > 0\`), polled every 1 ms over a fresh connection. Median and p95 of $RUNS runs after one warm-up,"
echo "milliseconds; ratio = Crate median / MPD median (< 1: Crate is faster). Two pairs doing the same work:"
echo
echo "- **album**: replace the queue with the album and play it. Crate \`POST /api/v1/queue/play-album"
echo "  {\"albumID\":1}\`; MPD one command list \`clear\`, \`add \"$MPD_ALBUM\"\`, \`play\`."
echo "- **held**: \`play\` on the queue the daemon holds. Crate \`POST /api/v1/player/play {\"index\":1}\` on the album"
echo "  queued once; MPD \`play\` after an untimed \`clear\` and \`add\` of the first track."
echo
echo "| output | Crate album | p95 | MPD album | p95 | ratio album | Crate held | MPD held | p95 | ratio held |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
declare -A OUTPUT_LABEL=([null]="null" [wav]="wav (file in the data folder)" [pulse]="pulse (null sink, nothing else attached)"
                         [pulse20]="pulse (null sink + a 20 ms monitor recorder)")
for output in "${OUTPUT_LIST[@]}"; do
    cm=${LAT_MEDIAN[crate-$output]} cp=${LAT_P95[crate-$output]} hm=${LAT_MEDIAN[held-$output]}
    mm="-" mp="-" am="-" ap="-"
    if ((USE_MPD)) && [[ "$output" != wav ]]; then
        mm=${LAT_MEDIAN[mpd-$output]} mp=${LAT_P95[mpd-$output]} am=${LAT_MEDIAN[mpdalbum-$output]} ap=${LAT_P95[mpdalbum-$output]}
    fi
    echo "| ${OUTPUT_LABEL[$output]} | $cm | $cp | $am | $ap | $(ratio "$cm" "$am") | $hm | $mm | $mp | $(ratio "$hm" "$mm") |"
done
echo
echo "Each run: play, wait for the first chunk, stop, wait $GAP s. Crate's null output writes as fast as the"
echo "decoder goes; MPD's null output keeps real time. MPD has no WAV-file output to compare with. A"
echo "PulseAudio null sink with nothing else"
echo "attached renders in 2 s blocks, so a blocking write can stall for up to 2 s; with the 20 ms"
echo "recorder on its monitor it runs in 20 ms blocks, closer to a sound card."
echo
echo "## Daemon memory (MiB, /proc/PID/status)"
echo
echo "Idle: 2 s after start, library imported, nothing played. Playing: after 5 s of the album through"
echo "PulseAudio (null sink). Stopped: 1 s after the stop command. VmHWM is the peak since start."
echo "ratio = MPD / Crate (> 1: Crate uses less)."
echo
echo "| state | Crate VmRSS | Crate VmHWM | MPD VmRSS | MPD VmHWM | ratio VmRSS |"
echo "|---|---:|---:|---:|---:|---:|"
for state in idle playing stopped; do
    read -r cr ch <<<"${RSS[crate-$state]}"
    mr="-" mh="-"
    if ((USE_MPD)); then read -r mr mh <<<"${RSS[mpd-$state]}"; fi
    echo "| $state | $cr | $ch | $mr | $mh | $(ratio "$mr" "$cr") |"
done
echo
if ((QUEUE)); then
echo "## Queue of $N entries"
echo
echo "### Store level (crate-bench queue, in-process)"
echo
cat "$WORK/queue.md"
echo
echo "### Through the daemon, one client process per operation"
echo
echo "Crate: \`curl\` to crated's HTTP API (null output, stopped). MPD: \`mpc\`, or MPD's text protocol"
echo "through \`curl telnet://\` where mpc has no such command (insert at a position, page reads, status)."
echo "The same track $N times in both. Median of $QUEUE_RUNS runs, milliseconds, whole process wall time;"
echo "ratio = MPD / Crate (> 1: Crate is faster)."
echo
echo "| operation | Crate command | Crate ms | MPD command | MPD ms | ratio |"
echo "|---|---|---:|---|---:|---:|"
row() {
    local key="$1" label="$2" ccmd="$3" mcmd="$4" cm mm
    cm="$(median "${QT[crate:$key]:-}")"
    mm="$(mpd_or_dash "$(median "${QT[mpd:$key]:-}")")"
    echo "| $label | $ccmd | $cm | $mcmd | $mm | $(ratio "$mm" "$cm") |"
}
row add_all "add $N entries in one command (empty queue)" "POST /queue {trackIDs: [$N ids]}" "mpc add < $N lines"
row append "append 1" "POST /queue" "mpc add"
row insert_first "insert 1 at position 1" "POST /queue {index: 1}" "add URI 0"
row insert_middle "insert 1 at position $MID" "POST /queue {index: $MID}" "add URI $((MID - 1))"
row move_last_first "move the last entry to position 1" "POST /queue/move" "mpc move $((N + 3)) 1"
row remove_middle "remove the entry at $MID" "DELETE /queue/$MID" "mpc del $MID"
row page_first "read entries 1–500" "GET /queue?limit=500" "playlistinfo 0:500"
row page_50000 "read 500 entries from the middle" "GET /queue?offset=…&limit=500" "playlistinfo …"
row read_all "read the whole queue" "GET /queue, pages of 10,000, one curl" "mpc playlist \| wc -l"
row count "count the entries" "GET /queue?limit=0 (total)" "status (playlistlength)"
row restart "restart the daemon until it answers with the queue" "crated start, poll 5 ms" "mpd start (state file), poll 5 ms"
row entry_far "read the entry at $((N >= 100000 ? 100000 : N))" "GET /queue?offset=…&limit=1" "playlistinfo …"
row clear "clear the queue" "DELETE /queue" "mpc clear"
row floor "(client start-up alone: connection refused, 20 runs)" "curl" "mpc"
fi   # QUEUE
echo
echo "- load average after: $LOAD_AFTER"

# --- Machine-readable results (compare.sh) -----------------------------------------------------------
if [[ -n "$KV_OUT" ]]; then
    {
        echo "runs=$RUNS"
        echo "load_before=$LOAD_BEFORE"
        echo "load_after=$LOAD_AFTER"
        echo "mpd_why=$MPD_WHY"
        for output in "${OUTPUT_LIST[@]}"; do
            echo "crate_${output}_median_ms=${LAT_MEDIAN[crate-$output]:--}"
            echo "crate_${output}_p95_ms=${LAT_P95[crate-$output]:--}"
            echo "held_${output}_median_ms=${LAT_MEDIAN[held-$output]:--}"
            echo "mpd_${output}_median_ms=${LAT_MEDIAN[mpd-$output]:--}"
            echo "mpd_${output}_p95_ms=${LAT_P95[mpd-$output]:--}"
            echo "mpd_album_${output}_median_ms=${LAT_MEDIAN[mpdalbum-$output]:--}"
        done
        for state in idle playing stopped; do
            read -r r _ <<<"${RSS[crate-$state]:--}"; echo "crate_${state}_rss_mib=$r"
            read -r r _ <<<"${RSS[mpd-$state]:--}"; echo "mpd_${state}_rss_mib=$r"
        done
    } >"$KV_OUT"
fi
