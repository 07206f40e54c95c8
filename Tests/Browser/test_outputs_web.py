"""Issue 29 in the web page, in Debian's Chromium against a real crated: Settings lists the daemon's outputs with a
switch each (clicked, pressed from the keyboard and switched by another client through the event stream), and
"Listen here" plays the stream output (`/stream.opus`, Ogg Opus) in the page's own <audio> element on a desktop and
a phone, with its own volume, says why the daemon refuses (503) and reconnects, hides when the stream is switched
off, and mutes the daemon's speakers (a private PulseAudio) while it listens. Every effect is checked with the
daemon; every wait is bounded and names what it waits for."""
import tempfile
import threading
import urllib.request
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from crate_harness import Crate, album_id, player, wait_until

DESKTOP = dict(viewport={"width": 1440, "height": 900})
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True)
DEVICES = {"desktop": DESKTOP, "phone-390": PHONE}
# The page's own listeners hold at most this many of the stream's places; the refusal test fills them.
MAX_LISTENERS = 2


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
        crate.start(extra={"CRATE_OUTPUT_PLUGIN": "null,stream", "CRATE_OUTPUTS_NULL_RENDER": "false",
                           "CRATE_OUTPUTS_STREAM_MAX_LISTENERS": str(MAX_LISTENERS)})
        try:
            yield crate
        finally:
            crate.stop()


@pytest.fixture(scope="module")
def speakers_daemon(pulse):
    """crated with a device output (PulseAudio, on the private server's null sink) and the stream output."""
    with tempfile.TemporaryDirectory(prefix="crate-speakers-") as tmp:
        crate = Crate(Path(tmp))
        make_library(crate, Path(tmp))
        crate.start(extra={"CRATE_OUTPUT_PLUGIN": "pulse,stream", "CRATE_OUTPUTS_PULSE_SERVER": pulse.address})
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


AUDIO = "document.getElementById('listen-audio')"


def hears(page, seconds=2.0, bound=30):
    """Waits until the page's <audio> element plays the stream and its clock has run `seconds` more."""
    start = holds(page, "the <audio> element to play the stream",
                  f"(() => {{ const a = {AUDIO}; return a && !a.paused && a.readyState >= 3 ? [a.currentTime] : null; }})()",
                  seconds=bound)[0]
    holds(page, f"the stream's currentTime to pass {start:.2f} + {seconds} s", f"{AUDIO}.currentTime >= {start + seconds}",
          seconds=bound)
    src = page.evaluate(f"{AUDIO}.getAttribute('src')")
    assert src == "/stream.opus", src


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
        # The stream output too; its switch and the footer's control follow.
        stream = "document.querySelector(\"#page-view .output[data-output='stream'] input\").checked"
        switch(daemon, "stream", False)
        holds(page, "the stream switch off", f"!{stream}")
        holds(page, "Listen here hidden", "document.querySelector('#player .listen').hidden")
        switch(daemon, "stream", True)
        holds(page, "the stream switch on", stream)
        holds(page, "Listen here shown", "!document.querySelector('#player .listen').hidden")
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


def test_a_late_older_state_does_not_flip_a_switch_back(context_for, daemon):
    """The page's output store (outputs.js, the module the page runs) keeps the later of two states of one output by
    `revision`, not the last to arrive: an event overtaken by the answer to a later switch is not painted over it."""
    page = context_for(**DESKTOP)
    open_settings(page, daemon)
    current = outputs(daemon)["null"]
    kept = page.evaluate("""async (output) => {
        const { Outputs } = await import('/web/js/outputs.js');
        const store = new Outputs();
        const later = { ...output, enabled: false, revision: output.revision + 2 };
        const earlier = { ...output, enabled: true, revision: output.revision + 1 };
        store.apply(later);
        store.apply(earlier);   // arrives last, but is older
        const after = store.list.find((o) => o.name === output.name).enabled;
        store.apply({ ...later, revision: later.revision + 1, enabled: true });   // a newer one is painted
        return [after, store.list.find((o) => o.name === output.name).enabled];
    }""", current)
    assert kept == [False, True], kept
    assert "revision" in current and current["revision"] >= 0, current


