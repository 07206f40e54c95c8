#!/usr/bin/env bash
# Generates a small tagged demo library: five albums in five formats, music made locally by sox
# (plucked melodies over a drone) and tagged by ffmpeg. Usage: make-demo-library.sh DIR
set -euo pipefail
out=${1:?usage: make-demo-library.sh DIR}
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

scale=(C4 D4 E4 G4 A4 C5 D5 E5 G5 A5)
# melody SEED SECONDS FILE: a deterministic pentatonic melody with a quiet fifth drone underneath.
melody() {
  RANDOM=$1; local secs=$2 file=$3 t=0 chain=()
  while [ "$(awk "BEGIN{print ($t < $secs)}")" = 1 ]; do
    local len=$(( (RANDOM % 3 + 1) * 125 ))   # 125, 250 or 375 ms
    chain+=(synth "0.$(printf %03d $len)" pluck "${scale[$((RANDOM % ${#scale[@]}))]}" :)
    t=$(awk "BEGIN{print $t + $len/1000}")
  done
  unset 'chain[${#chain[@]}-1]'
  sox -q -n -r 44100 -c 2 -b 16 "$work/m.wav" "${chain[@]}"
  sox -q -n -r 44100 -c 2 -b 16 "$work/d.wav" synth "$(soxi -D "$work/m.wav")" sine C3 sine G3 vol 0.08
  sox -q -m "$work/m.wav" "$work/d.wav" "$file" reverb 40 gain -n -3
}

# encode SRC DEST key=value...: encode by DEST's suffix and tag with ffmpeg's metadata keys.
encode() {
  local src=$1 dest=$2; shift 2
  local codec
  case "$dest" in
    *.flac) codec=(-c:a flac) ;;
    *.opus) codec=(-c:a libopus -b:a 128k) ;;
    *.ogg) codec=(-c:a libvorbis -q:a 5) ;;
    *.mp3) codec=(-c:a libmp3lame -b:a 192k -id3v2_version 3) ;;
    *.wav) codec=(-c:a pcm_s16le) ;;
  esac
  local meta=()
  for kv in "$@"; do meta+=(-metadata "$kv"); done
  mkdir -p "$(dirname "$dest")"
  ffmpeg -hide_banner -loglevel error -y -i "$src" -map_metadata -1 "${codec[@]}" "${meta[@]}" "$dest"
}

# 1. FLAC, one continuous piece cut into four tracks: plays without gaps when played as an album.
melody 11 40 "$work/whole.wav"
frames=$(soxi -s "$work/whole.wav"); quarter=$((frames / 4))
titles=("Dawn" "Morning Haze" "High Noon" "Long Shadows")
for i in 0 1 2 3; do
  start=$((i * quarter)); len=$quarter; [ $i = 3 ] && len=$((frames - start))
  sox -q "$work/whole.wav" "$work/part.wav" trim "${start}s" "${len}s"
  encode "$work/part.wav" "$out/Crate Demo Band/First Light/0$((i + 1)) ${titles[$i]}.flac" \
    "title=${titles[$i]}" "artist=Crate Demo Band" "album_artist=Crate Demo Band" "album=First Light" \
    "genre=Ambient" "date=2024" "track=$((i + 1))/4" "disc=1/1"
done

# 2. Opus.
n=1; for t in "Headlights" "Empty Roads" "Neon Signs"; do
  melody $((20 + n)) 15 "$work/t.wav"
  encode "$work/t.wav" "$out/The Synthetics/Night Drive/0$n $t.opus" "title=$t" "artist=The Synthetics" \
    "album_artist=The Synthetics" "album=Night Drive" "genre=Electronic" "date=2021" "track=$n/3"
  n=$((n + 1))
done

# 3. MP3, a various-artists compilation (no album artist: the many track artists decide).
n=1; for a in "Loam" "Birch & Pine" "The Cedars"; do
  melody $((30 + n)) 15 "$work/t.wav"
  encode "$work/t.wav" "$out/Compilations/Forest Sampler/0$n.mp3" "title=Grove $n" "artist=$a" \
    "album=Forest Sampler" "genre=Folk" "date=2023" "track=$n/3" "compilation=1"
  n=$((n + 1))
done

# 4. Ogg Vorbis.
n=1; for t in "Drizzle" "Downpour" "After the Rain"; do
  melody $((40 + n)) 15 "$work/t.wav"
  encode "$work/t.wav" "$out/Quiet Room/Rain Studies/0$n $t.ogg" "title=$t" "artist=Quiet Room" \
    "album_artist=Quiet Room" "album=Rain Studies" "genre=Classical" "date=2019" "track=$n/3"
  n=$((n + 1))
done

# 5. WAV with RIFF INFO tags.
n=1; for t in "Left and Right" "Octaves"; do
  melody $((50 + n)) 12 "$work/t.wav"
  encode "$work/t.wav" "$out/Test Tones/Reference/0$n $t.wav" "title=$t" "artist=Test Tones" \
    "album=Reference" "genre=Electronic" "date=2020" "track=$n"
  n=$((n + 1))
done

echo "demo library written to $out"
