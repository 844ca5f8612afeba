"""From findings to what the hook does: deny, ask, pass context, or stay silent.

Defaults (``.radar.toml`` ``[policy]`` changes them): an unacknowledged Resolution Advisory on
the lines about to change denies the edit of the agent that must steer, with a reason the model
can act on (the holder's edit goes ahead, told who was asked to steer away); so do lines the
mainline changed since the branch's base (``policy.drift``: the merge would conflict for
certain, and bringing the mainline in first avoids it); a Traffic Advisory, or a finding the
agent has acknowledged, lets the edit proceed and passes what was found as context; nothing
found means no output at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proximity.agent.config import Policy
from proximity.agent.quoting import agent_ref, as_data, data_lines, reported_by
from proximity.engine.airspace.profiles import DEFAULT_PROFILE, PROFILES
from proximity.engine.findings import CheckResult, DriftFinding, Finding
from proximity.engine.merge_notes import tests_note

__all__ = ["Decision", "decide", "describe"]

_CHANNEL_NAMES = {
    "conflict": "dry-run merge conflict",
    "overlap": "overlapping edits",
    "adjacency": "abutting edits",
    "dependency": "import dependency",
    "intent": "declared intent",
    "tree": "nearby in the tree",
    "symbol": "symbol hazard or call coupling",
}


@dataclass(frozen=True, slots=True)
class Decision:
    """``kind`` is ``deny``, ``ask``, ``context`` or ``none``; ``text`` is what is shown."""

    kind: str
    text: str = ""
    findings: tuple[Finding, ...] = ()
    drift: tuple[DriftFinding, ...] = ()


def _ranges(lines: list[list[int]] | None) -> str:
    if not lines:
        return "the whole file"
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in lines]
    return ("line " if len(parts) == 1 and "-" not in parts[0] else "lines ") + ", ".join(parts)


def _quoted(excerpt: str, other: str, limit: int = 4) -> list[str]:
    return data_lines(f"diff excerpt reported by agent {agent_ref(other)}", excerpt, limit=limit)


def _channels(f: Finding) -> str:
    top = sorted(f.channels.items(), key=lambda kv: -kv[1])[:3]
    return ", ".join(_CHANNEL_NAMES.get(k, k) for k, _ in top) or "proximity"


# What the holder's context names as the parked time (the default profile's; a repository's
# profile or its ``[radar] parked_hours`` may set another, hence "by default").
_DEFAULT_PARKED_H = (PROFILES[DEFAULT_PROFILE].parked_after_s or 0.0) / 3600.0


def _who(f: Finding) -> str:
    task = f.their_label if f.their_label != f.other else ""
    said = reported_by(f.other, [("task", task), ("declared intent", list(f.their_intent))])
    return f"{agent_ref(f.other)} [{said}]" if said else agent_ref(f.other)


def _merge_check_lines(check: Mapping[str, Any] | None) -> list[str]:
    """The speculative merge check of the pair, when the answer carries one."""
    if not check:
        return []
    state = str(check.get("state") or "not checked")
    if state != "checked":
        return [f"  Merge check: {state} (not a sign the merge is clean)."]
    problems = check.get("problems") or []
    note = tests_note(check.get("tests"))
    tests = [f"  Merge check, {note}."] if note else []
    if not problems:
        clean = "  Merge check: the two changes merged and nothing only the merge has was found."
        return [clean, *tests]
    out = ["  Merge check: merging the two changes breaks what neither breaks alone:"]
    shown = [
        f"    {as_data(p.get('path', ''))}: {as_data(p.get('message', ''))}" for p in problems[:3]
    ]
    return out + shown + tests


def _finding_lines(f: Finding, result: CheckResult) -> list[str]:
    band = "Resolution Advisory" if f.resolution else "Traffic Advisory"
    out = [f"- {band} with {_who(f)}: {_channels(f)}, risk {f.risk:.2f}."]
    for path in f.paths:
        out.append(f"  {agent_ref(f.other)} changed {path} {_ranges(f.their_lines.get(path))}:")
        out += _quoted(f.their_excerpt.get(path, ""), f.other)
    out += [f"  Symbols: {as_data(text)}." for text in f.symbols[:3]]
    out += _merge_check_lines(f.merge_check)
    out += _textual_lines(f, result)
    if f.resolution and f.hold and f.steer:
        out.append(_right_of_way_line(f, result))
    return out


def _textual_lines(f: Finding, result: CheckResult) -> list[str]:
    """git's merge verdict on the shared files, the evidence for denying or not."""
    theirs = "; ".join(f"{p} {_ranges(f.their_lines.get(p))}" for p in f.paths)
    if f.textual == "clean":
        return [
            f"  git would merge these cleanly ({agent_ref(f.other)} changed {theirs}; "
            f"this edit changes {_mine(f, result)}): Traffic, not a denial. Keep at least one "
            "unchanged line between your changes and theirs."
        ]
    if f.textual == "conflict":
        paths = ", ".join(f.paths)
        return [
            f"  git's merge of this edit with {agent_ref(f.other)}'s version of {paths} "
            "would conflict."
        ]
    return []


