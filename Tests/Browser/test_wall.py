"""Issue 15: the web page in Debian's Chromium against a real crated (a private PulseAudio null sink keeps time)
with a generated library of 64 albums, each with its own cover. Every check of an effect asks the daemon."""
import subprocess
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from crate_harness import Crate, album_id, player, serving, wait_until

ALBUMS = 64
GENRES = ["Rock", "Jazz", "Electronic", "Hip-Hop"]


def make_track(path: Path, title, artist, album, number, total, seconds, colour, genre):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"sine=frequency={200 + 40 * number}:duration={seconds}",
                    "-f", "lavfi", "-i", f"color=c=0x{colour:06x}:s=240x240:d=1", "-map", "0:a", "-map", "1:v",
                    "-frames:v", "1", "-c:v", "mjpeg", "-disposition:v", "attached_pic", "-ac", "2", "-ar", "44100",
                    "-metadata", f"title={title}", "-metadata", f"artist={artist}", "-metadata", f"album={album}",
                    "-metadata", f"track={number}/{total}", "-metadata", f"genre={genre}", "-metadata", "date=2004",
                    str(path)], check=True, timeout=120)


@pytest.fixture(scope="module")
def daemon(pulse):
    with tempfile.TemporaryDirectory(prefix="crate-wall-") as tmp:
        crate = Crate(Path(tmp))
        music = Path(tmp) / "music"
        alpha = music / "Alpha"
        alpha.mkdir(parents=True)
        for n in range(1, 5):
            make_track(alpha / f"{n:02d}.flac", f"Song {n}", "Tester", "Alpha", n, 4, 60, 0xC03020, "Rock")
        for i in range(1, ALBUMS):
            folder = music / f"Album {i:02d}"
            folder.mkdir()
            make_track(folder / "01.flac", f"Piece {i}", f"Artist {i % 9}", f"Album {i:02d}", 1, 1, 4,
                       (i * 2654435761) & 0xFFFFFF, GENRES[i % len(GENRES)])
        with serving(crate, music, pulse):
            yield crate


def open_wall(page, daemon):
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")


def tile_ids(page):
    return page.eval_on_selector_all("#wall li", "items => items.map(i => i.dataset.album)")


def page_holds(page, what, expression, seconds=20):
    """Waits until `expression` is true in the page (polled from here: the page's CSP forbids the eval that
    Playwright's wait_for_function needs)."""
    wait_until(f"{what} ({expression})", lambda: page.evaluate(expression), seconds=seconds)


def settled(page, what):
    """Waits until the page has no request under way (navigating away aborts one, which no_problems reports). The
    evaluate lets Playwright deliver the page's request events while this waits."""
    wait_until(f"the page's requests to end after {what}", lambda: page.evaluate("true") and not page.in_flight)


def no_problems(page):
    assert page.console_errors == [], page.console_errors
    assert page.failed_requests == [], page.failed_requests


def test_the_wall_is_covers_only_and_scrolls_without_repeats(page, daemon):
    open_wall(page, daemon)
    first = tile_ids(page)
    # Art only: every tile is a picture whose link names the album; no text is visible under or on the covers.
    assert page.eval_on_selector_all("#wall li", "items => items.every(i => i.querySelector('img'))")
    visible = page.eval_on_selector_all(
        "#wall li .caption", "cs => cs.filter(c => getComputedStyle(c).opacity !== '0').length")
    assert visible == 0
    name = page.get_attribute("#wall li a", "aria-label")
    assert " — " in name
    # Scrolling loads more before the end, never an album twice.
    for _ in range(20):
        if len(tile_ids(page)) >= ALBUMS:
            break
        page.mouse.wheel(0, 4000)
        count = len(tile_ids(page))
        wait_until("the next page of the wall", lambda: len(tile_ids(page)) > count or len(tile_ids(page)) >= ALBUMS, seconds=15)
    ids = tile_ids(page)
    assert len(ids) == ALBUMS and len(set(ids)) == len(ids), f"{len(ids)} tiles, {len(set(ids))} different"
    assert ids[:len(first)] == first
    no_problems(page)


