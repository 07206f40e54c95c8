"""Issue 18: python-mpd2 (from PyPI) against a real crated on a temporary library — the wider command set, command
lists, idle, errors, stored playlists, stickers, cover art, queue changes, database updates. Each test expects what
MPD answers (https://mpd.readthedocs.io/en/latest/protocol.html; MPD 0.23's src/command/); with
CRATE_MPD_TEST_SERVER=mpd the same tests run against Debian's mpd, a check of the tests themselves.

The library (conftest.py): Band/Record (3 songs, a cover), Other/Tape (2 songs, no album artist tag, no cover) and
Various Artists/Mix (2 songs by Alpha and Beta), every song 60 s long."""
import http.server
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import pytest
from mpd import CommandError, FailureResponseCode, MPDClient

from conftest import RECORD, SONGS, TAPE, make_track
from crate_harness import MPDSocket, free_port, wait_until

# python-mpd2 3.1 has no getvol (MPD 0.23): taught here, parsed as status is.
if not hasattr(MPDClient, "getvol"):
    MPDClient.add_command("getvol", MPDClient._parse_object)

MIX = ['Various Artists/Mix/01 Café "Live".flac', "Various Artists/Mix/02 Rock & Roll.flac"]


def files(songs):
    return [song["file"] for song in songs]


def as_list(value):
    return value if isinstance(value, list) else [] if value is None else [value]


def ack(call, *args):
    """The ACK text (without `ACK `) a call raises as CommandError; fails when it does not raise."""
    with pytest.raises(CommandError) as raised:
        call(*args)
    return str(raised.value)


def test_connect_status_currentsong_stats(client):
    assert client.mpd_version == "0.23.5"
    s = client.status()
    assert s["state"] == "stop" and s["playlistlength"] == "0", s
    assert (s["repeat"], s["random"], s["single"], s["consume"]) == ("0", "0", "0", "0"), s
    assert s["volume"] == "100", s
    assert "song" not in s and "elapsed" not in s, s
    assert client.currentsong() == {}
    stats = client.stats()
    assert (stats["songs"], stats["albums"], stats["artists"], stats["db_playtime"]) == (str(SONGS), "3", "4", "420"), stats
    assert int(stats["uptime"]) >= 0 and stats["playtime"] == "0", stats


def test_add_addid_playlistinfo_playlistid(client):
    client.add("Band/Record")
    queue = client.playlistinfo()
    assert files(queue) == RECORD
    assert [s["pos"] for s in queue] == ["0", "1", "2"]
    assert [s["title"] for s in queue] == ["Song 1", "Song 2", "Song 3"]
    assert queue[0]["artist"] == "Band" and queue[0]["album"] == "Record" and queue[0]["track"] == "1", queue[0]
    assert queue[0]["time"] == "60" and queue[0]["duration"] == "60.000", queue[0]

    added = client.addid(TAPE[0], 1)
    assert added.isdigit() and added not in [s["id"] for s in queue], added
    [song] = client.playlistid(added)
    assert (song["file"], song["pos"], song["id"]) == (TAPE[0], "1", added)
    assert files(client.playlistinfo()) == [RECORD[0], TAPE[0], RECORD[1], RECORD[2]]
    assert files(client.playlistinfo("1:3")) == [TAPE[0], RECORD[1]]
    assert files(client.playlistinfo(3)) == [RECORD[2]]
    assert [s["id"] for s in client.playlistid()] == [s["id"] for s in client.playlistinfo()]
    # Ids stay with their songs when others move or go.
    client.move(1, 3)
    client.delete(0)
    [song] = client.playlistid(added)
    assert song["pos"] == "2" and files(client.playlistinfo()) == [RECORD[1], RECORD[2], TAPE[0]]

    assert ack(client.addid, "no/such/song.flac") == "[50@0] {addid} No such song"
    assert ack(client.add, "no/such/folder") == "[50@0] {add} No such directory"
    assert ack(client.playlistid, 99999) == "[50@0] {playlistid} No such song"
    assert ack(client.playlistinfo, 9) == "[2@0] {playlistinfo} Bad song index"


