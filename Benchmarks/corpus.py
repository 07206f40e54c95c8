#!/usr/bin/env python3
"""Test music collections for Benchmarks/library.sh.

  corpus.py library --out DIR --size N [--seed S] [--jobs J] [--spec TEXT]
  corpus.py wavs    --out DIR --size N [--jobs J] [--spec TEXT]
  corpus.py search  --out DIR --size N [--seed S] [--jobs J] [--spec TEXT]
  corpus.py queries --from DIR [--count N] [--seed S]

library: about N tagged audio files laid out like a real collection, in DIR/music:
  Artist/Album/NN Title.ext (albums of 8-14 tracks; some on 2 discs as D-NN Title.ext; some
  compilations under "Various Artists"). Formats by album: FLAC, MP3 (ID3v2.3 and v2.4), Ogg Vorbis,
  Opus, some WAV (RIFF INFO + an ID3 chunk). Distinct tags per file (title, artist, album artist, album,
  date, genre, track and disc numbers with totals). A small JPEG, different per album, embedded in
  most albums; a cover.jpg folder image in some albums without embedded art. About 3% of the files are
  byte-identical copies under another path (whole albums under _Copies/, loose tracks under Unsorted/).
  Hidden files (.DS_Store, AppleDouble ._ files, a hidden track) and a hidden folder holding a real
  album: all should be skipped. Non-audio files: .cue, .log, .txt.
  The audio comes from a handful of short base files per format (1.0-3.0 s, sox + ffmpeg), copied and
  re-tagged with mutagen in memory.

wavs: N tiny WAV files (a 44-byte header, a few hundred 8 kHz samples, distinct RIFF INFO tags), in
  DIR/music/Artist NNNN/Album NN (YYYY)/NN Title.wav, 10 files per folder.

search: N tiny WAV files for Benchmarks/search.sh, 10 per album folder (Artist/Album (YYYY)/NN Title.wav),
  names made of words from a fixed seeded vocabulary of 3,000 words (real song-title words first, then
  made-up ones, Zipf-distributed), tagged twice with the same values: RIFF INFO (Crate, MPD) and an ID3v2.4
  chunk (beets reads only that). DIR/tags.tsv lists artist, album and title of every file.
  corpus.py queries --from DIR [--count N] [--seed S] prints N queries of 1, 2 and 3 words each: the first
  2-4 letters of words of one random file's artist, album and title, as someone types them.

Both build DIR.partial and rename it to DIR when complete; DIR/spec.txt then holds --spec and
DIR/expected.json what a tool should find. Progress goes to standard error.
"""
import argparse
import base64
import io
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time
from multiprocessing import Pool

FORMATS = {"flac": 0.35, "mp3": 0.33, "ogg": 0.12, "opus": 0.13, "wav": 0.07}
BASE_SECONDS = [1.0, 1.4, 1.8, 2.2, 2.6, 3.0]
COVER_VARIANTS = 12
AUDIO_SUFFIXES = {"flac", "mp3", "ogg", "opus", "wav"}

ADJECTIVES = """Velvet Silent Golden Broken Electric Hollow Crimson Distant Paper Northern Quiet Wild Glass
Lonely Neon Burning Frozen Secret Little Midnight Silver Wandering Bright Empty Endless Faded Gentle Hidden
Iron Last Lost Lucky Magnetic Modern Open Pale Restless Rusty Salt Slow Strange Sweet Tender Twin Yellow
Amber Bitter Cold Copper Crooked Dusty Early Falling Final Green Heavy Holy Honest Lazy Liquid Loud Low Mellow
Narrow Nervous Orange Painted Perfect Purple Rapid Red Rough Sacred Shallow Sharp Shy Sleepy Small Solar
Spare Static Sudden Summer Tiny Urban Violet Warm Winter Wooden""".split()
NOUNS = """River Lantern Harbor Engine Garden Mirror Signal Highway Orchard Window Machine Ocean Feather
Thunder Comet Island Forest Shadow Station Letter Circus Desert Kingdom Ladder Meadow Planet Radio Robot
Sailor Season Shelter Sparrow Stone Street Tiger Tower Valley Voice Wave Wheel Anchor Arrow Balloon Bell
Bridge Candle Canyon Castle Cloud Coast Crown Diamond Dream Echo Ember Falcon Fever Field Fire Flower
Fountain Ghost Glacier Harvest Heart Horizon Jungle Kite Lake Light Lion Moon Mountain Night Paradise
Pilot Rain Rocket Rose Satellite Sky Snow Star Storm Sun Telephone Train Tree Velvet Wolf""".split()
VERBS = """Running Falling Dancing Waiting Burning Drifting Calling Breaking Chasing Dreaming Fading Flying
Hiding Holding Leaving Looking Losing Moving Reaching Riding Shining Singing Sleeping Walking Turning""".split()
GIVEN = """Anna Ben Clara David Elena Felix Greta Hugo Ines Jonas Karin Leo Mara Nils Olga Paul Rosa Sam
Tilda Viktor Zoë Chloé Måns Jürgen Łucja Søren Ólafur Niño José Ana Mei Kenji Yuki Ravi Amir Noor Ivan
Dasha Pierre Émile""".split()
FAMILY = """Berg Carter Dahl Ekdahl Falk Garcia Holm Ivanova Jensen Kowalski Lind Moreau Novak Olsen Petrov
Quist Rossi Schmidt Tanaka Ueda Vargas Weber Young Zeller Bérard Marchetti Nowak Müller Åkesson Núñez""".split()
ENSEMBLES = ["Trio", "Quartet", "Quartett", "Orchestra", "Band", "& the Strangers", "Collective", "Ensemble",
             "Sound System", "Choir"]
