"""Pure figure builders: traces per band, widths by risk, hover text, highlight, uirevision."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from proximity.dashboard.figures import (
    BAND_COLOURS,
    airspace_figure,
    folder_colours,
    link_hover,
    width_for,
)
from proximity.selectors.board_records import AgentPoint, Coverage, FilePoint, LinkRecord, Scene


def _scene(coverage: Coverage | None = None) -> Scene:
    agents = [AgentPoint(n, f"task {n}", k, 0.0, 0.0, 1) for k, n in enumerate("abcd")]
    files = [
        FilePoint("src/x.py", 0, 0, 0),
        FilePoint("src/y.py", 1, 0, 0),
        FilePoint("web/z.ts", 2, 0, 0),
    ]
    links = [
        LinkRecord("a", "b", 0.9, "resolution", {"overlap": 1.0, "tree": 0.5}, steer="b", hold="a"),
        LinkRecord("a", "c", 0.4, "traffic", {"dependency": 0.4}),
        LinkRecord("b", "c", 0.95, "conflict", {"conflict": 1.0}, steer="c", hold="b"),
        LinkRecord("c", "d", 0.05, "clear", {"tree": 0.05}),
    ]
    owned = {"a": ["src/x.py", "src/y.py"], "b": ["src/y.py"], "c": ["web/z.ts"], "d": []}
    return Scene("web", agents, files, links, owned, coverage or Coverage("ok"))


def _names(fig) -> list[str]:
    return [t["name"] for t in fig["data"]]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"bands": ("clear", "traffic", "resolution", "conflict")},
        {"agent": "c"},
        {"selected": "a"},
    ],
)
def test_the_figure_is_valid_plotly(kwargs):
    # The builder writes plain dicts; Plotly's own validators check every property name and value.
    fig = go.Figure(airspace_figure(_scene(Coverage("stale", "old")), **kwargs))
    assert len(fig.data) >= 2


def test_clear_links_are_hidden_by_default():
    fig = airspace_figure(_scene())
    assert not any("Clear" in n for n in _names(fig))
    # files, agents, then per band: one line trace per width bucket plus one hover trace.
    assert len(fig["data"]) == 2 + (1 + 1) * 3


def test_asking_for_clear_adds_its_traces():
    fig = airspace_figure(_scene(), bands=("clear", "traffic", "resolution", "conflict"))
    assert "Clear (line: risk 0.0-0.5)" in _names(fig)
    assert len(fig["data"]) == 2 + 2 * 4


@pytest.mark.parametrize(
    ("band", "colour"), [("traffic", "#d97706"), ("resolution", "#dc2626"), ("conflict", "#7f1d1d")]
)
def test_each_band_is_drawn_in_its_colour(band, colour):
    fig = airspace_figure(_scene(), bands=(band,))
    lines = [t for t in fig["data"] if t["mode"] == "lines"]
    assert [t["line"]["color"] for t in lines] == [colour]
    assert BAND_COLOURS[band] == colour


@pytest.mark.parametrize(
    ("risk", "width"), [(0.0, 2.0), (0.49, 2.0), (0.5, 5.0), (0.8, 9.0), (1.0, 9.0)]
)
def test_width_grows_with_risk(risk, width):
    assert width_for(risk) == width


def test_hover_names_both_agents_channels_and_right_of_way():
    text = link_hover(
        LinkRecord("a", "b", 0.9, "resolution", {"overlap": 1.0, "tree": 0.0}, "b", "a")
    )
    assert "a ↔ b" in text
    assert "Resolution Advisory" in text
    assert "overlapping edits 1.00" in text
    assert "tree" not in text  # silent channels are left out
    assert "a holds; b steers clear" in text


def test_channels_are_named_for_people_strongest_first():
    from proximity.selectors.board_records import channels_text

    text = channels_text({"tree": 0.5, "adjacency": 1.0, "dependency": 0.0, "novel": 0.2})
    assert text == "abutting edits 1.00, nearby in the tree 0.50, novel 0.20"
    assert channels_text({"overlap": 0.0}) == "none"


def test_agent_filter_keeps_only_its_links():
    fig = airspace_figure(_scene(), agent="c")
    hovers = [h for t in fig["data"] if t["name"].endswith("details") for h in t["hovertext"]]
    assert len(hovers) == 2
    assert all("c" in h.split("<br>")[0] for h in hovers)


def test_selecting_an_agent_highlights_exactly_its_files():
    fig = airspace_figure(_scene(), selected="a")
    highlight = fig["data"][-1]
    assert highlight["name"] == "files of a"
    assert highlight["hovertext"] == ["src/x.py", "src/y.py"]
    agents = fig["data"][1]
    assert agents["marker"]["size"] == [14, 9, 9, 9]
    assert "<b>a</b>" in [n["text"] for n in fig["layout"]["scene"]["annotations"]]


def test_files_are_coloured_by_folder():
    scene = _scene()
    colours = folder_colours(scene.files)
    assert colours["src"] != colours["web"]
    fig = airspace_figure(scene)
    assert fig["data"][0]["marker"]["color"] == [colours["src"], colours["src"], colours["web"]]


def test_uirevision_keeps_the_camera_per_repository():
    assert airspace_figure(_scene())["layout"]["uirevision"] == "web"
    assert airspace_figure(_scene(), uirevision="x")["layout"]["uirevision"] == "x"


def test_unknown_coverage_is_announced_never_drawn_as_clear():
    fig = airspace_figure(_scene(Coverage("unknown", "no completed scan yet")))
    [note] = fig["layout"]["annotations"]
    assert note["text"].startswith("Coverage UNKNOWN")
    assert not any(n.startswith("Clear") for n in _names(fig))


def test_only_the_riskiest_pairs_agents_are_labelled_in_a_crowd():
    from proximity.dashboard.figures import LABEL_LIMIT

    agents = [AgentPoint(f"a{k:03d}", "", k, 0, 0, 1) for k in range(200)]
    links = [LinkRecord(f"a{k:03d}", f"a{k + 1:03d}", k / 200, "traffic") for k in range(0, 200, 2)]
    scene = Scene("web", agents, [], links, {}, Coverage("ok"))
    fig = airspace_figure(scene)
    labels = [n["text"] for n in fig["layout"]["scene"]["annotations"]]
    assert len(labels) == LABEL_LIMIT
    assert "a198" in labels  # the riskiest pair is named
    assert "a000" not in labels
    a198 = next(n for n in fig["layout"]["scene"]["annotations"] if n["text"] == "a198")
    assert (a198["x"], a198["y"], a198["z"]) == (198, 0, 0)  # pinned to its agent in 3D


def test_labels_are_svg_annotations_not_webgl_text():
    # WebGL text is vectorised glyph by glyph on the first render: ~0.7 s for 24 labels.
    fig = airspace_figure(_scene())
    assert not any("text" in t["mode"] for t in fig["data"])
    assert {n["text"] for n in fig["layout"]["scene"]["annotations"]} == {"a", "b", "c"}
