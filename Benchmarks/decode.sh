#!/usr/bin/env bash
# Decode throughput per codec: Crate (crate-bench decode: DecoderRegistry -> PlaybackRun -> null output)
# against ffmpeg and each codec's reference decoder, on the same files. Prints one Markdown table.
# AAC and ALAC (M4A) go through Crate's FFmpeg decoder plugin; their reference is ffmpeg writing the same
# interleaved float Crate produces (-f f32le), so the rows show what the plugin's own work costs.
#
#   bash Benchmarks/decode.sh [--seconds N] [--runs N] [--no-build] [--wait-idle] [--files-only]
#
#   --seconds N   length of the generated source (default 600 = 10 minutes); files are cached per length
#   --runs N      timed runs per command; the best is kept (default 3)
#   --no-build    use the crate-bench already built in .build/release
#   --wait-idle   before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#   --files-only  make the cached files, print their folder and stop (streams.sh uses the same files)
#
# The source is made once with sox and encoded with the reference encoders (flac, lame, oggenc,
# opusenc; ffmpeg for AAC and ALAC) into .build/bench-cache/ (override with CRATE_BENCH_CACHE). Every command is timed the
# same way, as a whole process, wall clock, output discarded.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT="$(pwd)"
SECONDS_LONG=600
RUNS=3
BUILD=1
WAIT_IDLE=0
FILES_ONLY=0
while (($#)); do
    case "$1" in
        --seconds) SECONDS_LONG="${2:?--seconds needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --files-only) FILES_ONLY=1; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "decode.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ "$SECONDS_LONG" =~ ^[1-9][0-9]*$ ]] || { echo "decode.sh: --seconds needs a positive whole number" >&2; exit 2; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "decode.sh: --runs needs a positive whole number" >&2; exit 2; }

log() { echo "decode.sh: $*" >&2; }
# shellcheck source=Benchmarks/common.sh
source "$ROOT/Benchmarks/common.sh"

# --- Reference tools (Debian packages), installed only when missing -------------------------------
declare -A TOOL_PACKAGE=([opusenc]=opus-tools [opusdec]=opus-tools [oggenc]=vorbis-tools [oggdec]=vorbis-tools
                         [mpg123]=mpg123 [flac]=flac [lame]=lame)
