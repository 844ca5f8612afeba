"""The Dash board under /board/: layout and callbacks. Built lazily by ``create_app``.

Each callback re-resolves the viewer's principal from the Django session, calls one selector and
one pure builder; nothing is computed at import time.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import flask
from dash import ALL, Dash, Input, Output, State, ctx, dcc, html, no_update
from django.conf import settings
from django.utils import timezone

from proximity.dashboard.auth import current_principal, install_login_guard
from proximity.dashboard.figures import AGENT_TRACES, DEFAULT_BANDS, airspace_figure
from proximity.dashboard.kanban import BAND_SHAPES, aria, card_view, kanban_view
from proximity.exceptions import NotFoundError
from proximity.models import Principal
from proximity.selectors.board import (
    board_agent_ids,
    board_cards,
    board_repositories,
    board_scene,
    board_task_cards,
)
from proximity.selectors.board_records import BAND_LABELS, BANDS
from proximity.services.advisories import advisory_acknowledge

__all__ = ["PREFIX", "REFRESH_MS", "create_app"]

PREFIX = "/board/"
REFRESH_MS = 5000
WINDOWS = {"15m": 15, "1h": 60, "6h": 360, "24h": 1440, "all": None}


def _since(window: str | None) -> Any:
    minutes = WINDOWS.get(window or "all")
    return None if minutes is None else timezone.now() - timedelta(minutes=minutes)


def _viewer() -> Principal | None:
    return current_principal() if flask.has_request_context() else None


def _filters(repos: list[str], agents: list[str]) -> html.Div:
    band_options = [{"label": f"{BAND_SHAPES[b]} {BAND_LABELS[b]}", "value": b} for b in BANDS]
    window_options = [{"label": k if k != "all" else "all time", "value": k} for k in WINDOWS]
    return html.Div(
        [
            html.Label("Repository", htmlFor="repository"),
            dcc.Dropdown(
                id="repository", options=repos, value=repos[0] if repos else None, clearable=False
            ),
            html.Label("Agent", htmlFor="agent"),
            dcc.Dropdown(id="agent", options=agents, value=None, placeholder="all agents"),
            html.Label("Time window", htmlFor="window"),
            dcc.Dropdown(id="window", options=window_options, value="all", clearable=False),
            html.Fieldset(
                [
                    html.Legend("Bands shown"),
                    dcc.Checklist(
                        id="bands", options=band_options, value=list(DEFAULT_BANDS), inline=True
                    ),
                ]
            ),
        ],
        className="filters",
    )


def _unlinked_notice() -> str:
    from proximity.dashboard.auth import _request_user  # the login the notice speaks to

    user = _request_user() if flask.has_request_context() else None
    name = getattr(user, "username", "") or "NAME"
    return (
        "Your login is not linked to a principal, so nothing is visible: an administrator runs "
        f"`python manage.py users link {name} --role lead --scope SCOPE`."
    )


def _layout() -> html.Div:
    principal = _viewer()
    repos = board_repositories(principal)
    notice = "" if principal else _unlinked_notice()
    # The first scene, kanban, agent list and agent panel are rendered into the layout: no callback
    # round trip on load.
    first = repos[0] if repos else None
    figure, coverage, state, scene_key = _scene(first, list(DEFAULT_BANDS), None, "all", None, None)
    kanban, kanban_key = _kanban(first, list(DEFAULT_BANDS), None, "all", None, None, None)
    return html.Div(
        [
            html.Header(
                [
                    html.A("Overlap Radar", href="/", className="brand"),
                    html.H1("Board"),
                    html.A("Adjudication desk", href="/admin/proximity/overlapadvisory/desk/"),
                ]
            ),
            html.P(notice, id="notice", role="status"),
            _filters(repos, _agent_options(first)),
            html.Div(
                coverage,
                id="coverage",
                className=state,
                role="status",
                **aria({"aria-live": "polite"}),
            ),
            html.Main(
                [
                    html.Section(
                        [
                            dcc.Graph(id="airspace", figure=figure, config={"displaylogo": False}),
                            html.Div(
                                _agent_panel(first, None, "all"),
                                id="agent-panel",
                                **aria({"aria-live": "polite"}),
                            ),
                        ],
                        className="scene",
                        **aria({"aria-label": "Airspace (3D)"}),
                    ),
                    html.Section(
                        kanban,
                        id="kanban",
                        className="kanban",
                        **aria({"aria-label": "Kanban of warnings"}),
                    ),
                ],
                className="board",
            ),
            html.Div(id="ack-status", role="status", **aria({"aria-live": "polite"})),
            dcc.Store(id="selected-agent"),
            dcc.Store(id="scene-key", data=scene_key),
            dcc.Store(id="kanban-key", data=kanban_key),
            dcc.Store(id="ack-count", data=0),
            dcc.Interval(id="tick", interval=REFRESH_MS),
        ]
    )


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _scene(
    repo: str | None,
    bands: list[str],
    agent: str | None,
    window: str | None,
    selected: str | None,
    previous: str | None,
) -> tuple[Any, Any, Any, Any]:
    """The scene, the coverage line, its state (``Coverage.status``, which colours the line) and
    the key that lets a refresh without a new scan send nothing."""
    principal = _viewer()
    scene = (
        board_scene(principal, repo, since=_since(window), files_of=selected)
        if principal and repo
        else None
    )
    if scene is None:
        empty = {"data": [], "layout": {"title": {"text": "nothing visible"}}}
        return empty, "Coverage: unknown.", "unknown", None
    # An interval refresh with the same scan and filters sends nothing: the camera stays put and
    # the refresh costs a few hundred bytes instead of the whole scene.
    key = _digest(repo, bands, agent, window, selected, scene.generated_at, scene.coverage,
                  [a.agent_id for a in scene.agents])  # fmt: skip
    if key == previous:
        return no_update, no_update, no_update, no_update
    figure = airspace_figure(scene, bands=bands or [], agent=agent, selected=selected)
    status = (
        "Coverage: ok."
        if scene.coverage.status == "ok"
        else (f"Coverage {scene.coverage.status}: {scene.coverage.message}")
    )
    return figure, status, scene.coverage.status, key


def _agent_panel(repo: str | None, selected: str | None, window: str | None) -> Any:
    principal = _viewer()
    if not (principal and repo and selected):
        return html.P("Click an agent to highlight its files and list its advisories.")
    columns = board_cards(principal, repository=repo, agent=selected, since=_since(window))
    cards = [card_view(c) for _, page in columns.values() for c in page]
    return [html.H2(f"Advisories of {selected} ({len(cards)})"), *cards]


def _acknowledge(clicks: list[int | None], count: int) -> tuple[Any, Any]:
    trigger = ctx.triggered_id
    principal = _viewer()
    if not isinstance(trigger, dict) or not any(clicks) or principal is None:
        return no_update, no_update
    try:
        advisory_acknowledge(
            advisory_id=int(trigger["index"]), principal=principal, note="acknowledged on the board"
        )
    except NotFoundError:
        return no_update, "That advisory is not visible to you."
    return (count or 0) + 1, f"Advisory {trigger['index']} acknowledged."


def _register(app: Dash) -> None:
    filters = [
        Input("repository", "value"),
        Input("bands", "value"),
        Input("agent", "value"),
        Input("window", "value"),
    ]
    app.callback(
        Output("airspace", "figure"),
        Output("coverage", "children"),
        Output("coverage", "className"),
        Output("scene-key", "data"),
        *filters,
        Input("selected-agent", "data"),
        Input("tick", "n_intervals"),
        State("scene-key", "data"),
        prevent_initial_call=True,  # the layout already carries the first scene
    )(lambda repo, bands, agent, window, sel, _n, key: _scene(repo, bands, agent, window, sel, key))
    app.callback(
        Output("kanban", "children"),
        Output("kanban-key", "data"),
        *filters,
        Input("tick", "n_intervals"),
        Input("ack-count", "data"),
        State("kanban-key", "data"),
        prevent_initial_call=True,
    )(_kanban)
    app.callback(
        Output("agent", "options"), Input("repository", "value"), prevent_initial_call=True
    )(_agent_options)
    app.callback(
        Output("selected-agent", "data"),
        Input("airspace", "clickData"),
        State("selected-agent", "data"),
        prevent_initial_call=True,  # so the first scene does not wait for a round trip
    )(_select)
    app.callback(
        Output("agent-panel", "children"),
        Input("repository", "value"),
        Input("selected-agent", "data"),
        Input("window", "value"),
        Input("ack-count", "data"),
        prevent_initial_call=True,
    )(lambda repo, selected, window, _c: _agent_panel(repo, selected, window))
    app.callback(
        Output("ack-count", "data"),
        Output("ack-status", "children"),
        Input({"type": "ack", "index": ALL}, "n_clicks"),
        State("ack-count", "data"),
        prevent_initial_call=True,
    )(_acknowledge)


def _kanban(
    repo: str | None,
    bands: list[str],
    agent: str | None,
    window: str | None,
    _tick: Any,
    _acks: Any,
    previous: str | None,
) -> tuple[Any, Any]:
    principal = _viewer()
    if principal is None or repo is None:
        return html.P("Nothing visible."), None
    columns = board_cards(
        principal, repository=repo, bands=bands or [], agent=agent, since=_since(window)
    )
    tasks = board_task_cards(principal)
    key = _digest(columns, tasks)  # records are dataclasses: their repr is their content
    if key == previous:
        return no_update, no_update
    return kanban_view(columns, tasks), key


def _agent_options(repo: str | None) -> list[str]:
    principal = _viewer()
    return board_agent_ids(principal, repo) if principal and repo else []


def _select(click: dict[str, Any] | None, current: str | None) -> str | None:
    point = (click or {}).get("points", [{}])[0]
    if point.get("curveNumber") not in AGENT_TRACES:  # the agents and their hit targets
        return current
    return point.get("customdata") or current


# dcc's chunks for the graph and the dropdowns as script tags with versioned URLs the browser keeps:
# on demand (Dash's default) they were fetched after the layout and revalidated on every load, and
# Dash's eager_loading would also load every other chunk (MathJax alone is 2 MB). Plotly itself is
# assets/vendor/plotly-gl3d.min.js, the 3D-only bundle (1.8 of 4.8 MB); dcc.Graph uses window.Plotly
_EAGER_SCRIPTS = (
    {"relative_package_path": "dcc/async-graph.js", "namespace": "dash"},
    {"relative_package_path": "dcc/async-dropdown.js", "namespace": "dash"},
)
ASSET_MAX_AGE_S = 365 * 24 * 3600


def create_app() -> Dash:
    app = Dash(
        "proximity.dashboard",
        requests_pathname_prefix=PREFIX,
        routes_pathname_prefix=PREFIX,
        assets_folder=str(settings.BASE_DIR / "frontend_assets" / "board"),
        title="Overlap Radar board",
        update_title="",
        serve_locally=True,
        suppress_callback_exceptions=True,
        # Dash turns async on whenever asgiref is importable (Django brings it); Django's ORM
        # refuses to run inside an event loop, so the board's callbacks stay synchronous.
        use_async=False,
    )
    for script in _EAGER_SCRIPTS:
        app.scripts.append_script(script)  # type: ignore[no-untyped-call]  # Dash's API is untyped
    # Asset URLs carry the file's mtime (?m=...): a changed file is a new URL, so they can be kept.
    app.server.config["SEND_FILE_MAX_AGE_DEFAULT"] = ASSET_MAX_AGE_S
    install_login_guard(app.server)
    app.layout = _layout
    _register(app)
    return app
