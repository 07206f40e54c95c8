"""Issue 18, differential test: the same command script, raw protocol lines, against Debian's own MPD and against
crated, both on the same music files (MPD's music_directory is the library folder crated copied the music into, so
both name every song alike). The replies are compared field by field; the differences allowed are listed in ALLOWED
below, each with its reason (Docs/MPD.md repeats the list). Anything else that differs is a failure of the step.

A reply is read as blocks: the lines before the first `file:`/`directory:`/`playlist:` line (the command's own
fields), one block per song, folder or stored playlist, and a `list_OK` marker between the replies of a command list.
Blocks must come in the same order. Within a block the order of lines is free — clients read a block as a record,
and MPD writes a song's tags in the order its file stores them — but the keys and values must be the same.
Commands whose reply is a sequence where order carries meaning (`list … group`, `count … group`, `listplaylist`) are
compared line by line, in order."""
import re

import pytest

from conftest import SONGS, imported_home, library_folder
from crate_harness import MPDDaemon, MPDSocket

# The script: one entry per request (a command list is one request of several lines). Comments say what each part
# is for; the state (queue, modes, stored playlists) is the same on both servers throughout.
SCRIPT = [
    # Connection and the server as a whole, before anything is queued.
    "ping",
    "tagtypes",
    "urlhandlers",
    "outputs",
    "stats",
    "status",
    "currentsong",
    "playlistinfo",
    # Browsing the database.
    "lsinfo",
    "lsinfo Band",
    'lsinfo "Band/Record/01 Song 1.flac"',
    'lsinfo "Various Artists/Mix"',
    "listall",
    "listall Other",
    "listallinfo",
    'listallinfo "Various Artists"',
    # find: exact matches, by the old pairs and by expressions.
    "find album Record",
    'find "(artist == \\"Other\\")"',
    'find "(albumartist == \\"Various Artists\\")"',
    'find "(title == \\"Café \\\\\\"Live\\\\\\"\\")"',
    'find "(!(artist == \\"Band\\"))"',
    'find "((album == \\"Record\\") AND (track == \\"2\\"))"',
    'find "(genre != \\"Rock\\")"',
    'find "(base \\"Other\\")"',
    'find "(file == \\"Other/Tape/01 Side A.flac\\")"',
    'find "(title contains \\"song\\")"',
    'find "(title contains \\"Song\\")"',
    'find "(date == \\"1999\\")"',
    'find "(album == \\"Record\\")" sort -title window 0:2',
    'find "(album == \\"Record\\")" window 5:9',
    "find any Other",
    # search: case ignored, parts match.
    "search title song",
    "search any roll",
    'search "(title contains \\"SIDE\\")"',
    "search date 1999",
    # list and count.
    "list album",
    "list artist",
    "list albumartist",
    "list date",
    "list track",
    "list genre",
    "list album group albumartist",
    "list artist group albumartist",
    'list album "(date == \\"2001\\")" group genre',
    'list title "(album == \\"Tape\\")"',
    "list album artist Band",
    "count album Record",
    'count "(artist == \\"Nobody\\")"',
    "count group albumartist",
    'count "(genre == \\"Rock\\")" group artist',
    # Bad input.
    "frobnicate 1 2",
    'find "album',
    "find",
    "find album",
    'find "(colour == \\"red\\")"',
    'find "(album == Record)"',
    "find album Record sort nosuch",
    "list",
    "list colour",
    "lsinfo nothere",
    "lsinfo a b",
    "listall nothere",
    "status extra",
    "ping extra",
    "add",
    "add nothere",
    'addid "nothere.flac"',
    "setvol 300",
    "setvol abc",
    "repeat 2",
    "play abc",
    "play 99",
    "seekcur abc",
    # The queue.
    "add Band",
    'add "Other/Tape/01 Side A.flac"',
    'addid "Various Artists/Mix/02 Rock & Roll.flac" 1',
    "playlistinfo",
    "playlistinfo 1",
    "playlistinfo 1:3",
    "playlistinfo -1",
    "playlistinfo 9",
    "playlistinfo 3:1",
    "playlistid 9999",
    "move 0 4",
    "playlistinfo",
    "delete 4",
    "move 9 0",
    "delete 9",
    "deleteid 9999",
    "status",
    # Playback: paused at a known place, so both report the same position.
    "play 99",
    "play 1",
    "pause 1",
    "seekcur 12",
    "status",
    "currentsong",
    "seek 1 20",
    "status",
    "pause 0",
    "status",
    "pause 1",
    # Between `pause 0` and `pause 1` each server played for as long as the requests took (crated's null output renders
    # as fast as it decodes): back to a known place before the paused clocks are compared again.
    "seekcur 20",
    "setvol 40",
    "getvol",
    "volume -5",
    "getvol",
    "repeat 1",
    "random 1",
    "status",
    "random 0",
    "repeat 0",
    # single without repeat (stop after the song), oneshot, single with repeat, and the replay gain mode (issue 31).
    # (Not repeat with oneshot: MPD plays the song once more, Crate stops after it; Docs/MPD.md.)
    "single 1",
    "status",
    "repeat 1",
    "status",
    "repeat 0",
    "status",
    "single oneshot",
    "status",
    "single 0",
    "single 2",
    "status",
    # (Not asked before a mode is set: MPD's default is off, Crate's player.replaygain auto.)
    "replay_gain_mode track",
    "replay_gain_status",
    "replay_gain_mode loud",
    "replay_gain_mode off",
    "replay_gain_status",
    "next",
    "pause 1",
    "seekcur 5",
    "status",
    "currentsong",
    "stop",
    "status",
    "next",
    "stop",
    "play 2",
    "stop",
    "consume 1",
    "crossfade 3",
    "consume 0",
    "crossfade 0",
    "status",
    # Command lists.
    "command_list_begin\nping\ngetvol\nplaylistinfo 0\ncommand_list_end",
    "command_list_ok_begin\nping\ngetvol\nplaylistinfo 0\ncommand_list_end",
    "command_list_begin\nsetvol 30\nsetvol 300\nsetvol 20\ncommand_list_end",
    "getvol",
    "command_list_ok_begin\nping\nfrobnicate\nping\ncommand_list_end",
    # Stored playlists.
    "listplaylists",
    "save mix1",
    "save mix1",
    "listplaylists",
    "listplaylist mix1",
    "listplaylistinfo mix1",
    'playlistadd mix2 "Other/Tape/02 Side B.flac"',
    "playlistadd mix2 Band",
    'playlistadd mix2 "nothere.flac"',
    "listplaylist mix2",
    "playlistmove mix2 0 3",
    "listplaylist mix2",
    "playlistdelete mix2 0",
    "listplaylist mix2",
    "playlistdelete mix2 9",
    "rename mix2 mix3",
    "rename mix3 mix1",
    "rename nothere x",
    "clear",
    "load mix3",
    "playlistinfo",
    "load mix1 1:3",
    "playlistinfo",
    "load nothere",
    "playlistclear mix3",
    "listplaylist mix3",
    "playlistclear nothere",
    "listplaylists",
    "rm mix3",
    "rm mix3",
    "listplaylist nothere",
    "listplaylistinfo nothere",
    "listplaylists",
    "status",
]

