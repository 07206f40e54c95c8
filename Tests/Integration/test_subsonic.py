"""The OpenSubsonic API (Docs/SUBSONIC.md) against a real crated, through py-opensonic (from PyPI) as apps use it
(form POSTs to /rest/NAME.view with f=json), and through plain HTTP where the library cannot look (XML, GET, byte
ranges, error codes). Accounts are made with `crate users add`; the library is two albums of generated FLAC files.

The library: Band/Record (3 songs, a cover, genre Rock, 2001) and Other/Tape (2 songs, no cover, genre Jazz; its
second song has LRC lyrics)."""
import asyncio
import hashlib
import json
import subprocess
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import pytest
from libopensonic import Connection, errors

from crate_harness import Crate, free_port, wait_until
from subsonic_library import ALICE, BOB, start_library_daemon

SONGS = 5
NAMESPACE = "{http://subsonic.org/restapi}"


@dataclass
class Server:
    crate: Crate
    port: int
    bob_key: str
    music: Path

    def connection(self, user=ALICE, legacy_auth=False, api_key=None):
        """py-opensonic as an app would use it: token auth by default, `legacy_auth` sends `p=enc:HEX`."""
        if api_key:
            return Connection("http://127.0.0.1", api_key=api_key, port=self.port, app_name="crate-tests")
        return Connection("http://127.0.0.1", user[0], user[1], port=self.port, legacy_auth=legacy_auth,
                          app_name="crate-tests")

    def raw(self, endpoint, params, user=ALICE, headers=None):
        """A GET with the password in clear (`p`): status, headers and body bytes, errors included."""
        query = urllib.parse.urlencode([("u", user[0]), ("p", user[1]), ("v", "1.16.1"), ("c", "crate-tests"), *params])
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/rest/{endpoint}?{query}", headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def xml(self, endpoint, params=(), user=ALICE):
        status, headers, body = self.raw(endpoint, list(params), user=user)
        assert status == 200 and headers["Content-Type"].startswith("text/xml"), (status, headers)
        return ElementTree.fromstring(body)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The null output keeps time as a sound card does, so the jukebox's songs play for their length.
    crate, music, port = start_library_daemon(tmp_path_factory.mktemp("subsonic"), extra={"CRATE_OUTPUTS_NULL_RENDER": "false"})
    bob_key = crate.cli("users", "apikey", BOB[0]).stdout.strip()
    served = Server(crate, port, bob_key, music)

    def answers():
        try:
            return served.raw("ping", [])[0] == 200
        except OSError:
            return False

    wait_until(f"the Subsonic API on port {port} (log: {crate.log})", answers, seconds=60)
    try:
        yield served
    finally:
        crate.stop()


@pytest.fixture
def alice(server):
    conn = server.connection()
    try:
        yield conn
    finally:
        conn.cleanup()


def body(conn, response):
    """The bytes of a binary answer (stream, download, getCoverArt), read on the connection's own event loop."""
    return asyncio.run_coroutine_threadsafe(response.read(), conn._loop).result()


def test_ping_with_every_way_to_sign_in(server):
    for conn in (server.connection(), server.connection(legacy_auth=True), server.connection(BOB),
                 server.connection(api_key=server.bob_key)):
        try:
            assert conn.ping()
        finally:
            conn.cleanup()
    wrong = server.connection(("alice", "not her password"))
    try:
        with pytest.raises(errors.CredentialError):
            wrong.ping()
    finally:
        wrong.cleanup()
    # The same failure in XML (the default format), with the code; HTTP itself says 200.
    answer = server.xml("ping.view", user=("alice", "still wrong"))
    assert answer.get("status") == "failed" and answer.find(f"{NAMESPACE}error").get("code") == "40"
    # The right password still works (two failures in a row do not start the back-off).
    assert server.xml("ping").get("status") == "ok"
    unknown_key = server.connection(api_key="not-a-key")
    try:
        with pytest.raises(errors.SonicError, match="API key"):
            unknown_key.ping()
    finally:
        unknown_key.cleanup()


