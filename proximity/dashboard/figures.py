"""Pure figure builders for the board: records in, a Plotly figure dict out (no Django, no I/O).

Plotly's 3D lines take one width per trace, so "width by risk" is drawn as a few width buckets per
band; each band also gets one invisible-line marker trace at the link midpoints that carries the
hover text (3D line segments themselves cannot hover individually).

The figure is built as plain dicts (the JSON dcc.Graph sends to Plotly.js), not ``go.Figure``:
``plotly.graph_objects`` validates every value on construction, which cost ~0.2 s per scene of
2,000 files, more than the selector's queries. The unit tests validate the output with
``go.Figure`` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from proximity.selectors.board_records import (
    BAND_LABELS,
    BANDS,
    AgentPoint,
    FilePoint,
    LinkRecord,
    Scene,
    channels_text,
)

__all__ = [
    "BAND_COLOURS",
    "DEFAULT_BANDS",
    "FOLDER_PALETTE",
    "airspace_figure",
    "folder_colours",
    "label_annotations",
    "link_hover",
    "width_for",
]

BAND_COLOURS = {
    "clear": "#94a3b8",
    "traffic": "#d97706",
    "resolution": "#dc2626",
    "conflict": "#7f1d1d",
}
DEFAULT_BANDS = ("traffic", "resolution", "conflict")
# Lower risk bound -> line width; risk in [0, 1].
WIDTH_BUCKETS = ((0.0, 2.0), (0.5, 5.0), (0.8, 9.0))
FOLDER_PALETTE = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
    "#393b79",
    "#637939",
)
AGENT_COLOUR = "#14213d"
LABEL_LIMIT = 24
GRID_LINES = 5
HIGHLIGHT_COLOUR = "#facc15"
# The look of Plotly's default "plotly" template, which go.Figure applied on serialisation.
TEXT_COLOUR = "#2a3f5f"
AXIS_STYLE = {
    **{"showbackground": True, "backgroundcolor": "#E5ECF6", "gridcolor": "white", "gridwidth": 2},
    **{"linecolor": "white", "zerolinecolor": "white", "ticks": ""},
}
Trace = dict[str, Any]


def _trace(**props: Any) -> Trace:
    return {"type": "scatter3d", **props}


def width_for(risk: float) -> float:
    return max(w for low, w in WIDTH_BUCKETS if risk >= low)


def folder_colours(files: Sequence[FilePoint]) -> dict[str, str]:
    """A stable colour per folder: folders sorted by name, palette cycled."""
    folders = sorted({f.folder for f in files})
    return {name: FOLDER_PALETTE[k % len(FOLDER_PALETTE)] for k, name in enumerate(folders)}


def link_hover(link: LinkRecord) -> str:
    parts = [
        f"<b>{link.a} ↔ {link.b}</b>",
        f"{BAND_LABELS[link.band]} · risk {link.risk:.2f}",
        f"channels: {channels_text(link.channels)}",
    ]
    if link.hold or link.steer:
        parts.append(f"right of way: {link.hold or '?'} holds; {link.steer or '?'} steers clear")
    else:
        parts.append("right of way: none assigned (advisory only)")
    return "<br>".join(parts)


def _r(value: float) -> float:
    return round(float(value), 3)


def _files_trace(files: Sequence[FilePoint]) -> Trace:
    colours = folder_colours(files)
    return _trace(
        name="files (colour = folder)",
        x=[_r(f.x) for f in files],
        y=[_r(f.y) for f in files],
        z=[_r(f.z) for f in files],
        mode="markers",
        # Dots that stay visible in a small repository and out of the way in a big one.
        marker={
            "size": 5.0 if len(files) <= 200 else 2.5,
            "color": [colours[f.folder] for f in files],
            "opacity": 0.7,
        },
        hovertext=[f.path for f in files],
        hoverinfo="text",
    )


def _agents_trace(agents: Sequence[AgentPoint], selected: str | None) -> Trace:
    return _trace(
        name="agents",
        x=[_r(a.x) for a in agents],
        y=[_r(a.y) for a in agents],
        z=[_r(a.z) for a in agents],
        mode="markers",
        customdata=[a.agent_id for a in agents],
        marker={
            "size": [14 if a.agent_id == selected else 9 for a in agents],
            "color": [HIGHLIGHT_COLOUR if a.agent_id == selected else AGENT_COLOUR for a in agents],
            "symbol": "diamond",
            "line": {"width": 1, "color": "#ffffff"},
        },
        hovertext=[f"{a.agent_id}: {a.label} ({a.file_count} files)" for a in agents],
        hoverinfo="text",
    )


def _segments(
    links: Iterable[LinkRecord], at: dict[str, AgentPoint]
) -> tuple[list[float | None], list[float | None], list[float | None]]:
    xs: list[float | None] = []
    ys: list[float | None] = []
    zs: list[float | None] = []
    for link in links:
        a, b = at[link.a], at[link.b]
        xs += [_r(a.x), _r(b.x), None]
        ys += [_r(a.y), _r(b.y), None]
        zs += [_r(a.z), _r(b.z), None]
    return xs, ys, zs


def _midpoint(a: AgentPoint, b: AgentPoint) -> tuple[float, float, float]:
    return (a.x + b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2


def _band_traces(band: str, links: list[LinkRecord], at: dict[str, AgentPoint]) -> list[Trace]:
    traces: list[Trace] = []
    highs = [low for low, _ in WIDTH_BUCKETS[1:]] + [1.0]
    for (low, width), high in zip(WIDTH_BUCKETS, highs, strict=True):
        bucket = [x for x in links if width_for(x.risk) == width]
        if not bucket:
            continue
        xs, ys, zs = _segments(bucket, at)
        traces.append(
            _trace(
                # The line width's risk range, not the band's threshold (those are the profile's).
                name=f"{BAND_LABELS[band]} (line: risk {low:.1f}-{high:.1f})",
                legendgroup=band,
                x=xs,
                y=ys,
                z=zs,
                mode="lines",
                line={"color": BAND_COLOURS[band], "width": width},
                hoverinfo="skip",
            )
        )
    mids = [_midpoint(at[x.a], at[x.b]) for x in links]
    traces.append(
        _trace(
            name=f"{BAND_LABELS[band]}: details",
            legendgroup=band,
            showlegend=False,
            x=[_r(m[0]) for m in mids],
            y=[_r(m[1]) for m in mids],
            z=[_r(m[2]) for m in mids],
            mode="markers",
            # The files' symbol: each distinct marker symbol is one more glyph vectorised for WebGL.
            marker={"size": 3, "color": BAND_COLOURS[band], "symbol": "circle"},
            hovertext=[link_hover(x) for x in links],
            hoverinfo="text",
        )
    )
    return traces


def _highlight_trace(scene: Scene, selected: str) -> Trace:
    mine = set(scene.agent_files.get(selected, ()))
    files = [f for f in scene.files if f.path in mine]
    return _trace(
        name=f"files of {selected}",
        x=[_r(f.x) for f in files],
        y=[_r(f.y) for f in files],
        z=[_r(f.z) for f in files],
        mode="markers",
        marker={"size": 6, "color": HIGHLIGHT_COLOUR, "line": {"width": 1, "color": "#000"}},
        hovertext=[f.path for f in files],
        hoverinfo="text",
    )


def _labelled(links: Sequence[LinkRecord]) -> set[str]:
    """Agents named in the scene: the riskiest pairs' first, at most ``LABEL_LIMIT``.

    A crowd of names hides the scene it labels, so the rest are named on hover only.
    """
    out: set[str] = set()
    for link in sorted(links, key=lambda x: -x.risk):
        if len(out) >= LABEL_LIMIT:
            break
        out.update((link.a, link.b))
    return out


def _visible_links(scene: Scene, bands: Sequence[str], agent: str | None) -> list[LinkRecord]:
    at = {a.agent_id for a in scene.agents}
    return [
        x
        for x in scene.links
        if x.band in bands and x.a in at and x.b in at and (agent is None or agent in (x.a, x.b))
    ]


def label_annotations(
    agents: Sequence[AgentPoint], selected: str | None, labelled: set[str]
) -> list[dict[str, Any]]:
    """Agent names as scene annotations: SVG text that follows the camera, not WebGL text.

    A ``text`` mode on the agents trace makes Plotly vectorise every label into WebGL triangles
    (exact arithmetic per glyph outline): 24 labels took ~0.7 s of the first render in software
    WebGL. Annotations are SVG, drawn in a few milliseconds, and stay on their agent as the scene
    turns.
    """
    return [
        {
            "x": _r(a.x),
            "y": _r(a.y),
            "z": _r(a.z),
            "text": f"<b>{a.agent_id}</b>" if a.agent_id == selected else a.agent_id,
            "showarrow": False,
            "yanchor": "bottom",
            "yshift": 7,  # above the diamond, so a click on the marker still reaches it
            "font": {"size": 11, "color": AGENT_COLOUR},
        }
        for a in agents
        if a.agent_id in labelled or a.agent_id == selected
    ]


def _axis(values: list[float]) -> dict[str, Any]:
    """A 3D axis with grid lines but no text: blank tick labels at fixed positions.

    Plotly passes every tick label to WebGL text even when ``showticklabels`` is off, and
    vectorising the default ticks of three axes cost ~0.2 s of each first render in software
    WebGL; empty labels at ``GRID_LINES`` fixed values keep the grid for depth and cost nothing.
    """
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    step = (high - low) / (GRID_LINES - 1) or 1.0
    ticks = [_r(low + k * step) for k in range(GRID_LINES)]
    return {
        **AXIS_STYLE,
        **{"showticklabels": False, "title": {"text": ""}, "showspikes": False},
        **{"tickmode": "array", "tickvals": ticks, "ticktext": [""] * len(ticks)},
    }


def _layout(scene: Scene, uirevision: str | None, labels: list[dict[str, Any]]) -> dict[str, Any]:
    points: list[FilePoint | AgentPoint] = [*scene.files, *scene.agents]
    axes = {f"{k}axis": _axis([getattr(p, k) for p in points]) for k in "xyz"}
    notes = []
    if scene.coverage.status != "ok":
        text = f"Coverage {scene.coverage.status.upper()}: {scene.coverage.message}"
        notes.append(
            {
                **{"text": text, "showarrow": False, "xref": "paper", "yref": "paper"},
                **{"x": 0, "y": 1.06, "xanchor": "left", "font": {"color": "#9a3412"}},
            }
        )
    return {
        "uirevision": uirevision or scene.repository,
        "margin": {"l": 0, "r": 0, "t": 30, "b": 0},
        "scene": {
            **axes,
            "aspectmode": "cube",
            "annotations": labels,
        },
        "legend": {"orientation": "h", "y": -0.02, "title": {"text": "Legend: "}},
        "font": {"color": TEXT_COLOUR},
        "hoverlabel": {"align": "left"},
        "annotations": notes,
        "height": 560,
    }


def airspace_figure(
    scene: Scene,
    *,
    bands: Sequence[str] = DEFAULT_BANDS,
    agent: str | None = None,
    selected: str | None = None,
    uirevision: str | None = None,
) -> dict[str, Any]:
    """Files, agents and risk links of one repository; Clear links only when asked for.

    ``uirevision`` defaults to the repository name so that interval refreshes keep the camera and
    a change of repository resets it.
    """
    at = {a.agent_id: a for a in scene.agents}
    links = _visible_links(scene, bands, agent)
    traces = [_files_trace(scene.files), _agents_trace(scene.agents, selected)]
    for band in BANDS:
        in_band = [x for x in links if x.band == band]
        if in_band:
            traces += _band_traces(band, in_band, at)
    if selected and selected in at:
        traces.append(_highlight_trace(scene, selected))
    labels = label_annotations(scene.agents, selected, _labelled(links))
    return {"data": traces, "layout": _layout(scene, uirevision, labels)}
