#!/usr/bin/env bash
# Loudness scan throughput: `crate loudness scan` (libebur128: integrated loudness and true peak, two tracks at a time,
# per track and per album) against `ffmpeg -af ebur128=peak=true` on the same files, one at a time and two at a time.
# Prints one Markdown table.
#
#   bash Benchmarks/loudness.sh [--tracks N] [--seconds N] [--runs N] [--no-build] [--wait-idle]
#
#   --tracks N    tracks per codec (default 8)
#   --seconds N   length of each track (default 60); files are cached per recipe
#   --runs N      timed runs per command; the best is kept (default 3)
#   --no-build    use the crate already built in .build/release
#   --wait-idle   before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#
# The tracks are cut from one music-like sox source (the recipe of decode.sh) and encoded by ffmpeg as FLAC, MP3 (LAME
# V2), Ogg Vorbis (q5) and Opus (128 kb/s) into .build/bench-cache/ (CRATE_BENCH_CACHE moves it). Each codec's folder
# is one album of a private Crate library (its own data directory, imported by reference, no daemon). Every command is
# timed as a whole process, wall clock: Crate `crate loudness scan --force FOLDER` (the album's tracks and the album),
# ffmpeg one file after another, and ffmpeg two files at a time (xargs -P 2), as Crate uses two cores.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
TRACKS=8
TRACK_SECONDS=60
RUNS=3
BUILD=1
WAIT_IDLE=0
while (($#)); do
    case "$1" in
        --tracks) TRACKS="${2:?--tracks needs a value}"; shift 2 ;;
        --seconds) TRACK_SECONDS="${2:?--seconds needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "loudness.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
for n in "$TRACKS" "$TRACK_SECONDS" "$RUNS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "loudness.sh: --tracks, --seconds and --runs need positive whole numbers" >&2; exit 2; }
done

log() { echo "loudness.sh: $*" >&2; }
# shellcheck source=Benchmarks/common.sh
source "$ROOT/Benchmarks/common.sh"
for tool in ffmpeg sox xargs; do command -v "$tool" >/dev/null || die "$tool not found"; done

# --- Files (cached) --------------------------------------------------------------------------------
# v1: bump when the recipe below changes, so stale files are not reused.
CACHE="${CRATE_BENCH_CACHE:-$ROOT/.build/bench-cache}/loudness-v1-${TRACKS}x${TRACK_SECONDS}s"
MUSIC="$CACHE/music"
TOTAL=$((TRACKS * TRACK_SECONDS))
codecs=(flac mp3 vorbis opus)
declare -A SUFFIX=([flac]=flac [mp3]=mp3 [vorbis]=ogg [opus]=opus)
declare -A ENCODE=([flac]="-c:a flac" [mp3]="-c:a libmp3lame -q:a 2" [vorbis]="-c:a libvorbis -q:a 5" [opus]="-c:a libopus -b:a 128k")

# Music-like (common.sh's music_source, as decode.sh): plucked notes over a tremolo chord and a little pink
# noise; 44.1 kHz, 16-bit stereo; then a few dB up or down per track, so the tracks differ in loudness.
make_files() {
    local work="$CACHE/work"
    rm -rf "$MUSIC"
    music_source "$work/source.wav" "$TOTAL" "$work"
    for ((t = 0; t < TRACKS; t++)); do
        sox "$work/source.wav" "$work/track$t.wav" trim $((t * TRACK_SECONDS)) "$TRACK_SECONDS" gain $(((t % 4) * -3))
    done
    for codec in "${codecs[@]}"; do
        mkdir -p "$MUSIC/$codec.tmp"
        for ((t = 0; t < TRACKS; t++)); do
            # shellcheck disable=SC2086
            ffmpeg -nostdin -v error -i "$work/track$t.wav" ${ENCODE[$codec]} \
                -metadata title="Track $((t + 1))" -metadata artist="Bench" -metadata album="$codec" -metadata track="$((t + 1))" \
                "$MUSIC/$codec.tmp/$(printf '%02d' $((t + 1))).${SUFFIX[$codec]}"
        done
        mv "$MUSIC/$codec.tmp" "$MUSIC/$codec"
    done
    rm -rf "$work"
}
if [[ ! -d "$MUSIC/${codecs[-1]}" ]]; then
    log "making $TRACKS tracks of $TRACK_SECONDS s per codec"
    mkdir -p "$CACHE"
    make_files
fi

# --- Build and a private library ------------------------------------------------------------------
if ((BUILD)); then
    log "building crate (release)"
    swift build -c release --product crate >&2
