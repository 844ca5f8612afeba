"""Pure figure builders for the board: records in, a Plotly figure dict out (no Django, no I/O).

Plotly's 3D lines take one width per trace, so "width by risk" is drawn as a few width buckets per
band; each band also gets one invisible-line marker trace at the link midpoints that carries the
hover text (3D line segments themselves cannot hover individually).

What a lead must be able to read and hit at 1366 px: agents whose positions coincide (the same
files) are stacked apart at display time, like aircraft at different flight levels, so each
label and each link between them shows; every agent and link midpoint carries an invisible,
larger marker, so a click or hover a few pixels off still reaches it (Plotly's 3D click needs a
pick within 5 px, and a link line over a diamond took the click).

The figure is built as plain dicts (the JSON dcc.Graph sends to Plotly.js), not ``go.Figure``:
``plotly.graph_objects`` validates every value on construction, which cost ~0.2 s per scene of
2,000 files, more than the selector's queries. The unit tests validate the output with
``go.Figure`` instead.
"""

from __future__ import annotations

import math
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
    "AGENT_TRACES",
    "BAND_COLOURS",
    "DEFAULT_BANDS",
    "FOLDER_PALETTE",
    "airspace_figure",
    "folder_colours",
    "label_annotations",
    "link_hover",
    "spread_agents",
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
#: The agents trace and its invisible hit target: a click on either selects the agent.
AGENT_TRACES = (1, 2)
#: Hit targets in pixels (marker size): an agent's and a link midpoint's.
AGENT_TARGET = 24
LINK_TARGET = 18
#: Agents closer than this share of an axis's range are coincident: stacked apart on display.
COINCIDENT = 0.02
#: Between stacked agents: this share of the z axis's range (z stays vertical on screen when
#: the scene turns), and a small turn around the stack so no three are ever on one line.
STACK_STEP = 0.09
STACK_RADIUS = 0.03
#: A link stops this share of the axes' ranges short of each diamond (at most 30% of its length).
LINK_GAP = 0.035
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


Position = tuple[float, float, float]


def _ranges(points: Sequence[FilePoint | AgentPoint]) -> Position:
    """Each axis's range (1.0 when flat): cube aspect scales every axis to the same length."""
    out = []
    for k in "xyz":
        values = [getattr(p, k) for p in points]
        out.append((max(values) - min(values)) if values else 0.0)
    return out[0] or 1.0, out[1] or 1.0, out[2] or 1.0


def spread_agents(
    agents: Sequence[AgentPoint], files: Sequence[FilePoint] = ()
) -> dict[str, Position]:
    """Display positions: coincident agents (within ``COINCIDENT`` of each axis) stacked along
    z around their shared place, in agent-id order, on a small helix. Others keep theirs.

    The engine places an agent at the centre of its files, so two agents on the same files sit
    on one pixel, one label over the other and their link of length zero.
    """
    rx, ry, rz = _ranges([*agents, *files])
    groups: dict[tuple[int, int, int], list[AgentPoint]] = {}
    for a in agents:
        key = (round(a.x / (COINCIDENT * rx)), round(a.y / (COINCIDENT * ry)),
               round(a.z / (COINCIDENT * rz)))  # fmt: skip
        groups.setdefault(key, []).append(a)
    out: dict[str, Position] = {}
    for members in groups.values():
        members = sorted(members, key=lambda a: a.agent_id)
        n = len(members)
        cx = sum(a.x for a in members) / n
        cy = sum(a.y for a in members) / n
        cz = sum(a.z for a in members) / n
        step = min(STACK_STEP, 0.6 / max(n - 1, 1))  # a tall stack stays within the scene
        for i, a in enumerate(members):
            if n == 1:
                out[a.agent_id] = (a.x, a.y, a.z)
                continue
            turn = 2 * math.pi * i / max(n, 3)
            out[a.agent_id] = (
                cx + STACK_RADIUS * rx * math.cos(turn),
                cy + STACK_RADIUS * ry * math.sin(turn),
                cz + (i - (n - 1) / 2) * step * rz,
            )
    return out


def _agents_trace(
    agents: Sequence[AgentPoint], at: dict[str, Position], selected: str | None
) -> Trace:
    return _trace(
        name="agents",
        x=[_r(at[a.agent_id][0]) for a in agents],
        y=[_r(at[a.agent_id][1]) for a in agents],
        z=[_r(at[a.agent_id][2]) for a in agents],
        mode="markers",
        customdata=[a.agent_id for a in agents],
        marker={
            "size": [14 if a.agent_id == selected else 9 for a in agents],
            "color": [HIGHLIGHT_COLOUR if a.agent_id == selected else AGENT_COLOUR for a in agents],
            "symbol": "diamond",
            "line": {"width": 1, "color": "#ffffff"},
        },
        hovertext=[_agent_hover(a) for a in agents],
        hoverinfo="text",
    )


def _agent_hover(a: AgentPoint) -> str:
    task = a.label if a.label and a.label != a.agent_id else "no task declared"
    return f"<b>{a.agent_id}</b>: {task} ({a.file_count} files)<br>click to list its advisories"


def _agent_targets(agents: Sequence[AgentPoint], at: dict[str, Position]) -> Trace:
    """The agents again as invisible, larger markers: the hit target of a click or hover."""
    return _trace(
        name="agents (hit target)",
        showlegend=False,
        x=[_r(at[a.agent_id][0]) for a in agents],
        y=[_r(at[a.agent_id][1]) for a in agents],
        z=[_r(at[a.agent_id][2]) for a in agents],
        mode="markers",
        customdata=[a.agent_id for a in agents],
        marker={"size": AGENT_TARGET, "color": AGENT_COLOUR, "opacity": 0},
        hovertext=[_agent_hover(a) for a in agents],
        hoverinfo="text",
    )