def _mine(f: Finding, result: CheckResult) -> str:
    """The asker's planned lines the finding is about, as a sentence fragment."""
    paths = f.paths or result.paths
    if not paths:
        return "this edit"
    return "; ".join(f"{p} {_ranges(result.lines.get(p))}" for p in paths)


def _right_of_way_line(f: Finding, result: CheckResult) -> str:
    """Design 002, section 3: the holder holds course (never denied for it), the other steers."""
    if f.hold == result.agent:
        why = (
            f" ({agent_ref(f.steer)} is parked: none of its files changed, nor was an edit of it "
            f"denied, for the repository's parked time, {_DEFAULT_PARKED_H:g} h by default, so its "
            "earlier start yields to active work)"
            if f.steer in f.parked
            else ""
        )
        return (
            f"  Right of way: you hold course{why}; {agent_ref(f.steer)} must steer away from "
            f"{_mine(f, result)} (its edits there are denied until it leaves them or "
            "acknowledges). Carry on."
        )
    theirs = "; ".join(f"{p} {_ranges(f.their_lines.get(p))}" for p in f.paths)
    leave = (
        f"leave {theirs} to {agent_ref(f.hold)}, and the lines touching them (git's merge "
        "conflicts on changes that touch)"
        if theirs
        else f"keep clear of {agent_ref(f.hold)}'s work"
    )
    who = "you steer" if f.steer == result.agent else f"{agent_ref(f.steer)} steers"
    line = f"  Right of way: {agent_ref(f.hold)} holds course; {who}: {leave}."
    if f.steer == result.agent and f.holder_published:
        line += (
            f" {agent_ref(f.hold)}'s work is published (committed, its branch on a remote), "
            "waiting on review: it keeps these lines until it merges, however long it stays idle."
        )
    elif f.steer == result.agent and f.holder_yields_at:
        line += (
            f" Ask again after {f.holder_yields_at}: if {agent_ref(f.hold)} changes nothing "
            "before then, nor waits on a denial, it counts as parked (idle for the repository's "
            "parked time) and yields right of way."
        )
    return line


def _hunks(hunks: list[list[int]] | None) -> str:
    if hunks is None:
        return "the whole file"
    parts = [
        f"an insertion after line {s}"
        if c == 0
        else (f"line {s}" if c == 1 else f"lines {s}-{s + c - 1}")
        for s, c in hunks
    ]
    return ", ".join(parts)


def _drift_lines(d: DriftFinding) -> list[str]:
    what = {"D": "deleted", "A": "added"}.get(d.status[:1], "changed")
    where = "" if d.their_hunks is None else f" {_hunks(d.their_hunks)} (as numbered in your base)"
    out = [f"- {agent_ref(d.mainline)} {what} {d.path}{where} since your branch's base."]
    return out + data_lines(f"latest commits on {agent_ref(d.mainline)}", d.commits)


