#!/usr/bin/env bash
# Library import benchmark: Crate's reference import and no-change rescan next to MPD's database update
# and beets' as-is import, on the same generated collections in the same run. Prints Markdown tables.
#
#   bash Benchmarks/library.sh [--sizes 3000,10000] [--runs N] [--big N | --no-big] [--corpus DIR]
#                              [--crate-bin DIR] [--no-build] [--no-mpd] [--no-beets] [--jobs N] [--wait-idle]
#                              [--kind library|search|wavs] [--no-idle] [--kv FILE]
#
#   --sizes LIST     collection sizes in audio files, comma-separated (default 3000,10000)
#   --kind K         what corpus.py makes for those sizes (default library: albums with covers, every format;
#                    search: the tiny WAVs of search.sh, 10 per album; wavs: the memory check's files)
#   --runs N         timed runs of each operation; the median is reported (default 3)
#   --big N          the memory check: N tiny WAV files, Crate and MPD only (default 100000)
#   --no-big         leave the memory check out
#   --corpus DIR     where the generated collections are kept between runs (default /tmp/crate-bench-corpus);
#                    each is made again only when missing or made from a different spec or generator
#   --crate-bin DIR  where the crate binary is (default .build/release)
#   --no-build       use the crate binary as it is (default: swift build -c release --static-swift-stdlib --product crate first)
#   --no-mpd         leave MPD out (by default it is installed when missing and we are root)
#   --no-beets       leave beets out (likewise)
#   --jobs N         processes for generating the collections (default: the number of cores)
#   --wait-idle      before timing, wait (up to 20 minutes) for the 1-minute load average to fall below 0.3
#   --no-idle        leave out the idle daemons' memory (crated and MPD started on the library, once quiet)
#   --kv FILE        also write the results as key=value lines to FILE (for Benchmarks/compare.sh)
#
# Crate: `crate import --mode reference` into a fresh data directory, then `crate rescan`. MPD: Debian's mpd
# on 127.0.0.1 (null output, its own database), `mpc update --wait` from an empty database, then again
# with nothing changed. beets: `beet import -A -q` (no copying, no tag writing, no autotagger), then the
# same command again (incremental). The floor of a no-change rescan: `find` listing the folder with every file's
# size and mtime (one getdents walk and a stat per entry). The idle daemons: crated (release, null output) on the
# library just imported, and MPD (null output) restarted on the database it built, each once it has used no CPU
# for 2 s: VmRSS. Everything else lives in a temporary folder under /tmp, removed at exit.
set -euo pipefail
export LC_ALL=C   # EPOCHREALTIME and awk with a '.' decimal point

SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$0")/.."
# Shared helpers (stop_pid, apt_install, tcp_request, ratio, ...).
source Benchmarks/common.sh
ROOT="$PWD"
SIZES=3000,10000
RUNS=3
BIG=100000
CORPUS=/tmp/crate-bench-corpus
CRATE_BIN=.build/release
BUILD=1
USE_MPD=1
USE_BEETS=1
JOBS="$(nproc)"
WAIT_IDLE=0
KIND=library
IDLE=1
KV_OUT=""
while (($#)); do
    case "$1" in
        --sizes) SIZES="${2:?--sizes needs a value}"; shift 2 ;;
        --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
        --big) BIG="${2:?--big needs a value}"; shift 2 ;;
        --no-big) BIG=0; shift ;;
        --corpus) CORPUS="${2:?--corpus needs a folder}"; shift 2 ;;
        --crate-bin) CRATE_BIN="${2:?--crate-bin needs a folder}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-mpd) USE_MPD=0; shift ;;
        --no-beets) USE_BEETS=0; shift ;;
        --jobs) JOBS="${2:?--jobs needs a value}"; shift 2 ;;
        --wait-idle) WAIT_IDLE=1; shift ;;
        --kind) KIND="${2:?--kind needs a value}"; shift 2 ;;
        --no-idle) IDLE=0; shift ;;
        --kv) KV_OUT="${2:?--kv needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,32p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "library.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
