#!/usr/bin/env bash
# How the outputs without a device keep time: N seconds of audio through the null and WAV file outputs, paced
# (their default) and with render: true, next to real time itself (the reference: a sound card takes N seconds).
# Prints one Markdown table.
#
#   bash Benchmarks/outputs.sh [--seconds N] [--no-build]
#
#   --seconds N   seconds of audio written (default 5)
#   --no-build    use the crate-bench already built in .build/release
set -euo pipefail

cd "$(dirname "$0")/.."
SECONDS_AUDIO=5
BUILD=1
while (($#)); do
    case "$1" in
        --seconds) SECONDS_AUDIO="${2:?--seconds needs a value}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "outputs.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ "$SECONDS_AUDIO" =~ ^[1-9][0-9]*$ ]] || { echo "outputs.sh: --seconds needs a positive whole number" >&2; exit 2; }

if ((BUILD)); then swift build -c release --product crate-bench >&2; fi
out="$(.build/release/crate-bench pace --seconds "$SECONDS_AUDIO")"
value() { sed -n "s/^$1=//p" <<<"$out"; }

echo "| output | audio | wall | wall / audio | within ±10 % of real time |"
echo "|---|---:|---:|---:|---|"
echo "| a sound card (reference) | ${SECONDS_AUDIO} s | ${SECONDS_AUDIO} s | 1.000 | yes |"
for o in null wav null_render wav_render; do
    ratio="$(value "${o}_ratio")"
    within="$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 && r <= 1.1) ? "yes" : "no" }')"
    label="${o/_render/ (render: true)}"
    echo "| $label | ${SECONDS_AUDIO} s | $(value "${o}_seconds") s | $ratio | $within |"
done
