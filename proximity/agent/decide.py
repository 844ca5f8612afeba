"""From findings to what the hook does: deny, ask, pass context, or stay silent.

Defaults (``.radar.toml`` ``[policy]`` changes them): an unacknowledged Resolution Advisory on
the lines about to change denies the edit with a reason the model can act on; a Traffic
Advisory, or a Resolution the agent has acknowledged, lets the edit proceed and passes the
other side's intent as context; nothing found means no output at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proximity.agent.config import Policy
from proximity.agent.findings import CheckResult, Finding

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


def _ranges(lines: list[list[int]] | None) -> str:
    if not lines:
        return "the whole file"
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in lines]
    return ("line " if len(parts) == 1 and "-" not in parts[0] else "lines ") + ", ".join(parts)


def _quoted(excerpt: str, limit: int = 4) -> list[str]:
    return [f"      {line}" for line in excerpt.splitlines()[:limit]]


def _channels(f: Finding) -> str:
    top = sorted(f.channels.items(), key=lambda kv: -kv[1])[:3]
    return ", ".join(_CHANNEL_NAMES.get(k, k) for k, _ in top) or "proximity"


def _who(f: Finding) -> str:
    task = f'task "{f.their_label}"' if f.their_label and f.their_label != f.other else ""
    intent = f"declared intent {', '.join(f.their_intent)}" if f.their_intent else ""
    said = "; ".join(x for x in (task, intent) if x)
    return f"{f.other} ({said})" if said else f.other


def _merge_check_lines(check: Mapping[str, Any] | None) -> list[str]:
    """The speculative merge check of the pair, when the answer carries one."""
    if not check:
        return []
    state = str(check.get("state") or "not checked")
    if state != "checked":
        return [f"  Merge check: {state} (not a sign the merge is clean)."]
    problems = check.get("problems") or []
    if not problems:
        return ["  Merge check: the two changes merged and nothing only the merge has was found."]
    out = ["  Merge check: merging the two changes breaks what neither breaks alone:"]
    return out + [f"    {p.get('path', '')}: {p.get('message', '')}" for p in problems[:3]]


def _finding_lines(f: Finding, me: str) -> list[str]:
    band = "Resolution Advisory" if f.resolution else "Traffic Advisory"
    out = [f"- {band} with {_who(f)}: {_channels(f)}, risk {f.risk:.2f}."]
    for path in f.paths:
        out.append(f"  {f.other} changed {path} {_ranges(f.their_lines.get(path))}:")
        out += _quoted(f.their_excerpt.get(path, ""))
    out += [f"  Symbols: {text}." for text in f.symbols[:3]]
    out += _merge_check_lines(f.merge_check)
    if f.resolution and f.hold and f.steer:
        who = "you" if f.hold == me else f.hold
        out.append(
            f"  Right of way: {who} hold{'' if who == 'you' else 's'}; "
            f"{'you steer' if f.steer == me else f.steer + ' steers'}."
        )
    return out


def describe(result: CheckResult, findings: Sequence[Finding], *, header: str) -> str:
    lines = [header]
    for f in findings:
        lines += _finding_lines(f, result.agent)
    return "\n".join(lines)


def _deny_text(result: CheckResult, blocking: Sequence[Finding]) -> str:
    paths = ", ".join(result.paths) or "this file"
    text = describe(
        result,
        blocking,
        header=f"Overlap Radar: this edit of {paths} would collide with another agent's work.",
    )
    names = sorted({f.other for f in blocking})
    who = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return (
        f"{text}\nWays forward: (1) edit elsewhere (other lines or files) and leave these to "
        f"{who}; or (2) coordinate, then acknowledge with `radar ack {' '.join(names)}` (MCP "
        f"tool `acknowledge`) and retry: the same edit is then allowed."
    )


def decide(result: CheckResult, policy: Policy) -> Decision:
    """The hook's decision for a pre-edit check."""
    blocking = tuple(f for f in result.findings if f.resolution and not f.acknowledged)
    rest = tuple(f for f in result.findings if f not in blocking)
    if blocking and policy.resolution in {"deny", "ask"}:
        return Decision(policy.resolution, _deny_text(result, blocking), blocking)
    shown = (*blocking, *rest) if policy.resolution == "warn" else rest
    if shown and policy.traffic == "context":
        header = "Overlap Radar: other agents are working close to this edit."
        text = describe(result, shown, header=header)
        return Decision("context", text, tuple(shown))
    return Decision("none")
