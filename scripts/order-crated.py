#!/usr/bin/env python3
"""Writes Apps/crated/crated.order: the functions crated runs, in the order lld should lay them out.

crated's code is 29 MiB, and Linux maps a file's pages 64 KiB around each one touched (fault-around): functions
scattered over the binary keep most of it resident although an idle daemon has run a small part. lld's
--symbol-ordering-file (Package.swift, release builds) puts the listed functions first, together. This script finds
them by running a release crated under Valgrind's callgrind on a small library made here (Benchmarks/corpus.py):
first its start until the daemon is up and idle, then a listener's use of it (the web page and its covers, a search,
MPD status, playing an album into the null output). Start-up functions come first, the rest after them; each group
in order of instructions spent, the busiest first.

Usage: scripts/order-crated.py [--music DIR] [--crated .build/release/crated] [--crate .build/release/crate]
The list in the repository comes from `--music` on Benchmarks' library-3000 (imported by reference, so the launch
rescan of its folders is in it), with the functions of a run on the default collection (copied) appended. Run it
after a change that moves much code around; a stale list costs nothing but memory (lld ignores names it no longer
finds).

What it cannot move: Swift puts a file's private and shared functions into one `.text` section that lld moves whole
(the standard library's alone is 1.5 MiB), so the run code spreads over 15 MiB of the binary, not 2.7.
`-Xfrontend -function-sections` for Crate's own targets shrank that to 12.5 MiB and left idle memory where it was
(the packages' and the toolchain's libraries hold most of it)."""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests"))
from crate_harness import free_ports, wait_until  # noqa: E402 (the tests' helpers, standard library only)


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=120) as r:
        return r.read()


def post(port, path, body):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Origin": f"http://127.0.0.1:{port}"}, method="POST")
    with urllib.request.urlopen(request, timeout=120) as r:
        return r.read()


def answers(port):
    try:
        get(port, "/api/v1/health")
        return True
    except OSError:
        return False


def mpd(port, command):
    with socket.create_connection(("127.0.0.1", port), timeout=120) as s:
        stream = s.makefile("rwb")
        stream.readline()
        stream.write(command.encode() + b"\n")
        stream.flush()
        while not (line := stream.readline()).startswith((b"OK", b"ACK")):
            pass


def cpu_ticks(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def functions(profile, binary):
    """{mangled name: instructions spent in it} for the functions of `binary` in one callgrind dump."""
    names, objects, spent = {}, {}, {}
    current_object = current_function = None
    in_call = False
    for line in profile.read_text(errors="replace").splitlines():
        if m := re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line):
            if m.group(3):
                objects[m.group(2)] = m.group(3)
            if m.group(1) == "ob":
                current_object = objects.get(m.group(2))
            continue
        if m := re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line):
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1) == "fn":
                current_function = names.get(m.group(2)) if current_object == binary else None
                in_call = False
            continue
        if line.startswith("calls="):
            in_call = True  # the next cost line is the call's inclusive cost, not this function's own
            continue
        if current_function and line and line[0] in "0123456789+-*":
            if in_call:
                in_call = False
                continue
            name = re.sub(r"'\d+$", "", current_function)
            if not name.startswith("0x"):
                spent[name] = spent.get(name, 0) + int(line.split()[-1])
    return spent


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crated", default=str(ROOT / ".build/release/crated"))
    parser.add_argument("--crate", default=str(ROOT / ".build/release/crate"))
    parser.add_argument("--out", default=str(ROOT / "Apps/crated/crated.order"))
    parser.add_argument("--music", help="a collection to import by reference (default: 20 albums made here); "
                        "Benchmarks' library-3000 shows what a daemon with a real library runs")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="crate-order."))
    # Valgrind 3.19 cannot read the DWARF 5 of Swift's debug info: it runs a copy without it (symbols kept).
    crated = str(work / "crated")
    subprocess.run(["objcopy", "--strip-debug", args.crated, crated], check=True)
    music, home = work / "music", work / "home"
    if args.music:
        music = Path(args.music).resolve()
    else:
        # The corpus generator needs mutagen: Debian's python3-mutagen is for Debian's own Python.
        python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
        subprocess.run([python, str(ROOT / "Benchmarks/corpus.py"), "library", "--out", str(music),
                        "--size", "20"], check=True, stdout=subprocess.DEVNULL)
    http, mpd_port, subsonic = free_ports(3)
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               CRATE_DATA_DIRECTORY=str(home / "data/crate"), CRATE_HTTP_ADDRESS=f"127.0.0.1:{http}",
               CRATE_MPD_ADDRESS=f"127.0.0.1:{mpd_port}", CRATE_SUBSONIC_ADDRESS=f"127.0.0.1:{subsonic}",
               CRATE_OUTPUT_PLUGIN="null")
    subprocess.run([args.crate, "import", "--quiet", "--mode", "reference", str(music)], env=env, check=True)
    out = work / "callgrind.out"
    daemon = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no",
                               "--separate-recs=1", f"--callgrind-out-file={out}", crated], env=env,
                              stdout=open(work / "crated.log", "wb"), stderr=subprocess.STDOUT)
    try:
        wait_until("crated to answer under callgrind", lambda: answers(http), seconds=600)
        last, still = -1, 0
        while still < 4:  # idle: no CPU used for 2 s
            ticks = cpu_ticks(daemon.pid)
            still = still + 1 if ticks == last else 0
            last = ticks
            time.sleep(0.5)
        subprocess.run(["callgrind_control", "--dump=start", str(daemon.pid)], check=True, stdout=subprocess.DEVNULL)
        get(http, "/")
        get(http, "/api/v1/wall?artwork=300")
        albums = json.loads(get(http, "/api/v1/albums"))
        for album in albums[:6]:
            if album.get("artworkHash"):
                get(http, f"/api/v1/artwork/{album['artworkHash']}?size=300")
        get(http, "/api/v1/search?q=ro&scope=local")
        mpd(mpd_port, "status")
        if albums:
            post(http, "/api/v1/queue/play-album", {"albumID": albums[0]["id"]})
            get(http, "/api/v1/player")
        mpd(mpd_port, "stop")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=300)
    dumps = sorted(work.glob("callgrind.out*"))
    start = next((d for d in dumps if d.name.endswith(".1")), None)
    rest = [d for d in dumps if d != start]
    if start is None or not rest:
        sys.exit(f"order-crated: expected two callgrind dumps in {work}, found {[d.name for d in dumps]}")
    first = functions(start, crated)
    later = {}
    for d in rest:
        for name, cost in functions(d, crated).items():
            later[name] = later.get(name, 0) + cost
    order = sorted(first, key=lambda n: -first[n])
    order += sorted((n for n in later if n not in first), key=lambda n: -later[n])
    Path(args.out).write_text("".join(f"{name}\n" for name in order))
    print(f"order-crated: {len(first)} start-up functions, {len(order) - len(first)} more in use -> {args.out}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