def test_a_large_body_gets_its_answer(server):
    """Issue 31: a form body over 1 MiB, and a body of another type (never used), are read and dropped, so a client
    that sends its whole body first (urllib) gets the answer instead of blocking: the error in the envelope for the
    form, the answer for the other. 20 s is a hang guard."""
    query = urllib.parse.urlencode([("u", ALICE[0]), ("p", ALICE[1]), ("v", "1.16.1"), ("c", "crate-tests"), ("f", "json")])
    for content_type, data, status in [("application/x-www-form-urlencoded", b"pad=" + b"x" * 5_000_000, "failed"),
                                       ("application/octet-stream", b"x" * 5_000_000, "ok")]:
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/rest/ping?{query}", data=data, method="POST",
                                         headers={"Content-Type": content_type})
        with urllib.request.urlopen(request, timeout=20) as answer:
            envelope = json.loads(answer.read())["subsonic-response"]
        assert envelope["status"] == status, envelope
    assert server.xml("ping").get("status") == "ok"


def test_envelope_in_both_formats(server, alice):
    xml = server.xml("getLicense")
    assert xml.tag == f"{NAMESPACE}subsonic-response"
    assert (xml.get("status"), xml.get("version"), xml.get("type"), xml.get("openSubsonic")) == ("ok", "1.16.1", "crate", "true")
    assert xml.find(f"{NAMESPACE}license").get("valid") == "true"
    assert alice.get_license()["license"]["valid"] is True
    names = {extension.name for extension in alice.get_open_subsonic_extensions()}
    assert names == {"apiKeyAuthentication", "formPost", "songLyrics", "transcodeOffset"}


def test_artists_albums_and_songs(server, alice):
    artists = alice.get_artists()
    listed = [artist for index in artists.index for artist in index.artist]
    assert sorted(artist.name for artist in listed) == ["Band", "Other"]
    band = next(artist for artist in listed if artist.name == "Band")
    assert band.id.startswith("ar-") and band.album_count == 1
    record_id = alice.get_artist(band.id).album[0].id
    record = alice.get_album(record_id)
    assert (record.name, record.artist, record.song_count, record.year, record.genre) == ("Record", "Band", 3, 2001, "Rock")
    assert [song.title for song in record.song] == ["Song 1", "Song 2", "Song 3"]
    song = alice.get_song(record.song[0].id)
    assert (song.album_id, song.suffix, song.content_type, song.duration, song.track) == (record_id, "flac", "audio/flac", 2, 1)
    assert song.size == (server.music / "Band" / "Record" / "01.flac").stat().st_size
    # The same album in XML: songs are child elements with their fields as attributes.
    xml = server.xml("getAlbum.view", [("id", record_id)])
    assert [s.get("title") for s in xml.find(f"{NAMESPACE}album").findall(f"{NAMESPACE}song")] == ["Song 1", "Song 2", "Song 3"]
    genres = {genre.value: genre.song_count for genre in alice.get_genres()}
    assert genres == {"Jazz": 2, "Rock": 3}


def test_album_lists(server, alice):
    def names(kind, **extra):
        return [album.name for album in alice.get_album_list2(kind, **extra)]

    assert names("alphabeticalByName") == ["Record", "Tape"]
    assert names("alphabeticalByArtist") == ["Record", "Tape"]
    assert names("alphabeticalByName", size=1, offset=1) == ["Tape"]
    assert sorted(names("random")) == ["Record", "Tape"]
    assert sorted(names("newest")) == ["Record", "Tape"]
    assert names("byYear", from_year=2000, to_year=2002) == ["Record", "Tape"]
    assert names("byGenre", genre="Jazz") == ["Tape"]
    assert [album.name for album in alice.get_album_list("alphabeticalByName")] == ["Record", "Tape"]
    assert len(alice.get_random_songs(size=3)) == 3


def test_search_everything_page_by_page(server, alice):
    found = alice.search3("tape")
    assert [album.name for album in found.album or []] == ["Tape"]
    titles = []
    for offset in range(0, SONGS + 2, 2):
        page = alice.search3('""', artist_count=0, album_count=0, song_count=2, song_offset=offset)
        titles += [song.title for song in page.song or []]
    assert len(titles) == SONGS and sorted(titles) == ["Song 1", "Song 1", "Song 2", "Song 2", "Song 3"]
    everything = alice.search3("", artist_count=10, album_count=10, song_count=10)
    assert (len(everything.artist), len(everything.album), len(everything.song)) == (2, 2, SONGS)


