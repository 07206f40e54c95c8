"""Issue 29 in the web page, in Debian's Chromium against a real crated: Settings lists the daemon's outputs with a
switch each (clicked, tapped, pressed from the keyboard and switched by another client through the event stream).
Every effect is checked with the daemon; every wait is bounded and names what it waits for."""
import tempfile
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from crate_harness import Crate, album_id, player, wait_until

DESKTOP = dict(viewport={"width": 1440, "height": 900})
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
DEVICES = {"desktop": DESKTOP, "phone-390": PHONE}


def make_library(crate, root: Path):
    """One album of two minute-long tones, played on repeat so the stream always carries music."""
    music = root / "music"
    crate.make_album(music / "Tones", "Tester", "Tones", 2, seconds=60)
    crate.cli("import", str(music))


@pytest.fixture(scope="module")
def daemon():
    """crated with the null output (in real time, so the stream runs at the music's pace) and the stream output."""
    with tempfile.TemporaryDirectory(prefix="crate-outputs-") as tmp:
        crate = Crate(Path(tmp))
        make_library(crate, Path(tmp))
        crate.start(extra={"CRATE_OUTPUT_PLUGIN": "null,stream", "CRATE_OUTPUTS_NULL_RENDER": "false"})
        try:
            yield crate
        finally:
            crate.stop()


@pytest.fixture
def context_for(browser):
    """A page in a new browser context with the given device options; `page.errors` collects page errors and console
    errors (but a song without lyrics answers 404 when the sheet asks, and `allow` lists what a test expects)."""
    made = []

    def make(**options):
        context = browser.new_context(**options)
        made.append(context)
        page = context.new_page()
        page.errors = []
        page.allow = ["/lyrics"]
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(f"{m.text} ({(m.location or {}).get('url', '')})")
                if m.type == "error" and not any(a in (m.location or {}).get("url", "") for a in page.allow) else None)
        return page
    yield make
    for context in made:
        context.close()


def holds(page, what, expression, seconds=20):
    """Waits until `expression` is true in the page (polled from here: the page's CSP forbids the eval that
    Playwright's wait_for_function needs)."""
    return wait_until(f"{what} ({expression})", lambda: page.evaluate(expression), seconds=seconds)


def outputs(daemon):
    return {o["name"]: o for o in daemon.get("/api/v1/outputs")}


def switch(daemon, name, enabled):
    return daemon.request("POST", f"/api/v1/outputs/{name}", {"enabled": enabled})


def all_on(daemon):
    for name, output in outputs(daemon).items():
        if not output["enabled"]:
            switch(daemon, name, True)


def playing(daemon):
    """The album playing on repeat (the stream carries music, not the silence of a stopped player)."""
    if player(daemon)["state"] != "playing":
        daemon.request("PUT", "/api/v1/player/options", {"repeat": "all"})
        daemon.request("POST", "/api/v1/queue/play-album", {"albumID": album_id(daemon, "Tones"), "from": 1})
        wait_until("the album to play", lambda: player(daemon)["state"] == "playing", seconds=30)


def row_switch(page, name):
    """The switch of output `name` (its accessible name starts with the output's name)."""
    return page.locator(f"#page-view .output[data-output='{name}'] input")


def open_settings(page, daemon):
    page.goto(daemon.base + "/#/settings")
    page.wait_for_selector("#page-view .output-list .output")
    holds(page, "a row per output", f"document.querySelectorAll('#page-view .output').length === {len(outputs(daemon))}")


@pytest.mark.parametrize("device", DEVICES)
def test_settings_lists_the_outputs_and_switches_them(context_for, daemon, device):
    page = context_for(**DEVICES[device])
    playing(daemon)
    wait_until("both outputs to have opened", lambda: all("destination" in o for o in outputs(daemon).values()))
    open_settings(page, daemon)
    try:
        # Each output is a real switch named by the output and where it sends the sound.
        for name, output in outputs(daemon).items():
            box = row_switch(page, name)
            assert box.get_attribute("role") == "switch" and box.get_attribute("type") == "checkbox"
            label = page.get_by_role("switch", name=f"{name}, {output['destination']}", exact=True)
            assert label.count() == 1, f"no switch named {name}, {output['destination']}"
            assert box.is_checked() == output["enabled"]
        # The stream's address, for players on the network.
        link = page.locator("#page-view .output[data-output='stream'] .output-stream a")
        assert link.get_attribute("href") == daemon.base + "/stream.opus"
        # A click (a tap on the phone) switches the null output off, and on again.
        null = row_switch(page, "null")
        (null.tap if device != "desktop" else null.click)()
        wait_until("the daemon to switch null off", lambda: outputs(daemon)["null"]["enabled"] is False)
        assert not null.is_checked()
        (null.tap if device != "desktop" else null.click)()
        wait_until("the daemon to switch null on", lambda: outputs(daemon)["null"]["enabled"] is True)
        # From the keyboard: space on the focused switch, which keeps the focus when the answer and the event
        # redraw it (else the next space would be the page's play/pause).
        null.focus()
        page.keyboard.press("Space")
        wait_until("the daemon to switch null off by the keyboard", lambda: outputs(daemon)["null"]["enabled"] is False)
        holds(page, "the switch off", f"!document.querySelector(\"#page-view .output[data-output='null'] input\").checked")
        assert page.evaluate("document.activeElement.closest('.output')?.dataset.output") == "null", "the switch lost the focus"
        page.keyboard.press("Space")
        wait_until("the daemon to switch null on by the keyboard", lambda: outputs(daemon)["null"]["enabled"] is True)
        holds(page, "the switch on again", f"document.querySelector(\"#page-view .output[data-output='null'] input\").checked")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), "Settings scrolls sideways"
    finally:
        all_on(daemon)
    assert page.errors == [], page.errors


def test_a_switch_follows_another_client(context_for, daemon):
    page = context_for(**DESKTOP)
    open_settings(page, daemon)
    try:
        null = "document.querySelector(\"#page-view .output[data-output='null'] input\").checked"
        switch(daemon, "null", False)
        holds(page, "the null switch off after another client's POST", f"!{null}")
        switch(daemon, "null", True)
        holds(page, "the null switch on after another client's POST", null)
        stream = "document.querySelector(\"#page-view .output[data-output='stream'] input\").checked"
        switch(daemon, "stream", False)
        holds(page, "the stream switch off", f"!{stream}")
        switch(daemon, "stream", True)
        holds(page, "the stream switch on", stream)
    finally:
        all_on(daemon)
    # Light and dark, the section has no serious accessibility violation.
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        # The pills' colours ease into the new scheme: measured once they are there.
        holds(page, "the colour transitions to end", "document.getAnimations().length === 0")
        results = Axe().run(page)
        serious = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in results.response["violations"]
                   if v["impact"] in ("serious", "critical")]
        assert serious == [], f"{scheme}: {serious}"
    assert page.errors == [], page.errors
