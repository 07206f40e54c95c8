"""The Subsonic API, differential: the same requests to crated and to Debian's supysonic 0.7.2 (the reference server,
/work/shared/reference/toolchain.md), both reading the same music folder (crated imports it by reference), both with
the same account, asked over GET with the password in clear (`p=`, the only way supysonic signs in) and `f=json`.

The answers are compared field by field once each server's ids are mapped to what they name (artists and albums by
name, songs by album and title, playlists by name). The differences allowed are listed in ALLOWED below, each with its
reason; Docs/SUBSONIC.md ("Compared with supysonic") repeats the table. Anything else that differs fails. Every field
of either server is also checked against the type the OpenSubsonic spec gives it (SPEC_TYPES): supysonic's known
mistakes are in ALLOWED, Crate has none allowed.

supysonic comes from Debian (`scripts/install-deps.sh test` installs `supysonic` and `python3-waitress`); without it the
tests are skipped, saying why."""
import datetime
import json
import os
import shutil
import subprocess
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from crate_harness import ROOT, Crate, free_port, make_cover, make_track, stop_process, wait_until

USER, PASSWORD = "alice", "alice's password"
CLIENT = "crate-differential"

# The library: (folder, ALBUMARTIST tag or None, album, date, genre, suffix, cover colour or None, songs), each song
# (disc or None, track, artist, title). Durations are whole seconds (3 s + the song's place in the library), so
# that supysonic (which truncates) and Crate (which rounds) give the same numbers.
ALBUMS = [
    ("Band/Early Days", "Band", "Early Days", "1998", "Rock", "flac", "orange",
     [(None, 1, "Band", "Morning Train"), (None, 2, "Band", "Paper Boats")]),
    ("Band/Record", "Band", "Record", "2001", "Rock", "flac", "red",
     [(None, 1, "Band", "Song One"), (None, 2, "Band", "Song Two"), (None, 3, "Band", "Song Three")]),
    ("Other/Tape", None, "Tape", "1999", "Jazz", "mp3", None,
     [(None, 1, "Other", "Side A"), (None, 2, "Other", "Side B")]),
    ("Singer/Double", "Singer", "Double Album", "2010", "Pop", "flac", "green",
     [(1, 1, "Singer", "First Light"), (1, 2, "Singer", "Second Wind"), (2, 1, "Singer", "Third Eye"),
      (2, 2, "Singer", "Fourth Wall")]),
    ("Quiet/Hush", "The Quiet Ones", "Hush", "2015", "Folk", "mp3", "blue",
     [(None, 1, "The Quiet Ones", "Whisper Light"), (None, 2, "The Quiet Ones", "Lullaby")]),
    ("VA/Mix", "Various Artists", "Mix", "2005", "Electronic", "ogg", None,
     [(None, 1, "Alpha", "Rock & Roll"), (None, 2, "Beta", "Café Night")]),
]
SONGS = sum(len(songs) for *_, songs in ALBUMS)
PLAYLIST = ("Road Trip", [("Double Album", "Third Eye"), ("Record", "Song One"), ("Tape", "Side B")])

