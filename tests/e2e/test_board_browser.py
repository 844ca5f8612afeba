"""Headless Chromium against the real site: board, kanban, acknowledge, desk, scopes."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from django.contrib.auth import get_user_model

from proximity.dashboard.figures import airspace_figure
from proximity.models import Principal, ProximityAdvisory
from proximity.selectors.board import board_scene
from proximity.services.demo import DEMO_REPOSITORY, demo_airspace_seed
from tests.e2e.conftest import ARTIFACTS, log_in
from tests.proximity.admin.factories import PASSWORD, make_adjudicator, make_pair, make_version

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS_SCREENSHOT = ARTIFACTS.parent / "docs" / "board.png"


def _user(name: str, scopes: list[str]) -> Principal:
    user = get_user_model().objects.create_user(name, password=PASSWORD, is_staff=True)
    return Principal.objects.create(name=name, user=user, scopes=scopes)


@pytest.fixture
def demo(board_server):
    lead = _user("lead", ["demo"])
    demo_airspace_seed(principal=lead)
    return lead


def _open_board(page, server):
    log_in(page, server, "lead", PASSWORD)
    page.wait_for_selector("#col-resolution .card")
    page.wait_for_function(
        "() => document.querySelector('#airspace .js-plotly-plot')?.data?.length > 2"
    )


def test_board_renders_scene_and_kanban_and_acknowledges(board_server, demo, page):
    _open_board(page, board_server)
    expected = len(airspace_figure(board_scene(demo, DEMO_REPOSITORY))["data"])
    traces = page.evaluate("() => document.querySelector('#airspace .js-plotly-plot').data.length")
    assert traces == expected
    has_gl = page.evaluate(
        "() => { const c = document.querySelector('#airspace canvas');"
        " return !!c && !!(c.getContext('webgl') || c.getContext('webgl2')); }"
    )
    assert has_gl, "the 3D scene did not get a WebGL canvas"
    card = page.locator("#col-resolution .card", has_text="refund-fix").first
    assert "max(total - paid, 0)" in card.inner_text()  # what the other agent changed
    assert "Resolution Advisory" in card.inner_text()
    assert page.locator("#col-traffic .card").count() >= 1
    page.wait_for_timeout(800)  # let the scene finish its first WebGL frame
    page.screenshot(path=str(ARTIFACTS / "board.png"))
    if os.environ.get("UPDATE_DOCS_SCREENSHOT") or not DOCS_SCREENSHOT.exists():
        shutil.copyfile(ARTIFACTS / "board.png", DOCS_SCREENSHOT)  # the README's picture
    advisory_id = int(card.get_attribute("data-card"))
    card.get_by_role("button", name="Acknowledge").click()
    page.wait_for_selector(f"#col-acknowledged [data-card='{advisory_id}']")
    assert ProximityAdvisory.objects.get(pk=advisory_id).state == "acknowledged"
    page.screenshot(path=str(ARTIFACTS / "board-acknowledged.png"))


def test_clicking_an_agent_highlights_its_files_and_lists_its_advisories(board_server, demo, page):
    _open_board(page, board_server)
    # A 3D point has no stable pixel, so emit the click Plotly would send for the agents trace.
    page.evaluate(
        """() => {
          const gd = document.querySelector('#airspace .js-plotly-plot');
          const n = gd.data[1].customdata.indexOf('refund-fix');
          gd.emit('plotly_click', {points: [{curveNumber: 1, pointNumber: n}]});
        }"""
    )
    page.wait_for_selector("#agent-panel h2:has-text('Advisories of refund-fix')")
    assert page.locator("#agent-panel .card").count() >= 1
    page.wait_for_function(
        "() => document.querySelector('#airspace .js-plotly-plot').data"
        ".some(t => t.name === 'files of refund-fix')"
    )


@pytest.mark.parametrize("width", [1366, 1024])
def test_board_fits_a_laptop_screen_without_sideways_scrolling(board_server, demo, page, width):
    page.set_viewport_size({"width": width, "height": 800})
    _open_board(page, board_server)
    overflow = page.evaluate(
        """() => ({page: document.documentElement.scrollWidth - window.innerWidth,
                   columns: Array.from(document.querySelectorAll('#kanban .column'))
                     .filter(c => c.getBoundingClientRect().right > window.innerWidth + 1)
                     .map(c => c.id)})"""
    )
    assert overflow == {"page": 0, "columns": []}
    assert page.locator("#col-tasks").is_visible()


def test_kanban_works_with_the_keyboard(board_server, demo, page):
    _open_board(page, board_server)
    first = page.locator("#col-resolution .card").first
    first.focus()
    page.keyboard.press("ArrowDown")
    second_id = page.evaluate("() => document.activeElement.dataset.card")
    assert second_id
    assert second_id != first.get_attribute("data-card")
    page.keyboard.press("Tab")  # into the focused card's first control: Acknowledge
    assert page.evaluate("() => document.activeElement.textContent") == "Acknowledge"
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#col-acknowledged [data-card='{second_id}']")


def test_every_control_has_a_label_and_bands_are_named(board_server, demo, page):
    _open_board(page, board_server)
    unlabelled = page.evaluate(
        """() => Array.from(document.querySelectorAll(
            ['button', 'input', 'select', 'a'].map(t => '#react-entry-point ' + t).join(',')))
        .filter(e => e.getAttribute('aria-hidden') !== 'true' && e.offsetParent !== null)
        .filter(e => !((e.labels && e.labels.length) || e.getAttribute('aria-label')
                       || e.closest('label') || (e.textContent || '').trim()))
        .map(e => e.outerHTML.slice(0, 120))"""
    )
    assert unlabelled == []
    legend = page.locator("#bands").inner_text()
    for name in ("Clear", "Traffic Advisory", "Resolution Advisory", "Conflicting"):
        assert name in legend
    for card in page.locator(".card[data-band]").all():
        assert card.locator(".badge").inner_text().split(" ", 1)[1] in card.get_attribute(
            "aria-label"
        )


def test_adjudicator_labels_a_pair_and_it_leaves_the_queue(board_server, page):
    declarer = _user("declarer", ["team-a"])
    pair = make_pair(make_version("T-1", declarer), make_version("T-2", declarer))
    make_adjudicator("ann", scopes=["team-a"])
    log_in(page, board_server, "ann", PASSWORD, next_url="/admin/proximity/overlapadvisory/desk/")
    assert page.locator(f"#queue tr[data-advisory='{pair.pk}']").count() == 1
    assert "4242" not in page.content()
    page.click(f"#queue tr[data-advisory='{pair.pk}'] a.label-link")
    page.check("input[value='partial_overlap']")
    page.fill("textarea[name=rationale]", "shared prerequisite, different deliverables")
    page.screenshot(path=str(ARTIFACTS / "desk-label.png"))
    page.click("#label-form button[type=submit]")
    page.wait_for_url("**/overlapadvisory/desk/")
    assert page.locator(f"#queue tr[data-advisory='{pair.pk}']").count() == 0
    assert pair.adjudications.get().rationale == "shared prerequisite, different deliverables"


def test_outsider_sees_neither_board_records_nor_pairs(board_server, demo, page):
    declarer = _user("declarer", ["demo"])
    make_pair(
        make_version("T-1", declarer, scope="demo"), make_version("T-2", declarer, scope="demo")
    )
    make_adjudicator("olga", scopes=["elsewhere"])
    log_in(page, board_server, "olga", PASSWORD)
    page.wait_for_selector("#kanban")
    time.sleep(1.0)  # give the callbacks time to (not) fill anything
    assert page.locator(".card").count() == 0
    assert "refund-fix" not in page.content()
    page.goto(f"{board_server}/admin/proximity/overlapadvisory/desk/")
    assert "T-1@1" not in page.content()
    assert "Nothing awaiting your label" in page.content()


def test_anonymous_browser_is_sent_to_the_login_page(board_server, page):
    page.goto(f"{board_server}/board/")
    assert "/admin/login/" in page.url