def test_a_genre_pill_becomes_its_sub_genre_chips_in_the_same_row(page, daemon):
    open_wall(page, daemon)
    grid_top = page.locator("#wall").bounding_box()["y"]
    page.get_by_role("button", name="Rock", exact=True).click()
    page.wait_for_selector("#genres .chip")
    assert page.get_by_role("button", name="Leave Rock").is_visible()
    chips = page.locator("#genres .chip")
    assert chips.count() > 2
    chips.first.click()
    assert chips.first.get_attribute("aria-pressed") == "true"
    # The row stayed one row: the grid below did not move.
    assert page.locator("#wall").bounding_box()["y"] == grid_top
    page.get_by_role("button", name="Leave Rock").click()
    page.wait_for_selector("#genres button:has-text('Crate Wall')")
    no_problems(page)


def test_the_dial_changes_the_wall(page, daemon):
    open_wall(page, daemon)
    page.evaluate("window.firstTile = document.querySelector('#wall li')")
    start = daemon.get("/api/v1/dial")["index"]
    page.focus("#dial")
    page.keyboard.press("ArrowLeft" if start > 0 else "ArrowRight")
    wait_until("the daemon's dial to move", lambda: daemon.get("/api/v1/dial")["index"] != start, seconds=15)
    title = daemon.get("/api/v1/dial")["title"]
    page_holds(page, "the page to show it", f"document.getElementById('dial-title').textContent === {title!r}")
    # The daemon regenerates the wall and says so; the page redraws it from the event.
    page_holds(page, "the wall redrawn", "document.querySelector('#wall li') && document.querySelector('#wall li') !== window.firstTile")
    no_problems(page)


def test_play_a_track_scrub_volume_next_and_previous(page, daemon):
    open_wall(page, daemon)
    page.goto(daemon.base + f"/#/album/{album_id(daemon, 'Alpha')}")
    page.wait_for_selector("#album-view .track")
    assert page.locator("#album-view .backdrop").count() == 1
    page.get_by_role("button", name="Play Song 3, track 3").click()
    wait_until("track 3 to play", lambda: (p := player(daemon))["state"] == "playing" and p["entry"]["track"]["title"] == "Song 3")
    page_holds(page, "the page to show it", "document.getElementById('np-title').textContent === 'Song 3'")
    page.wait_for_selector("#album-view .track.playing[aria-current='true']")
    # ADR-121: the progress fill runs between the two colours the daemon took from the cover.
    colors = player(daemon)["entry"]["track"]["artworkColors"]
    assert len(colors) == 2 and colors[0] != colors[1], colors
    rgb = ", ".join(str(int(colors[0][i:i + 2], 16)) for i in (1, 3, 5))
    page_holds(page, "the gradient from the cover",
               f"getComputedStyle(document.getElementById('np-fill')).backgroundImage.includes('rgb({rgb})')")
    # Drag the scrubber to about three quarters of the track.
    box = page.locator("#scrubber").bounding_box()
    page.mouse.move(box["x"] + 4, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    wait_until("the daemon to seek", lambda: player(daemon)["elapsed"] >= 35, seconds=15)
    box = page.locator("#volume").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.4, box["y"] + box["height"] / 2)
    wait_until("the volume to change", lambda: 30 <= player(daemon)["modes"]["volume"] <= 50, seconds=15)
    page.get_by_role("button", name="Next track").click()
    wait_until("track 4", lambda: player(daemon)["entry"]["track"]["title"] == "Song 4")
    page_holds(page, "the page to show it", "document.getElementById('np-title').textContent === 'Song 4'")
    page.get_by_role("button", name="Previous track").click()
    wait_until("track 3 again", lambda: player(daemon)["entry"]["track"]["title"] == "Song 3")
    page.get_by_role("button", name="Pause").click()
    wait_until("pause", lambda: player(daemon)["state"] == "paused")
    no_problems(page)


