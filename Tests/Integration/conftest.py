"""Shared parts of the MPD client tests (issue 18): a generated music folder, a real crated with its MPD front end on
a free port, and Debian's own MPD on the same files for the differential test.

`CRATE_MPD_TEST_SERVER=mpd` runs the python-mpd2 and ncmpcpp tests against Debian's mpd instead of crated (the
Crate-only ones are skipped): a check of the tests themselves, that they expect what MPD does."""
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mpd import MPDClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from crate_harness import Crate, MPDDaemon, make_cover, make_track  # noqa: E402

SERVER_KIND = os.environ.get("CRATE_MPD_TEST_SERVER", "crated")
SECONDS = 60  # long enough that nothing ends while a test looks, however slow the machine

# The library: (album artist tag or None, album, date, genre or None, [(artist, title)], cover art?). Crate copies
# files to `Album Artist/Album/NN Title.flac`, and MPD reads that same folder, so both name the songs alike.
ALBUMS = [
    ("Band", "Record", "2001", "Rock", [("Band", "Song 1"), ("Band", "Song 2"), ("Band", "Song 3")], True),
    (None, "Tape", "1999-05-01", None, [("Other", "Side A"), ("Other", "Side B")], False),
    ("Various Artists", "Mix", "2010", "Jazz", [("Alpha", 'Café "Live"'), ("Beta", "Rock & Roll")], False),
]
SONGS = sum(len(tracks) for *_, tracks, _ in ALBUMS)
RECORD = ["Band/Record/01 Song 1.flac", "Band/Record/02 Song 2.flac", "Band/Record/03 Song 3.flac"]
TAPE = ["Other/Tape/01 Side A.flac", "Other/Tape/02 Side B.flac"]


@dataclass
class Music:
    folder: Path
    cover: Path
    songs: int = SONGS
    titles: list = field(default_factory=list)


@pytest.fixture(scope="session")
def music(tmp_path_factory):
    return make_music(tmp_path_factory.mktemp("music"))


def make_music(root: Path) -> Music:
    """The music folder: three albums of 60 s FLAC tracks; Record has a cover (a PNG of some tens of KiB, so it is
    sent in several chunks), embedded and as cover.png."""
    cover = make_cover(root / "art" / "cover.png", size=192, noise=True)
    folder = root / "music"
    titles = []
    for album_artist, album, date, genre, tracks, art in ALBUMS:
        where = folder / (album_artist or tracks[0][0]) / album
        for n, (artist, title) in enumerate(tracks, 1):
            tags = {"title": title, "artist": artist, "album": album}
            if album_artist:
                tags["album_artist"] = album_artist
            tags.update({"track": f"{n}/{len(tracks)}", "date": date})
            if genre:
                tags["genre"] = genre
            make_track(where / f"{n:02d}.flac", tags, seconds=SECONDS, frequency=220 * n + len(titles) * 7,
                       cover=cover if art else None)
            titles.append(title)
        if art:
            shutil.copy(cover, where / "cover.png")
    return Music(folder=folder, cover=cover, titles=titles)


def imported_home(tmp: Path, music: Music) -> Crate:
    """A crate home with the music imported (copied into its library folder)."""
    crate = Crate(tmp / "home")
    crate.home.mkdir(parents=True, exist_ok=True)
    crate.cli("import", "--quiet", str(music.folder))
    return crate


def library_folder(crate: Crate) -> Path:
    return crate.home / "data" / "library"


@dataclass
class Server:
    """An MPD protocol server under test: crated, or Debian's mpd on the same files."""
    kind: str
    port: int
    # Where a new file goes so that `update`/`rescan` finds it: crated's import folder, MPD's music directory.
    drop_folder: Path
    crate: Crate = None

    def client(self, timeout=30):
        c = MPDClient()
        c.timeout = timeout
        c.idletimeout = timeout
        c.connect("127.0.0.1", self.port)
        return c


@pytest.fixture
def server(music, tmp_path):
    crate = imported_home(tmp_path, music)
    if SERVER_KIND == "mpd":
        library = library_folder(crate)
        # MPD's albumart reads a cover file next to the songs; Crate keeps covers in its artwork store.
        shutil.copy(music.cover, library / "Band" / "Record" / "cover.png")
        daemon = MPDDaemon(tmp_path / "mpd", library)
        daemon.start(songs=music.songs)
        try:
            yield Server("mpd", daemon.port, library)
        finally:
            daemon.stop()
    else:
        crate.start(mpd=True)
        try:
            yield Server("crated", crate.mpd_port, crate.home / "data" / "import", crate)
        finally:
            crate.stop()


@pytest.fixture
def crated(server):
    """The server, when it is crated: tests of Crate's own mapping (favorites, playlists) are skipped against mpd."""
    if server.kind != "crated":
        pytest.skip("a Crate-only test")
    return server


@pytest.fixture
def client(server):
    c = server.client()
    try:
        yield c
    finally:
        try:
            c.disconnect()
        except Exception:
            pass