SPECIAL_ARTISTS = ["Даша и Волны", "青い猫", "Ænima Borealis", "Ōkami Kōen", "Niño Salvaje", "Fjöldi",
                   "Les Étoiles Filantes", "Øresund Nights", "AC/DB", "Mr. Question?", "The \"Quoted\" Ones"]
GENRES = ["Rock", "Pop", "Jazz", "Classical", "Electronic", "Folk", "Hip-Hop", "Blues", "Country", "Metal",
          "Soul", "Reggae", "Ambient", "Punk", "Indie", "Soundtrack", "World", "R&B", "Techno", "Singer/Songwriter"]


def log(msg):
    print(f"corpus.py: {msg}", file=sys.stderr, flush=True)


def safe_name(text):
    """A file or folder name from a tag, the way common taggers make Windows-compatible names."""
    for ch in '/\\:*?"<>|':
        text = text.replace(ch, "_")
    text = text.strip().rstrip(".")
    while text.startswith("."):
        text = text[1:]
    return text or "_"


# --- base audio and pictures -----------------------------------------------------------------------

def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def encode_base(job):
    """One base file: a sox phrase of the given length, encoded to one format with ffmpeg."""
    index, seconds, fmt, folder = job
    wav = os.path.join(folder, f"src{index}.wav")
    out = os.path.join(folder, f"base{index}.{fmt}")
    if fmt == "wav":
        shutil.copyfile(wav, out)
        return out
    codec = {"flac": ["-c:a", "flac"],
             "mp3": ["-c:a", "libmp3lame", "-q:a", "4", "-id3v2_version", "0", "-write_id3v1", "0"],
             "ogg": ["-c:a", "libvorbis", "-q:a", "3"],
             "opus": ["-c:a", "libopus", "-b:a", "96k"]}[fmt]
    run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", wav, "-map_metadata", "-1", "-fflags", "+bitexact",
         "-flags:a", "+bitexact", *codec, out])
    return out


def make_bases(folder, jobs):
    """Base audio files (every length in every format) and base cover pictures, in folder."""
    for i, seconds in enumerate(BASE_SECONDS):
        low = 196 + 23 * i
        run(["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", os.path.join(folder, f"src{i}.wav"),
             "synth", f"{seconds}", "pluck", f"{low}", "pluck", f"{low * 1.5:.1f}", "synth", f"{seconds}",
             "pinknoise", "mix", "tremolo", f"{3 + i}", "30", "fade", "0.02", f"{seconds}", "0.2", "gain", "-n", "-4"])
    work = [(i, s, fmt, folder) for i, s in enumerate(BASE_SECONDS) for fmt in FORMATS]
    with Pool(jobs) as pool:
        pool.map(encode_base, work)
    for k in range(COVER_VARIANTS):
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=s=240x240:d=1:r=1",
             "-vf", f"hue=h={k * 30}:s={1 + (k % 3) * 0.5}", "-frames:v", "1", "-q:v", "6",
             os.path.join(folder, f"cover{k}.jpg")])


def album_cover(base_jpeg, text):
    """A JPEG that differs per album: the base picture with a comment segment (COM) after SOI."""
    comment = text.encode("utf-8")[:60000]
    return base_jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + base_jpeg[2:]


# --- tagging ---------------------------------------------------------------------------------------

def riff_chunks(data):
    """(id, body) of each chunk of a RIFF/WAVE file."""
    pos, out = 12, []
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        out.append((cid, data[pos + 8:pos + 8 + size]))
        pos += 8 + size + (size & 1)
    return out


def chunk(cid, body):
    return cid + struct.pack("<I", len(body)) + body + (b"\0" if len(body) & 1 else b"")


def info_list(pairs):
    """A LIST/INFO chunk; each value NUL-terminated UTF-8."""
    return chunk(b"LIST", b"INFO" + b"".join(chunk(k.encode("ascii"), v.encode("utf-8") + b"\0") for k, v in pairs if v))