# What may differ, and why: (where, field, rule, why). `where` is the kind of object (artist, album, song, playlist,
# musicFolder, response) or an endpoint. Rules:
#   id             each server's own ids: compared by what they name, not by value
#   cover          each server's own picture ids: only whether there is one is compared (the pictures themselves
#                  are compared in test_cover_art)
#   date           each server's own time (import, scan or star time): both send it or neither, as ISO 8601
#   crate_only     crated sends it, supysonic does not
#   supysonic_only supysonic sends it, crated does not
#   other words    a rule of its own, in compare_field
ALLOWED = [
    ("response", "version", "api", "the API version each speaks: supysonic 1.10.2, Crate 1.16.1"),
    ("response", "type, serverVersion, openSubsonic", "crate_only", "OpenSubsonic's envelope fields"),
    ("response", "empty lists", "empty", "supysonic leaves an empty list out, Crate sends []; both mean none"),
    ("musicFolder", "id", "folder_id", "supysonic sends \"1\", a string; the spec says int and Crate sends 1"),
    ("artist", "id, albumId, artistId (everywhere)", "id", "each server's own ids (Crate's ar-/al-/tr-/pl-, supysonic's UUIDs)"),
    ("artist, album, song", "coverArt", "cover", "each server's own picture ids"),
    ("artist", "coverArt", "crate_only", "Crate names a picture for every artist (its first album's); supysonic none"),
    ("artist", "sortName, userRating", "crate_only", "OpenSubsonic fields; supysonic 0.7.2 has no artist ratings"),
    ("artists", "artists with albumCount 0", "track_artists",
     "supysonic also lists everyone who is only a song's artist (a compilation's); Crate's artists are album artists"),
    ("album, song, playlist", "created, starred, changed, played", "date",
     "when each server took the file in (Crate: import time; supysonic: the file's mtime) or was starred"),
    ("album, song", "playCount, played", "crate_only",
     "supysonic never sends play counts (it counts in its database, on stream)"),
    ("album", "genres, artists, displayArtist, sortName, isCompilation, userRating", "crate_only",
     "OpenSubsonic fields supysonic 0.7.2 does not have"),
    ("song", "bitDepth, samplingRate, channelCount, mediaType, sortName, genres, displayArtist, displayAlbumArtist, "
     "artists, albumArtists, userRating", "crate_only", "OpenSubsonic fields supysonic 0.7.2 does not have"),
    ("song", "parent", "parent", "supysonic's is its folder's id (folder browsing); Crate's is the song's album"),
    ("song", "path", "path", "supysonic sends the path in the music folder; Crate a tidy "
     "Album Artist/Album/NN - Title.suffix (Docs/SUBSONIC.md); the suffix must agree"),
    ("song", "bitRate", "bitrate", "supysonic sends bit/s as its tag reader (mediafile) reports it, the nominal rate for "
     "Vorbis; the spec and Crate kbit/s, Crate's the file's average (size × 8 / duration, tags and pictures "
     "included). For MP3 (constant 128 kbit/s) Crate's must be within 3 % of supysonic's ÷ 1000"),
    ("song", "discNumber", "disc", "supysonic says 1 for a file without a disc number; Crate leaves it out"),
    ("song", "artistId", "track_artist",
     "supysonic's artists include a compilation song's own artist; Crate's are album artists, so such a song has none"),
    ("playlist", "changed, readonly, coverArt", "crate_only",
     "supysonic 0.7.2 leaves out `changed` (which the spec requires) and has no `readonly` or playlist covers"),
    ("getAlbumList2", "alphabeticalByArtist", "articles", "supysonic sorts by the artist's name as written (The Quiet "
     "Ones under T); Crate without its article (under Q, as both index it in getArtists): supysonic's list sorted so "
     "must be Crate's"),
    ("getAlbumList2", "frequent", "prefix", "supysonic lists every album by average plays, unplayed ones after; "
     "Crate only the played ones: Crate's list must begin supysonic's"),
    ("getAlbumList2", "highest", "unsupported", "supysonic 0.7.2 does not know the type (error 0); Crate answers"),
    ("getAlbumList2", "random, starred; getStarred2; search3", "unordered", "each in its own order: compared as sets"),
    ("search3", "hits", "search", "supysonic matches text anywhere in a name or title (`ight` finds Light, `&` finds "
     "Rock & Roll); Crate matches words from their start, also in the artist and album of a hit, folding case and "
     "accents: a hit only supysonic finds must not match from a word start, one only Crate finds must"),
    ("search3", "query \"\"", "everything", "both answer an empty query with everything (supysonic's artists "
     "including the track artists above); `\"\"` (two quotes, as apps send it) finds nothing on supysonic"),
    ("scrobble", "plays", "plays", "supysonic counts a play when a song is streamed and not on scrobble (it only "
     "passes scrobbles to Last.fm); Crate counts scrobbles, as the spec says, and not streams"),
    ("stream", "headers", "headers", "supysonic adds Content-Disposition, ETag, Last-Modified; compared are the "
     "status, Content-Type, Content-Length, Content-Range and the bytes"),
    ("getCoverArt", "size", "scaled", "both scale to the size asked; Crate sends JPEG, supysonic the original's format"),
]

# The OpenSubsonic spec's types (content/en/docs/Responses/*.md), for every field either server sends.
SPEC_TYPES = {
    "artist": {"id": str, "name": str, "coverArt": str, "artistImageUrl": str, "albumCount": int, "starred": str,
               "musicBrainzId": str, "sortName": str, "userRating": int, "album": list},
    "album": {"id": str, "name": str, "artist": str, "artistId": str, "coverArt": str, "songCount": int,
              "duration": int, "playCount": int, "created": str, "starred": str, "year": int, "genre": str,
              "played": str, "userRating": int, "genres": list, "artists": list, "displayArtist": str,
              "sortName": str, "isCompilation": bool, "song": list},
    "song": {"id": str, "parent": str, "isDir": bool, "title": str, "album": str, "artist": str, "track": int,
             "year": int, "genre": str, "coverArt": str, "size": int, "contentType": str, "suffix": str,
             "duration": int, "bitRate": int, "bitDepth": int, "samplingRate": int, "channelCount": int,
             "path": str, "isVideo": bool, "userRating": int, "averageRating": (int, float), "playCount": int,
             "discNumber": int, "created": str, "starred": str, "albumId": str, "artistId": str, "type": str,
             "mediaType": str, "played": str, "sortName": str, "genres": list, "artists": list,
             "displayArtist": str, "albumArtists": list, "displayAlbumArtist": str},
    "playlist": {"id": str, "name": str, "comment": str, "owner": str, "public": bool, "songCount": int,
                 "duration": int, "created": str, "changed": str, "coverArt": str, "readonly": bool, "entry": list},
    "genre": {"value": str, "songCount": int, "albumCount": int},
    "musicFolder": {"id": int, "name": str},
}
# ALLOWED per kind of object, as compare() reads it: field -> rule (a field not here must be equal, its type too).
RULES = {
    "artist": {"id": "id", "coverArt": "crate_only", "sortName": "crate_only", "userRating": "crate_only",
               "starred": "date"},
    "album": {"id": "id", "artistId": "id", "coverArt": "cover", "created": "date", "starred": "date",
              "played": "crate_only", "playCount": "crate_only", "genres": "crate_only", "artists": "crate_only",
              "displayArtist": "crate_only", "sortName": "crate_only", "isCompilation": "crate_only",
              "userRating": "crate_only"},
    "song": {"id": "id", "albumId": "id", "artistId": "track_artist", "coverArt": "cover", "created": "date",
             "starred": "date", "played": "crate_only", "playCount": "crate_only", "parent": "parent",
             "path": "path", "bitRate": "bitrate", "discNumber": "disc",
             **{name: "crate_only" for name in ("bitDepth", "samplingRate", "channelCount", "mediaType", "sortName",
                                                "genres", "displayArtist", "displayAlbumArtist", "artists",
                                                "albumArtists", "userRating")}},
    "playlist": {"id": "id", "created": "date", "changed": "crate_only", "readonly": "crate_only",
                 "coverArt": "crate_only"},
    "genre": {},
    "musicFolder": {"id": "folder_id"},
}
# Nested lists: (kind, field) -> the kind of their items.
NESTED = {("artist", "album"): "album", ("album", "song"): "song", ("playlist", "entry"): "song"}


