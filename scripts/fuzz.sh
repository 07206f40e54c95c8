#!/usr/bin/env bash
# Fuzzes Crate's hand-written parsers with libFuzzer (swiftc -sanitize=fuzzer,address). See Fuzz/README.md.
#
#   scripts/fuzz.sh [seconds] [target...]     default: 300 seconds for every target, one after the other
#   scripts/fuzz.sh 20                        the smoke run `make test` does
#   scripts/fuzz.sh --build [target...]       only build (make test builds them beside Crate's own build)
#   scripts/fuzz.sh --list                    the targets
#
# Each target is built into .build-fuzz/bin/ with a direct swiftc call (never SwiftPM's .build): the parser's own
# source files and the target's Fuzz/<Target>/main.swift, against CrateDomain built once with the same flags.
# The corpus of each target is kept in .build-fuzz/corpus/<Target> and read together with Fuzz/<Target>/seeds.
# At the end a table gives executions, executions per second, corpus size and findings per target. A crash,
# timeout, leak or out-of-memory makes the script exit 1 and print the input that caused it.
#
# Environment: FUZZ_JOBS=2 runs two targets at a time (default 1); FUZZ_MERGE=1 shrinks each corpus to the inputs
# that add coverage after the run; SWIFTC picks the compiler; FUZZ_ARGS adds libFuzzer flags.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$root/.build-fuzz"
swiftc="${SWIFTC:-swiftc}"
jobs="${FUZZ_JOBS:-1}"

# target | Swift module the parser belongs to | its source files (the entry and seeds are Fuzz/<target>/) | max input length
targets=(
  "WAV|WAVDecoder|Plugins/Decoders/WAV/WAVDecoderPlugin.swift Plugins/Decoders/WAV/ID3Chunk.swift Fuzz/Support/MemoryStream.swift|8192"
  "ID3Chunk|WAVDecoder|Plugins/Decoders/WAV/ID3Chunk.swift|4096"
  "OggTail|DecoderSupport|Plugins/Support/Decoders/OggTail.swift|70000"
  "PictureBlock|DecoderSupport|Plugins/Support/Decoders/PictureBlock.swift|4096"
  "MP3Resync|MP3Decoder|Plugins/Decoders/MP3/MP3Resync.swift Fuzz/Support/MemoryStream.swift|8192"
  "M3U|FuzzM3U||4096"
  "RadioPlaylist|URLStreamSource|Plugins/Sources/URLStream/RadioPlaylist.swift|4096"
  "ICY|URLStreamSource|Plugins/Sources/URLStream/ICYDemuxer.swift|4096"
  "SearchQuery|FuzzSearchQuery||1024"
  "Config|CrateCore|Modules/CrateCore/SettingValues.swift Modules/CrateCore/ConfigError.swift Modules/CrateCore/Settings.swift Modules/CrateCore/HTTPSettings.swift|1024"
  "MPDCommandLine|MPDFrontEnd|Modules/FrontEnds/MPD/MPDArguments.swift Modules/FrontEnds/MPD/MPDError.swift|4096"
  "MPDFilter|MPDFrontEnd|Modules/FrontEnds/MPD/MPDFilter.swift Modules/FrontEnds/MPD/MPDArguments.swift Modules/FrontEnds/MPD/MPDError.swift|4096"
)

field() { # field <target> <n>: the n-th field (1-based) of the target's line
  local line
  for line in "${targets[@]}"; do
    if [[ "${line%%|*}" == "$1" ]]; then echo "$line" | cut -d'|' -f"$2"; return 0; fi
  done
  return 1
}

if [[ "${1:-}" == "--list" ]]; then
  for line in "${targets[@]}"; do echo "${line%%|*}"; done
  exit 0
fi
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi

seconds=300
build_only=0
if [[ "${1:-}" == "--build" ]]; then build_only=1; shift; fi
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then seconds="$1"; shift; fi
selected=("$@")
if [[ ${#selected[@]} -eq 0 ]]; then
  for line in "${targets[@]}"; do selected+=("${line%%|*}"); done
fi
for t in "${selected[@]}"; do
  field "$t" 1 >/dev/null || { echo "fuzz.sh: unknown target '$t' (scripts/fuzz.sh --list)" >&2; exit 2; }
done

mkdir -p "$out/lib" "$out/bin" "$out/logs" "$out/corpus" "$out/crashes" "$out/ModuleCache"
flags=(-swift-version 6 -parse-as-library -sanitize=fuzzer,address -O -g -use-ld=lld
       -module-cache-path "$out/ModuleCache"
       -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility
       -enable-upcoming-feature InternalImportsByDefault)

# Rebuilds $1 when it is missing, older than any of the other arguments, or older than this script.
stale() {
  local product="$1"; shift
  [[ -e "$product" ]] || return 0
  [[ "$0" -nt "$product" ]] && return 0
  local f
  for f in "$@"; do [[ "$f" -nt "$product" ]] && return 0; done
  return 1
}

build_log() { echo "$out/logs/build-$1.log"; }

mapfile -t domain_sources < <(find Modules/CrateDomain -name "*.swift" | sort)
# CrateDomain, built with the targets' flags once per change (only when a target has to be built).
build_domain() {
  stale "$out/lib/libCrateDomain.a" "${domain_sources[@]}" || return 0
  echo "fuzz: building CrateDomain (sanitized)"
  if ! (cd "$out/lib" && "$swiftc" "${flags[@]}" -module-name CrateDomain \
          -emit-module -emit-module-path CrateDomain.swiftmodule -emit-library -static -o libCrateDomain.a \
          "${domain_sources[@]/#/$root/}") >"$(build_log CrateDomain)" 2>&1; then
    cat "$(build_log CrateDomain)" >&2
    echo "fuzz: building CrateDomain failed" >&2
    exit 2
  fi
}

# Built targets are kept between runs, so a fresh clone does not build again what an earlier run built from the same
# bytes (5 minutes of one core beside Crate's own build): in $CRATE_FUZZ_CACHE, else $XDG_CACHE_HOME/crate/fuzz-bin
# or ~/.cache/crate/fuzz-bin ("off" builds every time), keyed by the compiler's version, the flags, this script and
# the bytes of every source file the target is built from (CrateDomain's included); at most 300 MB, the entries used
# longest ago go first.
cache="${CRATE_FUZZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/crate/fuzz-bin}"
[[ "$cache" == off ]] && cache=""
compiler="$("$swiftc" -version 2>&1)"
cache_key() { # cache_key <target> <sources...>
  local t="$1"; shift
  # The flags name this checkout's folder: left out, so every clone of the same files has the same key.
  { echo "$t"; echo "$compiler"; echo "${flags[*]//"$root"/}"; cat "$root/scripts/fuzz.sh"; local f
    for f in "${domain_sources[@]}" "$@"; do echo "== $f"; cat "$f"; done; } | sha256sum | cut -c1-32
}
prune_cache() {
  [[ -n "$cache" && -d "$cache" ]] || return 0
  local size entry
  while size="$(du -sm "$cache" | cut -f1)" && (( size > 300 )); do
    entry="$(ls -1tr "$cache" | head -n 1)"
    [[ -n "$entry" ]] || break
    rm -rf "${cache:?}/$entry"
  done
}

for t in "${selected[@]}"; do
  module="$(field "$t" 2)"
  read -r -a sources <<<"$(field "$t" 3)"
  sources+=("Fuzz/$t/main.swift")
  stale "$out/bin/$t" "${sources[@]}" "${domain_sources[@]}" || continue
  key="$(cache_key "$t" "${sources[@]}")"
  if [[ -n "$cache" && -x "$cache/$key/$t" ]] && cp "$cache/$key/$t" "$out/bin/$t.part" && mv "$out/bin/$t.part" "$out/bin/$t"; then
    echo "fuzz: $t from the cache ($cache/$key)"
    touch "$cache/$key"
    continue
  fi
  build_domain
  echo "fuzz: building $t"
  if ! "$swiftc" "${flags[@]}" -module-name "$module" -I "$out/lib" -L "$out/lib" -lCrateDomain \
         "${sources[@]}" -o "$out/bin/$t" >"$(build_log "$t")" 2>&1; then
    cat "$(build_log "$t")" >&2
    echo "fuzz: building $t failed" >&2
    exit 2
  fi
  if [[ -n "$cache" ]] && mkdir -p "$cache/$key" && cp "$out/bin/$t" "$cache/$key/.$t.part"; then
    mv "$cache/$key/.$t.part" "$cache/$key/$t"
  fi
done
prune_cache
(( build_only )) && exit 0

# Swift's runtime keeps metadata caches for the life of the process; LeakSanitizer would call them leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:symbolize=1}"
# Swift's own crash backtracer reads the crashed process's memory, which AddressSanitizer reports as a second,
# misleading crash; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

run() { # run <target>: one libFuzzer session; its log is $out/logs/<target>.log
  local t="$1" corpus="$out/corpus/$1" crashes="$out/crashes/$1/" dict=()
  mkdir -p "$corpus" "$crashes"
  [[ -f "Fuzz/$t/dict" ]] && dict=(-dict="Fuzz/$t/dict")
  local seeds=()
  [[ -d "Fuzz/$t/seeds" ]] && seeds=("Fuzz/$t/seeds")
  # shellcheck disable=SC2086
  "$out/bin/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$(field "$t" 4)" \
    -print_final_stats=1 -artifact_prefix="$crashes" "${dict[@]}" ${FUZZ_ARGS:-} "$corpus" "${seeds[@]}" \
    >"$out/logs/$t.log" 2>&1 || true
  if [[ "${FUZZ_MERGE:-0}" == 1 ]] && ! grep -q "Test unit written to" "$out/logs/$t.log"; then
    local merged="$out/corpus/$t.merge"
    rm -rf "$merged" && mkdir -p "$merged"
    if "$out/bin/$t" -merge=1 -max_len="$(field "$t" 4)" "$merged" "$corpus" >"$out/logs/$t.merge.log" 2>&1; then
      rm -rf "$corpus" && mv "$merged" "$corpus"
    fi
  fi
}

echo "fuzz: ${#selected[@]} target(s), ${seconds} s each, $jobs at a time"
running=0
for t in "${selected[@]}"; do
  if (( running >= jobs )); then wait -n || true; running=$((running - 1)); fi
  run "$t" &
  running=$((running + 1))
done
wait

status=0
printf '\n%-14s %8s %12s %9s %8s %8s  %s\n' target seconds executions exec/s corpus files findings
for t in "${selected[@]}"; do
  log="$out/logs/$t.log"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  # The last status line's "corp: N/size" is the corpus libFuzzer keeps (inputs adding coverage).
  units="$( (grep -o 'corp: [0-9]*' "$log" || true) | tail -1 | awk '{print $2}')"
  files="$(find "$out/corpus/$t" -type f | wc -l)"
  found="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log")"
  findings=0
  [[ -n "$found" ]] && findings="$(echo "$found" | wc -l)"
  if [[ -z "$execs" && -z "$found" ]]; then findings="?"; fi
  printf '%-14s %8s %12s %9s %8s %8s  %s\n' "$t" "$seconds" "${execs:-?}" "${rate:-?}" "${units:-?}" "$files" "$findings"
  if [[ -n "$found" ]]; then
    status=1
    while read -r path; do
      echo "  $t: $(grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY' "$log" || true)"
      echo "  $t: input $path (reproduce: $out/bin/$t $path; log $log)"
    done <<<"$found"
  elif [[ -z "$execs" ]]; then
    status=1
    echo "  $t: no statistics: the run did not finish normally (log $log):"
    tail -n 20 "$log" | sed 's/^/    /'
  fi
done
exit "$status"
