"""The web page on a big library, measured in Debian's Chromium (Playwright), for Benchmarks/web.sh.

  web_bench.py make DIR --albums N        a library of N album folders: one tiny WAV (RIFF INFO tags) and a
                                          distinct cover.jpg each (one base picture + 8 unique bytes after its end)
  web_bench.py measure URL --runs N --scroll N   prints key=value lines (medians over the warm runs; the
                                          first, cold run — thumbnails not made yet — separately)

Times come from the browser's own clocks (Performance API): navigation start to the first wall cover decoded and
painted, to every cover of the first screen shown, bytes of every response before the first paint (artwork
excluded; encoded sizes, as sent), API requests made by the page load, and while scrolling to N albums the frames
longer than 1.5 × 16.7 ms and the requests made, and the size of every `wall/more` answer (decoded bytes, from the
resource timing entries): how many, the first's and the last's.
"""
import argparse
import statistics
import sys
from pathlib import Path

# The library maker the browser tests use too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests"))
from crate_harness import make_tiny_albums  # noqa: E402

CHROMIUM = "/usr/bin/chromium"

# Installed before the page's own scripts: notes when each wall cover has loaded and counts long frames.
PROBE = """
(() => {
  performance.setResourceTimingBufferSize(100000);   // the default 250 entries fill up with covers while scrolling
  window.__bench = { covers: [], frames: 0, long: 0, counting: false, last: 0 };
  document.addEventListener("load", (e) => {
    if (e.target.tagName === "IMG" && e.target.closest("#wall")) window.__bench.covers.push([performance.now(), e.target]);
  }, true);
  const tick = (t) => {
    const b = window.__bench;
    if (b.counting) { b.frames++; if (b.last && t - b.last > 25) b.long++; }
    b.last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();
"""


def make(folder: Path, albums: int):
    make_tiny_albums(folder, albums)


def one_load(browser, url, scroll_to):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.add_init_script(PROBE)
    api = []
    page.on("request", lambda r: api.append(r.url) if "/api/v1/" in r.url and "/artwork/" not in r.url else None)
    page.goto(url)
    page.wait_for_selector("#wall li img")
    # Every cover of the first screen loaded (the ones whose tile is in the viewport); polled, because the page's
    # CSP forbids the eval Playwright's wait_for_function needs.
    for _ in range(600):
        done = page.evaluate("""() => {
          const visible = [...document.querySelectorAll('#wall li img')].filter(i => i.getBoundingClientRect().top < innerHeight);
          return visible.length > 0 && visible.every(i => i.complete && i.naturalWidth > 0);
        }""")
        if done:
            break
        page.wait_for_timeout(50)
    numbers = page.evaluate("""() => {
      const visible = [...document.querySelectorAll('#wall li img')].filter(i => i.getBoundingClientRect().top < innerHeight);
      const loaded = window.__bench.covers;
      const at = (img) => (loaded.find(([, e]) => e === img) || [null])[0];
      const paint = performance.getEntriesByType('paint').find(p => p.name === 'first-contentful-paint');
      const fcp = paint ? paint.startTime : 0;
      const before = performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))
        .filter(r => !r.name.includes('/artwork/') && r.responseEnd <= fcp + 1);
      return {
        firstCover: loaded.length ? Math.min(...loaded.map(([t]) => t)) : -1,
        firstScreen: Math.max(...visible.map(at).filter(t => t !== null)),
        firstScreenCovers: visible.length,
        fcp,
        bytesBeforePaint: before.reduce((n, r) => n + (r.encodedBodySize || 0) + 300, 0),
      };
    }""")
    numbers["apiRequestsAtLoad"] = len(api)
    numbers["wallRequestsAtLoad"] = sum(1 for u in api if "/api/v1/wall" in u)
    # Scrolling: to `scroll_to` albums, a wheel turn per frame or so.
    requests_before = len(api)
    artwork = []
    page.on("request", lambda r: artwork.append(r.url) if "/artwork/" in r.url else None)
    page.evaluate("window.__bench.counting = true; window.__bench.frames = 0; window.__bench.long = 0")
    start = page.evaluate("performance.now()")
    shown, still = 0, 0
    while still < 200:  # about 4 s without a new album: the wall has no more
        count = page.evaluate("document.querySelectorAll('#wall li').length")
        if count >= scroll_to:
            break
        still = still + 1 if count == shown else 0
        shown = count
        page.mouse.wheel(0, 1200)
        page.wait_for_timeout(16)
    page.evaluate("window.__bench.counting = false")
    numbers["scrollAlbums"] = page.evaluate("document.querySelectorAll('#wall li').length")
    numbers["scrollUnique"] = page.evaluate("new Set([...document.querySelectorAll('#wall li')].map(l => l.dataset.album)).size")
    numbers["scrollSeconds"] = (page.evaluate("performance.now()") - start) / 1000
    numbers["scrollFrames"] = page.evaluate("window.__bench.frames")
    numbers["scrollLongFrames"] = page.evaluate("window.__bench.long")
    numbers["scrollApiRequests"] = len(api) - requests_before
    numbers["scrollArtworkRequests"] = len(artwork)
    more = page.evaluate("""() => performance.getEntriesByType('resource')
      .filter(r => r.name.includes('/api/v1/wall/more')).sort((a, b) => a.startTime - b.startTime)
      .map(r => r.decodedBodySize)""")
    numbers["wallMoreRequests"] = len(more)
    numbers["wallMoreFirstBytes"] = more[0] if more else -1
    numbers["wallMoreLastBytes"] = more[-1] if more else -1
    context.close()
    return numbers


def measure(url, runs, scroll_to):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        results = [one_load(browser, url, scroll_to) for _ in range(runs + 1)]
        browser.close()
    cold, warm = results[0], results[1:]
    # The wall/more sizes of one load belong together: for warm, those of the load that asked for the most pages.
    most = max(warm, key=lambda r: r["wallMoreRequests"])
    for key in cold:
        print(f"cold_{key}={cold[key]}")
        print(f"warm_{key}={most[key] if key.startswith('wallMore') else statistics.median(r[key] for r in warm)}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("folder")
    m.add_argument("--albums", type=int, default=10000)
    r = sub.add_parser("measure")
    r.add_argument("url")
    r.add_argument("--runs", type=int, default=5)
    r.add_argument("--scroll", type=int, default=1000)
    args = parser.parse_args()
    if args.command == "make":
        make(Path(args.folder), args.albums)
    else:
        measure(args.url, args.runs, args.scroll)


if __name__ == "__main__":
    sys.exit(main())
