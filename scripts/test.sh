#!/usr/bin/env bash
# Every test `make test` runs, in lanes that share the machine's cores (README.md, "Running the tests"):
#
#   fuzz      from the start: the fuzz targets' own build (scripts/fuzz.sh --build, swiftc into .build-fuzz/; a target
#             built before from the same files comes from ~/.cache/crate/fuzz-bin), then
#             20 s of libFuzzer per target (scripts/fuzz.sh 20), beside Crate's build: the cores are full then (the
#             build takes ~2 min longer, the fuzzers make 55-90 % of their executions alone), but the tests after
#             the build, which wait more than they compute, keep theirs to themselves
#   (build)   Crate's debug build with its tests, `swift build --build-tests`, in the foreground (the Python venv
#             is made beside it); once it is done, one more lane:
#   tests     swift test --skip-build (Swift Testing: its suites in parallel in one process) beside Tests/Browser
#             (Chromium); then, alone, the Swift suites that play in real time through a PulseAudio server
#             (`realtime` below: beside Chromium their sample-exact recordings under-ran); then Tests/Integration
#             (real crated, mpd, mpc, snapcast)
#
# The Python suites are two pytest runs: each folder has its own conftest.py, and Python knows one module named
# conftest per run. Each test phase has a temporary folder of its own (scripts/with-scratch-tmp.sh) and the tests pick
# free loopback ports, so no two phases share a port, a folder, a PulseAudio server or a data directory.
#
# A lane's output goes to .build/test-logs/<phase>.log, printed whole when the phase ends (never interleaved with
# another's). At the end a table gives each phase's start, duration and result; a phase failing makes the script
# exit 1 and name the phase and its log. Ctrl-C stops every lane.
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
logs=.build/test-logs
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/results "$logs"/.*.rc "$logs/.deferred"
touch "$logs/.building"
t0=$(date +%s)

