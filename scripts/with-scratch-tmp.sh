#!/usr/bin/env bash
# Runs a command with TMPDIR set to a folder of its own, removed when the command ends (however it ends).
# The tests make their libraries, audio and servers' sockets under TMPDIR and leave them for a failure to be looked
# at; run after run that reached tens of gigabytes and filled the disk of a CI machine. Now a run leaves nothing.
set -euo pipefail
# A short name: unix socket paths below it (PulseAudio, D-Bus, systemd's) must stay under 108 bytes.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ct.XXXXXX")
# As /tmp is: tests run the CLI as an unprivileged user, who must reach (and may write) what lies below.
chmod 1777 "$scratch"
trap 'rm -rf "$scratch"' EXIT
# pytest's own temporary folders go there too, without its deep pytest-of-USER/pytest-N prefix.
TMPDIR=$scratch PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} --basetemp=$scratch/p" "$@"
