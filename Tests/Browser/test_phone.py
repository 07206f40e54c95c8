"""Issue 27: the web page on a phone, a tablet and a wide desktop, in Debian's Chromium against a real crated (a
private PulseAudio null sink keeps time): no sideways scrolling, the footer and the now-playing sheet always
reachable by touch, text over artwork measured from pixels, disc headings, the genre bar's stagger (ADR-122),
search with covers and the web app manifest. Every check of an effect asks the daemon."""
import functools
import io
import math
import subprocess
import tempfile
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from PIL import Image, ImageChops

from crate_harness import CHROMIUM, ROOT, Crate, album_id, make_track, player, serving, wait_until

PHONES = {
    "phone-390": dict(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True, has_touch=True),
    "phone-360": dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True, has_touch=True),
    "tablet-820": dict(viewport={"width": 820, "height": 1180}, device_scale_factor=2, is_mobile=True, has_touch=True),
}
DESKTOP = dict(viewport={"width": 1440, "height": 900})
# Covers that are hard on text laid over them: sand (where the durations measured 1.0–1.4:1), white, black, busy.
COVERS = {"Sand": "color=c=0xE6D5B0", "Snow": "color=c=white", "Night": "color=c=black", "Busy": "testsrc2=s=240x240"}
GENRES = ["Rock", "Jazz", "Electronic", "Hip-Hop", "Pop", "Classical", "Country", "Latin"]
ARTIFACTS = ROOT / ".build" / "browser-artifacts"


def cover(path: Path, source: str):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source if "s=" in source else f"{source}:s=240x240",
                    "-frames:v", "1", str(path)], check=True, timeout=60)
    return path


@pytest.fixture(scope="module")
def daemon(pulse):
    with tempfile.TemporaryDirectory(prefix="crate-phone-") as tmp:
        crate = Crate(Path(tmp))
        music, art = Path(tmp) / "music", Path(tmp) / "art"
        art.mkdir()
        red = cover(art / "alpha.png", "color=c=0xC03020")
        for n in range(1, 5):
            make_track(music / "Alpha" / f"{n:02d}.flac", {"title": f"Song {n}", "artist": "Tester", "album": "Alpha",
                                                           "track": f"{n}/4", "genre": "Rock", "date": "2004"},
                       seconds=60, frequency=200 + 40 * n, cover=red)
        # Synced lyrics beside the first song, as LRC taggers leave them.
        (music / "Alpha" / "01.lrc").write_text("[ar:Tester]\n[00:00.00]First line\n[00:05.00]Second line\n[00:10.00]Third line\n"
                                                "[00:20.00]Fourth line\n")
        for name, source in COVERS.items():
            picture = cover(art / f"{name}.png", source)
            for n in range(1, 3):
                make_track(music / name / f"{n:02d}.flac", {"title": f"{name} song {n}", "artist": f"The {name} Band",
                                                            "album": name, "track": f"{n}/2", "genre": "Jazz"},
                           seconds=20, cover=picture)
        # Two discs; the second one's subtitle is tagged.
        blue = cover(art / "double.png", "color=c=0x2050A0")
        for disc in (1, 2):
            for n in range(1, 4):
                tags = {"title": f"Side {disc} track {n}", "artist": "Twin", "album": "Double", "track": f"{n}/3",
                        "disc": f"{disc}/2", "genre": "Rock"}
                if disc == 2:
                    tags["DISCSUBTITLE"] = "Live at the Hall"
                make_track(music / "Double" / f"{disc}-{n:02d}.flac", tags, seconds=5, cover=blue)
        for i, genre in enumerate(GENRES * 2):
            picture = cover(art / f"f{i}.png", f"color=c=0x{(i * 2654435761) & 0xFFFFFF:06x}")
            make_track(music / f"Filler {i:02d}" / "01.flac", {"title": f"Piece {i}", "artist": f"Artist {i % 5}",
                                                              "album": f"Filler {i:02d}", "genre": genre}, seconds=3, cover=picture)
        with serving(crate, music, pulse):
            yield crate