clock() { local s=$(( $(date +%s) - t0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }
say() { flock "$logs/.print" printf '\n[make test %s] %s\n' "$(clock)" "$*"; }
record() { echo "$1 $2 $(( $3 - t0 )) $(( $(date +%s) - $3 ))" >>"$logs/results"; } # record <name> <rc> <start>

# phase <name> <command...>: runs the command with its output in <name>.log, records the result, then prints the log.
phase() {
  local name="$1"; shift
  local start; start=$(date +%s)
  "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  record "$name" "$rc" "$start"
  local verdict="passed"; (( rc == 0 )) || verdict="FAILED (exit $rc)"
  # While the build writes to the terminal, a phase's log waits for its end (.deferred).
  {
    flock 9
    if [[ -e "$logs/.building" ]]; then echo "$name $verdict" >>"$logs/.deferred"; else show "$name" "$verdict"; fi
  } 9>"$logs/.print"
  return "$rc"
}
show() { # show <name> <verdict...>: a phase's whole log between two rulers
  local name="$1"; shift
  printf '\n==================== %s: %s (%s/%s.log) ====================\n' "$name" "$*" "$logs" "$name"
  cat "$logs/$name.log"
  printf '==================== end of %s: %s ====================\n' "$name" "$*"
}

# helper <name> <command...>: starts the command in the background, its output in <name>.log; `awaits <name>` waits
# for it (the helper holds a lock on .<name>.lock until it ends; taken here, before the fork, so no waiter can be first).
helpers=()
helper() {
  local name="$1"; shift
  local fd
  exec {fd}>"$logs/.$name.lock"
  flock "$fd"
  ( start=$(date +%s); "$@" >"$logs/$name.log" 2>&1; rc=$?; record "$name" "$rc" "$start"; echo "$rc" >"$logs/.$name.rc" ) &
  helpers+=($!)
  exec {fd}>&-
}
awaits() {
  flock "$logs/.$1.lock" true
  local rc; rc=$(cat "$logs/.$1.rc" 2>/dev/null || echo "?")
  [[ "$rc" == 0 ]] && return 0
  echo "$1 failed (exit $rc):"
  cat "$logs/$1.log"
  return 1
}

lanes=()
stop() { # stop [status]: ends every lane and helper, then the script
  trap - INT TERM
  local pid
  for pid in "${lanes[@]}" "${helpers[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  wait
  exit "${1:-130}"
}
# Job control: each background job is a process group of its own, so that Ctrl-C (caught here) can stop it whole.
set -m
trap stop INT TERM

# The fuzz lane and the venv, from the start.
( phase fuzz-build scripts/fuzz.sh --build && phase fuzz scripts/fuzz.sh 20 ) &
lanes+=($!)
helper venv scripts/browser-venv.sh

say "swift build --build-tests (beside it: the fuzz lane and the Python venv; logs in $logs)"
start=$(date +%s)
$SWIFT build --build-tests
rc=$?
record build "$rc" "$start"
if (( rc != 0 )); then
  say "swift build --build-tests FAILED (exit $rc)"
  stop 1
fi

{
  flock 9
  rm -f "$logs/.building"
  if [[ -e "$logs/.deferred" ]]; then
    while read -r name verdict; do show "$name" "$verdict"; done <"$logs/.deferred"
  fi
} 9>"$logs/.print"
say "built; now, beside what is left of the fuzz lane: swift test beside Tests/Browser, then the real-time Swift suites, then Tests/Integration"
run_pytest() { scripts/with-scratch-tmp.sh .build/browser-venv/bin/python -m pytest -q -p no:cacheprovider --durations=10 "$@"; }
# Swift suites that play in real time through a private PulseAudio server and compare what it recorded sample for
# sample, or that hold a daemon's feed loop to its schedule. Beside Chromium they starved (fresh clone at 150603f:
# PulseAudioOutputTests' recording under-ran), so they run alone; the rest of swift test and the browser suite share
# the cores (with Chromium niced, at 1d73739, the wall's browser tests timed out: it is not niced). Integration runs
# last, alone: its crated plays in real time too.
realtime='PulseAudioOutputTests|PulseStreamReuseTests|OutputTroubleTests|PlayerServiceTests|DaemonPlayerTests|FeedAppTests'
test_lane() {
  set +m  # the two side-by-side phases stay in this lane's process group (stop ends the group)
  local rc=0 swift browser
  phase swift-test scripts/with-scratch-tmp.sh "$SWIFT" test --skip-build --skip "$realtime" &
  swift=$!
  phase browser eval 'awaits venv && run_pytest Tests/Browser' &
  browser=$!
  wait "$swift" || rc=1
  wait "$browser" || rc=1
  phase swift-realtime scripts/with-scratch-tmp.sh "$SWIFT" test --skip-build --filter "$realtime" || rc=1
  phase integration eval 'awaits venv && run_pytest Tests/Integration' || rc=1
  return "$rc"
}
( test_lane ) &
lanes+=($!)

for pid in "${lanes[@]}"; do wait "$pid"; done
trap - INT TERM

# The summary: every phase, the helpers included.
failed=()
{
  flock 9
  printf '\n[make test %s] done\n\n%-12s %6s %9s  %s\n' "$(clock)" phase start duration result
  while read -r name rc start took; do
    printf '%-12s %3d:%02d %6d:%02d  %s\n' "$name" $((start / 60)) $((start % 60)) $((took / 60)) $((took % 60)) \
      "$( (( rc == 0 )) && echo passed || echo "FAILED (exit $rc; $logs/$name.log)")"
    (( rc == 0 )) || failed+=("$name")
  done < <(sort -k3,3n "$logs/results")
  printf '%-12s %6s %9s\n' total "" "$(clock)"
  (( ${#failed[@]} == 0 )) || printf '\nmake test FAILED: %s\n' "${failed[*]}"
} 9>"$logs/.print"
(( ${#failed[@]} == 0 ))