def test_stream_download_and_ranges(server, alice):
    song = next(s for s in alice.search3("", song_count=10).song if s.title == "Song 1" and s.album == "Record")
    original = (server.music / "Band" / "Record" / "01.flac").read_bytes()
    streamed = alice.stream(song.id)
    assert streamed.status == 200 and streamed.headers["Accept-Ranges"] == "bytes"
    assert int(streamed.headers["Content-Length"]) == len(original)
    assert body(alice, streamed) == original
    assert body(alice, alice.download(song.id)) == original
    part = alice.stream(song.id, byte_range="bytes=1000-4999")
    assert part.status == 206 and part.headers["Content-Range"] == f"bytes 1000-4999/{len(original)}"
    assert body(alice, part) == original[1000:5000]
    # The whole file by ranges, as a player seeking through it would read it.
    pieces, start = [], 0
    while start < len(original):
        status, headers, chunk = server.raw("stream", [("id", song.id)], headers={"Range": f"bytes={start}-{start + 65535}"})
        assert status == 206
        pieces.append(chunk)
        start += len(chunk)
    assert b"".join(pieces) == original
    status, headers, _ = server.raw("stream", [("id", song.id)], headers={"Range": f"bytes={len(original)}-"})
    assert status == 416 and headers["Content-Range"] == f"bytes */{len(original)}"


def test_cover_art(server, alice):
    record = next(album for album in alice.get_album_list2("alphabeticalByName") if album.name == "Record")
    assert record.cover_art
    cover = alice.get_cover_art(record.cover_art)
    assert cover.headers["Content-Type"].startswith("image/") and len(body(alice, cover)) > 0
    by_album = alice.get_cover_art(record.id, size=32)
    assert by_album.headers["Content-Type"] == "image/jpeg" and body(alice, by_album)[:2] == b"\xff\xd8"
    tape = next(album for album in alice.get_album_list2("alphabeticalByName") if album.name == "Tape")
    with pytest.raises(errors.DataNotFoundError):
        alice.get_cover_art(tape.id)


def test_star_unstar_and_starred(server, alice):
    album = alice.get_album_list2("alphabeticalByName")[0]
    song = alice.get_album(album.id).song[0]
    alice.star(sids=[song.id], album_ids=[album.id])
    starred = alice.get_starred2()
    assert [s.id for s in starred.song] == [song.id] and [a.id for a in starred.album] == [album.id]
    assert starred.song[0].starred
    # alice is the owner: her stars are Crate's favorites, which the HTTP API shows.
    favorites = server.crate.get("/api/v1/favorites")
    assert [t["title"] for t in favorites["tracks"]] == [song.title]
    bob = server.connection(BOB)
    try:
        assert not (bob.get_starred2().song or [])
    finally:
        bob.cleanup()
    alice.unstar(sids=[song.id], album_ids=[album.id])
    assert not (alice.get_starred2().song or [])
    assert server.crate.get("/api/v1/favorites")["tracks"] == []


def test_scrobble_counts_a_play(server):
    bob = server.connection(BOB)
    try:
        song = bob.get_album(bob.get_album_list2("alphabeticalByName")[1].id).song[0]
        before = bob.get_song(song.id).play_count or 0
        bob.scrobble(song.id, submission=True)
        assert bob.get_song(song.id).play_count == before + 1
        assert [album.name for album in bob.get_album_list2("frequent")] == ["Tape"]
        # A "now playing" notice is not a play.
        bob.scrobble(song.id, submission=False)
        assert bob.get_song(song.id).play_count == before + 1
    finally:
        bob.cleanup()


def test_admin_only_and_user(server):
    bob = server.connection(BOB)
    try:
        with pytest.raises(errors.AuthError):
            bob.start_scan()
        user = bob.get_user("bob")
        assert user.username == "bob" and user.admin_role is False and user.stream_role is True
        with pytest.raises(errors.AuthError):
            bob.get_user("alice")
        assert bob.get_scan_status().scanning in (True, False)
    finally:
        bob.cleanup()
    admin = server.connection()
    try:
        assert admin.start_scan().scanning in (True, False)
        wait_until("the scan to end", lambda: not admin.get_scan_status().scanning, seconds=60)
    finally:
        admin.cleanup()


