"""Issue 15: catalog albums on the wall (Apple Music through the loopback stand-in, Benchmarks/fake_apple.py):
their page lists the tracks and links to Apple Music; like and dislike reach the daemon. Issue 17: their Play button
plays the songs' 30-second previews (served by the stand-in from an AAC file made here) in album order."""
import json
import subprocess
import tempfile

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from crate_harness import ROOT, Crate, wait_until


@pytest.fixture(scope="module")
def catalog_daemon():
    with tempfile.TemporaryDirectory(prefix="crate-catalog-") as tmp:
        work = Path(tmp)
        key = work / "AuthKey_TESTKEY001.p8"
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(key)],
                       check=True, capture_output=True)
        key.chmod(0o600)
        port_file = work / "fake.port"
        # Every song's preview: one second of AAC in MP4, index first, as Apple's previews are.
        preview = work / "preview.m4a"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-ac", "2",
                        "-ar", "44100", "-c:a", "aac", "-movflags", "+faststart", str(preview)], check=True, timeout=120)
        fake = subprocess.Popen(["python3", str(ROOT / "Benchmarks" / "fake_apple.py"), "serve", "--latency-ms", "0",
                                 "--log", str(work / "requests.jsonl"), "--port-file", str(port_file),
                                 "--previews", str(preview)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until("the stand-in catalog", lambda: port_file.exists() and port_file.read_text().strip(), seconds=30)
        (work / "home").mkdir()
        crate = Crate(work / "home")
        crate.env.update({
            "CRATE_SOURCES_APPLECATALOG_BASE_URL": f"http://127.0.0.1:{port_file.read_text().strip()}",
            "CRATE_SOURCES_APPLECATALOG_TEAM_ID": "TESTTEAM01", "CRATE_SOURCES_APPLECATALOG_KEY_ID": "TESTKEY001",
            "CRATE_SOURCES_APPLECATALOG_KEY_PATH": str(key), "CRATE_SOURCES_APPLECATALOG_USER_TOKEN": "test-music-user-token",
        })
        crate.start()
        try:
            crate.request("PUT", "/api/v1/dial", {"dial": "mystery"})
            # The wall composed at start-up (the default dial) is replaced once the new dial's is ready: wait for that
            # one, so the page never redraws under a test.
            def mystery_wall():
                wall = crate.get("/api/v1/wall")
                return wall["dial"] == "mystery" and any(str(e["id"]).startswith("applemusic:") for e in wall["entries"])
            wait_until("a mystery wall with catalog albums", mystery_wall, seconds=60)
            crate.requests = work / "requests.jsonl"
            yield crate
        finally:
            crate.stop()
            fake.terminate()
            fake.wait(timeout=10)


def test_a_catalog_album_opens_its_page_with_the_apple_music_link(page, catalog_daemon):
    page.goto(catalog_daemon.base + "/")
    tile = page.locator("#wall li[data-album^='applemusic:']").first
    tile.wait_for(state="attached")
    ref = tile.get_attribute("data-album")
    tile.locator("a").click()
    link = page.get_by_role("link", name="Open in Apple Music")
    link.wait_for()
    assert link.get_attribute("href") == f"https://music.apple.com/album/{ref.split(':', 1)[1]}"
    assert page.locator("#album-view .track").count() > 0
    page.get_by_role("button", name="Like", exact=True).click()
    page.wait_for_selector("#album-view button[aria-pressed='true']:has-text('Liked')")
    page.get_by_role("button", name="Dislike").click()
    page.wait_for_selector("#wall-view:not([hidden])")
    assert page.locator(f"#wall li[data-album='{ref}']").count() == 0
    # The stand-in's artwork lives on Apple's servers, which this machine cannot reach: those requests are
    # the only ones allowed to fail.
    assert page.console_errors == [] or all("Failed to load resource" in e for e in page.console_errors), page.console_errors
    assert all("mzstatic" in f or "apple.com" in f for f in page.failed_requests), page.failed_requests


def test_play_on_a_catalog_album_plays_its_previews_in_album_order(page, catalog_daemon):
    page.goto(catalog_daemon.base + "/")
    tile = page.locator("#wall li[data-album^='applemusic:']").first
    tile.wait_for(state="attached")
    ref = tile.get_attribute("data-album")
    album_id = ref.split(":", 1)[1]
    tile.locator("a").click()
    play = page.locator("#album-view").get_by_role("button", name="Play", exact=True)
    play.wait_for()
    songs = catalog_daemon.get(f"/api/v1/catalog/albums/{album_id}")["tracks"]
    assert songs and all(s["previewURL"] for s in songs)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith(f"/api/v1/catalog/albums/{album_id}/play")) as answer:
        play.click()
    played = answer.value.json()
    assert answer.value.status == 200, played
    # The answer is the player right after the start: the first song's preview, marked as one.
    assert played["album"] == ref and played["queued"] == len(songs) and played["skipped"] == []
    assert played["status"]["preview"] is True and played["status"]["catalogAlbumID"] == ref
    assert played["status"]["entry"]["track"]["title"] == songs[0]["title"]
    # They play through (the null output renders as fast as it can): every preview is in history, newest first,
    # and the player stopped at the end of the album.
    titles = [s["title"] for s in songs]
    wait_until("the previews to play through", lambda: catalog_daemon.get("/api/v1/player")["state"] == "stopped"
               and [h["track"]["title"] for h in catalog_daemon.get("/api/v1/history")][:len(titles)] == titles[::-1], seconds=60)
    # The stand-in was asked for the previews in album order, each once.
    asked = [json.loads(line)["target"] for line in catalog_daemon.requests.read_text().splitlines() if line.strip()]
    assert [t for t in asked if t.startswith("/previews/")] == [urlsplit(s["previewURL"]).path for s in songs]
    # The hidden preview album is not among the library's albums.
    assert catalog_daemon.get("/api/v1/albums") == []
    assert page.console_errors == [] or all("Failed to load resource" in e for e in page.console_errors), page.console_errors
    assert all("mzstatic" in f or "apple.com" in f for f in page.failed_requests), page.failed_requests
