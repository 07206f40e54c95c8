#!/usr/bin/env bash
# The stream output (/stream.opus) next to MPD's httpd output with its Opus encoder, on the same album, in one run:
# the stream's own CPU (the album played with a null output that keeps time, with and without the stream; the
# difference, as × real time on one core), memory with 50 listeners, and the time from a resume command to the first
# music at a listener that stayed connected through the pause. Prints a Markdown table.
#
#   bash Benchmarks/stream.sh [--seconds N] [--bitrate K] [--listeners N] [--no-build]
#
#   --seconds N    length of the album, three tracks (default 60)
#   --bitrate K    Opus kbit/s for both (default 128)
#   --listeners N  simultaneous listeners for the memory row (default 50)
#   --no-build     use the crated and crate already built in .build/release
#
# The album is common.sh's music_source (plucked notes over a chord and a little noise, 44.1 kHz), cut into three
# FLAC tracks; crated imports it, MPD (Debian's 0.23, bound to 127.0.0.1) reads the same folder. Both run in a
# temporary folder and are stopped at exit; it takes about four album lengths plus a minute.
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
source Benchmarks/common.sh
log() { echo "stream.sh: $*" >&2; }
SECONDS_AUDIO=60
BITRATE=128
LISTENERS=50
BUILD=1
while (($#)); do
    case "$1" in
        --seconds) SECONDS_AUDIO="${2:?--seconds needs a value}"; shift 2 ;;
        --bitrate) BITRATE="${2:?--bitrate needs a value}"; shift 2 ;;
        --listeners) LISTENERS="${2:?--listeners needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "stream.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ "$SECONDS_AUDIO" =~ ^[1-9][0-9]*$ && "$BITRATE" =~ ^[1-9][0-9]*$ && "$LISTENERS" =~ ^[1-9][0-9]*$ ]] \
    || { echo "stream.sh: --seconds, --bitrate and --listeners take positive whole numbers" >&2; exit 2; }
command -v mpd >/dev/null && command -v mpc >/dev/null || die "needs Debian's mpd and mpc (scripts/install-deps.sh test)"

if ((BUILD)); then
    for product in crated crate; do
        log "building $product (release)"
        swift build -c release --static-swift-stdlib --product "$product" >&2
    done
fi
BIN="$(swift build -c release --show-bin-path)"
WORK="$(mktemp -d /tmp/crate-stream-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

log "making the album ($SECONDS_AUDIO s)"
music_source "$WORK/source.wav" "$SECONDS_AUDIO" "$WORK/src"
mkdir -p "$WORK/music/Bench/Stream"
third=$((SECONDS_AUDIO / 3))
for n in 1 2 3; do
    sox "$WORK/source.wav" "$WORK/music/Bench/Stream/0$n.flac" trim $(((n - 1) * third)) "$third"
    metaflac --set-tag="TITLE=Part $n" --set-tag="ARTIST=Bench" --set-tag="ALBUM=Stream" --set-tag="TRACKNUMBER=$n" \
        "$WORK/music/Bench/Stream/0$n.flac"
done

echo "crated $(git rev-parse --short HEAD), MPD $(version_of mpd), libopus $(version_of libopus0); load $(machine_load)"
echo
python3 Benchmarks/stream_bench.py --bin "$BIN" --music "$WORK/music" --work "$WORK/run" --seconds "$((third * 3))" \
    --bitrate "$BITRATE" --listeners "$LISTENERS"