def holds(page, what, expression, seconds=20):
    """Waits until `expression` is true in the page (the page's CSP forbids the eval wait_for_function needs)."""
    return wait_until(f"{what} ({expression})", lambda: page.evaluate(expression), seconds=seconds)


@pytest.fixture
def context_for(browser):
    made = []

    def make(**options):
        context = browser.new_context(**options)
        made.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        # A song without lyrics answers 404 when the sheet asks for them: that is no error of the page's.
        page.on("console", lambda m: page.errors.append(m.text)
                if m.type == "error" and "/lyrics" not in (m.location or {}).get("url", "") else None)
        return page
    yield make
    for context in made:
        context.close()


def paused_on_alpha(daemon):
    """Something to show: Alpha's first track, paused (the footer names it)."""
    daemon.request("POST", "/api/v1/queue/play-album", {"albumID": album_id(daemon, "Alpha"), "from": 1})
    wait_until("Alpha to play", lambda: player(daemon)["state"] == "playing")
    daemon.request("POST", "/api/v1/player/pause")
    wait_until("the pause", lambda: player(daemon)["state"] == "paused")


def views(daemon):
    """Each view with what shows it is drawn."""
    return {"wall": ("/", "#wall li img"), "detail": (f"/#/album/{album_id(daemon, 'Double')}", "#album-view .track"),
            "queue": ("/#/queue", "#page-view .queue .entry"), "library": ("/#/library/albums", "#page-view .grid li"),
            "search": ("/#/", "#wall li img"), "import": ("/#/import", "#import-path"), "settings": ("/#/settings", "#page-view table")}


def open_view(page, daemon, name):
    path, ready = views(daemon)[name]
    page.goto(daemon.base + path)
    page.wait_for_selector(ready)
    if name == "search":
        page.locator("#search-button:visible, #search:visible").first.tap()
        page.locator("#search").fill("Song")
        page.wait_for_selector("#search-view .results .result")


def fits(page):
    return page.evaluate("""() => {
        const footer = document.getElementById('player').getBoundingClientRect();
        const vv = window.visualViewport;
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
                 footerTop: footer.top, footerBottom: footer.bottom, viewportHeight: vv.height,
                 title: document.getElementById('np-title').textContent,
                 titleShown: document.getElementById('np-title').getBoundingClientRect().width > 0 };
    }""")


@pytest.mark.parametrize("device", PHONES)
def test_every_view_fits_the_screen_with_the_footer_in_view(context_for, daemon, device):
    paused_on_alpha(daemon)
    page = context_for(**PHONES[device])
    for name in views(daemon):
        open_view(page, daemon, name)
        seen = fits(page)
        assert seen["scrollWidth"] <= seen["innerWidth"], f"{device} {name}: the page scrolls sideways: {seen}"
        assert 0 <= seen["footerTop"] and seen["footerBottom"] <= seen["viewportHeight"] + 0.5, f"{device} {name}: footer off-screen: {seen}"
        assert seen["title"] == "Song 1" and seen["titleShown"], f"{device} {name}: {seen}"
    # On the wall, the genre bar shows at least three pills inside the screen.
    open_view(page, daemon, "wall")
    assert visible_pills(page) >= 3
    assert page.errors == [], page.errors


def visible_pills(page):
    return page.evaluate("""() => {
        const bar = document.getElementById('genres').getBoundingClientRect();
        return [...document.querySelectorAll('#genres button')].filter(p => {
            const r = p.getBoundingClientRect();
            return r.left >= bar.left - 0.5 && r.right <= bar.right + 0.5 && r.right <= innerWidth + 0.5 && r.width > 0;
        }).length;
    }""")