def test_like_puts_it_in_favorites_and_dislike_takes_it_off_the_wall(page, daemon):
    open_wall(page, daemon)
    liked = album_id(daemon, "Album 07")
    page.goto(daemon.base + f"/#/album/{liked}")
    page.get_by_role("button", name="Like", exact=True).click()
    wait_until("the favorite", lambda: any(a["id"] == liked for a in daemon.get("/api/v1/favorites")["albums"]))
    # The page has its answer too, and what it asks again after it (the album view drawn anew asks for the
    # playlists): navigating on before that would abort a request.
    page.wait_for_selector("#album-view button[aria-pressed='true']:has-text('Liked')")
    settled(page, "the like")
    page.goto(daemon.base + "/")
    page.get_by_role("button", name="Favorites", exact=True).click()
    page.wait_for_selector(f"#wall li[data-album='{liked}']")
    page.get_by_role("button", name="Crate Wall", exact=True).click()
    # The favorites' one cover stays until the wall's replace it (after the scatter): wait for the wall itself.
    wait_until("the wall's covers", lambda: len(tile_ids(page)) > 1)
    # Any album of the wall but those the later tests use (Alpha is played, Album 01 sorts first, Album 07 is liked).
    kept = {str(album_id(daemon, title)) for title in ("Alpha", "Album 01", "Album 07")}
    disliked = next(i for i in tile_ids(page) if i not in kept)
    page.click(f"#wall li[data-album='{disliked}'] a")
    page.get_by_role("button", name="Dislike").click()
    wait_until("the dislike", lambda: any(str(a["id"]) == disliked for a in daemon.get("/api/v1/dislikes")))
    page.wait_for_selector("#wall-view:not([hidden])")
    assert disliked not in tile_ids(page)
    no_problems(page)


def test_search_leads_to_the_album(page, daemon):
    open_wall(page, daemon)
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.type("Alpha")
    page.locator("#search-view").get_by_role("link", name="Alpha — Tester").click()
    page_holds(page, "the page to show it", "document.getElementById('album-title')?.textContent === 'Alpha'")
    no_problems(page)


def test_a_second_tab_follows_the_first(browser, page, daemon):
    open_wall(page, daemon)
    other = browser.new_context().new_page()
    other.goto(daemon.base + "/")
    other.wait_for_selector("#wall li img")
    page.goto(daemon.base + f"/#/album/{album_id(daemon, 'Alpha')}")
    page.get_by_role("button", name="Play Song 2, track 2").click()
    page_holds(other, "the page to show it", "document.getElementById('np-title').textContent === 'Song 2'")
    page.get_by_role("button", name="Pause").click()
    other.wait_for_selector("#toggle[aria-label='Play']", timeout=15000)
    other.close()
    no_problems(page)