# ---- The two servers ---------------------------------------------------------------------------------------------

@dataclass
class Server:
    name: str
    port: int
    # id -> what it names ("artist Band", "album Record", "song Record/Song One", "playlist Road Trip") and back.
    labels: dict = field(default_factory=dict)
    ids: dict = field(default_factory=dict)

    def query(self, endpoint, params=(), json_format=True):
        base = [("u", USER), ("p", PASSWORD), ("v", "1.10.2"), ("c", CLIENT)]
        return f"/rest/{endpoint}?" + urllib.parse.urlencode(base + ([("f", "json")] if json_format else []) + list(params))

    def raw(self, endpoint, params=(), headers=None):
        """GET without f=json (media): status, headers and body."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}" + self.query(endpoint, params, json_format=False),
                                         headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def call(self, endpoint, *params):
        """The `subsonic-response` object of a JSON answer (errors included)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}" + self.query(endpoint, params), timeout=60) as answer:
            assert answer.headers["Content-Type"].startswith("application/json"), (self.name, endpoint, answer.headers)
            return json.loads(answer.read())["subsonic-response"]

    def ok(self, endpoint, *params):
        response = self.call(endpoint, *params)
        assert response["status"] == "ok", f"{self.name} {endpoint} {params}: {response}"
        return response

    def id(self, label):
        return self.ids[label]

    def label(self, value):
        return self.labels.get(value, f"unknown id {value!r}")

    def learn(self, label, value):
        self.labels[value] = label
        self.ids.setdefault(label, value)


@dataclass
class Pair:
    crate: Server
    sup: Server
    music: Path
    crated: Crate
    covers: dict   # album name -> the picture file embedded in its songs

    @property
    def both(self):
        return (self.crate, self.sup)


def supysonic_missing():
    return not (shutil.which("supysonic-server") and shutil.which("supysonic-cli") and
                subprocess.run(["/usr/bin/python3", "-c", "import waitress, supysonic"], capture_output=True).returncode == 0)


def ensure_supysonic():
    """supysonic from Debian, installed through scripts/install-deps.sh when missing (needs root); else skip."""
    if not supysonic_missing():
        return
    done = subprocess.run([str(ROOT / "scripts" / "install-deps.sh"), "test"], capture_output=True, text=True, timeout=1800)
    if supysonic_missing():
        pytest.skip("supysonic (Debian: supysonic, python3-waitress) is not installed and scripts/install-deps.sh test "
                    f"could not install it: {(done.stderr or done.stdout).strip()[-300:]}")


def make_library(root: Path):
    """The music folder of ALBUMS; each album's files get a modification time an hour after the previous album's
    (supysonic's `created` is the file's mtime, Crate's the import time: importing in the same order makes both
    servers' `newest` lists the same). Returns the music folder and the cover picture of each album."""
    music = root / "music"
    covers = {}
    start = time.time() - 24 * 3600
    position = 0
    for index, (folder, album_artist, album, date, genre, suffix, colour, songs) in enumerate(ALBUMS):
        cover = None
        if colour:
            cover = make_cover(root / "art" / f"{album}.{'png' if index % 2 else 'jpg'}", colour=colour, size=96)
            covers[album] = cover
        for disc, track, artist, title in songs:
            position += 1
            tags = {"title": title, "artist": artist, "album": album}
            if album_artist:
                tags["album_artist"] = album_artist
            tags["track"] = f"{track}/{len(songs)}" if album == "Record" else str(track)
            if disc:
                tags["disc"] = f"{disc}/2"
            tags.update({"date": date, "genre": genre})
            name = f"{disc}-{track:02d}" if disc else f"{track:02d}"
            path = make_track(music / folder / f"{name}.{suffix}", tags, seconds=3 + position % 4,
                              frequency=200 + 30 * position, cover=cover)
            os.utime(path, (start + index * 3600, start + index * 3600))
    return music, covers


