"""Edits outside the asking agent's own worktree: into another agent's, or out of the repository.

The asking agent is the session's worktree (the payload's ``cwd``), never the worktree of the
file being edited: checked as its owner, an edit into another agent's worktree would be that
agent "editing its own lines" and pass. Such an edit is held back as the repository's
``resolution`` policy says (deny by default); an edit outside every worktree of this
repository is let through with a note that the radar did not check it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proximity.agent.config import Policy
from proximity.agent.decide import Decision
from proximity.agent.edits import PlannedEdit
from proximity.agent.quoting import agent_ref, as_data
from proximity.agent.worktree import AskingWorktree, find_worktree
from proximity.sources.git import GitError

__all__ = ["Elsewhere", "edits_elsewhere", "elsewhere_decision"]

_ACTION = {"deny": "deny", "ask": "ask", "warn": "context"}


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A planned edit outside the asking worktree; ``owner`` is set inside another of its
    repository's worktrees (that worktree's agent id and folder)."""

    path: str
    owner: str | None = None
    folder: str | None = None


def edits_elsewhere(home: AskingWorktree, edits: Sequence[PlannedEdit]) -> list[Elsewhere]:
    """The edits of ``edits`` that do not land in ``home`` (one git call for each of those)."""
    out = []
    for edit in edits:
        if home.relative(edit.path) is not None:
            continue
        try:
            there = find_worktree(edit.path)
        except (GitError, OSError):
            out.append(Elsewhere(edit.path))
            continue
        same = there.common_dir == home.common_dir
        out.append(
            Elsewhere(edit.path, there.agent_id, str(there.top)) if same else Elsewhere(edit.path)
        )
    return out


def elsewhere_decision(
    found: Sequence[Elsewhere], home: AskingWorktree, policy: Policy
) -> Decision | None:
    """What the hook does about ``found``; ``None`` when nothing of it needs saying."""
    foreign = [e for e in found if e.owner is not None]
    me = f"{agent_ref(home.agent_id)} in {as_data(str(home.top))}"
    if foreign and policy.resolution in _ACTION:
        owners = sorted({agent_ref(e.owner) for e in foreign})
        where = "; ".join(
            f"{as_data(e.path)} is in the worktree of {agent_ref(e.owner)} ({as_data(e.folder)})"
            for e in foreign[:5]
        )
        text = (
            f"Overlap Radar: this edit lands in another agent's worktree, not in yours ({me}): "
            f"{where}. Each agent edits only its own worktree. Ways forward: (1) make the change "
            f"in your own worktree; (2) leave it to {' and '.join(owners)}."
        )
        return Decision(_ACTION[policy.resolution], text)
    outside = [e for e in found if e.owner is None]
    if outside and policy.traffic == "context":
        paths = ", ".join(as_data(e.path) for e in outside[:5])
        return Decision(
            "context",
            f"Overlap Radar: {paths} is outside your worktree ({me}) and outside every worktree "
            "of this repository; the radar did not check it against other agents' work.",
        )
    return None