def test_play_pause_next_previous_seekcur(client):
    client.add("Band/Record")
    ids = [s["id"] for s in client.playlistinfo()]
    client.play(0)
    # Played in real time by the null output: the clock moves.
    wait_until("elapsed to move while playing",
               lambda: (s := client.status())["state"] == "play" and float(s.get("elapsed", 0)) > 0.2, seconds=30)
    s = client.status()
    assert (s["song"], s["songid"], s["duration"]) == ("0", ids[0], "60.000"), s
    assert client.currentsong()["file"] == RECORD[0]

    client.pause(1)
    assert client.status()["state"] == "pause"
    client.seekcur(30)
    assert abs(float(client.status()["elapsed"]) - 30) < 0.5
    client.seekcur("+5")
    assert abs(float(client.status()["elapsed"]) - 35) < 1.0
    client.seekcur("-10")
    assert abs(float(client.status()["elapsed"]) - 25) < 1.0
    client.pause(0)
    assert client.status()["state"] == "play"

    client.next()
    s = client.status()
    assert (s["state"], s["song"], s["songid"]) == ("play", "1", ids[1]), s
    assert client.currentsong()["title"] == "Song 2"
    client.previous()
    assert client.status()["song"] == "0"
    # MPD's previous goes back a song wherever the current one is (a client restarts a song with seek).
    client.next()
    client.seekcur(30)
    client.previous()
    s = client.status()
    assert s["song"] == "0", f"previous at 30 s into song 1 should play song 0, as MPD does: {s}"
    client.seek(2, 10)
    s = client.status()
    assert s["song"] == "2" and abs(float(s["elapsed"]) - 10) < 1.0, s
    client.stop()
    assert client.status()["state"] == "stop"
    assert ack(client.seekcur, "x") == "[2@0] {seekcur} Float expected: x"
    assert ack(client.play, 99) == "[2@0] {play} Bad song index"


def test_volume(client):
    client.setvol(40)
    assert client.getvol() == {"volume": "40"}
    assert client.status()["volume"] == "40"
    client.volume(-10)
    assert client.getvol() == {"volume": "30"}
    assert ack(client.setvol, 101) == "[2@0] {setvol} Number too large: 101"
    assert ack(client.setvol, "loud") == "[2@0] {setvol} Integer expected: loud"
    assert client.getvol() == {"volume": "30"}


def test_repeat_random_single(client):
    def modes():
        s = client.status()
        return s["repeat"], s["random"], s["single"]

    client.repeat(1)
    assert modes() == ("1", "0", "0")
    client.single(1)
    assert modes() == ("1", "0", "1")
    client.single(0)
    assert modes() == ("1", "0", "0")
    client.random(1)
    assert modes() == ("1", "1", "0")
    client.repeat(0)
    client.random(0)
    assert modes() == ("0", "0", "0")
    # single without repeat stays single (stop after the song), and repeat on top of it is repeat-one (issue 31).
    client.single(1)
    assert modes() == ("0", "0", "1")
    client.repeat(1)
    assert modes() == ("1", "0", "1")
    client.repeat(0)
    assert modes() == ("0", "0", "1")
    client.single("oneshot")
    assert modes() == ("0", "0", "oneshot")
    client.single(0)
    assert modes() == ("0", "0", "0")
    assert ack(client.single, "2") == "[2@0] {single} Unrecognized single mode, expected 0, 1, or oneshot"
    client.replay_gain_mode("album")
    assert client.replay_gain_status() == "album"
    assert ack(client.replay_gain_mode, "loud") == "[2@0] {replay_gain_mode} Unrecognized replay gain mode"
    assert ack(client.repeat, 2) == "[2@0] {repeat} Boolean (0/1) expected: 2"
    assert ack(client.random, "yes") == "[2@0] {random} Boolean (0/1) expected: yes"


