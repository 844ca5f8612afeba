"""The whole replay of a history window: every policy, the figures, the stored events.

Writes ``events-<policy>.jsonl`` (one JSON object per event: agent starts, each hunk's answer,
denials and Traffic Advisories with the text the agent was told, acknowledgements, deferrals,
resynchronisations, merges with their conflicted paths) and ``summary.json`` into ``out``.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from proximity.engine.airspace.profiles import SCORER_VERSION
from proximity.engine.replay.metrics import ReplayFigures, replay_figures
from proximity.engine.replay.schedule import build_schedule
from proximity.lab.replay_copies import mainline_copies
from proximity.lab.replay_history import ReplayHistory
from proximity.lab.replay_repo import ReplayRepo
from proximity.lab.replay_run import (
    PolicyRun,
    label_denials,
    label_drift_denials,
    run_policy,
)

__all__ = ["ReplayReport", "format_report", "replay_window"]


@dataclass(frozen=True, slots=True)
class ReplayReport:
    history: ReplayHistory
    order: str
    recency: str
    mode: str
    runs: dict[str, PolicyRun]
    figures: dict[str, ReplayFigures]
    hunks_per_second: dict[str, float]
    bases: str = "as-read"
    max_wait_s: int | None = None
    pulls: bool = True
    closing: str = "window-end"
    parked_after_hours: float | None = None
    branches: str = "local"

    def to_json(self) -> dict[str, Any]:
        h = self.history
        return {
            "source": h.source, "ref": h.ref, "head": h.head, "start": h.start,
            "clockStart": h.clock_start, "prs": [p.number for p in h.prs if not p.closed],
            "closedPrs": [p.number for p in h.prs if p.closed], "closedAt": self.closing,
            "mainlineSteps": len(h.mainline), "order": self.order, "recency": self.recency,
            "mode": self.mode, "bases": self.bases, "maxWaitS": self.max_wait_s,
            "branchMerges": "replay" if self.pulls else "skip",
            "parkedAfterHours": self.parked_after_hours, "branches": self.branches,
            "scorerVersion": SCORER_VERSION,
            "policies": {
                name: {
                    "figures": _clean(asdict(self.figures[name])),
                    "seconds": run.seconds, "asked": run.asked, "hunks": run.hunks,
                    "hunksPerSecond": self.hunks_per_second[name],
                    "stepsMatchingHistory": run.steps_matching_history, "steps": run.steps,
                    "transplantedChanges": run.transplanted, "applyConflicts": run.apply_conflicts,
                    "hookErrors": run.hook_errors, "deniedPairsClean": run.pairs_clean,
                }
                for name, run in self.runs.items()
            },
        }  # fmt: skip


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def replay_window(
    history: ReplayHistory,
    *,
    policies: Sequence[str],
    out: Path,
    work: Path | None = None,
    order: str = "committer",
    recency: str = "historical",
    mode: str = "session",
    resamples: int = 1000,
    seed: int = 0,
    keep: bool = False,
    bases: str = "as-read",
    max_wait_s: int | None = None,
    build_breaks: bool = False,
    pulls: bool = True,
    closing: str = "window-end",
    parked_after_hours: float | None = None,
    branches: str = "local",
) -> ReplayReport:
    """Run the baseline and each policy on the same schedule; write events and the summary.

    ``pulls``: the branches' own merges of the mainline are replayed (the default); without,
    a branch keeps the base it forked from unless a policy resynchronises it. ``closing``: when
    the closed pull requests close (:data:`~proximity.engine.replay.schedule.CLOSINGS`).
    ``parked_after_hours``: the profile's parked time replaced (0: never parked).
    ``branches``: ``published`` (session mode: every pull request's work counts as pushed, so
    it never parks) or ``local``.
    """
    out.mkdir(parents=True, exist_ok=True)
    events = build_schedule(history.prs, history.mainline, order=order,
                            clock_start=history.clock_start, pulls=pulls,
                            closing=closing)  # fmt: skip
    root = Path(tempfile.mkdtemp(prefix="replay-", dir=work))
    try:
        repo = ReplayRepo.create(root / "repo", source=history.source, start=history.start)
        copies = mainline_copies(history.source, history.start, history.mainline, history.prs)
        wanted = ["ignore", *[p for p in policies if p != "ignore"]]
        runs: dict[str, PolicyRun] = {}
        for policy in wanted:
            with (out / f"events-{policy}.jsonl").open("w", encoding="utf-8") as log:
                runs[policy] = run_policy(
                    policy, repo=repo, start=history.start, events=events, prs=history.prs,
                    log=log, state_dir=root / f"state-{policy}", mode=mode, recency=recency,
                    bases=bases, max_wait_s=max_wait_s, build_breaks=build_breaks,
                    copies=copies, parked_after_hours=parked_after_hours, branches=branches,
                )  # fmt: skip
        baseline = runs["ignore"]
        base_outcomes = {o.pr: o for o in baseline.outcomes()}
        figures, speed = {}, {}
        for policy, run in runs.items():
            unnecessary, knock_on = (
                label_denials(repo, baseline, run) if policy != "ignore" else ({}, {})
            )
            drift = label_drift_denials(baseline, run) if policy != "ignore" else {}
            own = label_drift_denials(baseline, run, own=True) if policy != "ignore" else {}
            figures[policy] = replay_figures(
                run.outcomes(unnecessary, drift, own, knock_on), policy=policy,
                baseline=base_outcomes if policy != "ignore" else None,
                resamples=resamples, seed=seed,
            )  # fmt: skip
            speed[policy] = run.hunks / run.seconds if run.seconds > 0 else float("nan")
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    report = ReplayReport(history, order, recency, mode, runs, figures, speed, bases,
                          max_wait_s, pulls, closing, parked_after_hours, branches)  # fmt: skip
    (out / "summary.json").write_text(json.dumps(report.to_json(), indent=1), encoding="utf-8")
    return report


def _ci(x: Any, scale: float = 1.0, digits: int = 1) -> str:
    if x is None or math.isnan(x.estimate):
        return "n/a"
    return (f"{x.estimate * scale:.{digits}f} ({x.low * scale:.{digits}f}-"
            f"{x.high * scale:.{digits}f})")  # fmt: skip


def format_report(report: ReplayReport) -> str:
    h = report.history
    lines = [
        f"replay of {h.source} ({sum(not p.closed for p in h.prs)} pull requests"
        + (
            f" and {sum(p.closed for p in h.prs)} closed without merging, closed at the "
            + ("window's end" if report.closing == "window-end" else "last commit")
            if any(p.closed for p in h.prs)
            else ""
        )
        + f", {len(h.mainline)} mainline steps, "
        f"order by {report.order} time, recency {report.recency}, radar via {report.mode}, "
        f"bases {report.bases}, branches {report.branches}"
        + (f", obey waits at most {report.max_wait_s / 3600:g} h" if report.max_wait_s else "")
        + ("" if report.pulls else ", the branches' own merges of the mainline skipped")
        + (
            ""
            if report.parked_after_hours is None
            else f", parked after {report.parked_after_hours:g} h"
            if report.parked_after_hours > 0
            else ", never parked"
        )
        + ")",
        "| policy | conflicts /100 merges [n; at a pull; the replay's text] | avoided "
        "(the replay's text set apart) | "
        "avoided incl. resync (resync merges only) | "
        "resync conflicts (merges) | hunks delayed % | median delay h | denials [knock-on] | "
        "unnecessary % (knock-on set apart) | "
        "mainline denials (unnecessary; of a file the branch lacked; of a conflicted transplant; "
        "of git's copy of the mainline's work) | "
        "of the agents' own edits (unnecessary) | RA per agent-hour | hunks/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, f in report.figures.items():
        lines.append(
            f"| {name} | {_ci(f.conflicts_per_100)} [{f.conflicts}/{f.merges}; "
            f"{f.pull_conflicts}; {f.replay_made_conflicts}] | "
            f"{_ci(f.avoided, 100, 0)} ({_ci(f.avoided_own, 100, 0)}) | "
            f"{_ci(f.avoided_with_resync, 100, 0)} "
            f"({_ci(f.avoided_with_resync_merges, 100, 0)}) | "
            f"{f.resync_conflicts} ({f.resync_merge_conflicts}) | "
            f"{_ci(f.share_delayed, 100, 2)} | {_ci(f.median_delay_h, 1, 2)} | {f.denials} "
            f"[{f.knock_on_denials}] | "
            f"{_ci(f.share_unnecessary, 100, 0)} | {f.drift_denials} "
            f"({f.unnecessary_drift_denials}; {f.absent_drift_denials}; "
            f"{f.transplant_drift_denials}; {f.copy_drift_denials}) | "
            f"{f.own_drift_denials} ({f.unnecessary_own_drift_denials}) | "
            f"{_ci(f.ra_per_agent_hour, 1, 3)} | "
            f"{report.hunks_per_second[name]:.1f} |"
        )
    asked = [f"{name} {f.reasks} ({f.reasks_allowed} allowed)"
             for name, f in report.figures.items() if f.reasks]  # fmt: skip
    if asked:
        lines.append("")
        lines.append("Asked again at the time a denial gave (its idle holder parking): "
                     + "; ".join(asked) + ".")  # fmt: skip
    delivered = [
        f"{name} {_ci(f.share_delayed_merged, 100, 2)} [{f.merged_delayed_hunks}/{f.merged_hunks}]"
        for name, f in report.figures.items()
        if f.share_delayed_merged is not None
    ]
    if delivered:
        lines.append("")
        lines.append("Hunks delayed, of the pull requests that merged: " + "; ".join(delivered)
                     + ".")  # fmt: skip
        denied = [
            f"{name} {f.merged_denials} [{f.merged_knock_on_denials}], unnecessary "
            f"{_ci(f.share_unnecessary_merged, 100, 0)} [{f.merged_unnecessary_denials}]"
            for name, f in report.figures.items()
            if f.share_unnecessary_merged is not None
        ]
        lines.append("Agent denials of the pull requests that merged [knock-on], unnecessary % "
                     "(knock-on set apart) [n]: " + "; ".join(denied) + ".")  # fmt: skip
        own = [
            f"{name} {f.merged_own_drift_denials} ({f.merged_unnecessary_own_drift_denials})"
            for name, f in report.figures.items()
            if f.share_unnecessary_merged is not None
        ]
        lines.append("Mainline denials of their own edits (unnecessary): " + "; ".join(own) + ".")
    if any(f.build_checked for f in report.figures.values()):
        lines.append("")
        lines.append("| policy | clean merges checked | build breaks /100 checked | avoided |")
        lines.append("|---|---|---|---|")
        for name, f in report.figures.items():
            rate, avoided = _ci(f.build_breaks_per_100), _ci(f.build_breaks_avoided, 100, 0)
            lines.append(f"| {name} | {f.build_checked} | {rate} [{f.build_breaks}] | {avoided} |")
    return "\n".join(lines)