def tagged(fmt, base, t, cover, id3_version):
    """The bytes of base re-tagged with the tags t (a dict), cover (JPEG bytes or None) embedded."""
    from mutagen.flac import FLAC, Picture
    from mutagen.id3 import ID3, TIT2, TPE1, TPE2, TALB, TDRC, TCON, TRCK, TPOS, APIC, TCMP
    from mutagen.oggopus import OggOpus
    from mutagen.oggvorbis import OggVorbis
    from mutagen.wave import WAVE

    def picture():
        p = Picture()
        p.type, p.mime, p.desc, p.data = 3, "image/jpeg", "Front cover", cover
        p.width = p.height = 240
        p.depth = 24
        return p

    def id3_frames(tags):
        tags.add(TIT2(encoding=3, text=t["title"]))
        tags.add(TPE1(encoding=3, text=t["artist"]))
        tags.add(TPE2(encoding=3, text=t["albumartist"]))
        tags.add(TALB(encoding=3, text=t["album"]))
        tags.add(TDRC(encoding=3, text=t["date"]))
        tags.add(TCON(encoding=3, text=t["genre"]))
        tags.add(TRCK(encoding=3, text=f"{t['track']}/{t['tracktotal']}"))
        tags.add(TPOS(encoding=3, text=f"{t['disc']}/{t['disctotal']}"))
        if t["compilation"]:
            tags.add(TCMP(encoding=3, text="1"))
        if cover:
            tags.add(APIC(encoding=3, mime="image/jpeg", type=3, desc="Front cover", data=cover))

    if fmt == "wav":
        chunks = riff_chunks(base)
        body = b"WAVE" + b"".join(chunk(cid, data) for cid, data in chunks if cid in (b"fmt ", b"data"))
        body += info_list([("INAM", t["title"]), ("IART", t["artist"]), ("IPRD", t["album"]),
                           ("ICRD", t["date"]), ("IGNR", t["genre"]), ("ITRK", str(t["track"]))])
        buf = io.BytesIO(b"RIFF" + struct.pack("<I", len(body)) + body)
        f = WAVE(buf)
        f.add_tags()
        id3_frames(f.tags)
        buf.seek(0)
        f.save(buf, v2_version=3)
        return buf.getvalue()
    buf = io.BytesIO(base)
    if fmt == "mp3":
        tags = ID3()
        id3_frames(tags)
        tags.save(buf, v2_version=id3_version, padding=lambda info: 512)
        return buf.getvalue()
    f = {"flac": FLAC, "ogg": OggVorbis, "opus": OggOpus}[fmt](buf)
    if f.tags is None:
        f.add_tags()
    for key in list(f.tags.keys()):
        del f.tags[key]
    f.tags["TITLE"] = t["title"]
    f.tags["ARTIST"] = t["artist"]
    f.tags["ALBUMARTIST"] = t["albumartist"]
    f.tags["ALBUM"] = t["album"]
    f.tags["DATE"] = t["date"]
    f.tags["GENRE"] = t["genre"]
    f.tags["TRACKNUMBER"] = str(t["track"])
    f.tags["TRACKTOTAL"] = str(t["tracktotal"])
    f.tags["DISCNUMBER"] = str(t["disc"])
    f.tags["DISCTOTAL"] = str(t["disctotal"])
    if t["compilation"]:
        f.tags["COMPILATION"] = "1"
    if cover:
        if fmt == "flac":
            f.clear_pictures()
            f.add_picture(picture())
        else:
            f.tags["METADATA_BLOCK_PICTURE"] = base64.b64encode(picture().write()).decode("ascii")
    buf.seek(0)
    f.save(buf)
    return buf.getvalue()


# --- the plan of a collection ----------------------------------------------------------------------

class Names:
    def __init__(self, rng):
        self.rng = rng
        self.used_artists = set()

    def phrase(self):
        r, a, n, v = self.rng, self.rng.choice(ADJECTIVES), self.rng.choice(NOUNS), self.rng.choice(VERBS)
        n2 = r.choice(NOUNS)
        return r.choice([f"{a} {n}", f"The {a} {n}", f"{v} {n}s", f"{n} of the {a} {n2}", f"{a} {n} Blues",
                         f"{v} Through the {n}", f"{n} & {n2}", f"{a} {n} (Reprise)", f"{a} {n}, Part {r.randint(1, 4)}",
                         f"Where Is the {n}?", f"{a}", f"{v}"])

    def artist(self):
        r = self.rng
        for _ in range(1000):
            kind = r.random()
            if kind < 0.02:
                name = r.choice(SPECIAL_ARTISTS) + ("" if r.random() < 0.5 else f" {r.choice(ENSEMBLES)}")
            elif kind < 0.45:
                name = f"{r.choice(GIVEN)} {r.choice(FAMILY)}" + (f" {r.choice(ENSEMBLES)}" if r.random() < 0.3 else "")
            elif kind < 0.8:
                name = f"The {r.choice(ADJECTIVES)} {r.choice(NOUNS)}s"
            else:
                name = f"{r.choice(ADJECTIVES)} {r.choice(NOUNS)}"
            if name not in self.used_artists:
                self.used_artists.add(name)
                return name
        raise RuntimeError("ran out of artist names")