def test_find_search_with_filters(client):
    assert files(client.find("(artist == 'Band')")) == RECORD
    assert files(client.find("album", "Tape")) == TAPE
    assert files(client.find("(albumartist == 'Various Artists')")) == MIX
    # Quotes inside a value: python-mpd2 escapes the argument, the expression escapes the value.
    assert files(client.find("(title == 'Café \"Live\"')")) == MIX[:1]
    assert files(client.find("(title contains 'Side')")) == TAPE
    # find compares case and all; search ignores case.
    assert client.find("(title contains 'side')") == []
    assert files(client.search("(title contains 'side')")) == TAPE
    assert files(client.search("title", "SIDE")) == TAPE
    assert files(client.search("any", "roll")) == MIX[1:]
    assert files(client.find("(!(albumartist == 'Band'))")) == TAPE + MIX
    assert files(client.find("((album == 'Record') AND (track == '2'))")) == RECORD[1:2]
    assert files(client.find("(genre != 'Rock')")) == TAPE + MIX
    assert files(client.find("(base 'Other')")) == TAPE
    assert files(client.find("(file == 'Other/Tape/02 Side B.flac')")) == TAPE[1:]
    assert files(client.find("(album == 'Record')", "sort", "-track", "window", "0:2")) == [RECORD[2], RECORD[1]]
    assert files(client.find("(album == 'Record')", "sort", "title")) == RECORD
    assert client.find("(date == '1999')") == []
    assert files(client.find("(date == '1999-05-01')")) == TAPE
    assert ack(client.find, "(colour == 'red')") == "[2@0] {find} Unknown filter type: colour"
    assert ack(client.find, "(album == Record)") == "[2@0] {find} Quoted string expected"


def test_list_and_count_with_groups(client):
    assert client.list("album") == [{"album": "Mix"}, {"album": "Record"}, {"album": "Tape"}]
    assert client.list("albumartist") == [{"albumartist": a} for a in ["Band", "Other", "Various Artists"]]
    assert client.list("album", "group", "albumartist") == [
        {"albumartist": "Band", "album": "Record"}, {"albumartist": "Other", "album": "Tape"},
        {"albumartist": "Various Artists", "album": "Mix"}]
    assert client.list("title", "(album == 'Tape')") == [{"title": "Side A"}, {"title": "Side B"}]
    assert client.list("album", "artist", "Band") == [{"album": "Record"}]
    # Songs without the tag are listed under an empty value, as MPD lists them.
    assert client.list("genre") == [{"genre": ""}, {"genre": "Jazz"}, {"genre": "Rock"}]
    assert client.count("album", "Record") == {"songs": "3", "playtime": "180"}
    assert client.count("(artist == 'Nobody')") == {"songs": "0", "playtime": "0"}
    assert client.count("group", "albumartist") == {
        "albumartist": ["Band", "Other", "Various Artists"], "songs": ["3", "2", "2"], "playtime": ["180", "120", "120"]}
    assert client.count("(genre == 'Rock')", "group", "artist") == {"artist": "Band", "songs": "3", "playtime": "180"}
    assert ack(client.list, "colour") == "[2@0] {list} Unknown tag type: colour"


def test_lsinfo_and_listall(client):
    assert [e["directory"] for e in client.lsinfo()] == ["Band", "Other", "Various Artists"]
    assert [e["directory"] for e in client.lsinfo("Band")] == ["Band/Record"]
    songs = client.lsinfo("Other/Tape")
    assert files(songs) == TAPE and songs[0]["title"] == "Side A" and songs[0]["date"] == "1999-05-01", songs
    [song] = client.lsinfo(RECORD[0])
    assert (song["file"], song["title"], song["album"], song["genre"]) == (RECORD[0], "Song 1", "Record", "Rock"), song
    assert client.listall("Other") == [{"directory": "Other"}, {"directory": "Other/Tape"},
                                       {"file": TAPE[0]}, {"file": TAPE[1]}]
    everything = client.listall()
    assert [e["file"] for e in everything if "file" in e] == RECORD + TAPE + MIX
    info = client.listallinfo("Various Artists")
    assert [e.get("directory") or e["file"] for e in info] == ["Various Artists", "Various Artists/Mix"] + MIX
    assert [e.get("artist") for e in info[2:]] == ["Alpha", "Beta"]
    assert ack(client.lsinfo, "nothere") == "[50@0] {lsinfo} No such directory"
    assert ack(client.listall, "nothere") == "[50@0] {listall} No such directory"


def test_command_list_ok(client):
    client.command_list_ok_begin()
    client.ping()
    client.setvol(30)
    client.status()
    client.add("Other/Tape")
    client.playlistinfo()
    client.getvol()
    results = client.command_list_end()
    assert len(results) == 6, results
    assert results[0] is None and results[1] is None and results[3] is None, results
    assert results[2]["volume"] == "30" and results[2]["playlistlength"] == "0", results[2]
    assert files(results[4]) == TAPE
    assert results[5] == {"volume": "30"}


