"""How the board and the pair page say numbers and evidence to a lead (pure: no Django, no I/O).

A stored evidence term is a feature name, its value and its contribution to the logit; a lead
reads a sentence about the two tasks and whether it made the pair more or less likely.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["agent_caption", "channel_sentences", "evidence_sentence", "probability_text"]


def probability_text(p: float) -> str:
    """A calibrated probability as a lead reads it: whole percents from 10%, one decimal below,
    "<0.1%" under that (most pairs of a task without a duplicate sit there; "0.00" says less)."""
    if p < 0.001:
        return "<0.1%"
    return f"{p:.0%}" if p >= 0.1 else f"{p:.1%}"


def agent_caption(agent_id: str, label: str) -> str:
    """An agent with its task: ``alpha — fix refunds``; ``alpha`` alone when the label says
    nothing more (a worktree without a branch description is labelled with its own id)."""
    label = label.strip()
    return agent_id if not label or label == agent_id else f"{agent_id} — {label}"


def _share(v: float) -> str:
    return f"{v:.0%}"


def _rank(v: float) -> str:
    return f"#{round(1 / v)}" if v > 0 else "not in its list"


_GAP_HORIZON_DAYS = 3650.0  # time.gap's log scale (engine.overlap.evidence): 1.0 at ten years


def _days(v: float) -> str:
    days = math.expm1(v * math.log1p(_GAP_HORIZON_DAYS))
    if days < 1:
        return "less than a day"
    if days < 60:
        return f"{days:.0f} day(s)"
    return f"{days / 30.4:.0f} month(s)" if days < 730 else f"{days / 365:.0f} year(s)"


_SENTENCES: dict[str, Callable[[float], str]] = {
    "rank.lexical": lambda v: f"Word search ranked the other task {_rank(v)} for this one",
    "rank.dense": lambda v: f"Meaning search ranked the other task {_rank(v)} for this one",
    "rank.fused": lambda v: f"The two searches together ranked it {_rank(v)}",
    "objective.jaccard": lambda v: f"The objectives share {_share(v)} of their words",
    "deliverable.same": lambda v: (
        "The deliverables are the same text" if v >= 1 else "The deliverables differ in wording"
    ),
    "deliverable.jaccard": lambda v: f"The deliverables share {_share(v)} of their words",
    "acceptance.jaccard": lambda v: f"The acceptance checks share {_share(v)}",
    "dependencies.jaccard": lambda v: f"The declared dependencies share {_share(v)}",
    "plan.same_key": lambda v: "The plans are the same" if v >= 1 else "The plans differ",
    "plan.resemblance": lambda v: f"The plans resemble each other at {_share(v)}",
    "scope.paths_jaccard": lambda v: f"The declared files share {_share(v)}",
    "scope.modules_jaccard": lambda v: f"The declared modules share {_share(v)}",
    "scope.symbols_jaccard": lambda v: f"The declared symbols share {_share(v)}",
    "purpose.review": lambda v: f"The purposes agree at {_share(v)}",
    "version.gap": lambda v: f"The work versions are {round(v * 5)} apart",
    "time.gap": lambda v: f"The tasks were declared {_days(v)} apart",
    "nli.entailment": lambda v: f"One objective implies the other with probability {_share(v)}",
    "similarity.dense_cosine": lambda v: f"The two records read alike (cosine {v:.2f})",
    "similarity.objective_idf_overlap": lambda v: (
        f"The other objective holds {_share(v)} of this objective's distinctive words"
    ),
    "similarity.objective_cosine": lambda v: f"The objectives alone read alike (cosine {v:.2f})",
}


def _plain(name: str) -> Callable[[float], str]:
    return lambda v: f"{name} = {v:.2f}"


def evidence_sentence(term: Mapping[str, Any]) -> str:
    """One stored evidence term as a sentence: what was compared, and which way it moved the
    probability. An undeclared term moved nothing and says so (never a negative)."""
    name = str(term.get("name", ""))
    value = term.get("value") if term.get("status", "value") == "value" else None
    contribution = float(term.get("contribution") or 0.0)
    if value is None or isinstance(value, str):
        detail = term.get("detail") or "not declared by both tasks"
        return f"{name}: unknown ({detail}); counts for nothing"
    say = _SENTENCES.get(name) or _plain(name)
    if abs(contribution) < 0.005:
        effect = "no effect on the probability"
    else:
        way = "raises" if contribution > 0 else "lowers"
        strength = "strongly " if abs(contribution) >= 1.5 else ""
        effect = f"{strength}{way} the probability ({contribution:+.2f} to the log-odds)"
    return f"{say(float(value))}: {effect}."


_CHANNELS = {
    "conflict": "A dry-run merge of the two branches conflicts",
    "overlap": "Both change the same lines",
    "adjacency": "Their edits touch neighbouring lines",
    "dependency": "One changes a file the other's files import (or the reverse)",
    "intent": "One declared it will edit what the other changes",
    "tree": "Their files sit close together in the tree",
    "symbol": "One changes a name the other's changed lines use",
    "merge-check": "A trial merge of both found a problem only the merge has",
}


def channel_sentences(channels: Mapping[str, float]) -> list[str]:
    """The channels that fired, strongest first, each a sentence with its strength (0 to 1)."""
    active = sorted(((v, k) for k, v in channels.items() if v > 0), reverse=True)
    return [f"{_CHANNELS.get(k, k)} (strength {v:.2f} of 1)." for v, k in active]
