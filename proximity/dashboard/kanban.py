"""The kanban of warnings as Dash components: card records in, html out (no database).

Colour is never the only signal: every card and legend entry carries the band's name and a shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dash import html

from proximity.engine.merge_notes import tests_note
from proximity.selectors.board_records import (
    BAND_LABELS,
    LIKELY_PROBABILITY,
    Card,
    SharedFile,
    TaskCard,
    TaskColumn,
    channels_text,
)
from proximity.selectors.wording import probability_text

__all__ = [
    "BAND_SHAPES",
    "COLUMN_TITLES",
    "aria",
    "card_view",
    "kanban_view",
    "probability_text",
    "task_card_view",
]

BAND_SHAPES = {"clear": "○", "traffic": "◆", "resolution": "▲", "conflict": "■"}
COLUMN_TITLES = {
    "traffic": "Traffic Advisory",
    "resolution": "Resolution Advisory",
    "acknowledged": "Acknowledged",
    "resolved": "Resolved",
    "tasks": "Task overlap (needs adjudication)",
}
TREND = {"closing": "closing ↘ (getting closer)", "opening": "opening ↗ (moving apart)"}


def aria(attrs: dict[str, Any]) -> dict[str, Any]:
    """Hyphenated attributes (aria-*, data-*) for Dash components, typed for mypy."""
    return attrs


def _ranges(lines: Sequence[Sequence[int]]) -> str:
    return ", ".join(f"{r[0]}-{r[1]}" for r in lines) or "whole file"


def _file(f: SharedFile, a: str, b: str) -> html.Li:
    return html.Li(
        [
            html.Code(f.path),
            html.Div(f"{a}: lines {_ranges(f.lines_a)} · {b}: lines {_ranges(f.lines_b)}"),
            html.Pre(
                f.excerpt_a or "(no excerpt reported)",
                className="excerpt",
                title=f"what {a} changed",
            ),
            html.Pre(
                f.excerpt_b or "(no excerpt reported)",
                className="excerpt",
                title=f"what {b} changed",
            ),
        ]
    )


def _role(card: Card, agent: str) -> str:
    """Each side's part in a Resolution Advisory, as the hooks apply it: the holder's edits go
    ahead, the steerer's edits near the holder's lines are denied until it leaves or acks."""
    roles = {card.hold: " · holds course", card.steer: " · steer"} if card.hold else {}
    return roles.get(agent, "") if card.steer else ""


def _side(card: Card, agent: str, task: str, intent: list[str]) -> html.P:
    declared = f" · intends: {', '.join(intent[:4])}" if intent else ""
    role = _role(card, agent)
    parts: list[Any] = [html.Strong(agent)]
    if role:
        parts.append(html.Span(role, className=f"role role-{role.split()[-1]}"))
    # A worktree without a branch description is labelled with its own id: no task to name.
    named = task if task and task != agent else "no task declared"
    return html.P([*parts, f" — {named}{declared}"])


def _right_of_way(card: Card) -> list[html.P]:
    if card.hold or card.steer:
        lines = [
            html.P(
                f"Right of way: {card.hold} holds course (its edits go ahead); {card.steer} "
                "steers (its edits of the shared lines are denied until it leaves them or "
                "acknowledges)."
            )
        ]
    else:
        lines = [html.P("Right of way: none assigned (traffic advisory: both informed).")]
    lines += [html.P([html.Em(f"told {to}: "), text]) for to, text in sorted(card.told.items())]
    return lines


_OUTCOMES = {
    "clean": "no problem only the merge has",
    "conflict": "a textual conflict, so no build check (see the dry-run channel)",
}


def _semantic(card: Card) -> list[Any]:
    """Symbol evidence and the merge check's state: an unchecked pair never reads as clear."""
    out: list[Any] = []
    if card.symbols:
        out.append(
            html.Div(
                [html.Em("Symbols: "), html.Ul([html.Li(t) for t in card.symbols[:5]])],
                className="symbols",
            )
        )
    check = card.merge_check
    state = check.get("state", "not checked")
    if state == "checked":
        problems = check.get("problems") or []
        when = str(check.get("checkedAt") or "")[:16].replace("T", " ")
        head = f"Merge check: checked {when}".rstrip()
        if problems:
            found = [
                html.Li([html.Code(p.get("path", "")), f" {p.get('message', '')}"])
                for p in problems[:5]
            ]
            out.append(
                html.Div(
                    [html.Em(f"{head}, {len(problems)} problem(s) only the merge has:"),
                     html.Ul(found)],
                    className="merge-check problems",
                )
            )  # fmt: skip
        else:
            outcome = _OUTCOMES.get(str(check.get("outcome")), str(check.get("outcome")))
            out.append(html.P(f"{head}: {outcome}", className="merge-check"))
        note = tests_note(check.get("tests"))
        if note:
            out.append(html.P(note, className="merge-check tests"))
    else:
        reason = check.get("reason") or ("" if check else "not enabled for this repository")
        text = f"Merge check: {state}" + (f" ({reason})" if reason else "")
        out.append(html.P(text, className="merge-check unchecked"))
    return out