def test_an_error_in_a_command_list_names_its_index_and_stops_the_list(server, client):
    client.setvol(50)
    client.command_list_ok_begin()
    client.setvol(30)
    client.ping()
    client.setvol(300)
    client.random(1)
    with pytest.raises(CommandError) as raised:
        client.command_list_end()
    error = raised.value
    assert str(error) == "[2@2] {setvol} Number too large: 300"
    assert (error.errno, error.offset, error.command) == (FailureResponseCode.ARG, 2, "setvol")
    # What came before the error was done; what came after was not.
    s = client.status()
    assert (s["volume"], s["random"]) == ("30", "0"), s
    # The same in a raw command_list_begin: the replies before the error, then the ACK, no OK.
    with MPDSocket(server.port) as raw:
        reply = raw.send("command_list_begin\nstatus\nlsinfo nothere\nping\ncommand_list_end")
        assert "state: stop" in reply and reply[-1] == "ACK [50@1] {lsinfo} No such directory", reply
        assert "OK" not in reply and "list_OK" not in reply, reply


def test_idle_is_woken_by_a_change_from_another_connection(server, client):
    other = server.client()
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        waiting = pool.submit(client.idle, "mixer")
        other.setvol(20)
        assert waiting.result(timeout=60) == ["mixer"]

        waiting = pool.submit(client.idle, "playlist")
        other.add("Other/Tape")
        assert waiting.result(timeout=60) == ["playlist"]

        waiting = pool.submit(client.idle, "player")
        other.play(0)
        assert waiting.result(timeout=60) == ["player"]

        waiting = pool.submit(client.idle, "options")
        other.random(1)
        assert waiting.result(timeout=60) == ["options"]

        waiting = pool.submit(client.idle, "stored_playlist")
        other.save("idle test")
        assert waiting.result(timeout=60) == ["stored_playlist"]

        waiting = pool.submit(client.idle)
        other.setvol(25)
        assert "mixer" in waiting.result(timeout=60)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        other.disconnect()
    # noidle ends an idle with nothing changed: a bare OK.
    with MPDSocket(server.port) as raw:
        raw.sock.sendall(b"idle database\n")
        assert raw.send("noidle") == ["OK"]
        assert raw.send("ping") == ["OK"]
        # A noidle that comes when idle has already answered (or without idle) is not answered at all: an OK for it
        # would be taken as the reply to the client's next request, and every reply after it would be out of step.
        reply = raw.send("noidle\nstatus")
        assert reply[-1] == "OK" and any(line.startswith("state: ") for line in reply), reply


def test_errors_answer_with_mpds_ack(server, client):
    with MPDSocket(server.port) as raw:
        assert raw.send("frobnicate 1 2") == ['ACK [5@0] {} unknown command "frobnicate"']
        assert raw.send("status extra") == ['ACK [2@0] {status} wrong number of arguments for "status"']
        assert raw.send("add") == ['ACK [2@0] {add} too few arguments for "add"']
        assert raw.send("ping") == ["OK"]
    error = pytest.raises(CommandError, client.setvol, "abc").value
    assert str(error) == "[2@0] {setvol} Integer expected: abc"
    assert error.errno == FailureResponseCode.ARG and error.command == "setvol" and error.msg == "Integer expected: abc"
    assert ack(client.play, 5) == "[2@0] {play} Bad song index"
    assert ack(client.delete, 5) == "[2@0] {delete} Bad song index"
    assert ack(client.move, 5, 0) == "[2@0] {move} Bad song index"
    assert ack(client.deleteid, 99999) == "[50@0] {deleteid} No such song"
    assert ack(client.lsinfo, "nothere") == "[50@0] {lsinfo} No such directory"
    # After an error the connection goes on.
    assert client.ping() is None