def test_token_is_md5_of_password_and_salt(server):
    """The spec's example, then a token made here by hand (not by py-opensonic) signing in over GET."""
    assert hashlib.md5(b"sesamec19b2d").hexdigest() == "26719a1196d2a940705a59634eb18eab"
    token = hashlib.md5((ALICE[1] + "f00d").encode()).hexdigest()
    query = urllib.parse.urlencode({"u": "alice", "t": token, "s": "f00d", "v": "1.16.1", "c": "t", "f": "json"})
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/rest/ping?{query}", timeout=30) as answer:
        assert b'"status":"ok"' in answer.read()


def test_folders_are_artists_albums_and_songs(server, alice):
    indexes = alice.get_indexes()
    assert indexes.ignored_articles == "The A An" and indexes.last_modified > 0
    artists = [artist for index in indexes.index for artist in index.artist]
    assert sorted(artist.name for artist in artists) == ["Band", "Other"]
    band = next(artist for artist in artists if artist.name == "Band")
    folder = alice.get_music_directory(band.id)
    assert (folder.id, folder.name) == (band.id, "Band")
    assert [(child.title, child.is_dir) for child in folder.child] == [("Record", True)]
    # The folders' ids are the tag endpoints' ids.
    assert folder.child[0].id == alice.get_artist(band.id).album[0].id
    album = alice.get_music_directory(folder.child[0].id)
    assert album.parent == band.id and [song.title for song in album.child] == ["Song 1", "Song 2", "Song 3"]
    assert not any(song.is_dir for song in album.child)
    # In XML, as DSub reads it.
    xml = server.xml("getIndexes")
    assert [index.get("name") for index in xml.findall(f"{NAMESPACE}indexes/{NAMESPACE}index")] == ["B", "O"]
    with pytest.raises(errors.DataNotFoundError):
        alice.get_music_directory("al-999999")


def test_songs_by_genre_and_info(server, alice):
    assert [song.title for song in alice.get_songs_by_genre("Jazz")] == ["Song 1", "Song 2"]
    assert [song.title for song in alice.get_songs_by_genre("rock", count=2, offset=1)] == ["Song 2", "Song 3"]
    band = next(artist for index in alice.get_artists().index for artist in index.artist if artist.name == "Band")
    info = alice.get_artist_info2(band.id)
    assert info.biography == "" and not info.similar_artist
    assert f"/rest/getCoverArt?id={band.id}&size=300&u=alice&t=" in info.small_image_url
    # The link is loaded as it is, as an app loads a picture.
    with urllib.request.urlopen(info.large_image_url, timeout=30) as answer:
        assert answer.headers["Content-Type"] == "image/jpeg" and answer.read()[:2] == b"\xff\xd8"
    record = alice.get_artist(band.id).album[0]
    assert alice.get_album_info2(record.id).medium_image_url.startswith(f"http://127.0.0.1:{server.port}/rest/getCoverArt?id={record.id}&")


def test_now_playing_and_users(server, alice):
    bob = server.connection(BOB)
    try:
        song = alice.get_album(alice.get_album_list2("alphabeticalByName")[0].id).song[2]
        bob.scrobble(song.id, submission=False)
        bobs = [entry for entry in alice.get_now_playing() if entry.username == "bob"]
        assert [(entry.id, entry.player_name, entry.minutes_ago) for entry in bobs] == [(song.id, "crate-tests", 0)]
        users = {user.username: user for user in alice.get_users()}
        assert sorted(users) == ["alice", "bob"]
        assert users["alice"].admin_role and users["alice"].jukebox_role and users["alice"].settings_role
        assert not (users["bob"].admin_role or users["bob"].jukebox_role or users["bob"].settings_role)
        assert users["bob"].stream_role and users["bob"].download_role and users["bob"].scrobbling_enabled
        with pytest.raises(errors.AuthError):
            bob.get_users()
    finally:
        bob.cleanup()


