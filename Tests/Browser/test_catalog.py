"""Issue 15: catalog albums on the wall (Apple Music through the loopback stand-in, Benchmarks/fake_apple.py):
their page lists the tracks and links to Apple Music; like and dislike reach the daemon."""
import subprocess
import tempfile

from pathlib import Path

import pytest

from conftest import ROOT, Crate, wait_until


@pytest.fixture(scope="module")
def catalog_daemon():
    with tempfile.TemporaryDirectory(prefix="crate-catalog-") as tmp:
        work = Path(tmp)
        key = work / "AuthKey_TESTKEY001.p8"
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(key)],
                       check=True, capture_output=True)
        key.chmod(0o600)
        port_file = work / "fake.port"
        fake = subprocess.Popen(["python3", str(ROOT / "Benchmarks" / "fake_apple.py"), "serve", "--latency-ms", "0",
                                 "--log", str(work / "requests.jsonl"), "--port-file", str(port_file)],
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
            wait_until("a wall with catalog albums",
                       lambda: any(str(e["id"]).startswith("applemusic:") for e in crate.get("/api/v1/wall")["entries"]), seconds=60)
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