def start_supysonic(folder: Path, music: Path) -> (subprocess.Popen, int):
    """supysonic in `folder` (its configuration, database and caches; it reads supysonic.conf from the working
    folder), the account, the music folder scanned, and its server (waitress) on a free port."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "supysonic.conf").write_text("\n".join([
        "[base]", f"database_uri = sqlite:///{folder}/supysonic.db",
        "[webapp]", f"cache_dir = {folder}/cache", "mount_webui = off", "index_ignored_prefixes = The A An",
        "[daemon]", f"socket = {folder}/supysonic.sock", "run_watcher = no", ""]))
    env = dict(os.environ, HOME=str(folder))

    def cli(*args):
        done = subprocess.run(["supysonic-cli", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"supysonic-cli {' '.join(args)}: {done.stdout} {done.stderr}"
        return done.stdout

    cli("user", "add", USER, "-p", PASSWORD)
    cli("user", "setroles", "-A", USER)
    cli("folder", "add", "Music", str(music))
    scanned = cli("folder", "scan", "Music")
    assert f"{SONGS} tracks" in scanned, scanned
    port = free_port()
    log = open(folder / "server.log", "ab")
    process = subprocess.Popen(["supysonic-server", "-S", "waitress", "-h", "127.0.0.1", "-p", str(port)], cwd=folder,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    return process, port


def answers(server, process):
    if process.poll() is not None:
        raise AssertionError(f"{server.name} exited")
    try:
        return server.call("ping")["status"] == "ok"
    except OSError:
        return False


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    ensure_supysonic()
    root = tmp_path_factory.mktemp("subsonic-differential")
    music, covers = make_library(root)

    crate = Crate(root / "home")
    crate.home.mkdir(parents=True, exist_ok=True)
    for folder, *_ in ALBUMS:   # one album at a time, in the order of their files' times
        crate.cli("import", "--mode", "reference", "--quiet", str(music / folder))
    crate.cli("users", "add", USER, "--admin", "--password-stdin", input=PASSWORD + "\n")
    paths = {(album, title): music / folder / f"{f'{disc}-' if disc else ''}{track:02d}.{suffix}"
             for folder, _, album, _, _, suffix, _, songs in ALBUMS for disc, track, _, title in songs}
    m3u = root / "road.m3u"
    m3u.write_text("#EXTM3U\n" + "".join(f"{paths[key]}\n" for key in PLAYLIST[1]))
    crate.cli("playlist", "import", str(m3u), "--name", PLAYLIST[0])
    crate_port = free_port()
    crate.start(extra={"CRATE_SUBSONIC_ADDRESS": f"127.0.0.1:{crate_port}"})
    sup_process = None
    try:
        sup_process, sup_port = start_supysonic(root / "supysonic", music)
        servers = Pair(Server("crated", crate_port), Server("supysonic", sup_port), music, crate, covers)
        wait_until("crated's Subsonic API", lambda: answers(servers.crate, crate.process), seconds=60)
        wait_until("supysonic's server", lambda: answers(servers.sup, sup_process), seconds=60)
        learn_ids(servers)
        # The same playlist on supysonic, public as the household's playlists are on Crate.
        songs = [("songId", servers.sup.id(f"song {album}/{title}")) for album, title in PLAYLIST[1]]
        servers.sup.ok("createPlaylist", ("name", PLAYLIST[0]), *songs)
        for server in servers.both:
            for playlist in server.ok("getPlaylists")["playlists"].get("playlist", []):
                server.learn(f"playlist {playlist['name']}", playlist["id"])
        # Public on both (supysonic's are private when made; Crate's playlists were the household's, public, before
        # updatePlaylist came).
        for server in servers.both:
            made = server.call("updatePlaylist", ("playlistId", server.id(f"playlist {PLAYLIST[0]}")), ("public", "true"))
            if made["status"] != "ok":
                assert server.name == "crated", made
                listed = server.ok("getPlaylists")["playlists"]["playlist"]
                assert [p["public"] for p in listed] == [True], (made, listed)
        yield servers
    finally:
        crate.stop()
        stop_process(sup_process)


def learn_ids(pair):
    """Each server's ids of every artist, album and song, by what they name."""
    for server in pair.both:
        for index in server.ok("getArtists")["artists"]["index"]:
            for artist in index["artist"]:
                server.learn(f"artist {artist['name']}", artist["id"])
        albums = server.ok("getAlbumList2", ("type", "alphabeticalByName"), ("size", "500"))["albumList2"]["album"]
        assert len(albums) == len(ALBUMS), (server.name, albums)
        for album in albums:
            server.learn(f"album {album['name']}", album["id"])
            for song in server.ok("getAlbum", ("id", album["id"]))["album"]["song"]:
                server.learn(f"song {album['name']}/{song['title']}", song["id"])
        assert sum(label.startswith("song ") for label in server.ids) == SONGS, server.name


# ---- Comparing -------------------------------------------------------------------------------------------------

MISSING = object()


def iso_date(value):
    return isinstance(value, str) and datetime.datetime.fromisoformat(value.replace("Z", "+00:00")) is not None


def type_problems(kind, obj, server, where):
    """Fields of `obj` whose JSON type is not the spec's (supysonic's folder id excepted, ALLOWED)."""
    problems = []
    for key, value in obj.items():
        expected = SPEC_TYPES.get(kind, {}).get(key)
        if expected is None:
            if server == "crated":
                problems.append(f"{where}: crated sends {key}, which the spec does not have for {kind}")
            continue
        if kind == "musicFolder" and key == "id" and server == "supysonic":
            continue
        if isinstance(value, bool) and expected in (int, (int, float)):
            problems.append(f"{where}: {server}'s {key} is a boolean ({value!r}), the spec says number")
        elif not isinstance(value, expected):
            problems.append(f"{where}: {server}'s {key} is {type(value).__name__} ({value!r}), the spec says "
                            f"{getattr(expected, '__name__', expected)}")
    return problems


def compare(pair, kind, crate, sup, where):
    """Every difference between one object from crated and the same from supysonic that ALLOWED does not excuse."""
    problems = type_problems(kind, crate, "crated", where) + type_problems(kind, sup, "supysonic", where)
    rules = RULES[kind]
    for key in sorted(set(crate) | set(sup)):
        c, s = crate.get(key, MISSING), sup.get(key, MISSING)
        if (kind, key) in NESTED:
            problems += compare_lists(pair, NESTED[(kind, key)], c if c is not MISSING else [],
                                      s if s is not MISSING else [], f"{where}.{key}")
            continue
        problems += compare_field(pair, kind, key, rules.get(key, "same"), c, s, crate, sup, where)
    return problems