def footer_fits(page):
    return page.evaluate("""() => {
        const footer = document.getElementById('player').getBoundingClientRect();
        const button = document.getElementById('listen').getBoundingClientRect();
        return { scrolls: document.documentElement.scrollWidth > innerWidth,
                 inside: footer.top >= 0 && footer.bottom <= visualViewport.height + 0.5 && button.right <= innerWidth + 0.5,
                 button: [button.width, button.height] };
    }""")


@pytest.mark.parametrize("device", DEVICES)
def test_listen_here_plays_the_stream_with_its_own_volume(context_for, daemon, device):
    playing(daemon)
    page = context_for(**DEVICES[device])
    page.goto(daemon.base + "/")
    page.wait_for_selector("#listen", state="visible")
    listen = page.locator("#listen")
    assert listen.get_attribute("aria-pressed") == "false"
    assert page.evaluate(AUDIO) is None, "the <audio> element is made on demand"
    seen = footer_fits(page)
    assert not seen["scrolls"] and seen["inside"], f"{device}: the footer with Listen here: {seen}"
    assert min(seen["button"]) >= 44, f"{device}: Listen here is {seen['button']}"
    (listen.tap if device != "desktop" else listen.click)()
    assert listen.get_attribute("aria-pressed") == "true"
    assert page.evaluate(f"{AUDIO}.preload") == "none"
    hears(page)
    holds(page, "the status to say so", "document.getElementById('listen-status').textContent === 'Listening on this device'")
    # Its own volume, not the daemon's.
    daemon_volume = player(daemon)["modes"]["volume"]
    if device == "desktop":
        volume = page.locator("#listen-volume")
        assert volume.is_visible()
    else:
        page.tap("#np-open")
        holds(page, "the sheet open", "document.getElementById('sheet').open")
        volume = page.locator(".sheet-listen input[data-listen='volume']")
        assert page.locator(".sheet-listen [data-listen='toggle']").get_attribute("aria-pressed") == "true"
        assert page.locator(".sheet-listen .listen-status").text_content() == "Listening on this device"
        results = Axe().run(page)
        serious = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in results.response["violations"]
                   if v["impact"] in ("serious", "critical")]
        assert serious == [], f"the sheet with Listen here: {serious}"
    volume.fill("40")
    holds(page, "the device volume at 0.4", f"Math.abs({AUDIO}.volume - 0.4) < 0.001")
    assert player(daemon)["modes"]["volume"] == daemon_volume
    assert page.evaluate("localStorage.getItem('crate.listen.volume')") == "40"
    if device != "desktop":
        page.keyboard.press("Escape")
        holds(page, "the sheet closed", "!document.getElementById('sheet').open")
    seen = footer_fits(page)
    assert not seen["scrolls"] and seen["inside"], f"{device}: the footer while listening: {seen}"
    # Stop: the element is silent and lets go of the stream.
    (listen.tap if device != "desktop" else listen.click)()
    assert listen.get_attribute("aria-pressed") == "false"
    assert page.evaluate(f"{AUDIO}.paused && !{AUDIO}.hasAttribute('src')")
    # Listening again, the volume is the one chosen; then someone switches the stream off: listening stops and the
    # control goes away; back on, it comes back (not listening).
    (listen.tap if device != "desktop" else listen.click)()
    hears(page, seconds=1)
    assert abs(page.evaluate(f"{AUDIO}.volume") - 0.4) < 0.001
    try:
        switch(daemon, "stream", False)
        holds(page, "Listen here hidden and silent",
              f"document.querySelector('#player .listen').hidden && {AUDIO}.paused && !{AUDIO}.hasAttribute('src')")
        assert listen.get_attribute("aria-pressed") == "false"
    finally:
        switch(daemon, "stream", True)
    holds(page, "Listen here back", "!document.querySelector('#player .listen').hidden")
    assert page.evaluate(f"{AUDIO}.paused")
    assert page.errors == [], page.errors