def plan_library(size, seed):
    rng = random.Random(seed)
    names = Names(rng)
    target = size - round(size * 0.03)
    albums, planned = [], 0
    artists_for_features = []
    fmts, weights = list(FORMATS), list(FORMATS.values())

    def new_album(albumartist, folder_artist, compilation, hidden=False):
        aid = len(albums)
        fmt = rng.choices(fmts, weights)[0]
        year = rng.randint(1958, 2025)
        date = str(year) if rng.random() < 0.8 else f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        n = rng.randint(8, 14)
        discs = 2 if rng.random() < 0.05 else 1
        title = names.phrase()
        used_titles = {a["album"] for a in albums if a["albumartist"] == albumartist}
        while title in used_titles:
            title = names.phrase()
        if fmt == "wav":
            art = "folder" if rng.random() < 0.6 else "none"
        else:
            art = rng.choices(["embedded", "folder", "none"], [0.78, 0.12, 0.10])[0]
        genre = rng.choice(GENRES)
        tracks, per_disc = [], [n - n // 2, n // 2] if discs == 2 else [n]
        titles_used = set()
        for d, count in enumerate(per_disc, 1):
            for no in range(1, count + 1):
                tt = names.phrase()
                while tt in titles_used:
                    tt = f"{names.phrase()} ({rng.choice(['Live', 'Demo', 'Remix', 'Acoustic', 'Edit'])})"
                titles_used.add(tt)
                if compilation:
                    artist = rng.choice(artists_for_features) if artists_for_features and rng.random() < 0.5 else names.artist()
                elif rng.random() < 0.1 and artists_for_features:
                    artist = f"{albumartist} feat. {rng.choice(artists_for_features)}"
                else:
                    artist = albumartist
                prefix = f"{d}-{no:02d}" if discs == 2 else f"{no:02d}"
                tracks.append({"title": tt, "artist": artist, "albumartist": albumartist, "album": title,
                               "date": date, "genre": genre, "track": no, "tracktotal": count, "disc": d,
                               "disctotal": discs, "compilation": compilation, "base": rng.randrange(len(BASE_SECONDS)),
                               "file": f"{prefix} {safe_name(tt)}.{fmt}"})
        folder = os.path.join(safe_name(folder_artist), safe_name(title))
        if hidden:
            folder = os.path.join(".Trash-1000", "files", safe_name(title))
        extras = []
        if fmt in ("flac", "wav") and rng.random() < 0.4:
            extras += ["cue", "log"]
        if rng.random() < 0.1:
            extras.append("txt")
        album = {"id": aid, "folder": folder, "albumartist": albumartist, "album": title, "fmt": fmt,
                 "id3": 3 if rng.random() < 0.5 else 4, "art": art, "cover": rng.randrange(COVER_VARIANTS),
                 "extras": extras, "junk": rng.random() < 0.04, "hidden": hidden, "tracks": tracks}
        albums.append(album)
        return album

    while planned < target:
        if rng.random() < 0.06:
            a = new_album("Various Artists", "Various Artists", True)
            planned += len(a["tracks"])
            continue
        artist = names.artist()
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 6])):
            if planned >= target:
                break
            a = new_album(artist, artist, False)
            planned += len(a["tracks"])
        artists_for_features.append(artist)
    # A hidden folder with a real album, and one hidden real track inside a normal album.
    new_album(names.artist(), "", False, hidden=True)
    visible = [a for a in albums if not a["hidden"]]
    rng.choice(visible)["hidden_track"] = True
    # About 3% byte-identical copies: whole albums under _Copies/, the rest loose under Unsorted/.
    copies, budget = [], round(size * 0.03)
    order = visible[:]
    rng.shuffle(order)
    for a in order:
        if len(a["tracks"]) <= budget * 0.6 - sum(1 for c in copies if c[2] == "album"):
            for t in a["tracks"]:
                copies.append((a["id"], t["file"], "album"))
    for a in order[::-1]:
        if len(copies) >= budget:
            break
        t = rng.choice(a["tracks"])
        copies.append((a["id"], t["file"], "loose"))
    return albums, copies[:max(budget, 0)]


# --- building a collection -------------------------------------------------------------------------

_BASES = {}


def base_bytes(folder, name):
    key = (folder, name)
    if key not in _BASES:
        with open(os.path.join(folder, name), "rb") as f:
            _BASES[key] = f.read()
    return _BASES[key]


def cue_text(a):
    lines = [f'REM GENRE "{a["tracks"][0]["genre"]}"', f'REM DATE {a["tracks"][0]["date"][:4]}',
             f'PERFORMER "{a["albumartist"]}"', f'TITLE "{a["album"]}"']
    for i, t in enumerate(a["tracks"], 1):
        lines += [f'FILE "{t["file"]}" WAVE', f"  TRACK {i:02d} AUDIO", f'    TITLE "{t["title"]}"',
                  f'    PERFORMER "{t["artist"]}"', "    INDEX 01 00:00:00"]
    return "\r\n".join(lines) + "\r\n"