def test_a_wide_desktop_shows_eight_pills_and_every_control(context_for, daemon):
    page = context_for(**DESKTOP)
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    page.wait_for_selector("#genres button:nth-child(8)")
    assert visible_pills(page) >= 8
    for selector in ["#views a[href='#/queue']", "#search", "#dial", "#prev", "#scrubber", "#volume", "#shuffle"]:
        assert page.locator(selector).is_visible(), selector
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    # The narrowest phone and the widest screen the layout is written for.
    for width, height in [(320, 640), (2560, 1440)]:
        page.set_viewport_size({"width": width, "height": height})
        for path, ready in [("/", "#wall li img"), (f"/#/album/{album_id(daemon, 'Double')}", "#album-view .track"),
                            ("/#/settings", "#page-view table")]:
            page.goto(daemon.base + path)
            page.wait_for_selector(ready)
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (width, path)


def test_search_genres_and_sub_genres_by_touch(context_for, daemon):
    page = context_for(**PHONES["phone-390"])
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    # Search: one tap opens the field; the albums come as covers, the tracks with a cover and their album.
    assert not page.locator("#search").is_visible()
    page.tap("#search-button")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("Sand")
    page.wait_for_selector("#search-view .results.covers .cover-result img")
    track = page.locator("#search-view ul[aria-label=Tracks] .result").first
    assert track.locator("img.thumb").count() == 1 and "Sand" in track.locator(".result-line").text_content()
    # Enter opens the first result (for this query, an album: no artist's name matches).
    page.fill("#search", "Double")
    page.wait_for_selector("#search-view .cover-result[aria-label='Double — Twin']")
    page.keyboard.press("Enter")
    holds(page, "the album opened by Enter", "document.getElementById('album-title')?.textContent === 'Double'")
    # Back on the wall, a genre by a tap, then a sub-genre chip by a tap.
    page.goto(daemon.base + "/#/")
    page.wait_for_selector("#wall li img")
    before = page.eval_on_selector_all("#wall li", "items => items.map(i => i.dataset.album).join()")
    page.get_by_role("button", name="Jazz", exact=True).tap()
    page.wait_for_selector("#genres .chip")
    holds(page, "the Jazz wall", f"[...document.querySelectorAll('#wall li')].map(i => i.dataset.album).join() !== {before!r}")
    chip = page.locator("#genres .chip").first
    chip.tap()
    holds(page, "the chip on", "document.querySelector('#genres .chip')?.getAttribute('aria-pressed') === 'true'")
    page.get_by_role("button", name="Leave Jazz").tap()
    page.wait_for_selector("#genres button:has-text('Crate Wall')")
    # The menu opens the views by a tap.
    page.tap("#menu-button")
    page.get_by_role("link", name="Queue").tap()
    page.wait_for_selector("#page-view h1:has-text('Queue')")
    assert page.errors == [], page.errors