def compare_field(pair, kind, key, rule, c, s, crate, sup, where):
    def differ(why=""):
        return [f"{where}: {key}: crated {shown(c)}, supysonic {shown(s)}{why}"]

    if rule == "crate_only" and s is MISSING:
        return []
    if rule == "crate_only" or rule == "same":
        return [] if c == s and type(c) is type(s) else differ()
    if rule == "id":
        if c is MISSING or s is MISSING:
            return [] if c is s else differ()
        return [] if pair.crate.label(c) == pair.sup.label(s) else differ(f" ({pair.crate.label(c)} / {pair.sup.label(s)})")
    if rule == "cover":
        return [] if (c is MISSING) == (s is MISSING) else differ(" (one has a picture, the other not)")
    if rule == "date":
        if (c is MISSING) != (s is MISSING):
            return differ(" (one says, the other not)")
        return [] if c is MISSING or (iso_date(c) and iso_date(s)) else differ(" (not ISO 8601)")
    if rule == "folder_id":
        return [] if type(c) is int and s == str(c) else differ()
    if rule == "parent":
        return [] if c == crate.get("albumId") and isinstance(s, str) and s else differ(" (Crate's must be the album)")
    if rule == "path":
        ok = isinstance(c, str) and isinstance(s, str) and c.rsplit(".", 1)[-1] == s.rsplit(".", 1)[-1] == crate.get("suffix")
        return [] if ok else differ()
    if rule == "bitrate":
        if not (type(c) is int and type(s) is int and c > 0 and s > 0):
            return differ()
        if crate.get("suffix") == "mp3" and abs(c - s / 1000) > 0.03 * s / 1000:
            return differ(" (MP3: more than 3 % apart)")
        return []
    if rule == "disc":
        return [] if c == s or (c is MISSING and s == 1) else differ()
    if rule == "track_artist":
        if c is MISSING and s is not MISSING:
            # Allowed only for a song whose artist is not one of Crate's (album) artists.
            return [] if f"artist {crate.get('artist')}" not in pair.crate.ids else differ()
        return compare_field(pair, kind, key, "id", c, s, crate, sup, where)
    raise AssertionError(f"unknown rule {rule}")


def shown(value):
    return "(none)" if value is MISSING else repr(value)


def compare_lists(pair, kind, crate, sup, where, ordered=True):
    """Two lists of objects of `kind`, matched by what their ids name; in the same order unless `ordered` is off."""
    c_labels = [pair.crate.label(item["id"]) for item in crate]
    s_labels = [pair.sup.label(item["id"]) for item in sup]
    if (c_labels if ordered else sorted(c_labels)) != (s_labels if ordered else sorted(s_labels)):
        return [f"{where}: crated {c_labels}\n    supysonic {s_labels}"]
    by_label = {pair.sup.label(item["id"]): item for item in sup}
    problems = []
    for item in crate:
        label = pair.crate.label(item["id"])
        problems += compare(pair, kind, item, by_label[label], f"{where}[{label}]")
    return problems


def assert_same(problems):
    assert not problems, "crated and supysonic differ:\n  " + "\n  ".join(problems)


def envelope_problems(crate, sup):
    """The envelope's fields: `version` each its own (ALLOWED), Crate's OpenSubsonic fields."""
    problems = []
    if crate["status"] != sup["status"]:
        problems.append(f"status: crated {crate['status']}, supysonic {sup['status']}")
    if (crate["version"], sup["version"]) != ("1.16.1", "1.10.2"):
        problems.append(f"version: crated {crate['version']}, supysonic {sup['version']}")
    if crate.get("type") != "crate" or crate.get("openSubsonic") is not True or not isinstance(crate.get("serverVersion"), str):
        problems.append(f"crated's OpenSubsonic envelope fields: {crate}")
    return problems


def body(response, name):
    """The named part of an answer; a list or object missing from supysonic's is empty (ALLOWED: empty lists)."""
    return response.get(name, {})


def items(container, name):
    return container.get(name, [])


# ---- The tests ---------------------------------------------------------------------------------------------------

def test_ping_and_license(pair):
    for endpoint in ("ping", "getLicense"):
        crate, sup = pair.crate.call(endpoint), pair.sup.call(endpoint)
        assert_same(envelope_problems(crate, sup))
    assert pair.crate.ok("getLicense")["license"] == pair.sup.ok("getLicense")["license"] == {"valid": True}
    # A wrong password: error 40 from both.
    for server in pair.both:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/rest/ping?u={USER}&p=wrong&v=1.10.2&c=t&f=json",
                                    timeout=30) as answer:
            error = json.loads(answer.read())["subsonic-response"]
        assert error["status"] == "failed" and error["error"]["code"] == 40, (server.name, error)


def test_music_folders(pair):
    crate, sup = pair.crate.ok("getMusicFolders"), pair.sup.ok("getMusicFolders")
    assert_same(envelope_problems(crate, sup) +
                [p for c, s in zip(crate["musicFolders"]["musicFolder"], sup["musicFolders"]["musicFolder"])
                 for p in compare(pair, "musicFolder", c, s, "musicFolder")])
    assert len(crate["musicFolders"]["musicFolder"]) == len(sup["musicFolders"]["musicFolder"]) == 1


def test_artists(pair):
    crate, sup = pair.crate.ok("getArtists")["artists"], pair.sup.ok("getArtists")["artists"]
    problems = []
    if crate["ignoredArticles"] != sup["ignoredArticles"]:
        problems.append(f"ignoredArticles: crated {crate['ignoredArticles']!r}, supysonic {sup['ignoredArticles']!r}")
    # supysonic's song-only artists (ALLOWED: track_artists): exactly the compilation's artists.
    track_only = sorted(a["name"] for index in sup["index"] for a in index["artist"] if a["albumCount"] == 0)
    assert track_only == ["Alpha", "Beta"], track_only
    sup_index = [{"name": index["name"], "artist": [a for a in index["artist"] if a["albumCount"] > 0]}
                 for index in sup["index"]]
    sup_index = [index for index in sup_index if index["artist"]]
    if [i["name"] for i in crate["index"]] != [i["name"] for i in sup_index]:
        problems.append(f"index letters: crated {[i['name'] for i in crate['index']]}, supysonic {[i['name'] for i in sup_index]}")
    else:
        for c, s in zip(crate["index"], sup_index):
            problems += compare_lists(pair, "artist", c["artist"], s["artist"], f"index {c['name']}")
    # "The Quiet Ones" under Q on both (The is ignored).
    assert any(index["name"] == "Q" for index in crate["index"])
    assert_same(problems)


