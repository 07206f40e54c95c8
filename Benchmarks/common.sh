# Helpers the benchmark scripts share. Sourced; the caller defines log() (its own prefix).

apt_install() {
    local missing=() pkg
    for pkg in "$@"; do is_installed "$pkg" || missing+=("$pkg"); done
    ((${#missing[@]})) || return 0
    if [[ "$(id -u)" -ne 0 ]]; then
        log "missing ${missing[*]}: run 'sudo apt-get install --no-install-recommends ${missing[*]}'"
        return 1
    fi
    log "installing ${missing[*]}"
    install_now() { apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${missing[@]}" >&2; }
    # A stale package list is the usual reason an install fails: refresh once and retry.
    install_now || { apt-get -o DPkg::Lock::Timeout=900 update -q >&2 && install_now; }
}

die() { log "$*"; exit 1; }

is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

machine_load() { cut -d' ' -f1-3 /proc/loadavg; }

mpcc() { mpc --host=127.0.0.1 --port="$MPD_PORT" "$@"; }

mpd_request() { tcp_request "$MPD_PORT" "$1"$'\n'"close"$'\n'; }

now_us() { NOW_US=${EPOCHREALTIME/./}; }

pause_ms() { read -r -t "$(printf '0.%03d' "$1")" -u "$PAUSE_FD" _ || true; }
# open_pause_fd: the fifo in $WORK that pause_ms waits on (a sleep without starting a process).
open_pause_fd() { mkfifo "$WORK/pause.fifo"; exec {PAUSE_FD}<>"$WORK/pause.fifo"; }

ratio() { awk -v r="$1" -v c="$2" 'BEGIN { if (r == "-" || c == "-" || c + 0 == 0) print "-"; else printf "%.2f", r / c }'; }

stop_mpd() { stop_pid "$MPD_PID"; MPD_PID=""; }

# tcp_request PORT TEXT: sends TEXT on a new connection to 127.0.0.1:PORT and reads the answer until
# the peer closes into REPLY_TEXT (bash builtins only).
tcp_request() {
    local fd
    REPLY_TEXT=""
    if ! { exec {fd}<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null; then return 1; fi
    printf '%s' "$2" >&"$fd"
    IFS= read -r -d '' -t 5 -u "$fd" REPLY_TEXT || true
    exec {fd}<&-
    [[ -n "$REPLY_TEXT" ]]
}

version_of() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "?"; }

# stop_pid PID [SECONDS]: SIGTERM, up to SECONDS (default 30) to exit, then SIGKILL; always by pid.
stop_pid() {
    local pid="$1" tenths=$(( ${2:-30} * 10 )) i
    [[ -n "$pid" ]] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < tenths; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# write_mpd_config DIR MUSIC PORT [EXTRA] [network]: an MPD config in DIR for MUSIC on 127.0.0.1:PORT — no
# zeroconf, no database watching, a null output, and no network input unless the fifth argument is "network";
# EXTRA lines (settings) go before the blocks.
write_mpd_config() {
    local curl=$'input {\n    plugin "curl"\n    enabled "no"\n}'
    [[ "${5:-}" != network ]] || curl=""
    mkdir -p "$1/playlists"
    cat >"$1/mpd.conf" <<CONF
music_directory        "$2"
playlist_directory     "$1/playlists"
db_file                "$1/database"
state_file             "$1/state"
log_file               "$1/mpd.log"
bind_to_address        "127.0.0.1"
port                   "$3"
zeroconf_enabled       "no"
auto_update            "no"
${4:-}
$curl
audio_output {
    type  "null"
    name  "null"
}
CONF
}

# write_beets_config DIR INCREMENTAL(yes|no): a beets config whose library, state and folder live in DIR;
# imports copy, move, write and autotag nothing.
write_beets_config() {
    mkdir -p "$1/library-folder"
    cat >"$1/config.yaml" <<CONF
directory: $1/library-folder
library: $1/beets.db
statefile: $1/state.pickle
plugins: []
import:
  copy: no
  move: no
  link: no
  hardlink: no
  write: no
  autotag: no
  incremental: $2
  resume: no
  log: $1/import.log
CONF
}

# free_port: a TCP port on 127.0.0.1 nothing answers on, below the kernel's range for outgoing connections: a port
# from that range could be taken as the local end of some connection before the daemon binds it (compare.sh's goal
# run of 9b7e45d lost its web part to "Address already in use" that way).
free_port() {
    local p fd i low=32768
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
    (( low > 12000 )) || low=32768
    for ((i = 0; i < 200; i++)); do
        p=$((10000 + RANDOM % (low - 10000)))
        if ! { exec {fd}<>"/dev/tcp/127.0.0.1/$p"; } 2>/dev/null; then echo "$p"; return 0; fi
        exec {fd}<&-
    done
    die "no free port found"
}

seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# kv ENGINE FILE: reads key=value lines (crate-bench, the Python helpers) into KV[ENGINE:key]; the script
# declares `declare -A KV`.
kv() { local k v; while IFS='=' read -r k v; do [[ -n "$k" ]] && KV[$1:$k]="$v"; done <"$2"; }

# wait_idle MINUTES: with WAIT_IDLE=1, waits up to MINUTES for the 1-minute load average to fall below 0.3.
wait_idle() {
    local i
    ((WAIT_IDLE)) || return 0
    for ((i = 0; i < $1 * 12; i++)); do
        awk '{ exit !($1 < 0.3) }' /proc/loadavg && return 0
        if ((i % 12 == 0)); then log "waiting for an idle machine (load $(machine_load))"; fi
        sleep 5
    done
}

# music_source OUT SECONDS WORK: a music-like WAV (not silence, not one tone) of SECONDS: a 4-second phrase of
# plucked notes (a different line on each channel) repeated over a tremolo chord and a little pink noise; 44.1 kHz,
# 16-bit stereo, made with sox in the folder WORK (emptied). decode.sh and loudness.sh both measure on it.
music_source() {
    local out="$1" seconds="$2" work="$3"
    rm -rf "$work"
    mkdir -p "$work"
    local left=(A3 C4 E4 G4 A4 G4 E4 C4 D4 F4 A4 C5 B3 D4 G4 B4)
    local right=(E4 A4 C5 E5 C5 A4 E4 A4 F4 A4 D5 F5 G4 B4 D5 G5)
    local notes=() i
    for i in "${!left[@]}"; do
        sox -n -r 44100 -c 2 -b 16 "$work/note$i.wav" synth 0.25 pluck "${left[$i]}" pluck "${right[$i]}"
        notes+=("$work/note$i.wav")
    done
    sox "${notes[@]}" "$work/phrase.wav"
    sox "$work/phrase.wav" "$work/melody.wav" repeat $(((seconds + 3) / 4)) trim 0 "$seconds"
    sox -n -r 44100 -c 2 -b 16 "$work/bed.wav" synth "$seconds" sine 110 sine 165 sine 220 tremolo 0.5 60
    sox -R -n -r 44100 -c 2 -b 16 "$work/noise.wav" synth "$seconds" pinknoise pinknoise
    sox -m -v 0.7 "$work/melody.wav" -v 0.25 "$work/bed.wav" -v 0.08 "$work/noise.wav" -b 16 "$out" gain -n -1
}

# search_collection TRACKS: corpus.py's search collection of TRACKS tiny files under $CORPUS, made once and
# reused while the generator is unchanged (search.sh and feeds.sh share it). Needs ROOT and CORPUS; sets
# CORPUS_DIR, MUSIC, SPEC (what the collection is, for caches built from it) and CORPUS_NOTE.
search_collection() {
    local generator="$ROOT/Benchmarks/corpus.py" t0
    SPEC="search size=$1 seed=1 generator=$(sha256sum "$generator" | cut -c1-16)"
    CORPUS_DIR="$CORPUS/search-$1"
    MUSIC="$CORPUS_DIR/music"
    mkdir -p "$CORPUS"
    if [[ -f "$CORPUS_DIR/spec.txt" && "$(cat "$CORPUS_DIR/spec.txt")" == "$SPEC" && -d "$MUSIC" ]]; then
        CORPUS_NOTE="cached"
        return 0
    fi
    log "making the collection $CORPUS_DIR ($1 files)"
    t0=$EPOCHREALTIME
    rm -rf "$CORPUS_DIR"
    python3 "$generator" search --out "$CORPUS_DIR" --size "$1" --jobs "$(nproc)" --spec "$SPEC" >&2 ||
        die "the corpus generator failed"
    CORPUS_NOTE="generated in $(seconds_since "$t0") s"
}

# Latency statistics over a space-separated list of milliseconds (player.sh, streams.sh).
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } printf "%.1f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p95() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } i = int(NR * 0.95); if (i < NR * 0.95) i++; printf "%.1f", v[i] }'; }
us_to_ms() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }'; }

# --- crated, for the benchmarks that run the daemon (player.sh, streams.sh) ----------------------------
# They set BIN, WORK, API, CRATED_PORT and CRATE_ENV (VAR=value for crated) before calling these.
http_get_crated() {   # the Host carries the port: crated answers only to its own address (421 otherwise)
    tcp_request "$CRATED_PORT" "GET $1 HTTP/1.1"$'\r\n'"Host: 127.0.0.1:$CRATED_PORT"$'\r\n'"Connection: close"$'\r\n\r\n'
}
# start_crated [VAR=value ...]: starts crated with CRATE_ENV plus those and waits until it answers.
start_crated() {
    env "${CRATE_ENV[@]}" "$@" "$BIN/crated" >>"$WORK/crated.log" 2>&1 &
    CRATED_PID=$!
    for ((i = 0; i < 6000; i++)); do
        if http_get_crated /api/v1/health && [[ "$REPLY_TEXT" == "HTTP/1.1 200"* ]]; then return 0; fi
        kill -0 "$CRATED_PID" 2>/dev/null || break
        pause_ms 5
    done
    die "crated did not start; its log:"$'\n'"$(tail -20 "$WORK/crated.log")"
}
stop_crated() { stop_pid "$CRATED_PID"; CRATED_PID=""; }
crate_post() { curl -sS -f -X POST -H 'Content-Type: application/json' -d "$2" "$API/$1"; }
# http_post_crated PATH BODY: a JSON POST through bash's /dev/tcp, reply in REPLY_TEXT. Timed commands go this way:
# curl takes 18 ms to start here, mpc 2 ms, so a latency measured through curl would mostly time curl.
http_post_crated() {
    tcp_request "$CRATED_PORT" "POST $1 HTTP/1.1"$'\r\n'"Host: 127.0.0.1:$CRATED_PORT"$'\r\n'"Content-Type: application/json"$'\r\n'"Content-Length: ${#2}"$'\r\n'"Connection: close"$'\r\n\r\n'"$2"
}
# crated's status says a play command reached the output: state playing and elapsed > 0. The elapsed time is
# the engine's count of frames written to the output, so > 0 means the first chunk (4096 frames) was written.
crate_started() {
    local state='"state" *: *"playing"' elapsed='"elapsed" *: *([0-9.eE+-]+)' zero='^0*(\.0*)?$'
    [[ "$1" =~ $state ]] || return 1
    [[ "$1" =~ $elapsed ]] || return 1
    [[ ! "${BASH_REMATCH[1]}" =~ $zero ]]
}
# The same for MPD's `status`.
mpd_started() {
    local state='state: play' elapsed='elapsed: ([0-9.]+)' zero='^0*(\.0*)?$'
    [[ "$1" =~ $state ]] || return 1
    [[ "$1" =~ $elapsed ]] || return 1
    [[ ! "${BASH_REMATCH[1]}" =~ $zero ]]
}
# idle_rss PID [MAX_SECONDS]: waits until PID has used no CPU time for 2 s (its utime + stime, polled every 0.5 s;
# at most MAX_SECONDS, default 60), then sets IDLE_RSS to its VmRSS in MiB and IDLE_WAITED to the seconds waited
# (MAX_SECONDS when it never went quiet). What "the idle daemon" means in library.sh, for crated and MPD alike.
idle_rss() {
    local pid="$1" polls=$(( ${2:-60} * 2 )) last="" cpu still=0 i
    for ((i = 0; i < polls; i++)); do
        cpu="$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")" || break
        if [[ "$cpu" == "$last" ]]; then ((++still < 4)) || break; else still=0; fi
        last="$cpu"
        sleep 0.5
    done
    IDLE_RSS="$(awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")"
    IDLE_WAITED="$(awk -v i="$i" 'BEGIN { printf "%.1f", i / 2 }')"
}
# rss PID: "VmRSS VmHWM" in MiB.
rss() { awk '/^VmRSS:/ { r = $2 } /^VmHWM:/ { h = $2 } END { printf "%.1f %.1f", r / 1024, h / 1024 }' "/proc/$1/status"; }

# build_release_daemon: builds crated, crate and crate-bench (release, static Swift runtime) unless BUILD=0,
# and sets BIN to where they are.
build_release_daemon() {
    if ((BUILD)); then
        for product in crated crate crate-bench; do
            log "building $product (release)"
            flock /tmp/crate-build.lock swift build -c release --static-swift-stdlib --product "$product" >&2
        done
    fi
    BIN="$(swift build -c release --show-bin-path)"
    for exe in crated crate crate-bench; do
        [[ -x "$BIN/$exe" ]] || die "no $BIN/$exe: build it with 'swift build -c release --product $exe'"
    done
}

# crate_play_latency PATH BODY: POSTs BODY to PATH (a play command); sets LAT_US to the microseconds from just
# before the command to the status poll that first shows a sample written (polls every 5 ms, at most 15 s).
crate_play_latency() {
    local t0 reply deadline
    now_us; t0=$NOW_US
    http_post_crated "/api/v1/$1" "$2" || die "crated did not answer POST /api/v1/$1"
    [[ "$REPLY_TEXT" == "HTTP/1.1 2"* ]] || die "crated refused POST /api/v1/$1: ${REPLY_TEXT%%$'\r'*}"
    reply="$REPLY_TEXT"
    now_us
    deadline=$((t0 + 15000000))
    until crate_started "$reply"; do
        ((NOW_US < deadline)) || die "crated did not start playing ($1 $2) within 15 s; last status: $reply"
        pause_ms 5
        http_get_crated /api/v1/player || true
        now_us
        reply="$REPLY_TEXT"
    done
    LAT_US=$((NOW_US - t0))
}

# mpd_play_latency URI: a fresh queue holding URI, then `play`; sets LAT_US from just before `play` (sent as
# crated's command is, through /dev/tcp) to the
# protocol `status` that first shows elapsed > 0 (what `mpc status` reads; mpc shows whole seconds only); stops.
mpd_play_latency() {
    local t0 deadline
    mpcc -q stop
    mpcc -q clear
    mpcc -q add "$1"
    now_us; t0=$NOW_US
    mpd_request play || die "MPD did not answer play"
    deadline=$((t0 + 15000000))
    while true; do
        mpd_request status || true
        now_us
        mpd_started "$REPLY_TEXT" && break
        ((NOW_US < deadline)) || die "MPD did not start playing $1 within 15 s; last status: $REPLY_TEXT"
        pause_ms 5
    done
    LAT_US=$((NOW_US - t0))
    mpcc -q stop
}

# run_timed OUT COMMAND...: runs COMMAND once with stdout to OUT and stderr to $ERR (the caller sets it), prints its
# wall seconds; a failing command stops the script with its stderr.
run_timed() {
    local out="$1"; shift
    local t0 t1
    t0=$(date +%s%N)
    if ! "$@" >"$out" 2>"$ERR"; then
        log "failed: $*"
        cat "$ERR" >&2
        exit 1
    fi
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}

# min A B: the smaller number; A may be empty (the first run).
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }
