"""The HTML report opened in headless Chromium (Debian's, driven by Playwright): the
elements and counts are there, colours mark what survived, a compaction's detail renders
when opened (also on a 20,000-event session), no request leaves the page, and markup
from a log never runs. Screenshots are saved as test artifacts."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli
from tests.html.sessions import (
    HOSTILE_CONSTRAINT,
    HOSTILE_SCRIPT,
    write_hostile_log,
    write_long_log,
)

pytest.importorskip("playwright", reason="the 'html-test' extra is not installed")

from playwright.sync_api import Browser, Page, sync_playwright

from ctxkeep.report.html_assets import PAGE_SIZE

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Generous: opening a compaction must not hang the page, not win a race.
OPEN_TIMEOUT_MS = 15_000

# Colours of report.css, as the browser computes them.
KEPT_BG = "rgb(216, 245, 220)"
LOST_BG = "rgb(255, 217, 214)"
REWORDED_BG = "rgb(255, 233, 184)"
INVENTED_BG = "rgb(241, 220, 255)"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium "
            "(apt-get install -y chromium; `make test` and .ci/run install it)"
        )
    # Chromium keeps config and cache under HOME / XDG folders: a temporary one here, so
    # the tests write nothing into the real home.
    home = tmp_path_factory.mktemp("browser-home")
    env: dict[str, str | float | bool] = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True, env=env
        )
        yield launched
        launched.close()


class Opened:
    """A report page in the browser, with every request it made and every script error."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(self.url)
        self.page.wait_for_selector("html[data-ck-ready]", timeout=OPEN_TIMEOUT_MS)

    def open_compaction(self, section: int, index: int) -> str:
        """Open compaction ``index`` of the ``section``-th session; its detail's selector."""
        details = f"#s{section}-c{index}"
        self.page.click(f"{details} > summary")
        self.page.wait_for_selector(f"{details} .ck-sides", timeout=OPEN_TIMEOUT_MS)
        return details

    def background(self, selector: str) -> str:
        return str(
            self.page.eval_on_selector(selector, "el => getComputedStyle(el).backgroundColor")
        )

    def screenshot(self, path: Path) -> None:
        self.page.screenshot(path=str(path))
        artifacts = os.environ.get("CTXKEEP_TEST_ARTIFACTS")
        if artifacts:
            Path(artifacts).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(artifacts) / path.name)

    def only_the_page_was_fetched(self) -> None:
        assert self.requests == [self.url]
        assert self.errors == []


