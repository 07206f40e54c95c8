"""The library and accounts the Subsonic tests share (test_subsonic.py, test_subsonic_schema.py): Band/Record (3 songs,
a cover, genre Rock, 2001) and Other/Tape (2 songs, no cover, genre Jazz; its second song has LRC lyrics), alice (an
admin, the owner) and bob, imported and added through the CLI, and crated started with its Subsonic API on a free
port."""
from pathlib import Path

from crate_harness import Crate, free_port, make_cover, make_track

ALICE = ("alice", "alice's password")
BOB = ("bob", "bob's password")
LYRICS = "[ti:Song 2]\n[00:00.50]First line\n[00:01.20]Second line"


def start_library_daemon(root: Path, extra=None):
    """The crate home (started), the music folder and the Subsonic port."""
    crate = Crate(root / "home")
    crate.home.mkdir(parents=True, exist_ok=True)
    music = root / "music"
    crate.make_album(music / "Band" / "Record", "Band", "Record", 3, cover=make_cover(root / "art" / "cover.png"), genre="Rock")
    crate.make_album(music / "Other" / "Tape", "Other", "Tape", 2, genre="Jazz")
    # The same song again, with lyrics in its tags (as taggers write LRC).
    make_track(music / "Other" / "Tape" / "02.flac", {"title": "Song 2", "artist": "Other", "album": "Tape", "track": "2/2",
                                                       "date": "2001", "genre": "Jazz", "lyrics": LYRICS}, frequency=440)
    crate.cli("import", "--quiet", str(music))
    crate.cli("users", "add", ALICE[0], "--admin", "--password-stdin", input=ALICE[1] + "\n")
    crate.cli("users", "add", BOB[0], "--password-stdin", input=BOB[1] + "\n")
    port = free_port()
    crate.start(extra={"CRATE_SUBSONIC_ADDRESS": f"127.0.0.1:{port}", **(extra or {})})
    return crate, music, port