missing=()
for pkg in opus-tools vorbis-tools mpg123 flac lame; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    if [[ "$(id -u)" -eq 0 ]]; then
        log "installing ${missing[*]}"
        apt_install() { apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${missing[@]}"; }
        # A stale package list is the usual reason an install fails: refresh once and retry.
        apt_install >&2 || { apt-get -o DPkg::Lock::Timeout=900 update -q >&2 && apt_install >&2; }
    else
        log "missing ${missing[*]}: run 'sudo apt-get install --no-install-recommends ${missing[*]}'"
        exit 1
    fi
fi
for tool in ffmpeg sox "${!TOOL_PACKAGE[@]}"; do
    command -v "$tool" >/dev/null || { log "$tool not found"; exit 1; }
done

# --- Source and encodes (cached) -------------------------------------------------------------------
# v1: bump when the recipe below changes, so stale files are not reused.
CACHE="${CRATE_BENCH_CACHE:-$ROOT/.build/bench-cache}/decode-v1-${SECONDS_LONG}s"
mkdir -p "$CACHE"
SOURCE="$CACHE/source.wav"

# Music-like (common.sh's music_source), made in a work folder and moved into place whole.
make_source() {
    local work="$CACHE/work"
    music_source "$work/source.wav" "$SECONDS_LONG" "$work"
    mv "$work/source.wav" "$SOURCE"
    rm -rf "$work"
}

# encode OUT COMMAND...: runs COMMAND (which writes "$tmp") once, then moves it into place.
encode() {
    local out="$1"; shift
    [[ -s "$out" ]] && return 0
    log "encoding $(basename "$out")"
    local tmp="$out.tmp"
    rm -f "$tmp"
    "$@" >&2
    mv "$tmp" "$out"
}

if [[ ! -s "$SOURCE" ]]; then
    log "generating a ${SECONDS_LONG}-second source with sox"
    make_source
fi
FLAC_FILE="$CACHE/bench.flac"
MP3_FILE="$CACHE/bench.mp3"
VORBIS_FILE="$CACHE/bench.ogg"
OPUS_FILE="$CACHE/bench.opus"
tmp_of() { echo "$1.tmp"; }
encode "$FLAC_FILE" flac -s -5 -f -o "$(tmp_of "$FLAC_FILE")" "$SOURCE"
# VBR ~190 kb/s; lame writes the Xing/LAME header (encoder delay and padding) Crate uses for gapless.
encode "$MP3_FILE" lame --quiet -V 2 "$SOURCE" "$(tmp_of "$MP3_FILE")"
encode "$VORBIS_FILE" oggenc -Q -q 5 -o "$(tmp_of "$VORBIS_FILE")" "$SOURCE"
# opusenc resamples to 48 kHz, Opus' own rate; every Opus decoder outputs 48 kHz.
encode "$OPUS_FILE" opusenc --quiet --bitrate 128 "$SOURCE" "$(tmp_of "$OPUS_FILE")"
# AAC-LC 192 kb/s and ALAC in M4A, by ffmpeg (Debian has no other encoder for them); -f: the temporary name has no suffix.
AAC_FILE="$CACHE/bench-aac.m4a"
ALAC_FILE="$CACHE/bench-alac.m4a"
encode "$AAC_FILE" ffmpeg -nostdin -v error -i "$SOURCE" -c:a aac -b:a 192k -f ipod "$(tmp_of "$AAC_FILE")"
encode "$ALAC_FILE" ffmpeg -nostdin -v error -i "$SOURCE" -c:a alac -f ipod "$(tmp_of "$ALAC_FILE")"
if ((FILES_ONLY)); then echo "$CACHE"; exit 0; fi

# --- Build -----------------------------------------------------------------------------------------
if ((BUILD)); then
    log "building crate-bench (release)"
    swift build -c release --product crate-bench >&2
fi
BENCH="$(swift build -c release --show-bin-path)/crate-bench"
[[ -x "$BENCH" ]] || { log "no $BENCH: build it with 'swift build -c release --product crate-bench'"; exit 1; }

# --- Timing ----------------------------------------------------------------------------------------
ERR="$CACHE/stderr.txt"

# Timings are CPU-bound: another build or test run on the machine skews them.
wait_idle 20

# Header: machine facts and versions.
echo "# Crate decode benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average before timing (1/5/15 min): $(machine_load)"
echo "- source: ${SECONDS_LONG} s, 44.1 kHz 16-bit stereo (sox synth: plucked phrase + tremolo chord + pink noise); best of $RUNS runs, whole process wall time, commands interleaved"
echo "- $(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*'), crate-bench release build"
echo "- $(ffmpeg -version | head -1 | cut -d' ' -f1-3)"
echo "- $(opusdec --version 2>&1 | head -1); $(oggdec --version 2>&1 | head -1); mpg123 $(mpg123 --version 2>&1 | head -1 | awk '{print $2}'); $(flac --version | head -1); $(lame --version 2>&1 | head -1 | sed 's/ (http.*//')"
libs=()
for lib in libopusfile0 libopus0 libvorbisfile3 libvorbis0a libmpg123-0 libflac12 libavformat59 libavcodec59 libswresample4; do
    v=$(dpkg-query -W -f='${Version}' "$lib" 2>/dev/null) && libs+=("$lib $v")
done
joined=$(IFS=,; echo "${libs[*]}")
echo "- Crate links (Debian): ${joined//,/, }"
echo

codecs=(opus vorbis mp3 flac aac alac)
declare -A FILE=([opus]="$OPUS_FILE" [vorbis]="$VORBIS_FILE" [mp3]="$MP3_FILE" [flac]="$FLAC_FILE" [aac]="$AAC_FILE" [alac]="$ALAC_FILE")
declare -A REF_NAME=([opus]=opusdec [vorbis]=oggdec [mp3]=mpg123 [flac]=flac [aac]="ffmpeg f32le" [alac]="ffmpeg f32le")
reference() {
    case "$1" in
        opus) opusdec --quiet --rate 48000 "$2" /dev/null ;;
        vorbis) oggdec -Q -o /dev/null "$2" ;;
        mp3) mpg123 -q -w /dev/null "$2" ;;
        flac) flac -d -s -c "$2" ;;
        aac|alac) ffmpeg -nostdin -v error -i "$2" -f f32le - ;;
    esac
}
ffmpeg_decode() { ffmpeg -nostdin -v error -i "$1" -f null -; }