def test_stored_playlists(client):
    client.add("Band/Record")
    assert client.listplaylists() == []
    client.save("road")
    assert ack(client.save, "road") == "[56@0] {save} Playlist already exists"
    [playlist] = client.listplaylists()
    assert playlist["playlist"] == "road" and "last-modified" in playlist, playlist
    assert client.listplaylist("road") == RECORD
    info = client.listplaylistinfo("road")
    assert files(info) == RECORD and [s["title"] for s in info] == ["Song 1", "Song 2", "Song 3"]

    client.playlistadd("road", TAPE[0])
    assert client.listplaylist("road") == RECORD + TAPE[:1]
    client.playlistadd("new", "Other/Tape")  # a new playlist, and a folder's songs
    assert client.listplaylist("new") == TAPE
    client.playlistmove("road", 3, 0)
    assert client.listplaylist("road") == TAPE[:1] + RECORD
    client.playlistdelete("road", 1)
    assert client.listplaylist("road") == TAPE[:1] + RECORD[1:]
    assert ack(client.playlistdelete, "road", 9) == "[2@0] {playlistdelete} Bad song index"
    assert ack(client.playlistadd, "road", "nothere.flac") == "[50@0] {playlistadd} No such directory"

    client.rename("road", "trip")
    assert {p["playlist"] for p in client.listplaylists()} == {"trip", "new"}
    assert ack(client.rename, "trip", "new") == "[56@0] {rename} Playlist exists already"
    assert ack(client.rename, "nothere", "x") == "[50@0] {rename} No such playlist"

    client.clear()
    client.load("trip")
    assert files(client.playlistinfo()) == TAPE[:1] + RECORD[1:]
    client.load("new", "1:2")
    assert files(client.playlistinfo()) == TAPE[:1] + RECORD[1:] + TAPE[1:]
    assert ack(client.load, "nothere") == "[50@0] {load} No such playlist"

    client.playlistclear("trip")
    assert client.listplaylist("trip") == []
    assert ack(client.playlistclear, "nothere") == "[50@0] {playlistclear} No such playlist"
    client.rm("trip")
    assert ack(client.rm, "trip") == "[50@0] {rm} No such playlist"
    assert ack(client.listplaylist, "trip") == "[50@0] {listplaylist} No such playlist"
    assert ack(client.listplaylistinfo, "trip") == "[50@0] {listplaylistinfo} No such playlist"
    assert [p["playlist"] for p in client.listplaylists()] == ["new"]


def test_stickers(client):
    song = RECORD[0]
    assert ack(client.sticker_get, "song", song, "favorite") == "[50@0] {sticker} no such sticker"
    assert client.sticker_list("song", song) == {}
    client.sticker_set("song", song, "favorite", "1")
    assert client.sticker_get("song", song, "favorite") == "1"
    assert client.sticker_list("song", song) == {"favorite": "1"}
    assert client.sticker_list("song", RECORD[1]) == {}
    client.sticker_delete("song", song, "favorite")
    assert ack(client.sticker_get, "song", song, "favorite") == "[50@0] {sticker} no such sticker"
    assert ack(client.sticker_delete, "song", song, "favorite") == "[50@0] {sticker} no such sticker"
    assert client.sticker_list("song", song) == {}
    assert ack(client.sticker_get, "song", "nothere.flac", "favorite") == "[50@0] {sticker} No such song"
    assert ack(client.sticker_set, "song", "nothere.flac", "favorite", "1") == "[50@0] {sticker} No such song"
    assert ack(client.sticker_get, "album", "x", "favorite") == "[2@0] {sticker} unknown sticker domain"


def test_albumart_and_readpicture(server, client, music):
    cover = music.cover.read_bytes()
    assert len(cover) > 2 * 8192, "the cover should take several chunks"
    # python-mpd2 asks chunk after chunk (offsets) until it has `size` bytes.
    assert client.albumart(RECORD[0]) == {"binary": cover}
    picture = client.readpicture(RECORD[1])
    assert picture.get("binary") == cover and picture.get("type") == "image/png", {k: v for k, v in picture.items() if k != "binary"}
    # A song without a picture: readpicture answers nothing; albumart an error.
    assert client.readpicture(TAPE[0]) == {}
    assert ack(client.albumart, TAPE[0]) == "[50@0] {albumart} No file exists"
    assert ack(client.readpicture, "nothere.flac") == "[50@0] {readpicture} No such song"
    with MPDSocket(server.port) as raw:
        # The first chunk as the protocol has it: size, binary (MPD's default binarylimit: 8192 bytes), the bytes.
        reply = raw.send(f'albumart "{RECORD[0]}" 0')
        assert reply[:2] == [f"size: {len(cover)}", "binary: 8192"] and reply[2] == cover[:8192] and reply[3] == "OK", reply[:2]
        reply = raw.send(f'albumart "{RECORD[0]}" {len(cover) - 100}')
        assert reply[:2] == [f"size: {len(cover)}", "binary: 100"] and reply[2] == cover[-100:] and reply[3] == "OK", reply[:2]
        assert raw.send(f'readpicture "{RECORD[0]}" {len(cover) + 1}') == ["ACK [2@0] {readpicture} Bad file offset"]