def log_text(a):
    lines = ["Exact Audio Copy V1.6 from 23. October 2020", "", f"EAC extraction logfile from {a['tracks'][0]['date']}", "",
             f"{a['albumartist']} / {a['album']}", "", "Used drive  : BENCH DRIVE   Adapter: 0  ID: 1", ""]
    for i, t in enumerate(a["tracks"], 1):
        lines += [f"Track {i:2d}", "", f"     Filename {t['file']}", "", "     Peak level 98.1 %",
                  f"     Copy CRC {(a['id'] * 7919 + i * 104729) & 0xFFFFFFFF:08X}", "     Copy OK", ""]
    lines.append("No errors occurred")
    return "\r\n".join(lines) + "\r\n"


def build_album(job):
    a, music, bases = job
    folder = os.path.join(music, a["folder"])
    os.makedirs(folder, exist_ok=True)
    cover = None
    if a["art"] != "none":
        cover = album_cover(base_bytes(bases, f"cover{a['cover']}.jpg"),
                            f"Crate benchmark cover {a['id']}: {a['albumartist']} - {a['album']}")
    for t in a["tracks"]:
        base = base_bytes(bases, f"base{t['base']}.{a['fmt']}")
        data = tagged(a["fmt"], base, t, cover if a["art"] == "embedded" else None, a["id3"])
        with open(os.path.join(folder, t["file"]), "wb") as f:
            f.write(data)
    if a["art"] == "folder":
        with open(os.path.join(folder, "cover.jpg"), "wb") as f:
            f.write(cover)
    stem = safe_name(f"{a['albumartist']} - {a['album']}")
    if "cue" in a["extras"]:
        with open(os.path.join(folder, stem + ".cue"), "w", encoding="utf-8") as f:
            f.write(cue_text(a))
    if "log" in a["extras"]:
        with open(os.path.join(folder, stem + ".log"), "w", encoding="utf-8") as f:
            f.write(log_text(a))
    if "txt" in a["extras"]:
        with open(os.path.join(folder, "info.txt"), "w", encoding="utf-8") as f:
            f.write(f"{a['album']} by {a['albumartist']}\nRipped for the Crate library benchmark.\n")
    hidden = 0
    if a["junk"]:
        with open(os.path.join(folder, ".DS_Store"), "wb") as f:
            f.write(b"\0\0\0\1Bud1" + bytes(4088))
        first = a["tracks"][0]["file"]
        with open(os.path.join(folder, "._" + first), "wb") as f:   # AppleDouble: not audio at all
            f.write(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        " + bytes(4070))
        hidden += 2
    if a.get("hidden_track"):
        t = dict(a["tracks"][-1], title="Hidden Bonus Track", track=99)
        with open(os.path.join(folder, f".99 Hidden Bonus Track.{a['fmt']}"), "wb") as f:
            f.write(tagged(a["fmt"], base_bytes(bases, f"base0.{a['fmt']}"), t, None, a["id3"]))
    return a["id"]


def library(args):
    t0 = time.monotonic()
    out, partial = os.path.abspath(args.out), os.path.abspath(args.out) + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    music, bases = os.path.join(partial, "music"), os.path.join(partial, "base")
    os.makedirs(music)
    os.makedirs(bases)
    albums, copies = plan_library(args.size, args.seed)
    make_bases(bases, args.jobs)
    log(f"{len(albums)} albums planned; base files made in {time.monotonic() - t0:.1f} s")
    with Pool(args.jobs) as pool:
        done = 0
        for _ in pool.imap_unordered(build_album, [(a, music, bases) for a in albums], chunksize=8):
            done += 1
            if done % 200 == 0:
                log(f"  {done}/{len(albums)} albums")
    by_id = {a["id"]: a for a in albums}
    loose_names = set()
    for aid, name, kind in copies:
        a = by_id[aid]
        src = os.path.join(music, a["folder"], name)
        if kind == "album":
            dst_dir = os.path.join(music, "_Copies", safe_name(f"{a['albumartist']} - {a['album']}"))
            dst = os.path.join(dst_dir, name)
        else:
            dst_dir = os.path.join(music, "Unsorted")
            base_name = safe_name(f"{a['tracks'][0]['albumartist']} - {name}")
            while base_name in loose_names:
                base_name = "copy of " + base_name
            loose_names.add(base_name)
            dst = os.path.join(dst_dir, base_name)
        os.makedirs(dst_dir, exist_ok=True)
        shutil.copyfile(src, dst)
    shutil.rmtree(bases)

    visible = [a for a in albums if not a["hidden"]]
    formats = {}
    for a in visible:
        formats[a["fmt"]] = formats.get(a["fmt"], 0) + len(a["tracks"])
    for aid, name, _ in copies:
        fmt = by_id[aid]["fmt"]
        formats[fmt] = formats.get(fmt, 0) + 1
    unique = sum(len(a["tracks"]) for a in visible)
    other = 0
    for root, dirs, files in os.walk(music):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        other += sum(1 for f in files if not f.startswith(".") and f.rsplit(".", 1)[-1].lower() not in AUDIO_SUFFIXES)
    hidden_audio = sum(len(a["tracks"]) for a in albums if a["hidden"]) + 1
    expected = {
        "kind": "library", "size": args.size, "seed": args.seed,
        "audio_files": unique + len(copies), "unique_audio": unique, "duplicates": len(copies),
        "albums": len(visible), "album_artists": len({a["albumartist"] for a in visible}),
        "compilations": sum(1 for a in visible if a["albumartist"] == "Various Artists"),
        "embedded_art_albums": sum(1 for a in visible if a["art"] == "embedded"),
        "folder_art_albums": sum(1 for a in visible if a["art"] == "folder"),
        "formats": formats, "other_files": other,
        "hidden_audio": hidden_audio, "hidden_junk": sum(2 for a in visible if a["junk"]),
    }
    finish(partial, out, expected, args.spec, t0)


# --- tiny WAV files --------------------------------------------------------------------------------

def tiny_wav(i, tags):
    n = 200 + (i * 37) % 500
    pcm = struct.pack(f"<{n}h", *(((k * (i % 97 + 5)) % 2000) - 1000 for k in range(n)))
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + chunk(b"fmt ", fmt) + chunk(b"data", pcm) + info_list(tags)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def build_wav_artists(job):
    first, last, total, music = job
    count = 0
    for artist in range(first, last):
        name = f"Artist {artist:05d} {ADJECTIVES[artist % len(ADJECTIVES)]}"
        for album in range(10):
            base = (artist * 10 + album) * 10
            if base >= total:
                return count
            year = 1960 + (artist + album) % 65
            title = f"Album {album:02d} {NOUNS[(artist * 7 + album) % len(NOUNS)]}"
            folder = os.path.join(music, name, f"{title} ({year})")
            os.makedirs(folder, exist_ok=True)
            for track in range(1, 11):
                i = base + track - 1
                if i >= total:
                    break
                song = f"Song {i:06d} {VERBS[i % len(VERBS)]} {NOUNS[(i * 13) % len(NOUNS)]}"
                data = tiny_wav(i, [("INAM", song), ("IART", name), ("IPRD", title), ("ICRD", str(year)),
                                    ("IGNR", GENRES[i % len(GENRES)]), ("ITRK", f"{track}/10")])
                with open(os.path.join(folder, f"{track:02d} {song}.wav"), "wb") as f:
                    f.write(data)
                count += 1
    return count


def wavs(args):
    t0 = time.monotonic()
    out, partial = os.path.abspath(args.out), os.path.abspath(args.out) + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    music = os.path.join(partial, "music")
    os.makedirs(music)
    artists = (args.size + 99) // 100
    step = max(1, artists // (args.jobs * 8))
    work = [(a, min(a + step, artists), args.size, music) for a in range(0, artists, step)]
    with Pool(args.jobs) as pool:
        made = sum(pool.map(build_wav_artists, work))
    expected = {"kind": "wavs", "size": args.size, "audio_files": made, "unique_audio": made, "duplicates": 0,
                "albums": (made + 9) // 10, "album_artists": artists, "other_files": 0, "hidden_audio": 0}
    finish(partial, out, expected, args.spec, t0)


# --- search: tiny WAV files named from a realistic vocabulary ------------------------------------------

# Common song-title words, the head of the vocabulary (most frequent first, roughly).
COMMON = """love night heart time baby world life dream home light day girl blue man good rain fire sun
little boy old dance star moon song away end road summer gone sky eyes never sweet alone dark city tonight
blues wind river kiss lost wild free hold soul fall angel stay run black white forever heaven believe blood
cold crazy live let magic money morning party rock roll shine ride sleep smile stars street dreams fly
golden hands happy high hot lonely lady lover memory mind mister more nothing paradise people queen radio
ready rose secret shadow sister slow somebody something stone story sugar tears tomorrow train true walk
wanna water woman young burning change circle call coming crying dancing desire devil door down easy echo
electric empty everything eye face feel fever final friend game ghost glory gold gun highway hope hurricane
island jungle king last leave lies lightning line lucky midnight miracle mountain music mystery ocean only
open over paper perfect pretty promise rainbow rebel remember rescue revolution ring rising rocket runaway
sail sea season seven shake shot silence silver sing sky snow soldier sorry sound space spirit spring storm
stranger sunshine superstar sweetheart talk thunder tiger touch tower trouble union valley velvet voice
waiting wake war waves west wheel whisper window wine wings winter wish wonder yesterday young zero after
again alive always american angels another anything back bad beautiful bed better between big bird bitter
blind body boogie born break bridge broken brother burn california candy car chain chance child christmas
cloud come control country cry daddy daughter days dear death diamond die dirty doctor dog don dragon drive
drum dust early earth electric elevator emerald engine evil faith fast father fight fine flower flowers
follow fool forget funky garden gentle glass goodbye gravity green grey groove guitar harbor harvest hazy
head hell hero hey hide hill holiday holy honey horizon horse house hunger hunter ice inside jazz jealous
jesus johnny joy jump justice keep kid kingdom knife lake land lazy lemon liberty lion lips listen lord
lullaby machine mama marching mercy mirror mine modern mother motor nation neon new north number nowhere
orange outside palace passion pearl picture planet play poison power prayer prince purple question
quiet rain reason red rhythm river roses rush sad saint satellite satisfaction saturday savage school
screaming shelter ship shoes sign simple sky smoke soft someone sometimes southern speed spider stairway
steel stop strange sugar sunday surrender sweet taxi telephone tender thunderbird ticket tiny together
tokyo twilight uptown vampire venus victory wait walking warrior weekend wicked wonderland yellow""".split()
FUNCTION_WORDS = "the of in my to and on for with you me your all no at from this".split()
ONSETS = "b bl br c ch cl cr d dr f fl fr g gl gr h j k l m n p pl pr r s sc sh sk sl sm sn sp st str sw t th tr v w z".split()
NUCLEI = "a a e e i o o u ai ea ee ie oa oo ou ay".split()
CODAS = ["", "", "", "n", "r", "l", "s", "t", "m", "nd", "nt", "st", "ng", "ck", "rd", "rk", "ll", "sh", "th", "x"]
VOCABULARY_SIZE = 3000


def vocabulary(rng):
    """(words, Zipf weights): the common words first, then made-up ones (1-3 syllables), 3,000 in all."""
    words, seen = [], set()
    for w in COMMON + [x.lower() for x in ADJECTIVES + NOUNS + VERBS]:
        if w not in seen:
            seen.add(w)
            words.append(w)
    while len(words) < VOCABULARY_SIZE:
        syllables = rng.choices([1, 2, 3], [0.35, 0.5, 0.15])[0]
        w = "".join(rng.choice(ONSETS + [""]) + rng.choice(NUCLEI) + rng.choice(CODAS[:6]) for _ in range(syllables - 1))
        w += rng.choice(ONSETS) + rng.choice(NUCLEI) + rng.choice(CODAS)
        if len(w) >= 3 and w not in seen:
            seen.add(w)
            words.append(w)
    return words, [1 / (rank + 10) for rank in range(len(words))]


class SearchNames:
    def __init__(self, rng):
        self.rng = rng
        self.words, self.weights = vocabulary(rng)
        self.used_artists = set()

    def word(self):
        return self.rng.choices(self.words, self.weights)[0].capitalize()

    def phrase(self, most):
        """1 to `most` vocabulary words, sometimes with "The", "of the", "in my"."""
        r, n = self.rng, self.rng.choices(range(1, most + 1), [4, 5, 3, 2, 1][:most])[0]
        text = " ".join(self.word() for _ in range(n))
        roll = r.random()
        if roll < 0.15:
            text = "The " + text
        elif roll < 0.25 and n < most:
            text = f"{text} {r.choice(FUNCTION_WORDS).capitalize()} the {self.word()}"
        elif roll < 0.30:
            text += f" ({r.choice(['Live', 'Demo', 'Remix', 'Acoustic', 'Part 2', 'Reprise'])})"
        return text

    def artist(self):
        r = self.rng
        while True:
            kind = r.random()
            if kind < 0.3:
                name = f"{r.choice(GIVEN)} {r.choice(FAMILY) if r.random() < 0.3 else self.word()}"
            elif kind < 0.55:
                name = f"The {self.word()} {self.word()}s"
            elif kind < 0.85:
                name = f"{self.word()} {self.word()}"
            else:
                name = self.word()
            if r.random() < 0.1:
                name += f" {r.choice(ENSEMBLES)}"
            if name not in self.used_artists:
                self.used_artists.add(name)
                return name


def plan_search(size, seed):
    """Albums of 10 tracks: [(folder, [tags dict])]; 6% compilations, 8% of tracks "feat."."""
    rng = random.Random(seed)
    names = SearchNames(rng)
    albums, folders, artists = [], set(), []
    while len(albums) * 10 < size:
        compilation = rng.random() < 0.06
        artist = "Various Artists" if compilation else names.artist()
        if not compilation:
            artists.append(artist)
        for _ in range(1 if compilation else rng.choice([1, 1, 1, 2, 2, 3, 4, 6, 8])):
            if len(albums) * 10 >= size:
                break
            year = rng.randint(1958, 2025)
            title = names.phrase(4)
            while (artist, title) in folders:
                title = names.phrase(4)
            folders.add((artist, title))
            genre = rng.choice(GENRES)
            tracks = []
            for no in range(1, 11):
                if compilation:
                    who = rng.choice(artists) if artists and rng.random() < 0.5 else names.artist()
                elif len(artists) > 1 and rng.random() < 0.08:
                    who = f"{artist} feat. {rng.choice(artists[:-1])}"
                else:
                    who = artist
                tracks.append({"title": names.phrase(5), "artist": who, "albumartist": artist, "album": title,
                               "date": str(year), "genre": genre, "track": no})
            albums.append((os.path.join(safe_name(artist), safe_name(f"{title} ({year})")), tracks))
    return albums


def id3v24(frames):
    """An ID3v2.4 tag of UTF-8 text frames."""
    def syncsafe(n):
        return bytes(((n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F))
    body = b"".join(fid.encode("ascii") + syncsafe(len(v.encode("utf-8")) + 1) + b"\0\0\3" + v.encode("utf-8")
                    for fid, v in frames if v)
    return b"ID3\4\0\0" + syncsafe(len(body)) + body


def build_search_albums(job):
    albums, first, music = job
    for k, (folder, tracks) in enumerate(albums):
        path = os.path.join(music, folder)
        os.makedirs(path, exist_ok=True)
        for t in tracks:
            i = (first + k) * 10 + t["track"]
            data = tiny_wav(i, [("INAM", t["title"]), ("IART", t["artist"]), ("IPRD", t["album"]), ("ICRD", t["date"]),
                                ("IGNR", t["genre"]), ("ITRK", f"{t['track']}/10")])
            id3 = chunk(b"id3 ", id3v24([("TIT2", t["title"]), ("TPE1", t["artist"]), ("TPE2", t["albumartist"]),
                                         ("TALB", t["album"]), ("TDRC", t["date"]), ("TCON", t["genre"]),
                                         ("TRCK", f"{t['track']}/10")]))
            data = b"RIFF" + struct.pack("<I", len(data) - 8 + len(id3)) + data[8:] + id3
            with open(os.path.join(path, f"{t['track']:02d} {safe_name(t['title'])}.wav"), "wb") as f:
                f.write(data)
    return len(albums)


def search(args):
    t0 = time.monotonic()
    out, partial = os.path.abspath(args.out), os.path.abspath(args.out) + ".partial"
    shutil.rmtree(partial, ignore_errors=True)
    music = os.path.join(partial, "music")
    os.makedirs(music)
    albums = plan_search(args.size, args.seed)
    step = 200
    with Pool(args.jobs) as pool:
        pool.map(build_search_albums, [(albums[i:i + step], i, music) for i in range(0, len(albums), step)])
    with open(os.path.join(partial, "tags.tsv"), "w", encoding="utf-8") as f:
        for _, tracks in albums:
            for t in tracks:
                f.write(f"{t['artist']}\t{t['album']}\t{t['title']}\n")
    made = sum(len(tracks) for _, tracks in albums)
    expected = {"kind": "search", "size": args.size, "seed": args.seed, "audio_files": made, "unique_audio": made,
                "duplicates": 0, "albums": len(albums), "album_artists": len({a[1][0]["albumartist"] for a in albums}),
                "artists": len({t["artist"] for _, ts in albums for t in ts}), "vocabulary": VOCABULARY_SIZE,
                "other_files": 0, "hidden_audio": 0}
    finish(partial, out, expected, args.spec, t0)


def queries(args):
    """Queries as someone types them: the first 2-4 letters of 1, 2 or 3 words of one file's tags."""
    rng = random.Random(args.seed)
    with open(os.path.join(args.source, "tags.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    for n in (1, 2, 3):
        made = set()
        while len(made) < args.count:
            words = []
            for w in " ".join(rng.choice(rows)).replace("(", " ").replace(")", " ").split():
                w = w.lower()
                if w.isascii() and w.isalpha() and len(w) >= 2 and w != "feat" and w not in words:
                    words.append(w)
            if len(words) < n:
                continue
            q = " ".join(w[:rng.randint(2, min(4, len(w)))] for w in rng.sample(words, n))
            if q not in made:
                made.add(q)
                print(q)


def finish(partial, out, expected, spec, t0):
    with open(os.path.join(partial, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, ensure_ascii=False)
    with open(os.path.join(partial, "spec.txt"), "w") as f:
        f.write(spec + "\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(partial, out)
    log(f"{out}: {expected['audio_files']} audio files in {time.monotonic() - t0:.1f} s")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="kind", required=True)
    for kind in ("library", "wavs", "search"):
        s = sub.add_parser(kind)
        s.add_argument("--out", required=True)
        s.add_argument("--size", type=int, required=True)
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
        s.add_argument("--spec", default="")
    s = sub.add_parser("queries")
    s.add_argument("--from", dest="source", required=True)
    s.add_argument("--count", type=int, default=100)
    s.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if args.kind == "queries":
        return queries(args)
    if args.size < 20:
        p.error("--size must be at least 20")
    {"library": library, "wavs": wavs, "search": search}[args.kind](args)


if __name__ == "__main__":
    main()