def card_view(card: Card) -> html.Article:
    band = BAND_LABELS[card.band]
    title = f"{band}: {card.agent_a} and {card.agent_b}"
    buttons: list[Any] = [
        html.A(
            "Open pair",
            href=card.open_url,
            className="open",
            **aria({"aria-label": f"Open the pair {card.agent_a} and {card.agent_b}"}),
        )
    ]
    if card.state == "open":
        buttons.insert(
            0,
            html.Button(
                "Acknowledge",
                id={"type": "ack", "index": card.id},
                className="ack",
                **aria({"aria-label": f"Acknowledge {title}"}),
            ),
        )
    return html.Article(
        [
            html.Div(
                [
                    html.Span(f"{BAND_SHAPES[card.band]} {band}", className="badge"),
                    html.Span(f" risk {card.risk:.2f} · {TREND.get(card.trend, 'steady')}"),
                ]
            ),
            # First under the title: a long card must not push its actions below the fold.
            html.Div(buttons, className="actions"),
            _side(card, card.agent_a, card.task_a, card.intent_a),
            _side(card, card.agent_b, card.task_b, card.intent_b),
            html.Ul([_file(f, card.agent_a, card.agent_b) for f in card.files], className="files"),
            html.P(f"Channels: {channels_text(card.channels)}"),
            *_semantic(card),
            *_right_of_way(card),
        ],
        id=f"card-{card.id}",
        className=f"card band-{card.band}",
        tabIndex=0,
        role="article",
        **aria({"aria-label": title, "data-band": card.band, "data-card": str(card.id)}),
    )


def _evidence_view(card: TaskCard) -> list[Any]:
    """Why this pair is where it is in the queue: the model, its score and the main terms."""
    if card.score is None:
        return []
    terms = [
        html.Li(
            f"{e.name} = {'unknown' if e.value is None else f'{e.value:.2f}'}"
            f" → {e.contribution:+.2f}"
        )
        for e in card.evidence
    ]
    # A card that links into the blind label page never shows the model's probability: whoever
    # labels from the desk would have read it first (issue 31, item 8).
    probability = (
        "" if card.open_url else f"duplicate probability {probability_text(card.score)} · "
    )
    head = (
        f"Queue #{card.queue_rank} · {probability}model {card.evidence_model} · "
        "locally selected, not validated"
    )
    return [html.P(head, className="evidence"), html.Ul(terms, className="evidence-terms")]


def _more(card: TaskCard) -> list[Any]:
    if not card.more_url:
        return []
    text = f"{card.held_back} more candidate(s) for this task (held back, not negatives)"
    return [html.A(text, href=card.more_url, className="more-candidates")]


def _notice_view(card: TaskCard) -> html.Article:
    badge = "⋯ Held back" if card.kind == "held-back" else "◌ Shadow only"
    return html.Article(
        [html.Span(badge, className="badge"), html.P(card.unknown_reason)],
        className=f"card task notice-{card.kind}",
        tabIndex=0,
        role="article",
        **aria({"aria-label": f"{badge}: {card.unknown_reason}", "data-kind": card.kind}),
    )