class Listener(threading.Thread):
    """A player on the network holding one of the stream's places: it reads until told to stop."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.answer = urllib.request.urlopen(url, timeout=30)
        self.done = threading.Event()
        self.start()

    def run(self):
        while not self.done.is_set():
            try:
                if not self.answer.read(4096):
                    return
            except (OSError, ValueError, AttributeError):  # closed by close(), from the test's thread
                return

    def close(self):
        self.done.set()
        self.answer.close()
        self.join(timeout=10)


def test_listen_here_says_why_the_daemon_refuses_and_reconnects(context_for, daemon):
    playing(daemon)
    page = context_for(**DESKTOP)
    # The refusals are the point here: the browser reports each as a failed load.
    page.allow.append("/stream.opus")
    page.goto(daemon.base + "/")
    page.wait_for_selector("#listen", state="visible")
    held = [Listener(daemon.base + "/stream.opus") for _ in range(MAX_LISTENERS)]
    try:
        page.click("#listen")
        status = holds(page, "the daemon's reason (503 too_many_listeners) in the status",
                       "(t => t.includes('listening already') && t)(document.getElementById('listen-status').textContent)")
        assert "Reconnecting in" in status, status
        assert page.locator("#listen").get_attribute("aria-pressed") == "true"
        assert page.locator("#listen.retrying").count() == 1
        assert "listening already" in page.locator("#toast").text_content()
    finally:
        for listener in held:
            listener.close()
    # A place is free again: the next attempt (after a growing delay) plays.
    hears(page, seconds=1, bound=45)
    holds(page, "the status back to listening", "document.getElementById('listen-status').textContent === 'Listening on this device'")
    assert page.locator("#listen.retrying").count() == 0
    page.click("#listen")
    assert page.errors == [], page.errors


def test_listen_here_mutes_the_speakers_while_it_listens(context_for, speakers_daemon):
    daemon = speakers_daemon
    playing(daemon)
    assert outputs(daemon)["pulse"]["device"] is True and outputs(daemon)["stream"]["device"] is False
    page = context_for(**DESKTOP)
    open_settings(page, daemon)
    option = page.get_by_role("checkbox", name="Mute the speakers while listening here")
    option.check()
    assert page.evaluate("localStorage.getItem('crate.listen.muteSpeakers')") == "true"
    listen = page.locator("#listen")
    try:
        listen.click()
        wait_until("the daemon's speakers (pulse) switched off", lambda: outputs(daemon)["pulse"]["enabled"] is False)
        assert outputs(daemon)["stream"]["enabled"] is True
        hears(page)
        record = page.evaluate("JSON.parse(localStorage.getItem('crate.listen.muted'))")
        assert record["names"] == ["pulse"], record
        # Settings shows it off, through the event.
        holds(page, "the pulse switch off", "!document.querySelector(\"#page-view .output[data-output='pulse'] input\").checked")
        listen.click()
        wait_until("the speakers back on when this device stops listening", lambda: outputs(daemon)["pulse"]["enabled"] is True)
        assert page.evaluate("localStorage.getItem('crate.listen.muted')") is None
        # Only what it switched off: speakers someone else switched off stay off.
        switch(daemon, "pulse", False)
        holds(page, "the pulse switch off", "!document.querySelector(\"#page-view .output[data-output='pulse'] input\").checked")
        listen.click()
        hears(page, seconds=1)
        assert page.evaluate("localStorage.getItem('crate.listen.muted')") is None
        listen.click()
        assert page.evaluate(f"{AUDIO}.paused")
        assert outputs(daemon)["pulse"]["enabled"] is False, "the page switched on speakers it had not switched off"
        switch(daemon, "pulse", True)
        # A page that goes away while listening gives the speakers back.
        holds(page, "the pulse switch on", "document.querySelector(\"#page-view .output[data-output='pulse'] input\").checked")
        listen.click()
        wait_until("the speakers switched off again", lambda: outputs(daemon)["pulse"]["enabled"] is False)
        page.reload()
        wait_until("the speakers back on after the page left", lambda: outputs(daemon)["pulse"]["enabled"] is True)
        page.wait_for_selector("#listen", state="visible")
        assert page.locator("#listen").get_attribute("aria-pressed") == "false"
        holds(page, "no record left", "localStorage.getItem('crate.listen.muted') === null")
    finally:
        all_on(daemon)
    assert page.errors == [], page.errors
