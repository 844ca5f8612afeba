"""Replaying real pull-request history as agents that follow the radar (issue 17): pure parts.

``schedule`` orders the events (time model), ``hunks`` turns diff hunks into the edits an agent
sends, ``policy`` is the agents' state machine, ``metrics`` the figures with bootstrap intervals.
The git side lives in ``proximity.lab.replay_*``.
"""

from __future__ import annotations

from proximity.engine.replay.hunks import LineHunk, PlannedText, parse_hunks, plan_edit
from proximity.engine.replay.metrics import PullRequestOutcome, ReplayFigures, replay_figures
from proximity.engine.replay.policy import Action, Applied, Denied, Drifted, ReplayScheduler
from proximity.engine.replay.schedule import (
    ORDERS,
    Change,
    CommitInfo,
    Event,
    FileChange,
    MainlineStep,
    PullRequestHistory,
    build_schedule,
)

__all__ = [
    "ORDERS",
    "Action",
    "Applied",
    "Change",
    "CommitInfo",
    "Denied",
    "Drifted",
    "Event",
    "FileChange",
    "LineHunk",
    "MainlineStep",
    "PlannedText",
    "PullRequestHistory",
    "PullRequestOutcome",
    "ReplayFigures",
    "ReplayScheduler",
    "build_schedule",
    "parse_hunks",
    "plan_edit",
    "replay_figures",
]
