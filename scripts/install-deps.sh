#!/usr/bin/env bash
# Installs the Debian packages Crate needs, only those that are missing.
#   scripts/install-deps.sh run    -> build + play
#   scripts/install-deps.sh test   -> build + play + the tools the tests drive
set -euo pipefail

run_pkgs=(libsqlite3-dev libcurl4-openssl-dev zlib1g-dev libopus-dev libogg-dev libopusfile-dev libvorbis-dev
          libpulse-dev libasound2-dev libmpg123-dev libflac-dev
          libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libjpeg62-turbo-dev libpng-dev libebur128-dev libdbus-1-dev pkg-config pulseaudio pulseaudio-utils sox ffmpeg)
test_pkgs=(libsox-fmt-all chromium openssl python3 curl flac mpc mpd ncmpcpp playerctl dbus man-db systemd
           desktop-file-utils bash-completion zsh fish supysonic python3-waitress snapserver snapclient)

want=("${run_pkgs[@]}")
[ "${1:-run}" = "test" ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "crate: installing missing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "crate: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# One apt-get at a time: a concurrent run can delete the other's downloaded archives.
apt_get() { $SUDO apt-get -o DPkg::Lock::Timeout=900 "$@"; }
apt_get update -q >/dev/null
for attempt in 1 2 3; do
  if apt_get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; then exit 0; fi
  echo "crate: apt-get install failed (attempt $attempt); retrying" >&2
  $SUDO dpkg --configure -a || true
  sleep 2
done
echo "crate: could not install: ${missing[*]}" >&2
exit 1