def test_internet_radio_stations_are_edited_by_admins(server, alice):
    def named(name):
        return [station for station in alice.get_internet_radio_stations() if station.name == name]

    assert alice.create_internet_radio_station("http://radio.example/live", "Test FM", homepage_url="http://radio.example")
    [station] = named("Test FM")
    assert station.stream_url == "http://radio.example/live"
    assert alice.update_internet_radio_station(station.id, "https://radio.example/hq", "Test FM HQ")
    [updated] = named("Test FM HQ")
    assert updated.stream_url == "https://radio.example/hq" and not named("Test FM")
    # They are Crate's stations: the HTTP API (the web page) lists the same.
    assert [s["url"] for s in server.crate.get("/api/v1/stations") if s["name"] == "Test FM HQ"] == ["https://radio.example/hq"]
    bob = server.connection(BOB)
    try:
        with pytest.raises(errors.AuthError):
            bob.delete_internet_radio_station(updated.id)
    finally:
        bob.cleanup()
    assert alice.delete_internet_radio_station(updated.id)
    assert not named("Test FM HQ")


def test_lyrics_from_the_songs_tags(server, alice):
    tape = next(album for album in alice.get_album_list2("alphabeticalByName") if album.name == "Tape")
    first, second = alice.get_album(tape.id).song
    [lyrics] = alice.get_lyrics_by_song_id(second.id)
    assert lyrics.synced and lyrics.lang == "und" and lyrics.display_title == "Song 2"
    assert [(line.start, line.value) for line in lyrics.line] == [(500, "First line"), (1200, "Second line")]
    assert alice.get_lyrics_by_song_id(first.id) == []
    found = alice.get_lyrics(artist="Other", title="Song 2")
    assert (found.artist, found.title, found.value) == ("Other", "Song 2", "First line\nSecond line")
    assert alice.get_lyrics(artist="Nobody", title="Nothing").value == ""


def test_jukebox_drives_crateds_own_player(server, alice):
    record = alice.get_album(alice.get_album_list2("alphabeticalByName")[0].id)
    asked = record.song[1]
    # py-opensonic sends songs with `add` only; `set` goes as DSub sends it, ids repeated.
    status, _, answer = server.raw("jukeboxControl", [("action", "set"), ("id", asked.id), ("id", record.song[2].id)])
    assert status == 200 and b'status="ok"' in answer
    started = alice.jukebox_control("start")
    assert started.playing and started.current_index == 0

    def playing_the_song_asked():
        player = server.crate.get("/api/v1/player")
        return player["state"] == "playing" and player["entry"]["track"]["id"] == int(asked.id.removeprefix("tr-"))

    wait_until("crated's player to play the song the jukebox was given", playing_the_song_asked, seconds=10)
    listed = alice.jukebox_control("get")
    assert [entry.id for entry in listed.entry] == [asked.id, record.song[2].id]
    assert not alice.jukebox_control("stop").playing
    assert server.crate.get("/api/v1/player")["state"] == "paused"
    bob = server.connection(BOB)
    try:
        with pytest.raises(errors.AuthError):
            bob.jukebox_control("status")
    finally:
        bob.cleanup()
    assert alice.jukebox_control("clear").current_index == -1


def test_guessing_a_password_is_slowed_down_and_never_logged(server):
    """50 wrong passwords for alice from 127.0.0.1: each is answered at once with 40, after the first three with the
    wait ("try again in"); the log has a warning for each one checked and says sign-ins are slowed down, and holds
    neither the guesses nor the password; the right password works again once the wait is over."""
    start = server.crate.log.stat().st_size

    def logged():
        return server.crate.log.read_bytes()[start:].decode(errors="replace")

    guesses = [f"guess-{n:02d}-of-alices-password" for n in range(50)]
    began = time.monotonic()
    messages = []
    for guess in guesses:
        answer = server.xml("ping", user=(ALICE[0], guess))
        error = answer.find(f"{NAMESPACE}error")
        assert answer.get("status") == "failed" and error.get("code") == "40"
        messages.append(error.get("message"))
    # Refusals are immediate: the wait is the guesser's, never a sleeping server's.
    assert time.monotonic() - began < 25
    checked = [message for message in messages if "try again in" not in message]
    assert messages[:3] == ["wrong username or password"] * 3
    assert len(messages) - len(checked) > len(checked), messages

    wait_until("a warning for each password checked", lambda: logged().count("sign-in failed for 'alice' from 127.0.0.1") == len(checked),
               seconds=10)
    assert "sign-ins for alice are slowed down" in logged()
    # The longest wait is 60 s: the right password works again within it.
    wait_until("alice's password to work again", lambda: server.xml("ping").get("status") == "ok", seconds=70)
    text = logged()
    assert not [line for line in text.splitlines() if ALICE[1] in line or any(guess in line for guess in guesses)]


