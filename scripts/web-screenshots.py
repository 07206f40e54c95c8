"""Screenshots of the web page for Docs/ and the README: a crated on a loopback port with a generated library of
covers, Debian's Chromium through Playwright. Usage: .build/browser-venv/bin/python scripts/web-screenshots.py"""
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "Tests"), str(Path(__file__).resolve().parents[1] / "Tests" / "Browser")]
import tempfile  # noqa: E402

from playwright.sync_api import sync_playwright  # noqa: E402

from crate_harness import CHROMIUM, Crate, PulseServer, wait_until  # noqa: E402
from test_wall import make_track  # noqa: E402

NAMES = ["Morning Haze", "Blue Cathedral", "Night Drive", "Paper Moons", "Low Tide", "Copper Sky", "Field Notes",
         "Glass Garden", "Northern Line", "Slow Orbit", "Amber Room", "Static Bloom", "Quiet Engines", "Salt & Honey",
         "Winter Radio", "Open Water", "Second Light", "Dust Choir", "Velvet Hours", "Tin Roof", "Far Shore",
         "Small Hours", "Echo Park", "Red Thread"]
OUT = Path(__file__).resolve().parents[1] / "Docs" / "screenshots"


def covers_shown(page):
    """Waits until every cover on the screen is decoded (lazy ones below it load later)."""
    wait_until("every cover on screen decoded", lambda: page.evaluate(
        "[...document.images].every(i => i.hidden || i.getBoundingClientRect().top > innerHeight || (i.complete && i.naturalWidth > 0))"))


with tempfile.TemporaryDirectory(prefix="crate-shots-") as tmp:
    home = Path(tmp)
    (home / "pa").mkdir()
    pulse = PulseServer(home / "pa")
    crate = Crate(home)
    music = home / "music"
    for i, name in enumerate(NAMES):
        folder = music / name
        folder.mkdir(parents=True)
        colour = [0xd9593c, 0x2f6db3, 0x1c1c3a, 0xe8c547, 0x2c8c7c, 0xb5542d, 0x6b8f3a, 0x8e5bb5][i % 8] ^ (i * 0x050307)
        for n in range(1, 4 if i else 6):
            make_track(folder / f"{n:02d}.flac", f"{name.split()[0]} {n}", f"Artist {i % 7 + 1}", name, n, 3 if i else 5,
                       90 if i == 0 else 3, colour & 0xFFFFFF, ["Rock", "Jazz", "Electronic"][i % 3])
    crate.env.update({"CRATE_OUTPUT_PLUGIN": "pulse", "CRATE_OUTPUTS_PULSE_SERVER": pulse.address})
    crate.cli("import", str(music))
    crate.start()
    try:
        OUT.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(crate.base + "/")
            page.wait_for_selector("#wall li img")
            first = next(a["id"] for a in crate.get("/api/v1/albums") if a["title"] == NAMES[0])
            crate.request("POST", "/api/v1/queue/play-album", {"albumID": first, "from": 2})
            wait_until("playing", lambda: crate.get("/api/v1/player")["state"] == "playing")
            crate.request("POST", "/api/v1/player/seek", {"position": 35})
            covers_shown(page)
            page.screenshot(path=str(OUT / "wall.png"))
            page.goto(crate.base + f"/#/album/{first}")
            page.wait_for_selector("#album-view .track.playing")
            page.screenshot(path=str(OUT / "detail.png"))
            page.locator("#player").screenshot(path=str(OUT / "footer.png"))
            # A phone (390×844, touch): the wall, an album, search and the now-playing sheet.
            phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                        has_touch=True).new_page()
            phone.goto(crate.base + "/")
            phone.wait_for_selector("#wall li img")
            covers_shown(phone)
            phone.screenshot(path=str(OUT / "phone-wall.png"))
            phone.goto(crate.base + f"/#/album/{first}")
            phone.wait_for_selector("#album-view .track.playing")
            phone.screenshot(path=str(OUT / "phone-album.png"))
            phone.goto(crate.base + "/")
            phone.tap("#search-button")
            phone.keyboard.type("Night")
            phone.wait_for_selector("#search-view .cover-result img")
            phone.screenshot(path=str(OUT / "phone-search.png"))
            phone.goto(crate.base + "/")
            phone.tap("#np-open")
            phone.wait_for_selector("#sheet[open] .sheet-art:not([hidden])")
            wait_until("the sheet's cover", lambda: phone.evaluate("document.querySelector('.sheet-art').complete"))
            phone.screenshot(path=str(OUT / "phone-now-playing.png"))
            browser.close()
    finally:
        crate.stop()
        pulse.stop()
print(f"screenshots in {OUT}")