IFS=, read -r -a SIZE_LIST <<<"$SIZES"
((${#SIZE_LIST[@]})) || { echo "library.sh: --sizes needs at least one size" >&2; exit 2; }
for n in "${SIZE_LIST[@]}" "$RUNS" "$JOBS"; do
    [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "library.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
for n in "${SIZE_LIST[@]}"; do ((n >= 20)) || { echo "library.sh: sizes start at 20 files" >&2; exit 2; }; done
[[ "$BIG" =~ ^[0-9]+$ ]] || { echo "library.sh: --big needs a whole number" >&2; exit 2; }
((BIG == 0 || BIG >= 20)) || { echo "library.sh: --big needs at least 20 files" >&2; exit 2; }
[[ "$CORPUS" == /* ]] || CORPUS="$ROOT/$CORPUS"
[[ "$CRATE_BIN" == /* ]] || CRATE_BIN="$ROOT/$CRATE_BIN"
[[ "$KIND" =~ ^(library|search|wavs)$ ]] || { echo "library.sh: --kind is library, search or wavs" >&2; exit 2; }
[[ -z "$KV_OUT" || "$KV_OUT" == /* ]] || KV_OUT="$ROOT/$KV_OUT"

log() { echo "library.sh: $*" >&2; }
RUN_START=$EPOCHREALTIME
MPD_WHY=""     # why MPD is left out, when it is
BEETS_WHY=""   # why beets is left out, when it is
NOTES=()       # problems seen during the runs, printed under the tables

# --- Debian packages, installed only when missing (root only) --------------------------------------
apt_install sox ffmpeg jq sqlite3 time || die "cannot install the tools this benchmark needs"
for tool in sox ffmpeg jq sqlite3 awk; do command -v "$tool" >/dev/null || die "$tool not found"; done
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (Debian package 'time')"
if ((USE_MPD)); then
    if ! apt_install mpd mpc; then
        USE_MPD=0
        MPD_WHY="mpd and mpc are not installed and could not be installed (installing needs root)"
    fi
else
    MPD_WHY="left out with --no-mpd"
fi
if ((USE_BEETS)); then
    if ! apt_install beets; then
        USE_BEETS=0
        BEETS_WHY="beets is not installed and could not be installed (installing needs root)"
    fi
else
    BEETS_WHY="left out with --no-beets"
fi

# The corpus generator needs mutagen: Debian's python3-mutagen is for Debian's /usr/bin/python3.
PY=""
find_python() {
    local py
    for py in /usr/bin/python3 python3; do
        if command -v "$py" >/dev/null && "$py" -c 'import mutagen' 2>/dev/null; then PY="$py"; return 0; fi
    done
    return 1
}
need_python() {
    [[ -z "$PY" ]] || return 0
    find_python || { apt_install python3-mutagen && find_python; } ||
        die "the corpus generator needs Python with mutagen (Debian: python3-mutagen)"
}

# --- Build -----------------------------------------------------------------------------------------
if ((BUILD)); then
    for product in crate crated; do
        log "building $product (release)"
        flock /tmp/crate-build.lock swift build -c release --static-swift-stdlib --product "$product" >&2
    done
fi
CRATE="$CRATE_BIN/crate"
[[ -x "$CRATE" ]] || die "no $CRATE: build it with 'swift build -c release --product crate' or pass --crate-bin DIR"
IDLE_WHY=""   # why the idle daemons' memory is left out, when it is
if ((IDLE)) && [[ ! -x "$CRATE_BIN/crated" ]]; then
    IDLE=0; IDLE_WHY="no $CRATE_BIN/crated (swift build -c release --product crated)"
fi
((IDLE)) || IDLE_WHY="${IDLE_WHY:-left out with --no-idle}"

# What this build of crate can do: `import --mode` (else reference is what a plain import does) and
# `rescan` (else the no-change row re-imports).
CRATE_MODE_ARGS=()
if { "$CRATE" import --help; "$CRATE" import add --help; } 2>/dev/null | grep -- '--mode' >/dev/null; then
    CRATE_MODE_ARGS=(--mode reference)
    CRATE_IMPORT_LABEL="crate import --mode reference"
else
    CRATE_IMPORT_LABEL="crate import (reference is the only mode of this build)"
fi
if "$CRATE" --help 2>/dev/null | grep -E '^ +rescan( |$)' >/dev/null; then
    CRATE_HAS_RESCAN=1
    CRATE_RESCAN_LABEL="crate rescan"
else
    CRATE_HAS_RESCAN=0
    CRATE_RESCAN_LABEL="crate import again (re-import, rescan not in this build)"
fi

# --- Temporary folder, processes, cleanup ----------------------------------------------------------
WORK="$(mktemp -d /tmp/crate-library.XXXXXX)"
MPD_PID=""

CRATED_PID=""
cleanup() {
    stop_pid "$MPD_PID"
    stop_pid "$CRATED_PID"
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

open_pause_fd

# A free TCP port on 127.0.0.1 (nothing answers on it).


# Statistics over whitespace-separated values.
median() { tr ' ' '\n' <<<"$1" | awk NF | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maximum() { tr ' ' '\n' <<<"$1" | awk NF | sort -g | awk '{ v = $1 } END { if (NR == 0) print "-"; else printf "%.1f", v }'; }

# timed LOGFILE COMMAND...: runs COMMAND (a program, not a function) under /usr/bin/time, its standard
# output into LOGFILE and its standard error into LOGFILE.err. Sets T_S (wall seconds, EPOCHREALTIME
# around the process), T_RSS (its peak RSS in MiB) and T_RC (its exit status).
timed() {
    local logfile="$1" t0
    shift
    T_RC=0
    now_us; t0=$NOW_US
    /usr/bin/time -f %M -o "$WORK/time.out" "$@" >"$logfile" 2>"$logfile.err" || T_RC=$?
    now_us
    T_S="$(awk -v u="$((NOW_US - t0))" 'BEGIN { printf "%.3f", u / 1e6 }')"
    T_RSS="$(awk '/^[0-9]+$/ { v = $1 } END { if (v == "") print "-"; else printf "%.1f", v / 1024 }' "$WORK/time.out")"
}

wait_idle 20
LOAD_BEFORE="$(machine_load)"

# --- Collections (cached in CORPUS) ----------------------------------------------------------------
GENERATOR="$ROOT/Benchmarks/corpus.py"
[[ -f "$GENERATOR" ]] || die "no $GENERATOR"
GENERATOR_ID="$(sha256sum "$GENERATOR" | cut -c1-16)"
CORPUS_SECONDS=0
CORPUS_NOTES=()
mkdir -p "$CORPUS"

# corpus KIND SIZE: sets CORPUS_DIR to the collection (DIR/music, DIR/expected.json), making it when
# it is missing or was made from another spec.
corpus() {
    local kind="$1" size="$2" spec t0
    CORPUS_DIR="$CORPUS/$kind-$size"
    spec="$kind size=$size seed=1 generator=$GENERATOR_ID"
    if [[ -f "$CORPUS_DIR/spec.txt" && "$(cat "$CORPUS_DIR/spec.txt")" == "$spec" && -d "$CORPUS_DIR/music" ]]; then
        log "collection $CORPUS_DIR: cached"
        CORPUS_NOTES+=("$kind-$size: cached")
        return 0
    fi
    need_python
    log "making the collection $CORPUS_DIR ($kind, $size files, $JOBS processes)"
    t0=$EPOCHREALTIME
    rm -rf "$CORPUS_DIR"
    "$PY" "$GENERATOR" "$kind" --out "$CORPUS_DIR" --size "$size" --jobs "$JOBS" --spec "$spec" >&2 ||
        die "the corpus generator failed"
    local took
    took="$(seconds_since "$t0")"
    log "  made in $took s"
    CORPUS_NOTES+=("$kind-$size: generated in $took s")
    CORPUS_SECONDS="$(awk -v a="$CORPUS_SECONDS" -v b="$took" 'BEGIN { print a + b }')"
}
expected() { jq -r "$1" "$CORPUS_DIR/expected.json"; }
# Every tool reads the same files from a warm page cache.
warm_cache() { find "$1" -type f -exec cat {} + >/dev/null; }

# --- Crate -----------------------------------------------------------------------------------------
crate_run() {   # crate_run DATA-DIR LOGFILE ARGS...: crate with its own data and config folders
    local data="$1" logfile="$2"
    shift 2
    timed "$logfile" env CRATE_DATA_DIRECTORY="$data" CRATE_IMPORT_MODE=reference \
        XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data" "$CRATE" "$@"
}
crate_import() { crate_run "$1" "$2" import "${CRATE_MODE_ARGS[@]}" --json "$3"; }
crate_rescan() {
    if ((CRATE_HAS_RESCAN)); then crate_run "$1" "$2" rescan --json; else crate_import "$@"; fi
}
# crate_report LOGFILE: the counts of crate's JSON report (both the old and the new report shapes).
crate_report() {
    jq -c 'if type == "array" then
            (map(.summary) | {read: (map(.tracksRead) | add), failures: (map(.failures) | add),
                              skipped: (map(.skipped) | add), seen: (map(.filesSeen) | add)})
        else {imported, updated, relinked, unchanged, duplicates: .duplicateCount, failures: .failureCount,
              other: .nonAudio} end' "$1" 2>/dev/null || echo '"(no JSON report)"'
}
crate_failures() {   # the first failures crate listed, one a line
    jq -r '[.. | .failures? | arrays | .[]] | .[:8][] | "\(.path): \(.reason)"' "$1" 2>/dev/null || true
}
crate_counts() {   # crate_counts DATA-DIR: "tracks albums artists failures"
    local q="SELECT (SELECT count(*) FROM track) || ' ' || (SELECT count(*) FROM album) || ' ' || (SELECT count(*) FROM artist)"
    sqlite3 "$1/library.sqlite" "$q || ' ' || (SELECT count(*) FROM scan_failure);" 2>/dev/null ||
        sqlite3 "$1/library.sqlite" "$q || ' -';" || echo "- - - -"
}
crate_check_reference() {   # reference mode copies nothing into the data folder
    local copied
    copied="$(find "$1" -type f \( -iname '*.flac' -o -iname '*.mp3' -o -iname '*.ogg' -o -iname '*.opus' -o -iname '*.wav' \) -print -quit)"
    [[ -z "$copied" ]] || die "crate copied audio into its data folder ($copied): this is not a reference import"
}
crate_check_rc() {   # crate_check_rc WHAT LOGFILE
    if ((T_RC != 0)); then
        log "crate $1 exited with status $T_RC:"; tail -5 "$2" "$2.err" >&2
        NOTES+=("Crate $1 exited with status $T_RC: $(tail -1 "$2.err")")
    fi
}

# --- MPD -------------------------------------------------------------------------------------------
MPD_DIR="$WORK/mpd"
MPD_PORT=""
# mpd_config MUSIC-DIR: loopback only, no zeroconf, no watching, no network input, null output.
mpd_config() { write_mpd_config "$MPD_DIR" "$1" "$MPD_PORT"; }
# start_mpd: starts MPD and waits until it answers and no database update is running.
start_mpd() {
    local i
    mpd --no-daemon "$MPD_DIR/mpd.conf" >>"$MPD_DIR/stderr.log" 2>&1 &
    MPD_PID=$!
    for ((i = 0; i < 12000; i++)); do
        if mpd_request status && [[ "$REPLY_TEXT" == "OK MPD"* && "$REPLY_TEXT" != *updating_db* ]]; then return 0; fi
        kill -0 "$MPD_PID" 2>/dev/null || break
        pause_ms 5
    done
    die "MPD did not start; its log:"$'\n'"$(tail -20 "$MPD_DIR/mpd.log" "$MPD_DIR/stderr.log" 2>/dev/null)"
}
mpd_hwm() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$MPD_PID/status"; }
mpd_stat() { mpcc stats | awk -v k="$1:" '$1 == k { print $2 }'; }
# An empty database to start each fresh run from: MPD builds its database at start-up when it has
# none, which would start the update before it can be timed.
mpd_setup() {
    MPD_PORT="$(free_port)"
    mkdir -p "$MPD_DIR/empty"
    mpd_config "$MPD_DIR/empty"
    start_mpd
    for ((i = 0; i < 2000; i++)); do [[ -s "$MPD_DIR/database" ]] && break; pause_ms 5; done
    stop_mpd
    [[ -s "$MPD_DIR/database" ]] || die "MPD wrote no empty database; its log: $(tail -5 "$MPD_DIR/mpd.log")"
    mv "$MPD_DIR/database" "$MPD_DIR/database.empty"
}
# mpd_fresh MUSIC LOGFILE: `mpc update --wait` from the empty database (the daemon already running).
mpd_fresh() {
    stop_mpd
    cp "$MPD_DIR/database.empty" "$MPD_DIR/database"
    rm -f "$MPD_DIR/state"
    mpd_config "$1"
    start_mpd
    [[ "$(mpd_stat Songs)" == 0 ]] || die "MPD's database is not empty before the update"
    timed "$2" mpc --host=127.0.0.1 --port="$MPD_PORT" update --wait
    MPD_RSS="$(mpd_hwm)"
}
# mpd_rescan LOGFILE: restart on the database just built (read at start-up), then time a no-change update.
mpd_rescan() {
    stop_mpd
    start_mpd
    timed "$1" mpc --host=127.0.0.1 --port="$MPD_PORT" update --wait
    MPD_RSS="$(mpd_hwm)"
}
mpd_counts() { echo "$(mpd_stat Songs) $(mpd_stat Albums) $(mpd_stat Artists)"; }

# --- The floor of a rescan, and the idle daemons -----------------------------------------------------
# find_floor MUSIC: lists every file with its inode, size and mtime, what a no-change rescan must at least read.
find_floor() { timed "$WORK/find.log" find "$1" -type f -printf '%i %s %T@ %p\n'; }
# crated_idle DATA: crated (release, null output, its other front ends on free ports) on the library in DATA;
# sets IDLE_RSS and IDLE_WAITED (common.sh's idle_rss), then stops it.
crated_idle() {
    BIN="$CRATE_BIN"
    CRATED_PORT="$(free_port)"
    CRATE_ENV=(CRATE_DATA_DIRECTORY="$1" CRATE_HTTP_ADDRESS="127.0.0.1:$CRATED_PORT" CRATE_MPD_ADDRESS="127.0.0.1:$(free_port)"
               CRATE_SUBSONIC_ADDRESS="127.0.0.1:$(free_port)" CRATE_OUTPUT_PLUGIN=null
               XDG_CONFIG_HOME="$WORK/xdg-config" XDG_DATA_HOME="$WORK/xdg-data")
    start_crated
    idle_rss "$CRATED_PID"
    stop_crated
}
# mpd_idle: MPD restarted on the database it built (no update running); sets IDLE_RSS and IDLE_WAITED.
mpd_idle() {
    stop_mpd
    start_mpd
    idle_rss "$MPD_PID"
}

# --- beets -----------------------------------------------------------------------------------------
BEETS_DIR="$WORK/beets"
BEETS_CFG="$BEETS_DIR/config.yaml"
beets_setup() {
    # incremental in both runs: beets records the folders it imported only when incremental is on,
    # and the no-change run then skips them.
    write_beets_config "$BEETS_DIR" yes
}
beet_cmd() { env BEETSDIR="$BEETS_DIR" beet -c "$BEETS_CFG" "$@"; }
# beets_import MUSIC LOGFILE: `beet import -A -q` (timed; env is a program, beet_cmd a function).
beets_import() { timed "$2" env BEETSDIR="$BEETS_DIR" beet -c "$BEETS_CFG" import -A -q "$1"; }
beets_fresh() { rm -f "$BEETS_DIR/beets.db" "$BEETS_DIR/state.pickle"; beets_import "$@"; }
beets_rescan() { beets_import "$@"; }
beets_stat() { beet_cmd stats | awk -F': ' -v k="$1" '$1 == k { print $2 }'; }
beets_counts() { echo "$(beets_stat Tracks) $(beets_stat Albums) $(beets_stat Artists)"; }
beets_check_rc() {
    if ((T_RC != 0)); then
        log "beet import exited with status $T_RC:"; tail -5 "$1" "$1.err" >&2
        NOTES+=("beets import exited with status $T_RC: $(tail -1 "$1.err")")
    fi
}

((USE_MPD)) && mpd_setup
((USE_BEETS)) && beets_setup

# --- Runs ------------------------------------------------------------------------------------------
declare -A T RSS COUNT   # T[size:op:tool] = "s s s", RSS[size:op:tool] = "MiB MiB", COUNT[size:when:tool] = "tracks albums artists [failures]"
declare -A EXPECT CRATE_REPORT CRATE_RESCAN_REPORT CRATE_FAILURES IDLE_MEM   # IDLE_MEM[size:tool] = "MiB seconds-to-quiet"
LOAD_RUNS=""

for size in "${SIZE_LIST[@]}"; do
    corpus "$KIND" "$size"
    MUSIC="$CORPUS_DIR/music"
    EXPECT[$size]="$(expected '"\(.audio_files) \(.unique_audio) \(.duplicates) \(.albums) \(.hidden_audio) \(.other_files)"')"
    log "$size files: warming the page cache"
    warm_cache "$MUSIC"
    LOAD_RUNS+="${LOAD_RUNS:+; }$size: $(machine_load)"
    for ((run = 1; run <= RUNS; run++)); do
        data="$WORK/crate-$size-$run"
        crate_import "$data" "$WORK/crate-import.log" "$MUSIC"
        crate_check_rc "import ($size files)" "$WORK/crate-import.log"
        crate_check_reference "$data"
        T[$size:fresh:crate]+=" $T_S"; RSS[$size:fresh:crate]+=" $T_RSS"
        log "$size files, run $run: crate import $T_S s, $T_RSS MiB: $(crate_report "$WORK/crate-import.log")"
        if ((run < RUNS)); then rm -rf "$data"; fi
        if ((USE_MPD)); then
            mpd_fresh "$MUSIC" "$WORK/mpd-update.log"
            T[$size:fresh:mpd]+=" $T_S"; RSS[$size:fresh:mpd]+=" $MPD_RSS"
            log "$size files, run $run: mpc update --wait $T_S s, mpd VmHWM $MPD_RSS MiB"
        fi
        if ((USE_BEETS)); then
            beets_fresh "$MUSIC" "$WORK/beets-import.log"
            beets_check_rc "$WORK/beets-import.log"
            T[$size:fresh:beets]+=" $T_S"; RSS[$size:fresh:beets]+=" $T_RSS"
            log "$size files, run $run: beet import $T_S s, $T_RSS MiB"
        fi
    done
    read -r -a c <<<"$(crate_counts "$data")"
    COUNT[$size:fresh:crate]="${c[*]}"
    CRATE_FAILURES[$size]="$(crate_failures "$WORK/crate-import.log")"
    CRATE_REPORT[$size]="$(crate_report "$WORK/crate-import.log")"
    ((USE_MPD)) && COUNT[$size:fresh:mpd]="$(mpd_counts)"
    ((USE_BEETS)) && COUNT[$size:fresh:beets]="$(beets_counts)"

    for ((run = 1; run <= RUNS; run++)); do
        crate_rescan "$data" "$WORK/crate-rescan.log" "$MUSIC"
        crate_check_rc "rescan ($size files)" "$WORK/crate-rescan.log"
        T[$size:rescan:crate]+=" $T_S"; RSS[$size:rescan:crate]+=" $T_RSS"
        log "$size files, run $run: $CRATE_RESCAN_LABEL $T_S s, $T_RSS MiB: $(crate_report "$WORK/crate-rescan.log")"
        if ((USE_MPD)); then
            mpd_rescan "$WORK/mpd-rescan.log"
            T[$size:rescan:mpd]+=" $T_S"; RSS[$size:rescan:mpd]+=" $MPD_RSS"
            log "$size files, run $run: mpc update --wait (no change) $T_S s, mpd VmHWM $MPD_RSS MiB"
        fi
        if ((USE_BEETS)); then
            beets_rescan "$MUSIC" "$WORK/beets-rescan.log"
            beets_check_rc "$WORK/beets-rescan.log"
            T[$size:rescan:beets]+=" $T_S"; RSS[$size:rescan:beets]+=" $T_RSS"
            log "$size files, run $run: beet import (incremental, no change) $T_S s, $T_RSS MiB"
        fi
    done
    for ((run = 1; run <= RUNS; run++)); do
        find_floor "$MUSIC"
        T[$size:rescan:find]+=" $T_S"
        log "$size files, run $run: find (the listing floor) $T_S s"
    done
    CRATE_RESCAN_REPORT[$size]="$(crate_report "$WORK/crate-rescan.log")"
    COUNT[$size:rescan:crate]="$(crate_counts "$data")"
    if ((IDLE)); then
        crated_idle "$data"
        IDLE_MEM[$size:crate]="$IDLE_RSS $IDLE_WAITED"
        log "$size files: idle crated VmRSS $IDLE_RSS MiB (quiet after $IDLE_WAITED s)"
        if ((USE_MPD)); then
            mpd_idle
            IDLE_MEM[$size:mpd]="$IDLE_RSS $IDLE_WAITED"
            log "$size files: idle MPD VmRSS $IDLE_RSS MiB (quiet after $IDLE_WAITED s)"
        fi
    fi
    ((USE_MPD)) && { COUNT[$size:rescan:mpd]="$(mpd_counts)"; stop_mpd; }
    ((USE_BEETS)) && COUNT[$size:rescan:beets]="$(beets_counts)"
    rm -rf "$data"
done

# --- Memory check: many tiny files -----------------------------------------------------------------
if ((BIG)); then
    corpus wavs "$BIG"
    MUSIC="$CORPUS_DIR/music"
    EXPECT[big]="$(expected '"\(.audio_files) \(.albums)"')"
    log "$BIG tiny WAV files: warming the page cache"
    warm_cache "$MUSIC"
    LOAD_RUNS+="${LOAD_RUNS:+; }$BIG WAV: $(machine_load)"
    for ((run = 1; run <= RUNS; run++)); do
        data="$WORK/crate-big-$run"
        crate_import "$data" "$WORK/crate-big.log" "$MUSIC"
        crate_check_rc "import ($BIG WAV files)" "$WORK/crate-big.log"
        T[big:crate]+=" $T_S"; RSS[big:crate]+=" $T_RSS"
        log "$BIG WAV files, run $run: crate import $T_S s, $T_RSS MiB: $(crate_report "$WORK/crate-big.log")"
        COUNT[big:crate]="$(crate_counts "$data")"
        rm -rf "$data"
        if ((USE_MPD)); then
            mpd_fresh "$MUSIC" "$WORK/mpd-big.log"
            T[big:mpd]+=" $T_S"; RSS[big:mpd]+=" $MPD_RSS"
            log "$BIG WAV files, run $run: mpc update --wait $T_S s, mpd VmHWM $MPD_RSS MiB"
            COUNT[big:mpd]="$(mpd_counts)"
            stop_mpd
        fi
    done
    CRATE_FAILURES[big]="$(crate_failures "$WORK/crate-big.log")"
fi
LOAD_AFTER="$(machine_load)"

# --- Report ----------------------------------------------------------------------------------------
join_by() { local sep="$1" out="$2"; shift 2 || return 0; for x in "$@"; do out+="$sep$x"; done; printf '%s' "$out"; }

echo "# Crate library import benchmark"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
echo "- load average (1/5/15 min): $LOAD_BEFORE before; at the start of each collection: $LOAD_RUNS; $LOAD_AFTER after"
echo "- Crate $("$CRATE" --version 2>/dev/null || echo '?') ($CRATE); fresh: \`$CRATE_IMPORT_LABEL\`; no change: \`$CRATE_RESCAN_LABEL\`"
if ((USE_MPD)); then
    echo "- $(mpd --version | head -1), mpc $(version_of mpc) (Debian); 127.0.0.1 only, null output"
else
    echo "- MPD: not measured: $MPD_WHY"
fi
if ((USE_BEETS)); then
    echo "- $(beet_cmd version 2>/dev/null | head -1) (Debian $(version_of beets)); \`beet import -A -q\`, copy/move/write/autotag off, incremental"
else
    echo "- beets: not measured: $BEETS_WHY"
fi
echo "- collections in $CORPUS: $(join_by ', ' "${CORPUS_NOTES[@]}"); $RUNS run(s) each, median reported, warm page cache"
echo
echo "## Import and no-change rescan"
echo
echo "Seconds, wall clock of the whole client process (median of $RUNS). Crate: the crate process (opens"
echo "the library itself; no daemon). MPD: \`mpc update --wait\` against the running daemon, from an empty"
echo "database (fresh) or just after a restart on the database it built (no change). beets: the beet process."
echo "ratio = other / Crate (> 1: Crate is faster). Peak RSS in MiB: /usr/bin/time's maximum resident set of"
echo "the crate and beet processes; for MPD the daemon's VmHWM after the update (includes the daemon itself);"
echo "the largest of the runs."
echo
echo "| files | operation | Crate s | MPD s | beets s | MPD/Crate | beets/Crate | Crate MiB | MPD MiB | beets MiB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in "${SIZE_LIST[@]}"; do
    for op in fresh rescan; do
        if [[ "$op" == fresh ]]; then
            label="fresh import"
        else
            label="no-change rescan"
            notes=()
            ((CRATE_HAS_RESCAN)) || notes+=("Crate: re-import, rescan not in this build")
            ((USE_BEETS)) && notes+=("beets: incremental re-run")
            ((${#notes[@]})) && label+=" ($(join_by '; ' "${notes[@]}"))"
        fi
        cs="$(median "${T[$size:$op:crate]:-}")"
        ms="$(median "${T[$size:$op:mpd]:-}")"
        bs="$(median "${T[$size:$op:beets]:-}")"
        echo "| $size | $label | $cs | $ms | $bs | $(ratio "$ms" "$cs") | $(ratio "$bs" "$cs") |" \
             "$(maximum "${RSS[$size:$op:crate]:-}") | $(maximum "${RSS[$size:$op:mpd]:-}") | $(maximum "${RSS[$size:$op:beets]:-}") |"
    done
done
echo
if ((USE_MPD)); then
    echo "MPD runs its database update in a thread at SCHED_IDLE priority: with anything else running it only"
    echo "gets the idle CPU, so its times depend on the load more than the others'."
    echo
fi
echo "## The floor of a no-change rescan, and the idle daemons"
echo
echo "\`find DIR -type f -printf '%i %s %T@ %p\\n'\`: every file's inode, size and mtime, the least a rescan reads"
echo "(median of $RUNS, warm cache). Idle: the daemon started on the library (crated on Crate's data folder, null output;"
echo "MPD restarted on the database it built), VmRSS once it has used no CPU for 2 s (seconds to quiet in brackets)."
((IDLE)) || echo "Idle daemons not measured: $IDLE_WHY."
echo
echo "| files | find s | Crate rescan s | Crate / find | MPD rescan s | MPD / find | crated idle MiB | MPD idle MiB | crated / MPD |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for size in "${SIZE_LIST[@]}"; do
    fs="$(median "${T[$size:rescan:find]:-}")"
    cs="$(median "${T[$size:rescan:crate]:-}")"
    ms="$(median "${T[$size:rescan:mpd]:-}")"
    read -r ci cw <<<"${IDLE_MEM[$size:crate]:-- -}"
    read -r mi mw <<<"${IDLE_MEM[$size:mpd]:-- -}"
    echo "| $size | $fs | $cs | $(ratio "$cs" "$fs") | $ms | $(ratio "$ms" "$fs") | $ci ($cw s) | $mi ($mw s) | $(ratio "$ci" "$mi") |"
done
echo
echo "## What each tool ended up with"
echo
echo "The collection: audio files outside hidden paths (of them byte-identical copies), albums, audio files in"
echo "hidden files and folders (to be skipped), other files (.cue, .log, .txt, cover.jpg). Crate: rows in"
echo "\`track\`, \`album\`, \`artist\`, \`scan_failure\` of library.sqlite; MPD: \`mpc stats\` (albums and artists"
echo "are distinct tag values); beets: \`beet stats\`. After the fresh import, then after the no-change runs."
((USE_MPD)) && echo "MPD does not skip hidden files and folders; beets and Crate do."
echo
echo "| files | source | tracks | albums | artists | failures | after no-change run |"
echo "|---:|---|---:|---:|---:|---:|---|"
for size in "${SIZE_LIST[@]}"; do
    read -r files unique dups albums hidden other <<<"${EXPECT[$size]}"
    echo "| $size | collection | $files ($dups copies) | $albums | - | - | hidden audio $hidden, other files $other |"
    read -r t a r f <<<"${COUNT[$size:fresh:crate]}"
    read -r t2 _ <<<"${COUNT[$size:rescan:crate]}"
    echo "| $size | Crate | $t | $a | $r | $f | $t2 tracks |"
    if ((USE_MPD)); then
        read -r t a r <<<"${COUNT[$size:fresh:mpd]}"; read -r t2 _ <<<"${COUNT[$size:rescan:mpd]}"
        echo "| $size | MPD | $t | $a | $r | - | $t2 songs |"
    fi
    if ((USE_BEETS)); then
        read -r t a r <<<"${COUNT[$size:fresh:beets]}"; read -r t2 _ <<<"${COUNT[$size:rescan:beets]}"
        echo "| $size | beets | $t | $a | $r | - | $t2 tracks |"
    fi
done
echo
for size in "${SIZE_LIST[@]}"; do
    echo "- Crate's report, $size files: import ${CRATE_REPORT[$size]}; no-change run ${CRATE_RESCAN_REPORT[$size]}"
    if [[ -n "${CRATE_FAILURES[$size]}" ]]; then
        echo "- Crate's first failures, $size files:"
        sed 's/^/  - /' <<<"${CRATE_FAILURES[$size]}"
    fi
done
if ((BIG)); then
    read -r bfiles balbums <<<"${EXPECT[big]}"
    echo
    echo "## Memory check: $bfiles tiny WAV files"
    echo
    echo "WAV files of a 44-byte header, 200-700 samples at 8 kHz and RIFF INFO tags, 10 per folder ($balbums"
    echo "folders). Fresh import / database creation, as above (median seconds of $RUNS, largest peak RSS)."
    echo
    echo "| tool | seconds | peak RSS MiB | tracks | albums |"
    echo "|---|---:|---:|---:|---:|"
    read -r t a _ f <<<"${COUNT[big:crate]}"
    echo "| Crate | $(median "${T[big:crate]}") | $(maximum "${RSS[big:crate]}") | $t | $a |"
    if ((USE_MPD)); then
        read -r t a _ <<<"${COUNT[big:mpd]}"
        echo "| MPD | $(median "${T[big:mpd]}") | $(maximum "${RSS[big:mpd]}") | $t | $a |"
    fi
    if [[ -n "${CRATE_FAILURES[big]}" ]]; then
        echo
        echo "Crate's first failures:"
        sed 's/^/- /' <<<"${CRATE_FAILURES[big]}"
    fi
fi
if ((${#NOTES[@]})); then
    echo
    echo "## Problems seen"
    echo
    printf -- '- %s\n' "${NOTES[@]}"
fi
echo
echo "- whole run: $(seconds_since "$RUN_START") s, of which generating collections: $CORPUS_SECONDS s"

# --- Machine-readable results (compare.sh) -----------------------------------------------------------
if [[ -n "$KV_OUT" ]]; then
    {
        echo "kind=$KIND"
        echo "runs=$RUNS"
        echo "load_before=$LOAD_BEFORE"
        echo "load_after=$LOAD_AFTER"
        echo "mpd=$USE_MPD"
        echo "mpd_why=$MPD_WHY"
        echo "idle_why=$IDLE_WHY"
        for size in "${SIZE_LIST[@]}"; do
            read -r files _ _ albums _ <<<"${EXPECT[$size]}"
            echo "${size}_files=$files"
            echo "${size}_albums=$albums"
            for op in fresh rescan; do
                for tool in crate mpd; do echo "${size}_${op}_${tool}_s=$(median "${T[$size:$op:$tool]:-}")"; done
            done
            echo "${size}_rescan_find_s=$(median "${T[$size:rescan:find]:-}")"
            for tool in crate mpd; do
                read -r mib waited <<<"${IDLE_MEM[$size:$tool]:-- -}"
                echo "${size}_idle_${tool}_mib=$mib"
                echo "${size}_idle_${tool}_quiet_s=$waited"
            done
            read -r t _ <<<"${COUNT[$size:fresh:crate]:-}"; echo "${size}_crate_tracks=${t:--}"
            read -r t _ <<<"${COUNT[$size:fresh:mpd]:-}"; echo "${size}_mpd_songs=${t:--}"
        done
        if ((${#NOTES[@]})); then printf 'note=%s\n' "${NOTES[@]}"; fi
    } >"$KV_OUT"
fi