def test_plchanges_and_plchangesposid(client):
    """MPD answers exactly the songs whose place or content changed since VERSION. Crate may answer more (it keeps
    no version per entry: any older version gets the whole queue, a superset clients handle), never less, never a
    wrong place, and nothing for the current version."""
    def version():
        return int(client.status()["playlist"])

    def queue():
        return {s["id"]: (s["pos"], s["file"]) for s in client.playlistinfo()}

    def check(changes, must):
        now = queue()
        got = {s["id"]: (s["pos"], s["file"]) for s in changes}
        assert all(now.get(i) == place for i, place in got.items()), f"wrong places: {got} (queue {now})"
        assert {i: now[i] for i in must} == {i: got.get(i) for i in must}, f"changed songs missing: {must} not all in {got}"

    v0 = version()
    client.add("Band/Record")
    v1 = version()
    assert v1 != v0
    changes = client.plchanges(v0)
    assert files(changes) == RECORD and [s["pos"] for s in changes] == ["0", "1", "2"]
    assert client.plchanges(v1) == [] and client.plchangesposid(v1) == []
    ids = [s["id"] for s in changes]

    tape = client.addid(TAPE[0])
    v2 = version()
    check(client.plchanges(v1), [tape])
    assert {"cpos": "3", "id": tape} in client.plchangesposid(v1)
    # Moving the last song one up changes the places of two songs.
    client.move(3, 2)
    v3 = version()
    positions = client.plchangesposid(v2)
    assert {"cpos": "2", "id": tape} in positions and {"cpos": "3", "id": ids[2]} in positions, positions
    check(client.plchanges(v2), [tape, ids[2]])
    client.delete(0)
    # Every song moved up: all three are changed.
    assert client.plchangesposid(v3) == [{"cpos": "0", "id": ids[1]}, {"cpos": "1", "id": tape}, {"cpos": "2", "id": ids[2]}]
    assert client.status()["playlistlength"] == "3"
    assert client.plchanges(version()) == []
    assert ack(client.plchanges, "abc") == "[2@0] {plchanges} Integer expected: abc"


def test_shuffle(client):
    client.add("Band/Record")
    client.add("Other/Tape")
    client.add("Various Artists/Mix")
    before = [(s["id"], s["file"]) for s in client.playlistinfo()]
    version = client.status()["playlist"]
    # One order in 5040 is the one it had: shuffle again until it differs (bounded).
    for _ in range(5):
        client.shuffle()
        after = [(s["id"], s["file"]) for s in client.playlistinfo()]
        if after != before:
            break
    assert after != before and sorted(after) == sorted(before), after
    assert client.status()["playlist"] != version
    # A range: only its songs move.
    client.shuffle("0:2")
    again = [(s["id"], s["file"]) for s in client.playlistinfo()]
    assert again[2:] == after[2:] and sorted(again[:2]) == sorted(after[:2]), again
    assert ack(client.shuffle, "9:20") == "[2@0] {shuffle} Bad song index"


def test_update_and_rescan(server, client):
    # A new song where each server looks for new files: crated's import folder, MPD's music directory. Crate copies
    # it to Album Artist/Album/NN Title.flac, the same place it has in MPD's folder.
    make_track(server.drop_folder / "New" / "Single" / "01 Fresh.flac",
               {"title": "Fresh", "artist": "New", "album": "Single", "track": "1/1"}, seconds=60)
    watcher = server.client()
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        waiting = pool.submit(watcher.idle, "update", "database")
        job = client.update()
        assert job is not None and job.isdigit() and int(job) > 0, job
        first = waiting.result(timeout=120)
        assert "update" in first, f"the first idle after update should name update: {first}"
        seen = set(first)
        while "database" not in seen:
            seen |= set(pool.submit(watcher.idle, "update", "database").result(timeout=120))
        wait_until("the new song in stats", lambda: client.stats()["songs"] == str(SONGS + 1), seconds=60)
        [song] = client.lsinfo("New/Single")
        assert (song["file"], song["title"]) == ("New/Single/01 Fresh.flac", "Fresh"), song

        waiting = pool.submit(watcher.idle, "update")
        rescan = client.rescan()
        assert rescan is not None and rescan.isdigit() and int(rescan) > 0, rescan
        assert "update" in waiting.result(timeout=120)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        watcher.disconnect()