def _segments(
    links: Iterable[LinkRecord], at: dict[str, Position], scale: Position
) -> tuple[list[float | None], list[float | None], list[float | None]]:
    """Each link from just outside one diamond to just outside the other: a line drawn into a
    diamond's centre competed with it for the pointer, and Plotly picks one object per pixel."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    zs: list[float | None] = []
    for link in links:
        a, b = at[link.a], at[link.b]
        length = math.sqrt(sum(((b[k] - a[k]) / scale[k]) ** 2 for k in range(3)))
        t = min(LINK_GAP / length, 0.3) if length else 0.0
        start = [a[k] + t * (b[k] - a[k]) for k in range(3)]
        end = [b[k] - t * (b[k] - a[k]) for k in range(3)]
        xs += [_r(start[0]), _r(end[0]), None]
        ys += [_r(start[1]), _r(end[1]), None]
        zs += [_r(start[2]), _r(end[2]), None]
    return xs, ys, zs


def _midpoint(a: Position, b: Position) -> Position:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2


def _band_traces(
    band: str, links: list[LinkRecord], at: dict[str, Position], scale: Position
) -> list[Trace]:
    traces: list[Trace] = []
    highs = [low for low, _ in WIDTH_BUCKETS[1:]] + [1.0]
    for (low, width), high in zip(WIDTH_BUCKETS, highs, strict=True):
        bucket = [x for x in links if width_for(x.risk) == width]
        if not bucket:
            continue
        xs, ys, zs = _segments(bucket, at, scale)
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
            # An invisible target at the link's middle, large enough to find with the pointer.
            marker={"size": LINK_TARGET, "color": BAND_COLOURS[band], "opacity": 0},
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
    agents: Sequence[AgentPoint],
    selected: str | None,
    labelled: set[str],
    at: dict[str, Position] | None = None,
) -> list[dict[str, Any]]:
    """Agent names as scene annotations: SVG text that follows the camera, not WebGL text.

    A ``text`` mode on the agents trace makes Plotly vectorise every label into WebGL triangles
    (exact arithmetic per glyph outline): 24 labels took ~0.7 s of the first render in software
    WebGL. Annotations are SVG, drawn in a few milliseconds, and stay on their agent as the scene
    turns.
    """
    at = at or {a.agent_id: (a.x, a.y, a.z) for a in agents}
    inward = _inward_sides(at)
    return [
        {
            "x": _r(at[a.agent_id][0]),
            "y": _r(at[a.agent_id][1]),
            "z": _r(at[a.agent_id][2]),
            "text": f"<b>{a.agent_id}</b>" if a.agent_id == selected else a.agent_id,
            "showarrow": False,
            # Beside the diamond, clear of its hit target (stacked agents' names stack too),
            # on the side towards the scene's middle, so a name at the edge is not cut off.
            "xanchor": "right" if inward[a.agent_id] < 0 else "left",
            "yanchor": "middle",
            "xshift": inward[a.agent_id] * (AGENT_TARGET // 2 + 1),
            "font": {"size": 11, "color": AGENT_COLOUR},
        }
        for a in agents
        if a.agent_id in labelled or a.agent_id == selected
    ]


def _inward_sides(at: dict[str, Position]) -> dict[str, int]:
    """-1 (label on the left) for agents in the right half of the first view, else 1.

    Plotly's default camera looks along (-1, -1, -1) with z up, so a point's place across the
    screen follows x - y on the cube's scaled axes; the view turns later, the labels stay put.
    """
    if not at:
        return {}
    xs = [p[0] for p in at.values()]
    ys = [p[1] for p in at.values()]
    sx = (max(xs) - min(xs)) or 1.0
    sy = (max(ys) - min(ys)) or 1.0
    across = {k: (p[0] - min(xs)) / sx - (p[1] - min(ys)) / sy for k, p in at.items()}
    middle = (max(across.values()) + min(across.values())) / 2
    return {k: -1 if v > middle else 1 for k, v in across.items()}


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


def _layout(
    scene: Scene, uirevision: str | None, labels: list[dict[str, Any]], at: dict[str, Position]
) -> dict[str, Any]:
    points = [(f.x, f.y, f.z) for f in scene.files] + list(at.values())
    axes = {f"{k}axis": _axis([p[i] for p in points]) for i, k in enumerate("xyz")}
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
        # Under the scene, inside the figure; entries at most half its width, rows packed
        # (each band is a legend group: Plotly gives every group its own row).
        "legend": {
            **{"orientation": "h", "x": 0, "y": -0.02, "yanchor": "top", "tracegroupgap": 0},
            **{"entrywidth": 0.48, "entrywidthmode": "fraction", "font": {"size": 10}},
            "title": {"text": "Legend (hover a link's middle for its details)", "side": "top"},
        },
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
    at = spread_agents(scene.agents, scene.files)
    scale = _ranges([*scene.agents, *scene.files])
    links = _visible_links(scene, bands, agent)
    traces = [
        _files_trace(scene.files),
        _agents_trace(scene.agents, at, selected),
        _agent_targets(scene.agents, at),
    ]
    for band in BANDS:
        in_band = [x for x in links if x.band == band]
        if in_band:
            traces += _band_traces(band, in_band, at, scale)
    if selected and selected in at:
        traces.append(_highlight_trace(scene, selected))
    labels = label_annotations(scene.agents, selected, _labelled(links), at)
    return {"data": traces, "layout": _layout(scene, uirevision, labels, at)}