def test_the_now_playing_sheet_opens_scrubs_and_closes(context_for, daemon):
    paused_on_alpha(daemon)
    page = context_for(**PHONES["phone-390"])
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    holds(page, "the mini-player", "document.getElementById('np-title').textContent === 'Song 1'")
    # The mini-player's targets are thumb-sized.
    for selector in ["#np-open", "#toggle", "#next"]:
        box = page.locator(selector).bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (selector, box)
    page.tap("#np-open")
    sheet = page.locator("#sheet")
    holds(page, "the sheet open", "document.getElementById('sheet').open")
    assert sheet.locator(".sheet-title").text_content() == "Song 1"
    assert sheet.locator(".sheet-album").text_content() == "Alpha"
    for button in sheet.locator(".sheet-transport button, .sheet-modes button, .grabber").all():
        box = button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, box
    # Play from the sheet, then scrub to three quarters of the track by a tap on the gradient bar.
    sheet.get_by_role("button", name="Play", exact=True).tap()
    wait_until("playing", lambda: player(daemon)["state"] == "playing")
    bar = sheet.locator("#sheet-scrubber").bounding_box()
    page.touchscreen.tap(bar["x"] + bar["width"] * 0.75, bar["y"] + bar["height"] / 2)
    wait_until("the daemon to seek", lambda: player(daemon)["elapsed"] >= 38, seconds=15)
    # ADR-121: the bar's played part is the cover's gradient.
    colors = player(daemon)["entry"]["track"]["artworkColors"]
    assert page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--from').trim()") == colors[0]
    # Synced lyrics from the song's .lrc: the line being sung is marked, and follows a seek.
    holds(page, "the lyrics shown", "!document.querySelector('.sheet-lyrics').hidden && document.querySelectorAll('#lyrics li').length === 4")
    holds(page, "the fourth line current after the seek", "document.querySelector('#lyrics li[aria-current]')?.textContent === 'Fourth line'")
    daemon.request("POST", "/api/v1/player/seek", {"position": 11})
    holds(page, "the third line current", "document.querySelector('#lyrics li[aria-current]')?.textContent === 'Third line'")
    # Closed by Esc, by the back gesture, and by the grabber; the page stays where it was.
    page.keyboard.press("Escape")
    holds(page, "Esc closes it", "!document.getElementById('sheet').open")
    assert page.url.endswith("/") or page.url.endswith("#/")
    page.tap("#np-open")
    holds(page, "open again", "document.getElementById('sheet').open")
    page.go_back()
    holds(page, "back closes it", "!document.getElementById('sheet').open")
    page.tap("#np-open")
    holds(page, "open again", "document.getElementById('sheet').open")
    page.tap("#sheet .grabber")
    holds(page, "the grabber closes it", "!document.getElementById('sheet').open")
    assert page.locator("#wall li img").first.is_visible()
    daemon.request("POST", "/api/v1/player/pause")
    assert page.errors == [], page.errors


def test_disc_headings_on_a_two_disc_album(context_for, daemon):
    page = context_for(**PHONES["phone-360"])
    page.goto(daemon.base + f"/#/album/{album_id(daemon, 'Double')}")
    page.wait_for_selector("#album-view .track")
    headings = page.eval_on_selector_all("#album-view h2.disc", "hs => hs.map(h => h.textContent)")
    assert headings == ["Disc 1", "Disc 2 — Live at the Hall"], headings
    numbers = page.eval_on_selector_all("#album-view ol.tracks", "ls => ls.map(l => [...l.querySelectorAll('.number')].map(n => n.textContent).join())")
    assert numbers == ["1,2,3", "1,2,3"], numbers
    # On a phone the cover, the facts and the actions stack, and the tracklist takes the width.
    cover, title, row = (page.locator(s).first.bounding_box() for s in ["#album-view .cover", "#album-title", "#album-view .track .row"])
    assert title["y"] >= cover["y"] + cover["height"] - 1
    assert row["width"] >= 360 - 2 * 24 - 2


def test_the_genre_pills_stagger_out_and_back_in(context_for, daemon):
    frames = record_pills(context_for(**DESKTOP), daemon)
    moved = [f for f in frames if any(y > 2 for y in f)]
    assert moved, "no pill moved during the genre change"
    # Staggered: at some moment the pills stand at different heights.
    assert any(len(set(f)) > 2 for f in moved), moved[:10]


def test_the_pills_stand_still_with_reduced_motion(context_for, daemon):
    frames = record_pills(context_for(**DESKTOP, reduced_motion="reduce"), daemon)
    assert all(all(y == 0 for y in f) for f in frames), [f for f in frames if any(f)][:5]


