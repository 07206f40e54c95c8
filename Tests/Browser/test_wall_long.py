"""Issue 30: the wall's first screen comes in the page, with the start of the wall (three pages) beside it. A wall
scrolled further than that comes back in its order on the next visit: the page stays small, and the rest of the
kept wall is asked for once, when scrolled to. A library of 200 tiny albums with covers (made in a second)."""
import json
import re
import tempfile
import urllib.request
from pathlib import Path

import pytest

from crate_harness import Crate, make_tiny_albums, wait_until

CARRIED = 120   # WallFirstScreen.entries: three pages of FeedService.pageSize
SCROLLED = 170


@pytest.fixture(scope="module")
def daemon():
    with tempfile.TemporaryDirectory(prefix="crate-long-wall-") as tmp:
        crate = Crate(Path(tmp))
        music = make_tiny_albums(Path(tmp) / "corpus", 200)
        crate.cli("import", "--mode", "reference", str(music))
        crate.start()
        try:
            yield crate
        finally:
            crate.stop()


def tile_ids(page):
    return page.eval_on_selector_all("#wall li", "items => items.map(i => i.dataset.album)")


def scroll_to(page, count):
    def grown():
        page.mouse.wheel(0, 4000)
        return len(tile_ids(page)) >= count
    wait_until(f"{count} albums on the wall", grown, seconds=60)


def served(daemon):
    html = urllib.request.urlopen(daemon.base + "/", timeout=10).read().decode()
    data = re.search(r'<script type="application/json" id="wall-first">(.*?)</script>', html, re.S)
    assert data, html[:2000]
    return html, json.loads(data.group(1))


def test_a_wall_scrolled_far_comes_back_in_order_and_the_page_stays_small(page, daemon):
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    scroll_to(page, SCROLLED)
    before = tile_ids(page)[:SCROLLED]
    assert len(set(before)) == SCROLLED
    # The next visit's page carries three pages of the kept wall and says how long the wall is.
    html, first = served(daemon)
    assert len(first["entries"]) == CARRIED and first["total"] >= SCROLLED, (len(first["entries"]), first["total"])
    assert [e["id"] for e in first["entries"]] == before[:CARRIED]
    assert html.count('<li class="tile"') == 40
    # Navigating away aborts the covers still on their way: let them arrive first.
    wait_until("the page's requests to end", lambda: page.evaluate("true") and not page.in_flight)
    walls = []
    page.on("request", lambda r: walls.append(r.url) if "/api/v1/wall" in r.url else None)
    page.goto(daemon.base + "/")
    page.wait_for_selector("#wall li img")
    assert tile_ids(page)[:40] == before[:40]
    # Scrolled again: the same albums in the same order, the rest of the kept wall asked for once (GET), no repeats.
    scroll_to(page, SCROLLED)
    again = tile_ids(page)
    assert again[:SCROLLED] == before, "the wall came back in another order"
    assert len(set(again)) == len(again)
    gets = [u for u in walls if "/api/v1/wall?" in u]
    assert len(gets) == 1, walls
    assert not page.console_errors and not page.failed_requests, (page.console_errors, page.failed_requests)
