"""Pure figure builders: traces per band, widths by risk, hover text, highlight, uirevision."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from proximity.dashboard.figures import (
    AGENT_TARGET,
    AGENT_TRACES,
    BAND_COLOURS,
    COINCIDENT,
    airspace_figure,
    folder_colours,
    link_hover,
    spread_agents,
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
    # files, agents, their hit targets, then per band: a line trace per width bucket plus one
    # hover trace.
    assert len(fig["data"]) == 3 + (1 + 1) * 3


def test_asking_for_clear_adds_its_traces():
    fig = airspace_figure(_scene(), bands=("clear", "traffic", "resolution", "conflict"))
    assert "Clear (line: risk 0.0-0.5)" in _names(fig)
    assert len(fig["data"]) == 3 + 2 * 4


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
    shown = spread_agents(agents)["a198"]
    assert (a198["x"], a198["y"], a198["z"]) == tuple(round(v, 3) for v in shown)  # on its agent
    assert abs(shown[0] - 198) < 200 * (COINCIDENT + 0.03)  # near its place in the layout


def test_labels_are_svg_annotations_not_webgl_text():
    # WebGL text is vectorised glyph by glyph on the first render: ~0.7 s for 24 labels.
    fig = airspace_figure(_scene())
    assert not any("text" in t["mode"] for t in fig["data"])
    assert {n["text"] for n in fig["layout"]["scene"]["annotations"]} == {"a", "b", "c"}


def _stacked() -> Scene:
    """Three agents on the same files (one place in the layout) and one elsewhere."""
    agents = [AgentPoint(n, n, 0.5, 0.5, 0.5, 1) for n in ("p", "q", "r")]
    agents.append(AgentPoint("far", "far", -1.0, 1.0, -1.0, 1))
    files = [FilePoint("src/x.py", 0.5, 0.5, 0.5), FilePoint("web/y.ts", -1, 1, -1)]
    links = [LinkRecord(a, b, 0.9, "resolution") for a, b in ("pq", "qr", "pr")]
    links.append(LinkRecord("r", "far", 0.4, "traffic"))
    return Scene("web", agents, files, links, {}, Coverage("ok"))


def test_coincident_agents_are_stacked_apart_and_the_others_stay_put():
    at = spread_agents(_stacked().agents, _stacked().files)
    assert at["far"] == (-1.0, 1.0, -1.0)
    stack = [at[n] for n in ("p", "q", "r")]
    assert len(set(stack)) == 3
    heights = [p[2] for p in stack]
    assert heights == sorted(heights)  # in agent-id order, bottom to top
    assert heights[2] - heights[0] >= 0.15  # z steps of 9% of the 1.5-wide range
    centre = [sum(p[k] for p in stack) / 3 for k in range(3)]
    assert all(abs(c - 0.5) < 1e-9 for c in centre)  # around their shared place
    # no three on one line: every link between them is visible on its own
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = stack
    cross = (
        (by - ay) * (cz - az) - (bz - az) * (cy - ay),
        (bz - az) * (cx - ax) - (bx - ax) * (cz - az),
        (bx - ax) * (cy - ay) - (by - ay) * (cx - ax),
    )
    assert max(abs(v) for v in cross) > 1e-4
    assert spread_agents(_stacked().agents, _stacked().files) == at  # deterministic


def test_links_between_stacked_agents_have_length_and_stop_short_of_the_diamonds():
    fig = airspace_figure(_stacked())
    at = spread_agents(_stacked().agents, _stacked().files)
    [line] = [t for t in fig["data"] if t["mode"] == "lines" and "Resolution" in t["name"]]
    points = list(zip(line["x"], line["y"], line["z"], strict=True))
    segments = [points[k : k + 2] for k in range(0, len(points), 3)]
    assert len(segments) == 3
    for start, end in segments:
        assert start != end
    ends = {tuple(round(v, 3) for v in at[n]) for n in ("p", "q", "r")}
    assert not ends & set(points)  # a gap at each diamond: the diamond takes the pointer


def test_agents_and_link_midpoints_carry_large_invisible_hit_targets():
    fig = airspace_figure(_stacked())
    agents, targets = (fig["data"][k] for k in AGENT_TRACES)
    assert agents["name"] == "agents"
    assert targets["customdata"] == agents["customdata"]
    assert targets["marker"]["opacity"] == 0
    assert targets["marker"]["size"] == AGENT_TARGET > agents["marker"]["size"][0] * 2
    details = [t for t in fig["data"] if t["name"].endswith("details")]
    assert details
    assert all(t["marker"]["opacity"] == 0 and t["marker"]["size"] >= 16 for t in details)
    go.Figure(fig)  # still valid Plotly


def test_labels_sit_beside_their_diamond_on_the_side_towards_the_middle():
    fig = airspace_figure(_stacked())
    notes = {n["text"]: n for n in fig["layout"]["scene"]["annotations"]}
    assert notes["far"]["xanchor"] == "left"  # far is at the left of the first view
    assert {notes[n]["xanchor"] for n in "pqr"} == {"right"}
    assert notes["far"]["xshift"] > 0
    for note in notes.values():
        assert note["yanchor"] == "middle"
        assert abs(note["xshift"]) > AGENT_TARGET // 2  # clear of the hit target