declare -A T_CRATE T_INPROC T_FFMPEG T_REF FRAMES RATE
crate_out="$CACHE/crate-bench.out"
for codec in "${codecs[@]}"; do
    file="${FILE[$codec]}"
    log "timing $codec ($(du -h "$file" | cut -f1))"
    for ((round = 1; round <= RUNS; round++)); do
        t=$(run_timed "$crate_out" "$BENCH" decode "$file")
        T_CRATE[$codec]=$(min "${T_CRATE[$codec]:-}" "$t")
        T_INPROC[$codec]=$(min "${T_INPROC[$codec]:-}" "$(sed -n 's/^best_seconds=//p' "$crate_out")")
        FRAMES[$codec]=$(sed -n 's/^frames=//p' "$crate_out")
        RATE[$codec]=$(sed -n 's/^sample_rate=//p' "$crate_out")
        t=$(run_timed /dev/null ffmpeg_decode "$file")
        T_FFMPEG[$codec]=$(min "${T_FFMPEG[$codec]:-}" "$t")
        t=$(run_timed /dev/null reference "$codec" "$file")
        T_REF[$codec]=$(min "${T_REF[$codec]:-}" "$t")
    done
done
load_after=$(machine_load)

echo "| codec | Crate s | ffmpeg s | reference s | fastest reference | ratio | realtime × |"
echo "|---|---:|---:|---:|---|---:|---:|"
below=()
for codec in "${codecs[@]}"; do
    crate=${T_CRATE[$codec]} ff=${T_FFMPEG[$codec]} ref=${T_REF[$codec]}
    fastest_name=$(awk -v f="$ff" -v r="$ref" -v n="${REF_NAME[$codec]}" 'BEGIN { print (f + 0 <= r + 0) ? "ffmpeg" : n }')
    fastest=$(min "$ff" "$ref")
    ratio=$(awk -v f="$fastest" -v c="$crate" 'BEGIN { printf "%.2f", f / c }')
    rt=$(awk -v n="${FRAMES[$codec]}" -v r="${RATE[$codec]}" -v c="$crate" 'BEGIN { printf "%.0f", n / r / c }')
    if awk -v x="$ratio" 'BEGIN { exit !(x < 0.95) }'; then below+=("$codec"); fi
    echo "| $codec | $crate | $ff | $ref (${REF_NAME[$codec]}) | $fastest_name | $ratio | $rt |"
done
echo
echo "ratio = fastest reference time / Crate time (≥ 1: Crate is faster; target ≥ 0.95)."
echo "realtime × = seconds of audio decoded per second of Crate wall time."
echo
echo "| codec | file | frames Crate decoded | Crate in-process s (excl. start-up) |"
echo "|---|---|---:|---:|"
for codec in "${codecs[@]}"; do
    f="${FILE[$codec]}"
    kbps=$(awk -v b="$(stat -c %s "$f")" -v s="$SECONDS_LONG" 'BEGIN { printf "%.0f", b * 8 / s / 1000 }')
    echo "| $codec | $(basename "$f"), $kbps kb/s | ${FRAMES[$codec]} at ${RATE[$codec]} Hz | ${T_INPROC[$codec]} |"
done
echo
echo "- load average after timing: $load_after"
echo "- commands: \`crate-bench decode FILE\`; \`ffmpeg -nostdin -v error -i FILE -f null -\`;" \
     "\`opusdec --quiet --rate 48000 FILE /dev/null\`; \`oggdec -Q -o /dev/null FILE\`;" \
     "\`mpg123 -q -w /dev/null FILE\`; \`flac -d -s -c FILE > /dev/null\`;" \
     "AAC and ALAC: \`ffmpeg -nostdin -v error -i FILE -f f32le - > /dev/null\`"
if ((${#below[@]})); then
    echo "- below the 0.95 target: ${below[*]}"
else
    echo "- every codec meets the 0.95 target"
fi