@pytest.mark.parametrize("artist", ["Band", "Other", "Singer", "The Quiet Ones", "Various Artists"])
def test_artist(pair, artist):
    crate = pair.crate.ok("getArtist", ("id", pair.crate.id(f"artist {artist}")))
    sup = pair.sup.ok("getArtist", ("id", pair.sup.id(f"artist {artist}")))
    assert_same(envelope_problems(crate, sup) + compare(pair, "artist", crate["artist"], sup["artist"], f"artist {artist}"))


@pytest.mark.parametrize("album", [album for _, _, album, *_ in ALBUMS])
def test_album(pair, album):
    crate = pair.crate.ok("getAlbum", ("id", pair.crate.id(f"album {album}")))
    sup = pair.sup.ok("getAlbum", ("id", pair.sup.id(f"album {album}")))
    assert_same(envelope_problems(crate, sup) + compare(pair, "album", crate["album"], sup["album"], f"album {album}"))


def test_song(pair):
    problems = []
    for label in sorted(label for label in pair.crate.ids if label.startswith("song ")):
        crate = pair.crate.ok("getSong", ("id", pair.crate.id(label)))
        sup = pair.sup.ok("getSong", ("id", pair.sup.id(label)))
        problems += envelope_problems(crate, sup) + compare(pair, "song", crate["song"], sup["song"], label)
    assert_same(problems)


ALBUM_LISTS = [
    [("type", "alphabeticalByName")],
    [("type", "alphabeticalByName"), ("size", "2"), ("offset", "2")],
    [("type", "alphabeticalByArtist")],
    [("type", "newest")],
    [("type", "newest"), ("size", "3")],
    [("type", "byYear"), ("fromYear", "1999"), ("toYear", "2010")],
    [("type", "byYear"), ("fromYear", "2010"), ("toYear", "1999")],
    [("type", "byGenre"), ("genre", "Rock")],
    [("type", "byGenre"), ("genre", "Folk")],
    [("type", "recent")],
    [("type", "starred")],
]


@pytest.mark.parametrize("params", ALBUM_LISTS, ids=lambda p: " ".join(f"{k}={v}" for k, v in p))
def test_album_list(pair, params):
    crate, sup = pair.crate.ok("getAlbumList2", *params), pair.sup.ok("getAlbumList2", *params)
    problems = envelope_problems(crate, sup)
    sup_albums = items(body(sup, "albumList2"), "album")
    if ("type", "alphabeticalByArtist") in params:
        # ALLOWED (articles): supysonic sorts by the name as written; in Crate's order "The Quiet Ones" is under Q.
        sup_albums = sorted(sup_albums, key=lambda a: (without_article(a["artist"]).casefold(), a["name"].casefold()))
    problems += compare_lists(pair, "album", items(body(crate, "albumList2"), "album"), sup_albums, "albumList2")
    assert_same(problems)


def without_article(name):
    first, _, rest = name.partition(" ")
    return rest if rest and first.casefold() in ("the", "a", "an") else name


def test_random_albums_and_songs(pair):
    """Random lists: how many, and (when all are asked for) that they are all there once."""
    for server in pair.both:
        albums = server.ok("getAlbumList2", ("type", "random"), ("size", "3"))["albumList2"]["album"]
        assert len(albums) == 3 and len({a["id"] for a in albums}) == 3, (server.name, albums)
        every = server.ok("getAlbumList2", ("type", "random"), ("size", "50"))["albumList2"]["album"]
        assert sorted(server.label(a["id"]) for a in every) == sorted(f"album {a}" for _, _, a, *_ in ALBUMS)
        songs = server.ok("getRandomSongs", ("size", "5"))["randomSongs"]["song"]
        assert len(songs) == 5 and len({s["id"] for s in songs}) == 5, (server.name, songs)
        every = server.ok("getRandomSongs", ("size", "100"))["randomSongs"]["song"]
        assert len(every) == SONGS and len({s["id"] for s in every}) == SONGS, server.name
        jazz = server.ok("getRandomSongs", ("size", "10"), ("genre", "Jazz"))["randomSongs"]["song"]
        assert sorted(s["title"] for s in jazz) == ["Side A", "Side B"], server.name
    # A random song from crated is the same as supysonic's getSong of it.
    crate_song = pair.crate.ok("getRandomSongs", ("size", "1"))["randomSongs"]["song"][0]
    sup_song = pair.sup.ok("getSong", ("id", pair.sup.id(pair.crate.label(crate_song["id"]))))["song"]
    assert_same(compare(pair, "song", crate_song, sup_song, "random song"))


def test_genres(pair):
    crate, sup = pair.crate.ok("getGenres")["genres"]["genre"], pair.sup.ok("getGenres")["genres"]["genre"]
    problems = []
    if sorted(g["value"] for g in crate) != sorted(g["value"] for g in sup):
        problems.append(f"genres: crated {[g['value'] for g in crate]}, supysonic {[g['value'] for g in sup]}")
    by_value = {g["value"]: g for g in sup}
    for genre in crate:
        if genre["value"] in by_value:
            problems += compare(pair, "genre", genre, by_value[genre["value"]], f"genre {genre['value']}")
    assert_same(problems)