def _html(tmp_path: Path, *args: str, name: str = "report.html") -> Path:
    out = run_cli(*args, "--format", "html", cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    page = tmp_path / name
    page.write_text(out.stdout, encoding="utf-8")
    return page


@pytest.fixture(scope="module")
def examples_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    work = tmp_path_factory.mktemp("examples-report")
    shutil.copytree(EXAMPLES, work / "examples")
    page = _html(work, "sweep", "examples")
    report = json.loads(run_cli("sweep", "examples", "--format", "json", cwd=work).stdout)
    return page, report


def test_examples_ranked_with_counts_chart_and_colours(
    browser: Browser, examples_report: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    path, report = examples_report
    sessions = report["sessions"]
    assert isinstance(sessions, list)
    view = Opened(browser, path)
    page = view.page
    ranked = page.eval_on_selector_all(
        "section.ck-session", "els => els.map(e => e.getAttribute('data-path'))"
    )
    assert ranked == [s["path"] for s in sessions]
    assert page.locator("tr.ck-rank").count() == len(sessions)
    totals = report["totals"]
    assert isinstance(totals, dict)
    for name in ("started", "summarised", "failed"):
        shown = page.inner_text(f"section.ck-totals [data-count='{name}']")
        assert int(shown.replace(",", "")) == totals["compactions"][name]
    assert page.locator("svg.ck-chart").count() == len(sessions)
    assert (
        page.locator("svg.ck-chart g.ck-chart-compaction").count()
        == totals["compactions"]["started"]
    )
    # Nothing is rendered until a compaction is opened.
    assert page.locator(".ck-event").count() == 0

    tiny = next(
        i
        for i, s in enumerate(sessions, 1)
        if s["path"].endswith("tinyparse-three-compactions.jsonl")
    )
    third = view.open_compaction(tiny, 3)
    lost = page.locator(f"{third} li.ck-constraint.ck-lost")
    assert lost.count() == 1
    assert "(line X, column Y)" in lost.inner_text()
    assert view.background(f"{third} li.ck-lost .ck-badge") == LOST_BG
    mark = page.locator(f"{third} .ck-history mark.ck-lost")
    assert mark.count() == 1
    assert view.background(f"{third} .ck-history mark.ck-lost") == LOST_BG
    # The constraint links to the event it came from, at its source line.
    lost.locator("a.ck-goto").click()
    assert mark.is_visible()
    line = page.eval_on_selector(f"{third} li.ck-lost a.ck-goto", "a => a.textContent")
    head = page.locator(f"{third} .ck-event.ck-flash .ck-event-head").inner_text()
    assert head.startswith(f"{line} ·")

    first = view.open_compaction(tiny, 1)
    assert page.locator(f"{first} li.ck-kept").count() >= 1
    assert view.background(f"{first} li.ck-kept .ck-badge") == KEPT_BG
    assert view.background(f"{first} .ck-history mark.ck-kept") == KEPT_BG
    if page.locator(f"{first} .ck-history mark.ck-reworded").count():
        assert view.background(f"{first} .ck-history mark.ck-reworded") == REWORDED_BG

    second = view.open_compaction(tiny, 2)
    invented = page.locator(f"{second} .ck-summary-text mark.ck-invented")
    assert invented.count() >= 1
    assert "src/tinyparse/ast_nodes.py" in invented.all_inner_texts()
    assert view.background(f"{second} .ck-summary-text mark.ck-invented") == INVENTED_BG

    page.eval_on_selector(second, "el => el.scrollIntoView()")
    view.screenshot(tmp_path / "examples-report.png")
    view.only_the_page_was_fetched()


def test_a_20000_event_session_opens_lazily_and_pages(browser: Browser, tmp_path: Path) -> None:
    log = write_long_log(tmp_path / "long.jsonl")
    report = json.loads(run_cli("audit", "long.jsonl", "--format", "json", cwd=tmp_path).stdout)
    (session,) = report["sessions"]
    assert session["events"] >= 20_000
    path = _html(tmp_path, "audit", log.name)
    view = Opened(browser, path)
    page = view.page
    started = session["compactions"]["started"]
    assert page.locator("details.ck-compaction").count() == started
    assert page.locator(".ck-event").count() == 0
    assert page.locator("svg.ck-chart polyline.ck-chart-line").count() == 1

    detail = view.open_compaction(1, started // 2)
    events = page.locator(f"{detail} .ck-event")
    assert events.count() == PAGE_SIZE
    label = page.inner_text(f"{detail} .ck-page-label")
    assert label.startswith(f"events 1–{PAGE_SIZE} of ")
    page.click(f"{detail} button.ck-next")
    assert page.inner_text(f"{detail} .ck-page-label").startswith(f"events {PAGE_SIZE + 1}–")
    assert events.count() == PAGE_SIZE
    # Only the open compaction's events are in the document.
    assert page.locator(".ck-event").count() == PAGE_SIZE
    # The last constraint's link turns to the page holding its event and shows it marked.
    links = page.locator(f"{detail} li.ck-constraint a.ck-goto")
    assert links.count() >= 1
    anchor = links.last.get_attribute("href")
    assert anchor is not None
    links.last.click()
    assert page.locator(f"{detail} mark{anchor}").is_visible()
    assert page.locator(f"{detail} .ck-event.ck-flash").count() == 1
    view.screenshot(tmp_path / "long-session-report.png")
    view.only_the_page_was_fetched()


def test_markup_in_a_log_is_shown_never_run(browser: Browser, tmp_path: Path) -> None:
    log = write_hostile_log(tmp_path / "hostile.jsonl")
    path = _html(tmp_path, "audit", log.name)
    view = Opened(browser, path)
    page = view.page
    detail = view.open_compaction(1, 1)
    assert page.evaluate("() => window.__ckPwned") is None
    assert page.locator("img").count() == 0
    assert page.locator(f"{detail} b").count() == 0
    history = page.inner_text(f"{detail} .ck-history")
    assert HOSTILE_SCRIPT in history
    assert page.inner_text(f"{detail} li.ck-lost .ck-constraint-text") == HOSTILE_CONSTRAINT
    assert HOSTILE_SCRIPT in page.inner_text(f"{detail} .ck-summary-text")
    view.screenshot(tmp_path / "hostile-report.png")
    view.only_the_page_was_fetched()


def test_every_compaction_of_the_examples_opens_without_a_script_error(
    browser: Browser, examples_report: tuple[Path, dict[str, object]]
) -> None:
    path, report = examples_report
    view = Opened(browser, path)
    page = view.page
    statuses = page.eval_on_selector_all(
        "details.ck-compaction", "els => els.map(e => e.getAttribute('data-status'))"
    )
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert len(statuses) == totals["compactions"]["started"]
    assert statuses.count("summarised") == totals["compactions"]["summarised"]
    for details in page.locator("details.ck-compaction").all():
        details.locator("summary").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('details.ck-compaction .ck-detail')]"
        ".every(d => d.querySelector('.ck-sides'))",
        timeout=OPEN_TIMEOUT_MS,
    )
    # An opaque compaction (the Codex example's server-side one) says why it shows no text.
    opaque = page.evaluate(
        "() => [...document.querySelectorAll('script[type=\"application/json\"]')]"
        ".filter(s => JSON.parse(s.textContent).compaction.opaque).length"
    )
    assert opaque >= 1
    notes = page.locator(".ck-summary-text .ck-note").all_inner_texts()
    assert sum("opaque" in note for note in notes) == opaque
    view.only_the_page_was_fetched()


def test_instructions_restored_by_ctxkeep_are_marked(browser: Browser, tmp_path: Path) -> None:
    """A session played through ctxkeep's real hooks, its page written with their ledger:
    the compaction after the restore marks what was restored and what was asked for."""
    from tests.hooks.harness import run_ctxkeep
    from tests.hooks.scenario import NEVER, SCOPE, build_scenario

    scenario = build_scenario(tmp_path)
    out = run_ctxkeep(scenario.home, "audit", "--format", "html", str(scenario.transcript))
    assert out.returncode == 1, out.stderr
    path = tmp_path / "restored-report.html"
    path.write_text(out.stdout, encoding="utf-8")
    view = Opened(browser, path)
    page = view.page
    hooks = page.locator("ul.ck-hooks li.ck-hook").all_inner_texts()
    assert hooks[0] == "compaction 1: restored 2 after it"
    second = view.open_compaction(1, 2)
    lost = page.locator(f"{second} li.ck-constraint.ck-lost")
    assert lost.count() == 1
    assert SCOPE in lost.inner_text()
    assert "restored by ctxkeep after compaction 1" in lost.inner_text()
    kept = page.locator(f"{second} li.ck-constraint", has_text=NEVER)
    assert "restored by ctxkeep after compaction 1" in kept.inner_text()
    assert "ctxkeep asked the summariser to keep it" in kept.inner_text()
    first = view.open_compaction(1, 1)
    assert "restored by ctxkeep" not in page.inner_text(f"{first} ul.ck-constraints")
    view.screenshot(tmp_path / "restored-report.png")
    view.only_the_page_was_fetched()