@pytest.mark.parametrize("device", ["phone-390", "desktop"])
def test_the_wall_stands_still_while_the_rest_of_the_page_arrives(context_for, daemon, device):
    """The genre pills and what plays come after the first screen (their answers are held back here until the wall
    is on screen): the wall under them must not move down when they arrive, and the browser records no layout shift
    of the header or the wall from the load (the pills' row once grew from 10 to 46 pixels and pushed the whole wall
    down)."""
    paused_on_alpha(daemon)
    page = context_for(**(DESKTOP if device == "desktop" else PHONES[device]))
    held = []
    page.route("**/api/v1/genres", lambda route: held.append(route))
    page.goto(daemon.base + "/", wait_until="domcontentloaded")
    page.wait_for_selector("#wall li img")
    first_tile = "document.querySelector('#wall li').getBoundingClientRect().top"
    wait_until("the page asking for the genres", lambda: page.evaluate("true") and held)
    before = page.evaluate(first_tile)
    for route in held:
        route.continue_()
    page.wait_for_selector("#genres button:nth-child(3)")
    wait_until("the footer naming what plays", lambda: page.evaluate("document.getElementById('np-title').textContent") == "Song 1")
    assert page.evaluate(first_tile) == before, f"{device}: the wall moved from {before} to {page.evaluate(first_tile)}"
    # The footer's text steps aside for the cover when a track is named (a shift of a few thousandths, in the
    # footer): only shifts of the header and the wall count here.
    shifts = page.evaluate("""() => new Promise((resolve) => {
        const inPage = (node) => (node?.nodeType === 1 ? node : node?.parentElement)?.closest(".top, #view");
        new PerformanceObserver((list) => resolve(list.getEntries().filter((e) => e.sources.some((s) => inPage(s.node)))
            .map((e) => [Math.round(e.startTime), e.value, e.sources.map((s) => `${s.node?.nodeName}#${s.node?.id ?? ""}.${s.node?.className ?? ""} `
                + `${JSON.stringify(s.previousRect)} -> ${JSON.stringify(s.currentRect)}`)]))).observe({ type: "layout-shift", buffered: true });
        requestAnimationFrame(() => requestAnimationFrame(() => resolve([])));
    })""")
    assert shifts == [], f"{device}: layout shifts of the header or the wall (ms, value, what moved): {shifts}"
    assert page.errors == [], page.errors


def record_pills(page, daemon):
    """The pills' offsets below the bar's top, frame by frame, from before a genre is chosen until after its
    sub-genres settled; a sub-genre toggle afterwards does not move them."""
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    page.wait_for_selector("#genres button:nth-child(3)")
    page.evaluate("""() => {
        window.pillFrames = [];
        const record = () => {
            const bar = document.getElementById('genres');
            const first = bar.getBoundingClientRect().top;
            // The centre less half the layout height: a slide moves it, the press's scale (about the centre) does not.
            window.pillFrames.push([...bar.children].slice(0, 8).map(p => {
                const r = p.getBoundingClientRect();
                return Math.round((r.top + r.bottom) / 2 - p.offsetHeight / 2 - first - 2);
            }));
            if (!window.stopRecording) requestAnimationFrame(record);
        };
        requestAnimationFrame(record);
    }""")
    page.get_by_role("button", name="Rock", exact=True).click()
    page.wait_for_selector("#genres .chip")
    holds(page, "the new pills settled", "!document.querySelector('#genres .sliding-in, #genres .below, #genres .sliding-out')")
    count = page.evaluate("window.pillFrames.length")
    holds(page, "a few frames after", f"window.pillFrames.length > {count + 5}")
    settled = page.evaluate("window.pillFrames.length")
    page.locator("#genres .chip").first.click()
    holds(page, "the chip on", "document.querySelector('#genres .chip')?.getAttribute('aria-pressed') === 'true'")
    holds(page, "frames after the toggle", f"window.pillFrames.length > {settled + 20}")
    frames = page.evaluate("window.stopRecording = true, window.pillFrames")
    assert all(all(y == 0 for y in f) for f in frames[settled:]), "a sub-genre toggle moved the pills"
    return frames


# ---- Contrast measured from pixels -------------------------------------------------------------------------------

@functools.lru_cache(maxsize=65536)
def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b):
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def text_contrast(page, element):
    """The contrast a text element's glyphs reach against what lies behind them: the element is photographed with
    its text and with its text transparent (`glyph_contrast` compares the two). Returns (ratio, large text?, text),
    or None for an element with no box or no text."""
    info = element.evaluate(f"e => ({TEXT_INFO})(e)")
    box = element.bounding_box()
    if not box or box["width"] < 1 or box["height"] < 1 or not info["text"]:
        return None
    clip = {k: box[k] for k in ("x", "y", "width", "height")}
    shown = Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB")
    element.evaluate(f"e => ({HIDE_TEXT})(e)")
    try:
        hidden = Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB")
    finally:
        element.evaluate(f"e => ({SHOW_TEXT})(e)")
    return glyph_contrast(shown, hidden, info)


