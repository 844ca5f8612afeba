"""An agent's start as the server stores it: read from git where the server can, never claimed.

Right of way goes to the earlier start (radar-v1), so a start an agent merely reports would let
any agent claim every encounter. The rule (docs/DECISIONS.md, "One right of way everywhere"):

- the watcher reads the start from the worktree itself (:mod:`proximity.sources.git.started`),
  and that is stored as read;
- a reported working set's agent is dated from the repository when the server has a clone
  holding its branch (``Repository.path``), by the same definition the hooks use;
- otherwise the server cannot vouch for any start: the agent's first report is its start, and
  a claimed ``startedAt`` never moves it (earlier or later).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from proximity.models import Agent, Repository
from proximity.sources.git.started import branch_start

__all__ = ["agent_start_of"]


def _from_git(repository: Repository, agent_id: str) -> datetime | None:
    if not repository.path or not Path(repository.path).is_dir():
        return None
    return branch_start(repository.path, agent_id, repository.base_branch)


def agent_start_of(
    *,
    repository: Repository,
    agent: Agent,
    read_from_git: datetime | None,
    trusted: bool,
    now: datetime,
) -> datetime | None:
    """The start to store for ``agent``; ``read_from_git`` is the watcher's own reading
    (``trusted``), else the report's claim, which is not used."""
    if trusted:
        return read_from_git
    found = _from_git(repository, agent.agent_id)
    if found is not None:
        return found
    return agent.started_at or now