def test_tagtypes(client):
    types = client.tagtypes()
    for tag in ["Artist", "AlbumArtist", "Album", "Title", "Track", "Disc", "Date", "Genre"]:
        assert tag in types, types
    # MPD 0.21's tagtypes clear/enable/disable/all choose the tags songs are shown with, for this connection.
    client.tagtypes("clear")
    assert client.tagtypes() == []
    client.tagtypes("enable", "Artist", "Title")
    assert client.tagtypes() == ["Artist", "Title"]
    [song] = client.lsinfo(RECORD[0])
    assert song["artist"] == "Band" and song["title"] == "Song 1" and "album" not in song and "genre" not in song, song
    client.tagtypes("all")
    client.tagtypes("disable", "Genre")
    [song] = client.lsinfo(RECORD[0])
    assert song["album"] == "Record" and "genre" not in song, song


def test_decoders_and_urlhandlers(client):
    decoders = client.decoders()
    assert all("plugin" in d for d in decoders), decoders
    suffixes = {suffix for d in decoders for suffix in as_list(d.get("suffix"))}
    for suffix in ["flac", "mp3", "ogg", "opus", "wav"]:
        assert suffix in suffixes, f"no decoder for .{suffix}: {decoders}"
    mime_types = {m for d in decoders for m in as_list(d.get("mime_type"))}
    assert "audio/flac" in mime_types and "audio/mpeg" in mime_types, mime_types
    handlers = client.urlhandlers()
    assert "http://" in handlers and "https://" in handlers, handlers