def describe(
    result: CheckResult,
    findings: Sequence[Finding],
    *,
    header: str,
    drift: Sequence[DriftFinding] = (),
) -> str:
    lines = [header]
    for f in findings:
        lines += _finding_lines(f, result)
    for d in drift:
        lines += _drift_lines(d)
    return "\n".join(lines)


def _joined(names: Sequence[str]) -> str:
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _deny_text(
    result: CheckResult, blocking: Sequence[Finding], drift: Sequence[DriftFinding]
) -> str:
    paths = ", ".join(result.paths) or "this file"
    names = sorted({agent_ref(f.other) for f in blocking})
    mainlines = sorted({agent_ref(d.mainline) for d in drift})
    whose = [
        *(["another agent's work"] if names else []),
        *(f"work already on {m}" for m in mainlines),
    ]
    text = describe(
        result,
        blocking,
        header=f"Overlap Radar: this edit of {paths} would collide with {_joined(whose)}.",
        drift=drift,
    )
    ways = []
    if mainlines:
        m = mainlines[0]
        ways.append(
            f"bring {m} in first (commit or stash your work, then `git merge {m}` or `git rebase "
            f"{m}`) and retry: the edit then lands on top of it"
        )
    if names:
        who = _joined(names)
        ways.append(
            f"edit elsewhere: other files, or lines of {paths} with at least one unchanged line "
            f"between your change and {who}'s (git merges those cleanly, and this check says so "
            f"before the edit); leave the lines above to {who}"
        )
        idle = (
            ", or after the time given above if it stays idle"
            if any(f.holder_yields_at for f in blocking)
            else ""
        )
        ways.append(
            f"come back to these lines later: retry this edit once {who}'s change is merged "
            f"and you have brought the mainline in, or once it has moved off them{idle} (every "
            "retry is checked afresh)"
        )
    else:
        ways.append("edit elsewhere (other lines or files)")
    ways.append(
        f"{'coordinate, then ' if names else ''}acknowledge with `radar ack "
        f"{' '.join([*names, *mainlines])}` (MCP tool `acknowledge`) and retry: the same edit "
        "is then allowed"
    )
    numbered = "; ".join(f"({k}) {w}" for k, w in enumerate(ways, start=1))
    return f"{text}\nWays forward: {numbered}."


_STOPS = {"deny", "ask"}


def decide(result: CheckResult, policy: Policy) -> Decision:
    """The hook's decision for a pre-edit check."""
    blocking = tuple(f for f in result.findings if f.must_steer(result.agent))
    rest = tuple(f for f in result.findings if f not in blocking)
    drift = tuple(d for d in result.drift if not d.acknowledged)
    drift_rest = tuple(d for d in result.drift if d.acknowledged)
    stop_agents = bool(blocking) and policy.resolution in _STOPS
    stop_drift = bool(drift) and policy.drift in _STOPS
    if stop_agents or stop_drift:
        shown_blocking = blocking if stop_agents else ()
        shown_drift = drift if stop_drift else ()
        text = _deny_text(result, shown_blocking, shown_drift)
        denies = (stop_agents and policy.resolution == "deny") or (
            stop_drift and policy.drift == "deny"
        )
        kind = "deny" if denies else "ask"
        return Decision(kind, text, shown_blocking, shown_drift)
    shown = (*blocking, *rest) if policy.resolution == "warn" else rest
    shown_drift = (*drift, *drift_rest) if policy.drift == "warn" else drift_rest
    if (shown or shown_drift) and policy.traffic == "context":
        header = "Overlap Radar: other agents are working close to this edit."
        if any(f.resolution and f.hold == result.agent for f in shown):
            header = (
                "Overlap Radar: you hold course on this edit; the agents named below must "
                "steer away from it."
            )
        elif not shown:
            header = "Overlap Radar: the mainline changed lines close to this edit."
        text = describe(result, shown, header=header, drift=shown_drift)
        return Decision("context", text, tuple(shown), tuple(shown_drift))
    return Decision("none")