# What a text element is (its colour; large text by WCAG's sizes), and its text hidden and shown again.
TEXT_INFO = """e => {
    const s = getComputedStyle(e);
    const px = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    return { color: s.color, large: px >= 24 || (bold && px >= 18.66), text: e.textContent.trim() };
}"""
HIDE_TEXT = """e => { e.dataset.keep = e.getAttribute('style') ?? ''; e.style.setProperty('color', 'transparent', 'important');
    e.style.setProperty('text-shadow', 'none', 'important'); }"""
SHOW_TEXT = "e => { e.setAttribute('style', e.dataset.keep); delete e.dataset.keep; }"


def texts_contrast(page, root):
    """`text_contrast` for every text element under `root` (`leaf_texts`), a screenful at a time: the elements that lie
    whole between the sticky header and the fixed footer, and apart from each other (no glyph of one can fall in
    another's box), are photographed together, with their texts and with their texts transparent; then the page
    scrolls on. Two screenshots per screenful instead of two per element. An element that never lies whole in the
    clear band (taller than it, or at the end of the page under the footer) is centred and measured alone."""
    pending = list(range(len(leaf_texts(page, root))))
    results = []
    while pending:
        batch = page.evaluate("""pending => {
            const band = { top: document.querySelector('header.top').getBoundingClientRect().bottom,
                           bottom: document.getElementById('player').getBoundingClientRect().top };
            const taken = [];
            const apart = (r) => taken.every(t => r.right + 4 < t.left || t.right + 4 < r.left || r.bottom + 4 < t.top || t.bottom + 4 < r.top);
            const batch = [];
            for (const i of pending) {
                const e = document.querySelector(`[data-leaf-text='${i}']`), r = e.getBoundingClientRect();
                if (r.top >= band.top && r.bottom <= band.bottom && r.left >= 0 && r.right <= innerWidth && apart(r)) {
                    taken.push(r);
                    batch.push({ i, x: r.x, y: r.y, width: r.width, height: r.height, ...(TEXT_INFO)(e) });
                }
            }
            return batch;
        }""".replace("TEXT_INFO", TEXT_INFO), pending)
        if not batch:
            # Scroll the first waiting element to the band's top; if the page cannot move it there, it goes alone.
            first = pending[0]
            moved = page.evaluate("""i => {
                const e = document.querySelector(`[data-leaf-text='${i}']`);
                const top = document.querySelector('header.top').getBoundingClientRect().bottom;
                const before = scrollY;
                scrollBy(0, e.getBoundingClientRect().top - top - 1);
                return scrollY !== before;
            }""", first)
            if not moved:
                element = page.locator(f"[data-leaf-text='{first}']")
                element.evaluate("e => e.scrollIntoView({block: 'center'})")
                results.append(text_contrast(page, element))
                pending.remove(first)
            continue
        # The screenshots cover the batch's boxes, no more (a phone's whole screen at 3x takes over a second).
        # Whole CSS pixels, so that the image is the clip at exactly the device's scale.
        left, top = math.floor(min(b["x"] for b in batch)), math.floor(min(b["y"] for b in batch))
        clip = {"x": left, "y": top, "width": math.ceil(max(b["x"] + b["width"] for b in batch)) - left,
                "height": math.ceil(max(b["y"] + b["height"] for b in batch)) - top}
        shown = Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB")
        marks = [b["i"] for b in batch]
        page.evaluate(f"marks => marks.forEach(i => ({HIDE_TEXT})(document.querySelector(`[data-leaf-text='${{i}}']`)))", marks)
        try:
            hidden = Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB")
        finally:
            page.evaluate(f"marks => marks.forEach(i => ({SHOW_TEXT})(document.querySelector(`[data-leaf-text='${{i}}']`)))", marks)
        scale = shown.width / clip["width"]
        for b in batch:
            pending.remove(b["i"])
            if b["width"] < 1 or b["height"] < 1 or not b["text"]:
                continue
            area = tuple(round(v * scale) for v in (b["x"] - left, b["y"] - top, b["x"] - left + b["width"], b["y"] - top + b["height"]))
            results.append(glyph_contrast(shown.crop(area), hidden.crop(area), b))
    return [r for r in results if r is not None]