# What may differ, and why. Keys are MPD's field names, per place in a reply: "song" applies to every song block
# (whatever the command), "directory" to folder blocks, "playlist" to stored playlist blocks, a command's name to
# the fields before the first block of that command's reply.
#   mpd_only:   MPD sends the field, crated does not.
#   crate_only: crated sends the field, MPD does not.
#   any_value:  both send it; the values may differ.
#   clock:      both send it; while playing the two players' clocks run apart, so the seconds may differ by up to
#               CLOCK_SLACK (when paused or stopped they must be equal).
ALLOWED = {
    "song": {
        "mpd_only": {
            "Last-Modified": "the file's modification time in MPD's database; Crate's library does not keep it",
            "Format": "the file's audio format in MPD's database; Crate shows it in status (`audio`) only",
        },
        "any_value": {"Id": "queue entry ids are each server's own numbers"},
        # Crate's every album has an album artist: for a file without the tag it is the artist, and crated says so.
        "albumartist_fallback": "AlbumArtist: crated sends the Artist when the file has no album artist tag",
    },
    "directory": {
        "mpd_only": {"Last-Modified": "a folder's modification time; Crate's library does not keep it"},
    },
    "playlist": {
        "any_value": {"Last-Modified": "when each server saved the playlist"},
    },
    "status": {
        "crate_only": {
            "crate_album_lock": "Crate's own state (Docs/MPD.md)",
            "crate_stop_after_album": "Crate's own state (Docs/MPD.md)",
        },
        "any_value": {
            "songid": "queue entry ids are each server's own numbers",
            "nextsongid": "queue entry ids are each server's own numbers",
            "playlist": "the queue version is each server's own counter",
            "bitrate": "MPD shows the decoder's momentary bit rate; Crate does not measure it (0)",
        },
        "clock": {"elapsed": "seconds played", "time": "seconds played:duration"},
    },
    "stats": {
        "any_value": {
            "uptime": "since each server started",
            "playtime": "how long each server has played",
            "db_update": "when each server's database last changed",
        },
    },
    "outputs": {
        "any_value": {"outputname": "Crate's configured output", "plugin": "Crate's configured output"},
    },
    "addid": {
        "any_value": {"Id": "queue entry ids are each server's own numbers"},
    },
}
CLOCK_SLACK = 3.0
# Paused, the clocks should agree; crated may be one output buffer (under 0.1 s) ahead after a seek to another song
# while paused (it starts that song, pauses, then seeks: a known difference, Docs/MPD.md).
PAUSED_SLACK = 0.15
# Replies whose values crated may hold fewer of than MPD, none that MPD lacks (their order is free).
SUBSET = {
    "tagtypes": "Crate's tags are a subset of MPD's",
    "urlhandlers": "Crate plays http and https streams; MPD has more input plugins",
}
# Commands crated refuses on purpose (Docs/MPD.md): its exact answer, where MPD says OK.
REFUSED = {
    "consume 1": "ACK [2@0] {consume} Crate keeps played songs in the queue: consume mode is not supported",
    "crossfade 3": "ACK [2@0] {crossfade} Crate plays albums gaplessly: crossfade is not supported",
}
# Commands whose reply is compared line by line, in order.
ORDERED = {"list", "count", "listplaylist"}
DELIMITERS = {"file": "song", "directory": "directory", "playlist": "playlist"}
# `playlist:` starts a stored playlist's block only in these replies (in `status` it is the queue version).
PLAYLIST_BLOCKS = {"listplaylists", "lsinfo"}