# ---- Transcoding ------------------------------------------------------------------------------------------------

LONG = 30.0  # seconds


@pytest.fixture(scope="module")
def transcoding(tmp_path_factory):
    """A crated with one 30-second song, and a rule: the app that calls itself PhoneApp gets MP3 at 96 kbit/s."""
    root = tmp_path_factory.mktemp("transcode")
    crate = Crate(root / "home")
    crate.home.mkdir(parents=True, exist_ok=True)
    music = root / "music"
    crate.make_album(music / "Long" / "Play", "Long", "Play", 1, seconds=LONG)
    crate.cli("import", "--quiet", str(music))
    crate.cli("users", "add", ALICE[0], "--admin", "--password-stdin", input=ALICE[1] + "\n")
    port = free_port()
    crate.start(extra={"CRATE_SUBSONIC_ADDRESS": f"127.0.0.1:{port}", "CRATE_SUBSONIC_TRANSCODE": "client:PhoneApp=mp3 96",
                       "CRATE_LOG_LEVEL": "debug"})
    served = Server(crate, port, "", music)
    wait_until(f"the Subsonic API on port {port} (log: {crate.log})", lambda: served.raw("ping", [])[0] == 200, seconds=60)
    try:
        yield served
    finally:
        crate.stop()


def probe(data: bytes, folder: Path, name: str):
    """ffprobe's codec, duration and bit rate of `data`."""
    path = folder / name
    path.write_bytes(data)
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name:format=duration",
                          "-of", "default=nw=1", str(path)], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return fields.get("codec_name"), float(fields.get("duration", "-1"))


def test_stream_transcodes_to_opus_and_mp3_with_the_songs_length(transcoding, tmp_path):
    conn = transcoding.connection()
    try:
        song = conn.search3("", song_count=10).song[0]
        extensions = {e.name for e in conn.get_open_subsonic_extensions()}
        assert "transcodeOffset" in extensions
        opus = conn.stream(song.id, tformat="opus")
        assert opus.status == 200 and opus.headers["Content-Type"] == "audio/ogg"
        assert probe(body(conn, opus), tmp_path, "a.opus") == ("opus", pytest.approx(LONG, abs=0.1))
        mp3 = conn.stream(song.id, tformat="mp3", max_bit_rate=128)
        assert mp3.headers["Content-Type"] == "audio/mpeg"
        codec, seconds = probe(body(conn, mp3), tmp_path, "a.mp3")
        assert codec == "mp3" and seconds == pytest.approx(LONG, abs=0.1)
        # timeOffset (transcodeOffset): the transcode starts that far in.
        later = conn.stream(song.id, tformat="mp3", time_offset=10)
        assert probe(body(conn, later), tmp_path, "b.mp3") == ("mp3", pytest.approx(LONG - 10, abs=0.1))
        # Only a lower bit rate asked for: Opus at that rate, well under the FLAC original.
        small = body(conn, conn.stream(song.id, max_bit_rate=64))
        assert probe(small, tmp_path, "c.opus")[0] == "opus" and len(small) < 64_000 * LONG / 8 * 1.2
        # raw: the original bytes, whatever else is asked.
        original = (transcoding.music / "Long" / "Play" / "01.flac").read_bytes()
        assert body(conn, conn.stream(song.id, tformat="raw", max_bit_rate=64)) == original
        assert body(conn, conn.stream(song.id)) == original
    finally:
        conn.cleanup()