def test_keyboard_alone_plays_seeks_and_searches(page, daemon):
    open_wall(page, daemon)
    page.goto(daemon.base + f"/#/album/{album_id(daemon, 'Alpha')}")
    page.wait_for_selector("#album-view .track")
    daemon.request("POST", "/api/v1/queue/play-album", {"albumID": album_id(daemon, "Alpha"), "from": 1})
    daemon.request("POST", "/api/v1/player/pause")
    page.wait_for_selector("#toggle[aria-label='Play']")
    page.locator("body").press(" ")
    wait_until("space to play", lambda: player(daemon)["state"] == "playing")
    before = player(daemon)["elapsed"]
    page.keyboard.press("ArrowRight")
    wait_until("→ to seek 10 s", lambda: player(daemon)["elapsed"] >= before + 9)
    page.keyboard.press("Shift+ArrowRight")
    wait_until("shift+→ to go to the next track", lambda: player(daemon)["entry"]["track"]["title"] == "Song 2")
    page.keyboard.press(" ")
    wait_until("space to pause", lambda: player(daemon)["state"] == "paused")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search"
    page.keyboard.press("Escape")
    page.wait_for_selector("#wall-view:not([hidden])")
    # Every control is reachable: tabbing through the page visits the footer's transport.
    reached = set()
    for _ in range(80):
        page.keyboard.press("Tab")
        reached.add(page.evaluate("document.activeElement.id || document.activeElement.getAttribute('aria-label') || ''"))
    assert {"prev", "toggle", "next", "scrubber", "volume"} <= reached, reached
    no_problems(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(browser, daemon, scheme):
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    axe = Axe()
    ready = {"/": "#wall li img", f"/#/album/{album_id(daemon, 'Alpha')}": "#album-view .track",
             "/#/queue": "#page-view h1", "/#/import": "#import-path", "/#/settings": "#page-view table", "/#/home": "#page-view h2",
             "/#/library/albums": "#page-view .grid li", "/#/library/playlists": "#new-playlist"}
    for path, selector in ready.items():
        page.goto(daemon.base + path)
        page.wait_for_selector(selector)
        results = axe.run(page)
        serious = [(v["id"], v["impact"], len(v["nodes"])) for v in results.response["violations"]
                   if v["impact"] in ("serious", "critical")]
        assert serious == [], f"{scheme} {path}: {serious}"
    context.close()


def test_queue_drag_reorder_matches_the_daemon(page, daemon):
    alpha = album_id(daemon, "Alpha")
    daemon.request("POST", "/api/v1/queue/play-album", {"albumID": alpha, "from": 1})
    daemon.request("POST", "/api/v1/player/pause")
    open_wall(page, daemon)
    page.get_by_role("link", name="Queue").click()
    page.wait_for_selector("#page-view .queue .entry")
    titles = lambda: [e["track"]["title"] for e in daemon.get("/api/v1/queue")["entries"]]
    assert titles() == ["Song 1", "Song 2", "Song 3", "Song 4"]
    # Drag the fourth entry onto the second.
    page.drag_and_drop("#page-view .entry[data-index='4']", "#page-view .entry[data-index='2']")
    wait_until("the daemon's queue to follow the drag", lambda: titles() == ["Song 1", "Song 4", "Song 2", "Song 3"])
    page_holds(page, "the view redrawn from the queue event",
               "[...document.querySelectorAll('#page-view .entry')].map(e => e.children[1].textContent.split(' — ')[0]).join() === 'Song 1,Song 4,Song 2,Song 3'")
    # The keyboard way: move up, and remove.
    page.get_by_role("button", name="Move Song 3 up").click()
    wait_until("move up", lambda: titles() == ["Song 1", "Song 4", "Song 3", "Song 2"])
    page.get_by_role("button", name="Remove Song 2").click()
    wait_until("remove", lambda: titles() == ["Song 1", "Song 4", "Song 3"])
    no_problems(page)


def test_the_import_view_shows_a_real_import(page, daemon, tmp_path):
    folder = tmp_path / "More"
    folder.mkdir()
    for n in range(1, 4):
        make_track(folder / f"{n:02d}.flac", f"Extra {n}", "Newcomer", "More", n, 3, 2, 0x3366AA, "Jazz")
    (folder / "broken.flac").write_bytes(b"fLaC not really")
    open_wall(page, daemon)
    page.get_by_role("link", name="Import").click()
    page.fill("#import-path", str(folder))
    page.get_by_role("button", name="Import", exact=True).click()
    page_holds(page, "the report line", "document.getElementById('import-line').textContent.startsWith('Done: 3 imported')")
    assert page.evaluate("document.getElementById('import-progress').value === document.getElementById('import-progress').max")
    page_holds(page, "the failure with its reason", "document.getElementById('import-failures').textContent.includes('broken.flac')")
    assert any(a["title"] == "More" for a in daemon.get("/api/v1/albums"))
    no_problems(page)


def test_home_history_and_settings_views(page, daemon):
    open_wall(page, daemon)
    for name, text in [("Home", "Played lately"), ("History", "History"), ("Settings", "Plugins")]:
        page.get_by_role("link", name=name, exact=True).click()
        page_holds(page, f"the {name} view", f"document.getElementById('page-view').textContent.includes({text!r})")
    page_holds(page, "the plugin table", "document.querySelector('#page-view table.plugins')?.textContent.includes('urlstream')")
    no_problems(page)


def test_library_views_sort_artists_playlists_favorites_and_dislikes(page, daemon):
    open_wall(page, daemon)
    page.get_by_role("link", name="Library", exact=True).click()
    page.wait_for_selector("#page-view .grid li")
    page.select_option("#album-sort", "title")
    # The first by title as the daemon sorts (the dislike test before this one took a random album off the shelf).
    first = daemon.get("/api/v1/albums?sort=title")[0]["title"]
    page_holds(page, f"albums sorted by title, {first} first",
               f"document.querySelector('#page-view .grid li a')?.getAttribute('aria-label').startsWith({first!r})")
    page.get_by_role("link", name="Artists").click()
    page.get_by_role("link", name="Tester").click()
    page.wait_for_selector("#page-view .grid li[data-album]")
    # A playlist made here, an album added to it from the album's page, reordered by dragging.
    page.get_by_role("link", name="Playlists").click()
    page.fill("#new-playlist", "Road trip")
    page.get_by_role("button", name="Create").click()
    wait_until("the playlist", lambda: any(p["name"] == "Road trip" for p in daemon.get("/api/v1/playlists")))
    playlist = next(p["id"] for p in daemon.get("/api/v1/playlists") if p["name"] == "Road trip")
    page.goto(daemon.base + f"/#/album/{album_id(daemon, 'Alpha')}")
    page.wait_for_selector("#album-view select.picker option:nth-child(2)", state="attached")
    page.select_option("#album-view select.picker", str(playlist))
    names = lambda: [e["track"]["title"] for e in daemon.get(f"/api/v1/playlists/{playlist}")["entries"]]
    wait_until("the album in the playlist", lambda: names() == ["Song 1", "Song 2", "Song 3", "Song 4"])
    page.goto(daemon.base + f"/#/library/playlist/{playlist}")
    page.wait_for_selector("#page-view .entry[data-position='4']")
    page.drag_and_drop("#page-view .entry[data-position='4']", "#page-view .entry[data-position='1']")
    wait_until("the playlist's new order", lambda: names() == ["Song 4", "Song 1", "Song 2", "Song 3"])
    # Favorites and dislikes have their shelves.
    page.get_by_role("link", name="Favorites").click()
    page.wait_for_selector("#page-view h2:has-text('Albums')")
    page.get_by_role("link", name="Dislikes").click()
    page.wait_for_selector("#page-view h1:has-text('Dislikes')")
    no_problems(page)


def test_the_later_modules_are_asked_for_again_after_a_failed_fetch(page, daemon):
    """The modules that come after the first screen's covers (the album detail among them) fail to arrive once (a
    daemon restarting, a network drop): the page says so, and opening an album asks for them again and shows it,
    instead of keeping the failure until the page is reloaded."""
    failed = []

    def fail_once(route):
        if failed:
            route.continue_()
        else:
            failed.append(route.request.url)
            route.abort()
    page.route("**/web/js/detail.js", fail_once)
    open_wall(page, daemon)
    wait_until("the album detail's module asked for once the covers had loaded", lambda: page.evaluate("true") and failed)
    page_holds(page, "the failure said", "document.getElementById('toast')?.textContent.includes('detail.js')")
    page.locator("#wall li a").first.click()
    page.wait_for_selector("#album-view:not([hidden]) .track")
    assert len(failed) == 1


def test_the_first_screen_does_not_wait_for_what_it_could_fetch_at_once(page, daemon):
    """Issue 30: every module the first screen runs is announced in index.html (fetched at once, not level by level
    as the imports are read), and the rest (the album detail, the pages, the outputs) is fetched only after the first
    screen's covers have loaded; the wall's first screen comes in the page itself (its covers are fetched while the
    modules load) with the rest of the wall's first page beside it, so the wall is not asked for again; the first
    screen's covers load eagerly, later ones lazily."""
    served = urllib.request.urlopen(daemon.base + "/", timeout=10).read().decode()
    first_page = 40   # FeedService.pageSize: the tiles crated writes
    assert served.count('<li class="tile"') == first_page, served[:2000]
    assert 'id="wall-first"' in served
    # The first screen's covers are held back until the page has run its modules: nothing else may be fetched
    # meanwhile but the first screen's modules and API calls (the daemon answers the covers in a millisecond, so
    # without holding them the order would prove nothing).
    later = {f"/web/js/{name}.js" for name in ("detail", "views", "library", "outputs", "listen")}
    held, asked = [], []
    page.on("request", lambda r: asked.append(urllib.parse.urlparse(r.url).path))
    holding = [True]
    page.route("**/api/v1/artwork/**", lambda route: held.append(route) if holding[0] else route.continue_())
    page.goto(daemon.base + "/", wait_until="domcontentloaded")   # "load" would wait for the covers
    page_holds(page, "wall.js adopting the first screen", "document.getElementById('wall-first') === null")
    page_holds(page, "the genres drawn", "document.querySelectorAll('#genres button').length > 0")
    assert held, "no cover was asked for"
    before_covers = list(asked)
    holding[0] = False
    for route in held:
        route.continue_()
    early = sorted(later & set(before_covers))
    assert not early, f"fetched before the first screen's covers had loaded: {early}"
    preloaded = set(page.eval_on_selector_all("link[rel=modulepreload]", "ls => ls.map(l => new URL(l.href).pathname)"))
    first = {p for p in before_covers if p.startswith("/web/js/")} - {"/web/js/main.js"}
    assert first and first <= preloaded, f"modules the first screen runs, not preloaded: {sorted(first - preloaded)}"
    assert not later & preloaded, sorted(later & preloaded)
    wait_until("the modules the first screen does not need, once its covers have loaded", lambda: page.evaluate("true") and later <= set(asked))
    # No request for the wall's first page: it came with the page, and wall.js took it (the data element is gone).
    walls = page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(r => new URL(r.name).pathname === '/api/v1/wall').map(r => r.name)""")
    assert walls == [], f"the wall was asked for at load: {walls}"
    assert page.evaluate("document.getElementById('wall-first') === null")
    # The first cover was asked for before main.js had arrived: the page named it, not a script.
    first_cover, main = page.evaluate("""() => {
        const rs = performance.getEntriesByType('resource');
        return [Math.min(...rs.filter(r => r.name.includes('/api/v1/artwork/')).map(r => r.startTime)),
                rs.find(r => new URL(r.name).pathname === '/web/js/main.js').responseEnd];
    }""")
    assert first_cover < main, f"the first cover was asked for at {first_cover:.0f} ms, after main.js arrived ({main:.0f} ms)"
    # wall.js kept crated's tiles (no second drawing), and they are what wall.js draws itself: the same wall shown
    # again by the script (Favorites, then the Crate Wall) gives the same markup, the entrance animation aside.
    canonical = """items => items.slice(0, 40).map(i => {
        const c = i.cloneNode(true); c.classList.remove('entering'); c.removeAttribute('style'); return c.outerHTML; })"""
    by_crated = page.eval_on_selector_all("#wall li", canonical)
    assert len(by_crated) == first_page and not page.eval_on_selector_all(
        "#wall li", "ls => ls.slice(0, 40).filter(l => l.classList.contains('entering')).length")
    page.get_by_role("button", name="Favorites", exact=True).click()
    page_holds(page, "the favorites shown (fewer than a page)", "document.querySelectorAll('#wall li').length < 40")
    page.get_by_role("button", name="Crate Wall", exact=True).click()
    page_holds(page, "the wall drawn by wall.js", "document.querySelectorAll('#wall li').length >= 40")
    assert page.eval_on_selector_all("#wall li", canonical) == by_crated

    def scrolled_past_the_first_page():
        page.mouse.wheel(0, 4000)
        return len(tile_ids(page)) > first_page
    wait_until("the next page of the wall", scrolled_past_the_first_page, seconds=15)
    modes = page.eval_on_selector_all("#wall li img", "imgs => imgs.map(i => i.loading)")
    assert all(mode == "eager" for mode in modes[:first_page]), modes[:first_page]
    assert modes[first_page:] and all(mode == "lazy" for mode in modes[first_page:]), modes[first_page:]
    no_problems(page)