def glyph_contrast(shown, hidden, info):
    """From an element photographed with its text (`shown`) and without (`hidden`): the pixels where the glyphs are
    solid (within 12% of the text colour) against the same pixels without the text. The 5th percentile: the worst
    glyph pixels, not the mean, so a bright patch of a busy cover under a word counts. Text that changes no pixel
    measures 1:1. Returns (ratio, large text?, text)."""
    color = tuple(int(float(v)) for v in info["color"][info["color"].index("(") + 1:-1].split(",")[:3])
    # Per pixel, in Pillow rather than Python loops (a phone's 3x clips are ~100,000 pixels): the pixels the text
    # changes (a channel moves by more than 2), and those within 30 of the text colour in every channel.
    changed = largest_channel(ImageChops.difference(shown, hidden)).point(lambda v: 255 if v > 2 else 0).get_flattened_data()
    near = largest_channel(ImageChops.difference(shown, Image.new("RGB", shown.size, color)))
    near = near.point(lambda v: 255 if v <= 30 else 0).get_flattened_data()
    if not any(changed):
        return 1.0, info["large"], info["text"]  # the text cannot be told from what is behind it
    behind = hidden.get_flattened_data()
    solid = sorted(ratio(color, b) for c, n, b in zip(changed, near, behind) if c and n)
    if len(solid) < 4:
        # No pixel reaches the text colour (translucent text, thin glyphs): what the glyphs reach at their best.
        reached = sorted(ratio(a, b) for c, a, b in zip(changed, shown.get_flattened_data(), behind) if c)
        return reached[len(reached) * 19 // 20], info["large"], info["text"]
    return solid[len(solid) // 20], info["large"], info["text"]


def largest_channel(image):
    """Per pixel, the largest of an RGB image's three channels (a greyscale image)."""
    r, g, b = image.split()
    return ImageChops.lighter(ImageChops.lighter(r, g), b)


def leaf_texts(page, root):
    """Every element under `root` that holds text of its own, visible on screen: found in one round trip to the page
    (not one per element), marked with data-leaf-text and returned as locators of those marks."""
    count = page.evaluate("""root => {
        document.querySelectorAll('[data-leaf-text]').forEach(e => { delete e.dataset.leafText; });
        const found = [...document.querySelectorAll(root + ' *')].filter(e =>
            [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()) && e.getClientRects().length > 0
            && getComputedStyle(e).visibility !== 'hidden' && !e.closest('select'));
        found.forEach((e, i) => { e.dataset.leafText = String(i); });
        return found.length;
    }""", root)
    return [page.locator(f"[data-leaf-text='{i}']") for i in range(count)]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_over_artwork_passes_contrast_in_pixels(context_for, daemon, scheme):
    page = context_for(**PHONES["phone-390"], color_scheme=scheme)
    # The playing row too: Sand plays, paused.
    daemon.request("POST", "/api/v1/queue/play-album", {"albumID": album_id(daemon, "Sand"), "from": 2})
    wait_until("Sand to play", lambda: player(daemon)["entry"]["track"]["album"] == "Sand")
    daemon.request("POST", "/api/v1/player/pause")
    failures = []
    for title in COVERS:
        page.goto(daemon.base + f"/#/album/{album_id(daemon, title)}")
        page.wait_for_selector("#album-view .track")
        holds(page, "the cover drawn", "document.querySelector('#album-view img.cover')?.complete")
        if title == "Sand":
            page.wait_for_selector("#album-view .track.playing")
        page.mouse.move(0, 0)
        page.evaluate("scrollTo(0, 0)")
        measured = texts_contrast(page, "#album-view")
        for value, large, text in measured:
            if value < (3 if large else 4.5):
                failures.append(f"{title}: {text!r} {value:.2f}:1")
        assert len(measured) >= 12, f"{title}: only {len(measured)} texts measured"
    # The wall's captions (shown on focus) over the same covers.
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    for title in COVERS:
        tile = f"#wall li[data-album='{album_id(daemon, title)}']"
        if page.locator(tile).count() == 0:
            continue
        for part in ("strong", "span"):
            # The wall may be redrawn under the test (a play regenerates it): then the caption is measured again.
            shown = f"document.activeElement?.closest('li') === document.querySelector(\"{tile}\") && getComputedStyle(document.querySelector(\"{tile} .caption\")).opacity === '1'"
            for attempt in (1, 2):
                page.locator(f"{tile} a").focus()
                page.locator(f"{tile} a").evaluate("e => e.scrollIntoView({block: 'center'})")
                holds(page, "the caption shown", shown)
                value, large, text = text_contrast(page, page.locator(f"{tile} .caption > {part}"))
                if page.evaluate(shown):
                    break
            if value < (3 if large else 4.5):
                failures.append(f"caption {title}: {text!r} {value:.2f}:1")
    assert failures == [], failures


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("device", ["phone-390", "tablet-820"])
def test_no_serious_accessibility_violations_on_a_phone(context_for, daemon, device, scheme):
    paused_on_alpha(daemon)
    page = context_for(**PHONES[device], color_scheme=scheme)
    axe = Axe()
    for name in views(daemon):
        open_view(page, daemon, name)
        results = axe.run(page)
        serious = [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], f"{device} {scheme} {name}: {serious}"
        contrast = axe.run(page, options={"runOnly": ["color-contrast"]})
        assert contrast.response["violations"] == [], f"{device} {scheme} {name}: {contrast.response['violations']}"
    # The sheet too.
    open_view(page, daemon, "wall")
    page.tap("#np-open")
    holds(page, "the sheet open", "document.getElementById('sheet').open")
    results = axe.run(page)
    serious = [(v["id"], v["impact"]) for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == [], f"{device} {scheme} sheet: {serious}"


def test_the_page_installs_to_a_home_screen(context_for, daemon):
    page = context_for(**PHONES["phone-390"])
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    href = page.get_attribute("link[rel=manifest]", "href")
    manifest = page.request.get(daemon.base + href)
    assert manifest.ok and manifest.headers["content-type"].startswith("application/manifest+json")
    body = manifest.json()
    assert body["display"] == "standalone" and body["start_url"] == "/"
    for icon in body["icons"]:
        answer = page.request.get(daemon.base + icon["src"])
        assert answer.ok and answer.headers["content-type"] == icon["type"], icon
    assert any(i.get("purpose") == "maskable" for i in body["icons"])
    # Chromium itself finds nothing that stops an install (asked in a profile of its own: a fresh context is
    # incognito, where nothing installs).
    with tempfile.TemporaryDirectory(prefix="crate-profile-") as profile:
        installed = page.context.browser.browser_type.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=["--no-sandbox"], **PHONES["phone-390"])
        try:
            app = installed.new_page()
            app.goto(daemon.base + "/")
            app.wait_for_selector("#wall li img")
            cdp = installed.new_cdp_session(app)
            asked = lambda: cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
            # Until the manifest is read Chromium says "no-manifest": the answer is the first one past that.
            (errors,) = wait_until("Chromium to read the manifest",
                                   lambda: (lambda e: (e,) if all(x["errorId"] != "no-manifest" for x in e) else None)(asked()), seconds=20)
        finally:
            installed.close()
    assert errors == [], errors
    # The title bar wears the playing cover's colour.
    paused_on_alpha(daemon)
    colour = player(daemon)["entry"]["track"]["artworkColors"][0]
    holds(page, "theme-color from the cover", f"document.querySelector('meta[name=theme-color]').content === {colour!r}")