def test_an_estimated_length_is_the_length_sent(transcoding, tmp_path):
    song = transcoding.xml("search3", [("query", "")]).find(f"{NAMESPACE}searchResult3/{NAMESPACE}song").get("id")
    status, headers, data = transcoding.raw("stream", [("id", song), ("format", "opus"), ("estimateContentLength", "true")])
    assert status == 200 and int(headers["Content-Length"]) == len(data)
    assert probe(data, tmp_path, "e.opus") == ("opus", pytest.approx(LONG, abs=0.1))


def test_a_rule_picks_the_format_for_an_app(transcoding, tmp_path):
    song = transcoding.xml("search3", [("query", "")]).find(f"{NAMESPACE}searchResult3/{NAMESPACE}song").get("id")
    query = urllib.parse.urlencode([("u", ALICE[0]), ("p", ALICE[1]), ("v", "1.16.1"), ("c", "PhoneApp"), ("id", song)])
    with urllib.request.urlopen(f"http://127.0.0.1:{transcoding.port}/rest/stream?{query}", timeout=60) as answer:
        assert answer.headers["Content-Type"] == "audio/mpeg"
        data = answer.read()
    assert probe(data, tmp_path, "r.mp3") == ("mp3", pytest.approx(LONG, abs=0.1))
    # 96 kbit/s: about 360 KB for 30 s.
    assert 96_000 * LONG / 8 * 0.8 < len(data) < 96_000 * LONG / 8 * 1.2, len(data)


def test_a_listener_who_hangs_up_stops_the_transcode(transcoding):
    """The client reads one chunk of a transcode and closes the connection: the daemon says the transcode stopped."""
    song = transcoding.xml("search3", [("query", "")]).find(f"{NAMESPACE}searchResult3/{NAMESPACE}song").get("id")
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", transcoding.port, timeout=30)
    query = urllib.parse.urlencode([("u", ALICE[0]), ("p", ALICE[1]), ("v", "1.16.1"), ("c", "t"), ("id", song), ("format", "opus")])
    connection.request("GET", f"/rest/stream?{query}")
    answer = connection.getresponse()
    assert answer.status == 200 and len(answer.read(4096)) == 4096
    connection.close()
    wait_until("the daemon to stop the transcode", lambda: "stopped: the listener went away" in transcoding.crate.log.read_text(), seconds=30)


def test_playlists_are_each_accounts_own_and_shared_when_public(server, alice):
    bob = server.connection(BOB)
    try:
        songs = [s.id for s in alice.search3("", song_count=10).song]
        # bob's playlist is his: alice does not see it, nor does Crate's own list (the web page's).
        assert bob.create_playlist(name="Bob's mix", song_ids=songs[:3])
        mix = next(p for p in bob.get_playlists() if p.name == "Bob's mix")
        assert mix.id.startswith("pu-") and mix.owner == "bob" and mix.song_count == 3
        assert all(p.name != "Bob's mix" for p in alice.get_playlists())
        assert all(p["name"] != "Bob's mix" for p in server.crate.get("/api/v1/playlists"))
        # Shared: alice sees it, read-only; her edit is refused (50).
        assert bob.update_playlist(mix.id, comment="for the road", song_ids_to_add=[songs[4]], song_indices_to_remove=[0])
        server.raw("updatePlaylist", [("playlistId", mix.id), ("public", "true")], user=BOB)
        shared = alice.get_playlist(mix.id)
        assert shared.comment == "for the road" and [e.id for e in shared.entry] == [songs[1], songs[2], songs[4]]
        assert server.xml("getPlaylists").find(f".//{NAMESPACE}playlist[@id='{mix.id}']").get("readonly") == "true"
        with pytest.raises(errors.AuthError):
            alice.delete_playlist(mix.id)
        assert bob.delete_playlist(mix.id)
        # The owner's playlist is Crate's own: the web page lists it.
        assert alice.create_playlist(name="Alice's own", song_ids=songs[:2])
        assert any(p["name"] == "Alice's own" and p["trackCount"] == 2 for p in server.crate.get("/api/v1/playlists"))
        # A play queue to resume on another device.
        assert bob.save_play_queue(songs[:4], current=songs[2], position=61_000)
        queue = bob.get_play_queue()
        assert [e.id for e in queue.entry] == songs[:4] and queue.current == songs[2] and queue.position == 61_000
        assert queue.username == "bob" and queue.changed_by == "crate-tests"
    finally:
        bob.cleanup()
