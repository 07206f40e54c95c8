"""Shared parts of the browser tests: a real crated on a loopback port with a generated library, and Debian's
Chromium driven by Playwright (never a downloaded browser)."""
import sys
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The harness shared with Tests/Integration (the test modules import it by name, never from conftest: a pytest run
# of both folders knows only one module named conftest).
from crate_harness import CHROMIUM, ROOT, Crate, PulseServer  # noqa: E402

ARTIFACTS = ROOT / ".build" / "browser-artifacts"


@pytest.fixture
def crate_home():
    with tempfile.TemporaryDirectory(prefix="crate-browser-") as tmp:
        crate = Crate(Path(tmp))
        try:
            yield crate
        finally:
            crate.stop()


@pytest.fixture(scope="module")
def pulse():
    folder = Path(tempfile.mkdtemp(prefix="crate-pa-"))
    server = PulseServer(folder)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []
    pg.failed_requests = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    pg.on("requestfailed", lambda r: pg.failed_requests.append(f"{r.method} {r.url}: {r.failure}")
          if "/api/v1/events" not in r.url else None)
    pg.on("response", lambda r: pg.failed_requests.append(f"{r.request.method} {r.url}: {r.status}") if r.status >= 400 else None)
    # The requests under way (the event stream aside), for tests that must not navigate away from one (see settled).
    pg.in_flight = set()
    pg.on("request", lambda r: pg.in_flight.add(r) if "/api/v1/events" not in r.url else None)
    pg.on("requestfinished", lambda r: pg.in_flight.discard(r))
    pg.on("requestfailed", lambda r: pg.in_flight.discard(r))
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)
