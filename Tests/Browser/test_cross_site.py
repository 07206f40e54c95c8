"""Issue 13: a page on another site, opened in a real Chromium, tries to drive the daemon. Everything is checked
from the daemon's side: the requests arrived (its log names each refusal) and nothing changed."""
import http.server
import threading

import pytest

from crate_harness import free_port, wait_until

ATTACK = """<!doctype html><html><head><meta charset="utf-8"><title>a friendly page</title></head><body>
<iframe name="sink" id="sink"></iframe>
<form id="steal" method="POST" enctype="text/plain" target="sink" action="DAEMON/api/v1/library/import">
<input name='{"paths": ["MUSIC"], "mode": "copy_then_delete", "deleteOriginals": true, "pad": "' value='"}'>
</form>
<script type="module">
const daemon = "DAEMON";
const results = {};
async function attempt(name, call) {
  try { const r = await call(); results[name] = r.type === "opaque" ? "sent (opaque answer)" : `answered ${r.status}`; }
  catch (e) { results[name] = `blocked: ${e.message}`; }
}
// A simple request: no preflight, so the browser sends it and only hides the answer.
await attempt("textPlain", () => fetch(daemon + "/api/v1/queue/play-album",
  { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ albumID: ALBUM }) }));
// Not simple: the browser asks first (OPTIONS) and must be told no.
await attempt("deleteWithPreflight", () => fetch(daemon + "/api/v1/queue", { method: "DELETE" }));
await attempt("jsonWithPreflight", () => fetch(daemon + "/api/v1/player/volume",
  { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ value: 1 }) }));
// The classic form POST, aimed at the import that deletes originals.
await new Promise((resolve) => {
  document.getElementById("sink").addEventListener("load", resolve, { once: true });
  document.getElementById("steal").submit();
});
results.form = "submitted";
window.results = results;
</script></body></html>"""


class AttackSite(http.server.BaseHTTPRequestHandler):
    page = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *args):
        pass


@pytest.fixture
def attack_site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), AttackSite)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


def test_another_sites_page_cannot_drive_the_daemon(crate_home, attack_site, page):
    music = crate_home.home / "music"
    crate_home.make_album(music / "Band" / "Record", "Band", "Record", 3)
    crate_home.make_album(music / "Other" / "Tape", "Other", "Tape", 2)
    crate_home.cli("import", "--mode", "reference", str(music))
    crate_home.start()
    albums = crate_home.get("/api/v1/albums")
    assert len(albums) == 2
    # The user's own state before the visit: a queued album, not playing, volume 100.
    crate_home.request("POST", "/api/v1/queue", {"albumID": albums[1]["id"]})
    before = crate_home.get("/api/v1/queue")["entries"]
    assert len(before) == 2

    AttackSite.page = (ATTACK.replace("DAEMON", crate_home.base).replace("MUSIC", str(music))
                       .replace("ALBUM", str(albums[0]["id"]))).encode()
    page.goto(f"http://127.0.0.1:{attack_site.server_address[1]}/")
    page.wait_for_function("window.results !== undefined", timeout=30_000)
    results = page.evaluate("window.results")
    # The browser let the simple request and the form through (only the answers are hidden); the others died at the preflight.
    assert results["textPlain"] == "sent (opaque answer)", results
    assert results["deleteWithPreflight"].startswith("blocked"), results
    assert results["jsonWithPreflight"].startswith("blocked"), results

    log = wait_until("the daemon to log the form POST", lambda: "refused POST /api/v1/library/import" in crate_home.log_text()
                     and crate_home.log_text(), seconds=30)
    assert "refused POST /api/v1/queue/play-album: cross-origin" in log
    assert "refused OPTIONS /api/v1/queue: preflight" in log
    assert "refused OPTIONS /api/v1/player/volume: preflight" in log

    status = crate_home.get("/api/v1/player")
    assert status["state"] == "stopped" and status["modes"]["volume"] == 100, status
    assert [e["id"] for e in crate_home.get("/api/v1/queue")["entries"]] == [e["id"] for e in before]
    job = crate_home.get("/api/v1/library/status").get("job") or {}
    assert job.get("kind") != "import", job
    assert (music / "Band" / "Record" / "01.flac").exists()
    assert crate_home.get("/api/v1/health")["library"]["albums"] == 2


def test_the_daemons_own_page_may(crate_home, page):
    """The same rules let the daemon's own origin through: the browser sends Origin, and it matches."""
    crate_home.start()
    page.goto(crate_home.base + "/login")
    answer = page.evaluate("""async () => {
        const r = await fetch("/api/v1/player/volume", { method: "POST", headers: { "Content-Type": "application/json" },
                                                        body: JSON.stringify({ value: 42 }) });
        return { status: r.status, volume: (await r.json()).modes.volume };
    }""")
    assert answer == {"status": 200, "volume": 42}
    assert crate_home.get("/api/v1/player")["modes"]["volume"] == 42
    assert page.console_errors == []


def test_a_body_over_the_limit_gets_its_413_in_the_browser(crate_home, page):
    """Issue 31: Chromium's fetch sends a large body whole (no `Expect: 100-continue`); the daemon reads and drops
    what is over http.max_body_bytes and answers 413 at once, closing the connection. The page's next call works."""
    crate_home.start()
    page.goto(crate_home.base + "/login")
    answers = page.evaluate("""async () => {
        const answers = [];
        for (const size of [1100000, 5000000, 50000000]) {
            const body = '{"trackIDs": [], "padding": "' + "x".repeat(size) + '"}';
            const r = await fetch("/api/v1/queue", { method: "POST", headers: { "Content-Type": "application/json" }, body });
            answers.push([r.status, (await r.json()).error.code]);
        }
        const after = await fetch("/api/v1/health");
        answers.push([after.status, (await after.json()).status]);
        return answers;
    }""")
    assert answers == [[413, "body_too_large"]] * 3 + [[200, "ok"]]
    # The three refusals were expected: nothing else failed.
    assert [r for r in page.failed_requests if ": 413" not in r] == []