def blocks(lines, name):
    """[(kind, [(key, value)])]: the command's own fields ("head"), then songs, folders and playlists, with
    ("list_OK", []) markers; the final OK/ACK line is left out."""
    delimiters = DELIMITERS if name in PLAYLIST_BLOCKS else {k: v for k, v in DELIMITERS.items() if k != "playlist"}
    out = [("head", [])]
    for line in lines[:-1]:
        if line == "list_OK":
            out.append(("list_OK", []))
            out.append(("head", []))
            continue
        key, _, value = line.partition(": ")
        if key in delimiters:
            out.append((delimiters[key], []))
        out[-1][1].append((key, value))
    return [(kind, fields) for kind, fields in out if fields or kind == "list_OK"]


def as_record(fields):
    record = {}
    for key, value in fields:
        record.setdefault(key, []).append(value)
    return record


def seconds_apart(a, b):
    """How far apart two clock values are: `elapsed` (12.345) or `time` (12:60, whose duration must be equal)."""
    if ":" in a or ":" in b:
        (a1, a2), (b1, b2) = a.split(":"), b.split(":")
        return float("inf") if a2 != b2 else abs(float(a1) - float(b1))
    return abs(float(a) - float(b))


def compare_record(where, rules, crate, mpd, playing):
    problems = []
    crate, mpd = as_record(crate), as_record(mpd)
    for key in rules.get("mpd_only", {}):
        mpd.pop(key, None)
    for key in rules.get("crate_only", {}):
        crate.pop(key, None)
    if "albumartist_fallback" in rules and "AlbumArtist" in crate and "AlbumArtist" not in mpd:
        if crate["AlbumArtist"] == mpd.get("Artist"):
            crate.pop("AlbumArtist")
    for key in sorted(set(crate) | set(mpd)):
        if key not in mpd:
            problems.append(f"{where}: crated sends {key}: {crate[key]}, MPD does not")
        elif key not in crate:
            problems.append(f"{where}: MPD sends {key}: {mpd[key]}, crated does not")
        elif key in rules.get("any_value", {}):
            if len(crate[key]) != len(mpd[key]):
                problems.append(f"{where}: {key} {len(crate[key])} times from crated, {len(mpd[key])} from MPD")
        elif key in rules.get("clock", {}):
            apart = max(seconds_apart(a, b) for a, b in zip(crate[key], mpd[key]))
            if apart > (CLOCK_SLACK if playing else PAUSED_SLACK):
                problems.append(f"{where}: {key}: crated {crate[key]}, MPD {mpd[key]}")
        elif crate[key] != mpd[key]:
            problems.append(f"{where}: {key}: crated {crate[key]}, MPD {mpd[key]}")
    return problems