@pytest.fixture
def stream_url(tmp_path):
    """A file on a loopback web server, as a stream URL."""
    folder = tmp_path / "web"
    make_track(folder / "stream.mp3", {"title": "On Air"}, seconds=60)
    web = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()),
                                          partial(http.server.SimpleHTTPRequestHandler, directory=str(folder)))
    threading.Thread(target=web.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{web.server_address[1]}/stream.mp3"
    web.shutdown()


def test_addid_of_an_http_url(client, stream_url):
    client.add("Other/Tape")
    added = client.addid(stream_url)
    assert added.isdigit(), added
    [song] = client.playlistid(added)
    assert (song["file"], song["pos"]) == (stream_url, "2"), song
    client.add(stream_url)
    assert files(client.playlistinfo()) == TAPE + [stream_url, stream_url]
    added = client.addid(stream_url, 0)
    assert client.playlistid(added)[0]["pos"] == "0"
    assert ack(client.addid, "nosuchscheme://nowhere/") == "[2@0] {addid} Unsupported URI scheme"


# Crate's own mapping: MPD's stored playlists are Crate's playlists, the `favorite` sticker is Crate's favorite mark.

def track_id(crate, title, album):
    [found] = [t for a in crate.get("/api/v1/albums") if a["title"] == album
               for t in crate.get(f"/api/v1/albums/{a['id']}/tracks") if t["title"] == title]
    return found["id"]


def test_the_favorite_sticker_is_crates_favorite(crated, client):
    crate = crated.crate
    client.sticker_set("song", RECORD[0], "favorite", "1")
    assert [t["title"] for t in crate.get("/api/v1/favorites")["tracks"]] == ["Song 1"]
    client.sticker_delete("song", RECORD[0], "favorite")
    assert crate.get("/api/v1/favorites")["tracks"] == []
    # Marked in Crate, seen by MPD clients.
    crate.request("PUT", f"/api/v1/favorites/track/{track_id(crate, 'Side B', 'Tape')}")
    assert client.sticker_get("song", TAPE[1], "favorite") == "1"
    assert client.sticker_list("song", TAPE[1]) == {"favorite": "1"}


def test_stored_playlists_are_crates_playlists(crated, client):
    crate = crated.crate
    client.add("Other/Tape")
    client.save("from mpd")
    [made] = [p for p in crate.get("/api/v1/playlists") if p["name"] == "from mpd"]
    assert made["trackCount"] == 2, made
    created = crate.request("POST", "/api/v1/playlists", {"name": "from crate"})
    crate.request("POST", f"/api/v1/playlists/{created['playlist']['id']}/tracks",
                  {"trackIDs": [track_id(crate, "Song 3", "Record"), track_id(crate, "Side A", "Tape")]})
    assert {p["playlist"] for p in client.listplaylists()} == {"from mpd", "from crate"}
    assert client.listplaylist("from crate") == [RECORD[2], TAPE[0]]


def test_clients_editing_the_queue_at_once_each_act_on_their_own_entries(server, client):
    """Issue 31 (found by Benchmarks/soak.sh): deleteid, moveid and playid name an entry by id while other clients
    change the queue; each must act on that entry, never on whichever entry sits at its old place."""
    client.clear()
    client.add("Other/Tape")
    base = [song["id"] for song in client.playlistinfo()]
    errors = []

    def edit(_):
        c = server.client()
        try:
            for _ in range(40):
                song_id = c.addid(RECORD[0])
                c.moveid(song_id, 0)
                if song_id not in [song["id"] for song in c.playlistinfo()]:
                    errors.append(f"entry {song_id} missing right after its addid")
                c.deleteid(song_id)
        except CommandError as error:
            errors.append(str(error))
        finally:
            c.disconnect()

    with ThreadPoolExecutor(max_workers=5) as pool:
        list(pool.map(edit, range(5)))
    assert errors == []
    # Every client deleted what it added, and only that: the queue is what it was.
    assert [song["id"] for song in client.playlistinfo()] == base


def test_crated_stops_cleanly_with_a_client_in_idle_and_others_connecting(crated, client):
    """SIGTERM while one client waits in `idle` and others keep connecting: crated closes every connection, exits 0 and
    has saved the queue. It used to stop the MPD front end by cancelling its accept loop, and NIO traps when a
    connection it has accepted is dropped before it is handed over (swift-nio#3481): a client connecting at that
    moment crashed crated on its way down (SIGILL), before it saved the player. A race, so this test is the storm
    around it; the deterministic part is that idle connections are ended and the exit is clean."""
    client.add("Band/Record")
    waiting = socket.create_connection(("127.0.0.1", crated.port), timeout=30)
    assert waiting.recv(64).startswith(b"OK MPD ")
    waiting.sendall(b"idle\n")
    stop = threading.Event()
    greeted = [0]

    def connect_again_and_again():
        while not stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", crated.port), timeout=5) as s:
                    if s.recv(64).startswith(b"OK MPD "):
                        greeted[0] += 1
            except OSError:
                pass

    storm = [threading.Thread(target=connect_again_and_again, daemon=True) for _ in range(4)]
    for t in storm:
        t.start()
    process = crated.crate.process
    try:
        wait_until("the storm of connections to be under way", lambda: greeted[0] >= 20, seconds=30)
        process.terminate()
        code = process.wait(timeout=60)
    finally:
        stop.set()
        for t in storm:
            t.join(timeout=10)
    assert code == 0, f"crated exited with {code} (log: {crated.crate.log})"
    assert waiting.recv(64) == b"", "the client in idle was not disconnected"
    waiting.close()
    crated.crate.start(mpd=True)
    again = crated.crate.mpd_port
    with MPDSocket(again) as s:
        assert [line for line in s.send("playlistinfo") if line.startswith("file: ")] == [f"file: {f}" for f in RECORD]


def test_connections_past_the_limit_are_closed_and_the_rest_served(crated):
    """`http.max_connections` bounds MPD connections too: the one past it is closed at once (no greeting), those
    open are served on, and a place freed lets the next one in. The refused connection is closed through
    `executeThenClose`, as NIO requires of every connection it hands over."""
    crated.crate.stop()
    crated.crate.start(extra={"CRATE_HTTP_MAX_CONNECTIONS": "8"}, mpd=True)
    port = crated.crate.mpd_port
    held = [MPDSocket(port) for _ in range(8)]
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as refused:
            assert refused.recv(64) == b"", "a ninth connection was served"
        assert held[0].send("ping") == ["OK"]
        held.pop().close()
        # The place is free once crated has seen the connection end: a bounded wait for it, not a sleep.
        def greeted():
            try:
                with MPDSocket(port, timeout=5):
                    return True
            except OSError:
                return False
        wait_until("a connection to be served in the freed place", greeted, seconds=30)
    finally:
        for s in held:
            s.close()
