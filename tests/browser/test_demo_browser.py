"""The demo and the HTML report in a real browser: Playwright driving Debian's Chromium.

Playwright's own browser download cannot work offline, so the tests launch the system Chromium
(``apt-get install chromium``; ``.ci/run`` installs it). They skip with a reason when it or the
Playwright package is missing. Screenshots of each step go to ``$VQM_SCREENSHOT_DIR`` (``make
screenshots`` points it at ``docs/screenshots/`` for the README), else to a temporary folder.
"""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
# `make screenshots` sets VQM_SCREENSHOT_DIR=docs/screenshots; a plain test run leaves the
# committed screenshots alone.
SHOTS = Path(os.environ.get("VQM_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="vqm-shots-"))
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"{CHROMIUM} not found (apt-get install chromium; .ci/run installs it)",
    ),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:uvicorn.*"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning:websockets.*"),
]

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install 'vqametrics[browser]')"
)
pytest.importorskip("uvicorn", reason="the demo extra is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    import uvicorn

    from vqametrics.demo.app import create_app

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the demo server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield b
        b.close()


class Page:
    """A page plus every request it made that did not go to the demo server."""

    def __init__(self, browser: Any, base_url: str, width: int = 1200, height: int = 900):
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.base = base_url
        self.external: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", self._request)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _request(self, request: Any) -> None:
        url = request.url
        if not (url.startswith(self.base) or url.startswith("data:")):
            self.external.append(url)

    def open(self, query: str = "", tab: str = "step1") -> Any:
        self.page.goto(f"{self.base}{query}#{tab}")
        self.page.wait_for_selector("body[data-ready]")
        self.settle()
        return self.page

    def settle(self) -> None:
        # a selector, not wait_for_function: Playwright 1.44 polls a function with eval, which
        # the page's Content-Security-Policy refuses (and reports as a console error)
        idle = "body:not([data-pending])"
        self.page.wait_for_selector(idle, state="attached")
        self.page.wait_for_timeout(200)  # the input debounce
        self.page.wait_for_selector(idle, state="attached")

    def close(self) -> None:
        assert self.errors == [], self.errors
        assert self.external == [], f"the page loaded external resources: {self.external}"
        self.context.close()


@pytest.fixture
def page(browser: Any, base_url: str) -> Iterator[Page]:
    p = Page(browser, base_url)
    yield p
    p.close()


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def text(page: Any, selector: str) -> str:
    value: str = page.locator(selector).inner_text()
    return value.strip()


# --------------------------------------------------------------------------- step 1


def test_step1_typed_answer_scores_as_the_library(page: Page) -> None:
    from vqametrics import vqa_accuracy
    from vqametrics.aggregate import percent
    from vqametrics.demo.presets import get_preset

    p = page.open()
    assert text(p, "#official-score") == "100.00"  # textbook: red apple
    p.select_option("#preset", "textbook-2")
    page.settle()
    answers = get_preset("textbook-2")["answers"]
    assert text(p, "#official-score") == "30.00"  # sky blue: m = 1
    assert text(p, "#textbook-score") == "33.33"
    for typed in ("Blue!", "light blue", "sky", "azure"):
        p.fill("#prediction", typed)
        page.settle()
        expected = f"{percent([vqa_accuracy(typed, answers)]):.2f}"
        assert text(p, "#official-score") == expected, typed
    # edit a slip: a second "azure" makes m = 2 -> 60
    p.fill("#slip-1", "azure")
    page.settle()
    assert text(p, "#m-value") == "2"
    assert text(p, "#official-score") == "60.00"
    assert p.locator("#loo .loo-row").count() == 10
    assert "0.6" in text(p, "#loo-mean")
    p.select_option("#preset", "textbook-2")
    page.settle()
    shot(p, "step1.png")


def test_step1_quirk_yes_against_ten_yes(page: Page) -> None:
    p = page.open("?preset=quirk-yes")
    assert p.input_value("#prediction") == "Yes"
    assert text(p, "#official-score") == "0.00"
    assert p.locator(".badge.hit").count() == 0


# --------------------------------------------------------------------------- step 2


def test_step2_profile_switch_changes_the_score(page: Page) -> None:
    p = page.open("?preset=quirk-tshirt", tab="step2")
    assert p.locator("#panel-step2").is_visible()
    assert p.locator("#unanimous").is_visible()
    assert "100.00" in text(p, "#s2-score")
    assert p.locator("#steps-table td.is-skipped").count() > 0
    p.check("#profile-official-2017")
    page.settle()
    assert "0.00" in text(p, "#s2-score")
    assert p.locator("#steps-table tr.pred-row td.is-changed").count() >= 1  # t-shirt -> t shirt
    p.check("#profile-simple")
    page.settle()
    assert "simple" in text(p, "#s2-score")
    p.check("#profile-official")
    page.settle()
    p = page.open("?preset=real-fork", tab="step2")
    assert p.locator("#steps-table del").count() > 0  # removed text is struck through
    assert "90.00" in text(p, "#s2-score")  # "the left hand." matches 3 "left hand" slips
    shot(p, "step2.png")


# --------------------------------------------------------------------------- step 3 and the rest


def test_step3_numbers_come_from_the_library(page: Page) -> None:
    from vqametrics import evaluate_vqa
    from vqametrics.data import sample_files

    p = page.open(tab="step3")
    p.wait_for_selector("#vqa-table")
    files = sample_files("messy-majority")
    acc = evaluate_vqa(files["annotations"], files["results"]).accuracy["overall"]
    cell = p.locator('#vqa-table tr[data-set="messy-majority"] td[data-metric="vqa"] .num')
    assert cell.inner_text() == f"{acc:.2f}"
    p.wait_for_selector("#mmb-table")
    circ = p.locator('#mmb-table tr[data-set="original-order"] td[data-metric="circular"] .num')
    assert circ.inner_text() == "0.00"
    assert p.locator("#props-table tbody tr").count() == 4
    shot(p, "step3.png")


def test_misconceptions_and_quiz(page: Page) -> None:
    p = page.open(tab="myths")
    p.wait_for_selector("#myth-textbook")
    assert p.locator(".myth").count() == 8
    assert "MMF M4C" in text(p, "#myth-textvqa") and "vqaEval.py" in text(p, "#myth-textvqa")
    assert "30.00" in text(p, "#myth-textbook")
    p.click("#tab-quiz")
    p.wait_for_selector("#quiz-q1")
    p.locator("#quiz-q1 label", has_text="60.00").click()
    p.click("#quiz-form button[type=submit]")
    assert "Correct" in text(p, "#feedback-q1")
    assert "answer is" in text(p, "#feedback-q2")  # unanswered: the right answer is shown


def test_language_switch(page: Page) -> None:
    p = page.open()
    assert text(p, "h1") == "How a VQA answer is scored"
    p.click(".lang button[data-lang=zh]")
    assert text(p, "h1") == "VQA 答案是怎样计分的"
    assert p.evaluate("document.documentElement.lang") == "zh-CN"
    assert text(p, "#tab-step1").startswith("1 · 十张答卷")
    assert text(p, "#official-score") == "100.00"  # numbers do not change with the language
    p.click(".lang button[data-lang=en]")
    assert text(p, "h1") == "How a VQA answer is scored"


def test_keyboard_navigation_of_the_tabs(page: Page) -> None:
    p = page.open()
    p.focus("#tab-step1")
    p.keyboard.press("ArrowRight")
    assert p.get_attribute("#tab-step2", "aria-selected") == "true"
    assert p.locator("#panel-step2").is_visible()
    assert p.evaluate("document.activeElement.id") == "tab-step2"
    p.keyboard.press("End")
    assert p.get_attribute("#tab-quiz", "aria-selected") == "true"
    p.keyboard.press("Home")
    assert p.get_attribute("#tab-step1", "aria-selected") == "true"
    # every form control has a label
    unlabeled = p.evaluate(
        """() => [...document.querySelectorAll('input, select')]
             .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
             .map(e => e.id)"""
    )
    assert unlabeled == []


@pytest.mark.parametrize("tab", ["step1", "step2", "step3", "myths", "quiz"])
def test_narrow_screen_has_no_horizontal_scroll(browser: Any, base_url: str, tab: str) -> None:
    narrow = Page(browser, base_url, width=390, height=844)
    p = narrow.open(tab=tab)
    p.wait_for_timeout(400)
    width = p.evaluate("document.documentElement.scrollWidth")
    assert width <= 391, f"{tab}: page is {width}px wide on a 390px screen"
    if tab == "step1":
        shot(p, "step1-narrow.png")
    narrow.close()


# --------------------------------------------------------------------------- the HTML report


def test_report_opens_offline_and_its_charts_render(browser: Any, tmp_path: Path) -> None:
    from vqametrics.data import sample_files
    from vqametrics.views.html import build_report, render_report

    files = sample_files("messy-majority")
    model = build_report(
        files["annotations"],
        [files["results"], sample_files("minority")["results"]],
        questions=files["questions"],
        n_cards=3,
    )
    out = tmp_path / "report.html"
    out.write_text(render_report(model), encoding="utf-8")
    context = browser.new_context(viewport={"width": 1100, "height": 900}, offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    svgs = page.locator("figure svg")
    assert svgs.count() >= 3
    for i in range(svgs.count()):
        box = svgs.nth(i).bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 80
    # matplotlib drew real bars: every chart has filled paths
    assert page.evaluate("document.querySelectorAll('figure svg path').length") > 20
    assert [r for r in requests if not r.startswith("file:")] == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SHOTS / "report.png"), clip={"x": 0, "y": 0, "width": 1100, "height": 1500}
    )
    context.close()