fi
CRATE="$(swift build -c release --show-bin-path)/crate"
[[ -x "$CRATE" ]] || die "no $CRATE: build it with 'swift build -c release --product crate'"
# Beside the cached files (not in /tmp, which test runs clean up).
WORK="$(mktemp -d "$CACHE/run.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# Its own data directory, and an address no daemon answers on: the scans run in this process, on this library.
export CRATE_DATA_DIRECTORY="$WORK/data" CRATE_HTTP_ADDRESS="127.0.0.1:9" CRATE_LOG_LEVEL=warning
export XDG_CONFIG_HOME="$WORK/config"
"$CRATE" import --mode reference --quiet "$MUSIC" >/dev/null

# --- Timing ----------------------------------------------------------------------------------------
ERR="$WORK/stderr.txt"
ffmpeg_one() { ffmpeg -nostdin -hide_banner -nostats -i "$1" -af ebur128=peak=true -f null - 2>&1 | awk '/Summary:/ { s = 1 } s && /^ *I:/ { print $2 }'; }
ffmpeg_each() { for f in "$@"; do ffmpeg_one "$f"; done; }
ffmpeg_pairs() { printf '%s\0' "$@" | xargs -0 -n 1 -P 2 bash -c 'ffmpeg -nostdin -hide_banner -nostats -i "$0" -af ebur128=peak=true -f null - 2>/dev/null'; }
export -f ffmpeg_one

wait_idle 20

echo "# Crate loudness scan benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average before timing (1/5/15 min): $(machine_load)"
echo "- per codec: one album of $TRACKS tracks × $TRACK_SECONDS s (44.1 kHz stereo; Opus decodes at 48 kHz); best of $RUNS runs, whole process wall time"
echo "- Crate: \`crate loudness scan --force FOLDER\` (release; integrated loudness + true peak per track, and the album); ffmpeg: \`ffmpeg -af ebur128=peak=true -f null -\` per file"
echo "- $(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*'); $(ffmpeg -version | head -1 | cut -d' ' -f1-3); libebur128 $(version_of libebur128-1)"
echo

declare -A T_CRATE T_SEQ T_PAR DELTA
for codec in "${codecs[@]}"; do
    files=("$MUSIC/$codec"/*)
    log "timing $codec (${#files[@]} files, $(du -sh "$MUSIC/$codec" | cut -f1))"
    for ((run = 0; run < RUNS; run++)); do
        T_CRATE[$codec]=$(min "${T_CRATE[$codec]:-}" "$(run_timed "$WORK/crate.out" "$CRATE" loudness scan --force --quiet --json "$MUSIC/$codec")")
        T_SEQ[$codec]=$(min "${T_SEQ[$codec]:-}" "$(run_timed "$WORK/ffmpeg.out" ffmpeg_each "${files[@]}")")
        T_PAR[$codec]=$(min "${T_PAR[$codec]:-}" "$(run_timed /dev/null ffmpeg_pairs "${files[@]}")")
    done
    grep -q '"albumsMeasured" : 1' "$WORK/crate.out" || die "the $codec scan measured no album: $(cat "$WORK/crate.out")"
    # Agreement: Crate's integrated loudness of each track against ffmpeg's (printed with one decimal).
    "$CRATE" loudness show --json "$codec" >"$WORK/show.json"
    DELTA[$codec]=$(python3 - "$WORK/show.json" "$WORK/ffmpeg.out" <<'PY'
import json, sys
tracks = json.load(open(sys.argv[1]))["tracks"]
ffmpeg = [float(line) for line in open(sys.argv[2]) if line.strip()]
print("%.2f" % max(abs(t["scan"]["integrated"] - f) for t, f in zip(tracks, ffmpeg)))
PY
)
done

echo "| codec | tracks | audio s | Crate s | ffmpeg s (1 at a time) | ffmpeg s (2 at a time) | ratio vs 1 | ratio vs 2 | Crate realtime × | max \|ΔI\| vs ffmpeg (LU) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for codec in "${codecs[@]}"; do
    printf '| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n' "$codec" "$TRACKS" "$TOTAL" "${T_CRATE[$codec]}" \
        "${T_SEQ[$codec]}" "${T_PAR[$codec]}" "$(ratio "${T_SEQ[$codec]}" "${T_CRATE[$codec]}")" \
        "$(ratio "${T_PAR[$codec]}" "${T_CRATE[$codec]}")" "$(awk -v a="$TOTAL" -v t="${T_CRATE[$codec]}" 'BEGIN { printf "%.0f", a / t }')" \
        "${DELTA[$codec]}"
done
echo
echo "ratio = ffmpeg time / Crate time (≥ 1: Crate is faster). The max |ΔI| column compares each track's integrated loudness."
echo "- load average after timing: $(machine_load)"
