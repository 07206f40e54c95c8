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

# write_mpd_config DIR MUSIC PORT [EXTRA]: an MPD config in DIR for MUSIC on 127.0.0.1:PORT — no zeroconf, no
# database watching, no network input, a null output; EXTRA lines (settings) go before the blocks.
write_mpd_config() {
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
input {
    plugin "curl"
    enabled "no"
}
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

free_port() {   # a TCP port on 127.0.0.1 nothing answers on
    local p fd i
    for ((i = 0; i < 200; i++)); do
        p=$((20000 + RANDOM % 40000))
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