def fold(text):
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(ch))


def words(text):
    return "".join(ch if ch.isalnum() else " " for ch in fold(text)).split()


def word_start_match(query, *texts):
    """Every word of the query begins a word of one of the texts (case and accents folded)."""
    found = [w for text in texts if text for w in words(text)]
    wanted = words(query)
    return bool(wanted) and all(any(word.startswith(part) for word in found) for part in wanted)


SEARCHES = ["song", "light", "double", "side", "caf", "Café", "band", "second wind", "various", "quiet", "hush",
            "rock", "Song T", "SIDE", "ight", "ape", "&", "nothing here"]


@pytest.mark.parametrize("query", SEARCHES)
def test_search3(pair, query):
    params = [("query", query), ("artistCount", "50"), ("albumCount", "50"), ("songCount", "50")]
    crate, sup = pair.crate.ok("search3", *params), pair.sup.ok("search3", *params)
    problems = envelope_problems(crate, sup)
    for name, kind in (("artist", "artist"), ("album", "album"), ("song", "song")):
        c_items = {pair.crate.label(i["id"]): i for i in items(body(crate, "searchResult3"), name)}
        s_items = {pair.sup.label(i["id"]): i for i in items(body(sup, "searchResult3"), name)}
        for label in sorted(set(s_items) - set(c_items)):
            hit = s_items[label]
            if word_start_match(query, hit.get("name") or hit.get("title")):
                problems.append(f"{name}: supysonic finds {label} (a word begins with {query!r}), crated does not")
        for label in sorted(set(c_items) - set(s_items)):
            hit = c_items[label]
            if not word_start_match(query, hit.get("name") or hit.get("title"), hit.get("artist"), hit.get("album")):
                problems.append(f"{name}: crated finds {label}, which does not match {query!r} from a word start")
        for label in sorted(set(c_items) & set(s_items)):
            problems += compare(pair, kind, c_items[label], s_items[label], f"{name} {label}")
    assert_same(problems)


def test_search3_everything_page_by_page(pair):
    """An empty query is everything on both (supysonic's artists with its song-only ones), paged with offsets."""
    found = {}
    for server in pair.both:
        seen = {"artist": [], "album": [], "song": []}
        for name in seen:
            offset = 0
            while True:
                counts = [(f"{other}Count", "4" if other == name else "0") for other in seen]
                page = server.ok("search3", ("query", ""), *counts, (f"{name}Offset", str(offset)))
                hits = items(body(page, "searchResult3"), name)
                seen[name] += [server.label(hit["id"]) for hit in hits]
                if len(hits) < 4:
                    break
                offset += 4
        for name, labels in seen.items():
            assert len(labels) == len(set(labels)), (server.name, name, labels)
        found[server.name] = {name: sorted(labels) for name, labels in seen.items()}
    crate, sup = found["crated"], found["supysonic"]
    assert crate["album"] == sup["album"] and len(crate["album"]) == len(ALBUMS)
    assert crate["song"] == sup["song"] and len(crate["song"]) == SONGS
    assert sorted(crate["artist"] + ["artist Alpha", "artist Beta"]) == sup["artist"]
    # `""` as apps send it: everything on Crate, nothing on supysonic (ALLOWED: everything).
    assert len(pair.crate.ok("search3", ("query", '""'), ("songCount", "50"))["searchResult3"]["song"]) == SONGS
    assert not items(body(pair.sup.ok("search3", ("query", '""')), "searchResult3"), "song")


def test_star_and_starred(pair):
    for server in pair.both:
        server.ok("star", ("id", server.id("song Record/Song One")), ("albumId", server.id("album Double Album")),
                  ("artistId", server.id("artist Singer")))
    crate, sup = pair.crate.ok("getStarred2")["starred2"], pair.sup.ok("getStarred2")["starred2"]
    problems = []
    for name in ("artist", "album", "song"):
        problems += compare_lists(pair, name, items(crate, name), items(sup, name), f"starred2.{name}", ordered=False)
    assert [pair.crate.label(s["id"]) for s in items(crate, "song")] == ["song Record/Song One"]
    assert [pair.crate.label(a["id"]) for a in items(crate, "album")] == ["album Double Album"]
    # The star shows on the song and the album wherever they appear.
    crate_song = pair.crate.ok("getSong", ("id", pair.crate.id("song Record/Song One")))["song"]
    sup_song = pair.sup.ok("getSong", ("id", pair.sup.id("song Record/Song One")))["song"]
    problems += compare(pair, "song", crate_song, sup_song, "starred song")
    assert "starred" in crate_song and "starred" in sup_song
    for params in ([("type", "starred")],):
        problems += compare_lists(pair, "album", pair.crate.ok("getAlbumList2", *params)["albumList2"]["album"],
                                  items(pair.sup.ok("getAlbumList2", *params)["albumList2"], "album"), "starred albums",
                                  ordered=False)
    # Unstarring the artist: gone on both.
    for server in pair.both:
        server.ok("unstar", ("artistId", server.id("artist Singer")))
        assert not items(server.ok("getStarred2")["starred2"], "artist"), server.name
    assert_same(problems)


def test_scrobble_and_plays(pair):
    """A "now playing" notice, then a play, of one song on both; supysonic counts the play when the song is streamed
    (ALLOWED: plays), so it is streamed there too. Then both list its album as the frequent and recent one."""
    label = "song Tape/Side B"
    for server in pair.both:
        server.ok("scrobble", ("id", server.id(label)), ("submission", "false"))
    assert pair.crate.ok("getSong", ("id", pair.crate.id(label)))["song"]["playCount"] == 0
    for server in pair.both:
        server.ok("scrobble", ("id", server.id(label)), ("time", str(int(time.time() * 1000))))
    crate_song = pair.crate.ok("getSong", ("id", pair.crate.id(label)))["song"]
    assert crate_song["playCount"] == 1 and iso_date(crate_song["played"])
    assert pair.crate.ok("getAlbum", ("id", pair.crate.id("album Tape")))["album"]["playCount"] == 1
    # Stream on both: supysonic counts it, Crate does not (the spec: apps scrobble).
    for server in pair.both:
        status, _, _ = server.raw("stream", [("id", server.id(label))])
        assert status == 200
    assert pair.crate.ok("getSong", ("id", pair.crate.id(label)))["song"]["playCount"] == 1
    frequent = [pair.crate.label(a["id"]) for a in pair.crate.ok("getAlbumList2", ("type", "frequent"))["albumList2"]["album"]]
    sup_frequent = [pair.sup.label(a["id"]) for a in pair.sup.ok("getAlbumList2", ("type", "frequent"))["albumList2"]["album"]]
    assert frequent == ["album Tape"] and sup_frequent[:len(frequent)] == frequent, (frequent, sup_frequent)
    crate = pair.crate.ok("getAlbumList2", ("type", "recent"))["albumList2"]["album"]
    sup = pair.sup.ok("getAlbumList2", ("type", "recent"))["albumList2"]["album"]
    assert_same(compare_lists(pair, "album", crate, sup, "recent"))
    assert [pair.crate.label(a["id"]) for a in crate] == ["album Tape"]


def test_highest_is_unknown_to_supysonic(pair):
    assert pair.crate.ok("getAlbumList2", ("type", "highest"))["albumList2"]["album"] == []
    answer = pair.sup.call("getAlbumList2", ("type", "highest"))
    assert answer["status"] == "failed" and answer["error"]["code"] == 0


def test_playlists(pair):
    crate, sup = pair.crate.ok("getPlaylists"), pair.sup.ok("getPlaylists")
    problems = envelope_problems(crate, sup)
    problems += compare_lists(pair, "playlist", crate["playlists"]["playlist"], sup["playlists"]["playlist"], "playlists")
    label = f"playlist {PLAYLIST[0]}"
    crate = pair.crate.ok("getPlaylist", ("id", pair.crate.id(label)))["playlist"]
    sup = pair.sup.ok("getPlaylist", ("id", pair.sup.id(label)))["playlist"]
    problems += compare(pair, "playlist", crate, sup, label)
    assert [e["title"] for e in crate["entry"]] == [title for _, title in PLAYLIST[1]]
    assert_same(problems)


@pytest.mark.parametrize("label", ["song Record/Song Two", "song Double Album/Fourth Wall", "song Tape/Side A",
                                   "song Hush/Lullaby", "song Mix/Café Night"])
def test_stream_sends_the_original_file(pair, label):
    album, title = label[5:].split("/")
    folder, suffix, disc, track = next((f, sfx, d, t) for f, _, a, _, _, sfx, _, songs in ALBUMS for d, t, _, ti in songs
                                       if a == album and ti == title)
    original = (pair.music / folder / f"{f'{disc}-' if disc else ''}{track:02d}.{suffix}").read_bytes()
    answers = {}
    for server in pair.both:
        status, headers, data = server.raw("stream", [("id", server.id(label))])
        assert status == 200 and data == original, (server.name, status, len(data), len(original))
        part = server.raw("stream", [("id", server.id(label))], headers={"Range": "bytes=100-1099"})
        assert part[0] == 206 and part[2] == original[100:1100], (server.name, part[0])
        answers[server.name] = (headers["Content-Type"], int(headers["Content-Length"]), part[1]["Content-Range"])
    assert answers["crated"] == answers["supysonic"] == (answers["crated"][0], len(original), f"bytes 100-1099/{len(original)}")


def image_size(data, folder: Path):
    path = folder / "picture"
    path.write_bytes(data)
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", str(path)],
                         capture_output=True, text=True, check=True).stdout.strip()
    return tuple(int(n) for n in out.split(","))


@pytest.mark.parametrize("album", [album for _, _, album, _, _, _, colour, _ in ALBUMS if colour])
def test_cover_art(pair, album, tmp_path):
    """The album's coverArt on both is the picture embedded in its songs, byte for byte; scaled, both are 32×32."""
    original = pair.covers[album].read_bytes()
    for server in pair.both:
        cover = server.ok("getAlbum", ("id", server.id(f"album {album}")))["album"]["coverArt"]
        status, headers, data = server.raw("getCoverArt", [("id", cover)])
        assert status == 200 and headers["Content-Type"].startswith("image/") and data == original, server.name
        status, headers, data = server.raw("getCoverArt", [("id", cover), ("size", "32")])
        assert status == 200 and image_size(data, tmp_path) == (32, 32), server.name


def test_every_artist_cover_art_resolves(pair):
    """Every coverArt id an artist carries resolves through getCoverArt (supysonic sends none for artists)."""
    failures = []
    for index in pair.crate.ok("getArtists")["artists"]["index"]:
        for artist in index["artist"]:
            if "coverArt" in artist:
                status, headers, data = pair.crate.raw("getCoverArt", [("id", artist["coverArt"])])
                if not headers["Content-Type"].startswith("image/"):
                    failures.append(f"{artist['name']}: coverArt {artist['coverArt']!r} answers {data[:200]!r}")
    assert not failures, "\n".join(failures)