def task_card_view(card: TaskCard) -> html.Article:
    if card.kind in ("held-back", "shadow"):
        return _notice_view(card)
    if card.unknown_reason:
        label = f"Unknown: {card.task_a}"
        body = [html.Span("? Unknown", className="badge"), html.P(card.unknown_reason)]
    else:
        label = f"Task overlap: {card.task_a} and {card.task_b}"
        body = [
            html.Span(
                "◇ Needs adjudication" + (" · STALE" if card.stale else ""), className="badge"
            ),
            html.P([html.Strong(card.task_a), f" — {card.objective_a}"]),
            html.P([html.Strong(card.task_b), f" — {card.objective_b}"]),
            html.P(f"Coverage: {card.coverage}"),
            *_evidence_view(card),
            html.Div(
                [
                    html.A(
                        "Open pair",
                        href=card.pair_url,
                        className="open",
                        **aria({"aria-label": f"Open the pair {card.task_a} and {card.task_b}"}),
                    ),
                    html.A(
                        "Open in the adjudication desk",
                        href=card.open_url,
                        **aria({"aria-label": f"Adjudicate {card.task_a} and {card.task_b}"}),
                    ),
                ],
                className="actions",
            ),
            *_more(card),
        ]
    return html.Article(
        body, className="card task", tabIndex=0, role="article", **aria({"aria-label": label})
    )


def _column(key: str, total: int, cards: list[html.Article]) -> html.Section:
    more = (
        [html.P(f"showing {len(cards)} of {total}", className="more")] if total > len(cards) else []
    )
    return html.Section(
        [html.H3(f"{COLUMN_TITLES[key]} ({total})", id=f"col-{key}-title"), *cards, *more],
        className="column",
        id=f"col-{key}",
        role="region",
        **aria({"aria-labelledby": f"col-{key}-title", "data-column": key}),
    )


def _task_column(column: TaskColumn) -> html.Section:
    """Likely pairs (most probable first, across tasks), then unknowns and notices, then the
    "possible" pairs folded into one counted group that opens in one click. The children keep
    the same four places whatever the counts, so a refresh does not fold an open group."""
    pairs = [c for c in column.cards if c.kind == "pair" and not c.unknown_reason]
    others = [c for c in column.cards if not (c.kind == "pair" and not c.unknown_reason)]
    likely = [c for c in pairs if c.likely]
    possible = [c for c in pairs if not c.likely]
    n_possible = column.total - column.likely
    cut = probability_text(LIKELY_PROBABILITY)
    shown: list[Any] = (
        [task_card_view(c) for c in likely]
        if likely
        else [html.P(f"No pair reaches {cut} duplicate probability.", className="none-likely")]
    )
    if column.likely > len(likely):
        shown.append(html.P(f"showing {len(likely)} of {column.likely}", className="more"))
    folded: list[Any] = [task_card_view(c) for c in possible]
    if n_possible > len(possible):
        folded.append(
            html.A(
                f"showing {len(possible)} of {n_possible}: every pair is in the adjudication desk",
                href="/admin/proximity/overlapadvisory/desk/",
                className="more",
            )
        )
    summary = f"Possible overlap: {n_possible} pair(s) below {cut} (not negatives)"
    return html.Section(
        [
            html.H3(f"{COLUMN_TITLES['tasks']} ({column.total})", id="col-tasks-title"),
            html.Div(shown, id="tasks-likely", className="task-cards"),
            html.Div(
                [task_card_view(c) for c in others], id="tasks-notices", className="task-cards"
            ),
            html.Details(
                [
                    html.Summary(summary, id="tasks-possible-summary"),
                    html.Div(folded, className="task-cards"),
                ],
                id="tasks-possible",
                className="possible",
                **aria({"data-count": str(n_possible)}),
            ),
        ],
        className="column",
        id="col-tasks",
        role="region",
        **aria({"aria-labelledby": "col-tasks-title", "data-column": "tasks"}),
    )


def kanban_view(
    columns: dict[str, tuple[int, list[Card]]], tasks: TaskColumn
) -> list[html.Section]:
    out = [
        _column(k, total, [card_view(c) for c in cards]) for k, (total, cards) in columns.items()
    ]
    out.append(_task_column(tasks))
    return out
