#!/usr/bin/env bash
# The Python tests' venv (Tests/Browser, Tests/Integration): python-mpd2 for the MPD client tests; py-opensonic for the Subsonic API tests; jsonschema to check Subsonic answers against the OpenSubsonic schema; Pillow to measure text contrast from screenshots; Playwright (its wheel carries the driver; the browser is Debian's chromium, never a
# download) and pytest, in a venv under .build (ignored by git). Made once, reused afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/browser-venv
want="playwright==1.65.2 pytest==9.0.3 axe-playwright-python==0.1.8 python-mpd2==3.1.1 pillow==13.0.0 py-opensonic==10.4.1 jsonschema==4.26.0"
stamp="$venv/.crate-$(echo "$want" | tr ' =' '_-')"
[ -f "$stamp" ] && exit 0
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check $want
touch "$stamp"