def differences(request, crate_lines, mpd_lines):
    """Every difference between the two replies that ALLOWED does not excuse, as sentences."""
    crate_end, mpd_end = crate_lines[-1], mpd_lines[-1]
    first = request.split("\n")[0]
    if first.startswith("command_list"):
        name = "command_list"
    else:
        name = first.split(" ")[0]
    if request in REFUSED:
        expected = REFUSED[request]
        return [] if crate_end == expected and mpd_end == "OK" else [f"crated {crate_end!r} (expected {expected!r}), MPD {mpd_end!r}"]
    problems = []
    if crate_end != mpd_end:
        problems.append(f"the reply ends with {crate_end!r} from crated, {mpd_end!r} from MPD")
    if name in SUBSET:
        crate_values = {line for line in crate_lines[:-1]}
        mpd_values = {line for line in mpd_lines[:-1]}
        if not crate_values or not crate_values <= mpd_values:
            problems.append(f"crated's {sorted(crate_values - mpd_values)} are not MPD's (or crated sends none)")
        return problems
    if name in ORDERED:
        if crate_lines[:-1] != mpd_lines[:-1]:
            problems.append(f"crated {crate_lines[:-1]}\n    MPD {mpd_lines[:-1]}")
        return problems
    crate_blocks, mpd_blocks = blocks(crate_lines, name), blocks(mpd_lines, name)
    crate_kinds = [(k, f[0] if k != "head" and f else None) for k, f in crate_blocks]
    mpd_kinds = [(k, f[0] if k != "head" and f else None) for k, f in mpd_blocks]
    if [k for k, _ in crate_kinds] != [k for k, _ in mpd_kinds] or \
            [f for k, f in crate_kinds if k != "song"] != [f for k, f in mpd_kinds if k != "song"]:
        problems.append(f"the blocks differ: crated {crate_kinds}\n    MPD {mpd_kinds}")
        return problems
    playing = any(("state", "play") in fields for _, fields in crate_blocks + mpd_blocks)
    for i, ((kind, crate_fields), (_, mpd_fields)) in enumerate(zip(crate_blocks, mpd_blocks)):
        rules = ALLOWED.get(name if kind == "head" else kind, {})
        if name == "status" and kind == "head" and ("random", "1") in crate_fields:
            rules = dict(rules, any_value=dict(rules["any_value"], nextsong="with random on, each server draws its own next song"))
        problems += compare_record(f"block {i} ({kind})", rules, crate_fields, mpd_fields, playing)
    return problems


@pytest.fixture(scope="module")
def transcript(music, tmp_path_factory):
    """Runs the script on both servers, one connection each, and returns every request with both replies."""
    tmp = tmp_path_factory.mktemp("differential")
    crate = imported_home(tmp, music)
    mpd = MPDDaemon(tmp / "mpd", library_folder(crate))
    try:
        crate.start(mpd=True)
        mpd.start(songs=SONGS)
        replies = []
        with MPDSocket(crate.mpd_port) as c, MPDSocket(mpd.port) as m:
            assert c.greeting == m.greeting == "OK MPD 0.23.5\n", (c.greeting, m.greeting)
            for request in SCRIPT:
                replies.append((request, c.send(request), m.send(request)))
        yield replies
    finally:
        crate.stop()
        mpd.stop()


def step_id(request):
    return re.sub(r"\s+", " ", request.replace("command_list", "cl"))[:60]


@pytest.mark.parametrize("step", range(len(SCRIPT)), ids=[f"{i:03d} {step_id(r)}" for i, r in enumerate(SCRIPT)])
def test_same_reply_as_mpd(transcript, step):
    request, crate_lines, mpd_lines = transcript[step]
    problems = differences(request, crate_lines, mpd_lines)
    assert not problems, f"{request!r}:\n  " + "\n  ".join(problems) + \
        f"\n  crated: {crate_lines}\n  MPD:    {mpd_lines}"


def test_the_comparison_can_fail():
    """The comparison itself: a changed value, a missing field, a reordered block and an excused field."""
    song = ["file: a.flac", "Title: A", "Artist: X", "Time: 60"]
    assert not differences("find album A", song + ["OK"], ["file: a.flac", "Artist: X", "Title: A", "Last-Modified: x",
                                                          "Time: 60", "OK"])
    assert differences("find album A", song + ["OK"], ["file: a.flac", "Title: B", "Artist: X", "Time: 60", "OK"])
    assert differences("find album A", song + ["OK"], song[:-1] + ["OK"])
    assert differences("find album A", song + ["file: b.flac", "OK"], ["file: b.flac"] + song + ["OK"])
    assert differences("list album", ["Album: A", "Album: B", "OK"], ["Album: B", "Album: A", "OK"])
    assert differences("status", ["state: play", "elapsed: 10.0", "OK"], ["state: play", "elapsed: 20.0", "OK"])
    assert not differences("status", ["state: play", "elapsed: 10.0", "OK"], ["state: play", "elapsed: 11.0", "OK"])
    assert differences("status", ["state: pause", "elapsed: 10.0", "OK"], ["state: pause", "elapsed: 11.0", "OK"])
    assert differences("ping", ["ACK [2@0] {ping} x"], ["OK"])
    assert differences("status", ["playlist: 3", "state: stop", "OK"], ["playlist: 3", "state: pause", "OK"])
    assert differences("listplaylists", ["playlist: a", "Last-Modified: 1", "OK"],
                       ["playlist: b", "Last-Modified: 1", "playlist: a", "Last-Modified: 1", "OK"])
