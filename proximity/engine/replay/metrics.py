"""Figures of a replay, per policy, with bootstrap intervals over pull requests.

Each pull request is one resampling unit (its merge, hunks, delays, denials and agent-hours move
together), and a policy is compared with the baseline on the same resampled pull requests (a
paired bootstrap), so "conflicts avoided" is computed on exactly the same events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from proximity.engine.evaluation.bootstrap import BootstrapInterval, cluster_bootstrap_ci

__all__ = ["PullRequestOutcome", "ReplayFigures", "replay_figures"]


@dataclass(frozen=True, slots=True)
class PullRequestOutcome:
    """What happened to one pull request under one policy."""

    pr: int
    conflicted: bool  # git's merge into the replay mainline reported a conflicted path
    closed: bool = False
    """Closed without merging: no merge, so it counts in no conflict figure (nor do its own
    pulls' or resynchronisations' conflicts); its hunks, delays and denials count as any
    agent's."""
    conflicted_paths: int = 0
    pull_conflicted: bool = False
    """Bringing the mainline in where history's branch did (its own merge of the mainline)
    conflicted: the collision met before the merge, as history met it. Counted with the merge's
    conflicts under every policy."""
    replay_made: bool = False
    """The conflict (merge or pull) is on a path whose commit the replay had merged into the
    worktree with a conflict, resolved as the commit's side: a text no agent wrote, the
    replay's own artefact (its mainline or fork had diverged from history's)."""
    resync_conflicted: bool = False
    """Resynchronising conflicted: either kind below."""
    resync_merge_conflicted: bool = False
    """Merging the mainline into the agent's work conflicted on changes the agent had made: the
    agent's real work. The other kind, re-applying a deferred change whose historical diff no
    longer fits the file the mainline moved, is the replay's own: a live agent writes its
    deferred edit against the file as it then is (docs/DECISIONS.md, "Two kinds of
    resynchronisation conflict")."""
    hunks: int = 0
    delayed_hunks: int = 0
    delays_s: tuple[float, ...] = ()
    denials: int = 0
    unnecessary_denials: int = 0
    knock_on_denials: int = 0
    """Denials naming only agents that, in the baseline, had merged by then: the policy's own
    waits kept them open (``label_denials`` in :mod:`proximity.lab.replay_run`). Neither
    necessary nor unnecessary by the baseline's judgement, which never saw the two overlap."""
    traffic_advisories: int = 0
    forced_hunks: int = 0
    reasks: int = 0
    """Times the agent asked again at the moment a denial gave (its holder would be parked)."""
    reasks_allowed: int = 0
    agent_hours: float = 0.0
    merge_postponed_s: float = 0.0
    drift_denials: int = 0  # denied for lines the mainline changed since the agent's base
    unnecessary_drift_denials: int = 0  # ... of a path its baseline merge did not conflict on
    absent_drift_denials: int = 0
    """Drift denials of a whole-file write the replay made because the agent's worktree lacked
    a file its historical commit modified: the replayed base is behind the commit's own, so
    the write, and git's add/add verdict on it, are the replay's artefact (docs/DECISIONS.md,
    "A file the replayed branch lacks")."""
    transplant_drift_denials: int = 0
    """Drift denials of a commit's diff the replay merged into a worktree that differed from
    the commit's parent, with a conflict it resolved as the commit's side: the planned text
    carries the commit's lines where the worktree had others, the replay's text again."""
    copy_drift_denials: int = 0
    """Drift denials of a commit copying one the mainline already holds (``git cherry-pick``
    onto a release branch): git's copy, which no pre-edit hook sees."""
    own_drift_denials: int = 0
    """Drift denials of the agent's own edit (none of the three above): what the target on
    unnecessary mainline denials is judged on."""
    unnecessary_own_drift_denials: int = 0
    build_break: bool | None = None  # the static check of a clean merge (None: not checked)


@dataclass(frozen=True, slots=True)
class ReplayFigures:
    policy: str
    merges: int
    conflicts: int
    """Pull requests whose merge or own pull of the mainline conflicted."""
    conflicts_per_100: BootstrapInterval
    hunks: int
    delayed_hunks: int
    share_delayed: BootstrapInterval
    median_delay_h: BootstrapInterval
    p90_delay_h: float
    denials: int
    unnecessary_denials: int
    share_unnecessary: BootstrapInterval
    """Of the denials the baseline can judge (knock-on ones set apart)."""
    ra_per_agent_hour: BootstrapInterval
    ta_per_agent_hour: float
    resync_conflicts: int
    forced_hunks: int
    reasks: int = 0
    reasks_allowed: int = 0
    knock_on_denials: int = 0
    avoided: BootstrapInterval | None = None
    avoided_with_resync: BootstrapInterval | None = None
    avoided_with_resync_merges: BootstrapInterval | None = None
    resync_merge_conflicts: int = 0
    conflicts_removed: int = 0
    conflicts_added: int = 0
    extra: dict[str, float] = field(default_factory=dict)
    drift_denials: int = 0
    unnecessary_drift_denials: int = 0
    absent_drift_denials: int = 0
    transplant_drift_denials: int = 0
    copy_drift_denials: int = 0
    own_drift_denials: int = 0
    unnecessary_own_drift_denials: int = 0
    merge_conflicts: int = 0
    pull_conflicts: int = 0
    replay_made_conflicts: int = 0
    avoided_own: BootstrapInterval | None = None
    """"Avoided" with the conflicts the replay's own text made set apart on both sides."""
    merged_hunks: int = 0
    merged_delayed_hunks: int = 0
    share_delayed_merged: BootstrapInterval | None = None
    """Of the hunks of pull requests that merged (work that reached the mainline); ``None``
    when the window holds no closed pull request (then it is ``share_delayed``)."""
    merged_denials: int = 0
    merged_unnecessary_denials: int = 0
    merged_knock_on_denials: int = 0
    share_unnecessary_merged: BootstrapInterval | None = None
    """The agent denials of pull requests that merged, judged as ``share_unnecessary``; a
    closed agent's own denials are left out (none of its work ever lands). ``None`` as above."""
    merged_own_drift_denials: int = 0
    merged_unnecessary_own_drift_denials: int = 0
    """Mainline denials of the merged pull requests' own edits (``own_drift_denials``)."""
    build_checked: int = 0
    build_breaks: int = 0
    build_breaks_per_100: BootstrapInterval | None = None
    build_breaks_avoided: BootstrapInterval | None = None


def _ratio(num: NDArray[np.float64], den: NDArray[np.float64]) -> float:
    total = float(den.sum())
    return float(num.sum()) / total if total > 0 else float("nan")


def replay_figures(
    outcomes: Sequence[PullRequestOutcome],
    *,
    policy: str,
    baseline: Mapping[int, PullRequestOutcome] | None = None,
    resamples: int = 1000,
    seed: int = 0,
) -> ReplayFigures:
    """Figures for one policy; ``baseline`` (by PR number) adds the paired "avoided" figures.

    Notes
    -----
    Percentile intervals of the bootstrap over pull requests (Efron & Tibshirani 1993, ch. 13),
    through :func:`cluster_bootstrap_ci` with one cluster per pull request. A pull request's
    conflict is its merge's or its own pull's of the mainline (history's branch met it there).
    "Avoided" is ``1 - conflicts(policy) / conflicts(baseline)`` on the same resampled pull
    requests; with resynchronisation conflicts, a PR whose resync conflicted counts as conflicted
    (every kind, or only a mainline merge that met the agent's own applied work: ``..._merges``);
    ``avoided_own`` sets apart, on both sides, the conflicts on the replay's own text.
    """
    rows = sorted(outcomes, key=lambda o: o.pr)
    keys = np.array([o.pr for o in rows])
    merged = np.array([not o.closed for o in rows], dtype=float)
    # a closed pull request's own pulls may conflict, but no merge of it ever can
    conflicted = merged * np.array([o.conflicted or o.pull_conflicted for o in rows], dtype=float)
    hunks = np.array([o.hunks for o in rows], dtype=float)
    delayed = np.array([o.delayed_hunks for o in rows], dtype=float)
    denials = np.array([o.denials for o in rows], dtype=float)
    unnecessary = np.array([o.unnecessary_denials for o in rows], dtype=float)
    knock_on = np.array([o.knock_on_denials for o in rows], dtype=float)
    judged = denials - knock_on
    hours = np.array([o.agent_hours for o in rows], dtype=float)
    delays = [np.asarray(o.delays_s, dtype=float) / 3600.0 for o in rows]

    def ci(stat: Callable[[NDArray[np.intp]], float]) -> BootstrapInterval:
        return cluster_bootstrap_ci(stat, keys, resamples=resamples, seed=seed)

    def median_delay(idx: NDArray[np.intp]) -> float:
        drawn = [delays[i] for i in idx if delays[i].size]
        return float(np.median(np.concatenate(drawn))) if drawn else float("nan")

    all_delays = np.concatenate(delays) if delays else np.zeros(0)
    figures = ReplayFigures(
        policy=policy,
        merges=int(merged.sum()),
        conflicts=int(conflicted.sum()),
        merge_conflicts=sum(o.conflicted for o in rows if not o.closed),
        pull_conflicts=sum(o.pull_conflicted for o in rows if not o.closed),
        replay_made_conflicts=sum(
            (o.conflicted or o.pull_conflicted) and o.replay_made and not o.closed for o in rows
        ),
        conflicts_per_100=ci(lambda i: 100.0 * _ratio(conflicted[i], merged[i])),
        hunks=int(hunks.sum()),
        delayed_hunks=int(delayed.sum()),
        share_delayed=ci(lambda i: _ratio(delayed[i], hunks[i])),
        median_delay_h=ci(median_delay),
        p90_delay_h=float(np.quantile(all_delays, 0.9)) if all_delays.size else float("nan"),
        denials=int(denials.sum()),
        unnecessary_denials=int(unnecessary.sum()),
        share_unnecessary=ci(lambda i: _ratio(unnecessary[i], judged[i])),
        knock_on_denials=sum(o.knock_on_denials for o in rows),
        ra_per_agent_hour=ci(lambda i: _ratio(denials[i], hours[i])),
        ta_per_agent_hour=_ratio(np.array([o.traffic_advisories for o in rows], float), hours),
        resync_conflicts=sum(o.resync_conflicted for o in rows if not o.closed),
        resync_merge_conflicts=sum(o.resync_merge_conflicted for o in rows if not o.closed),
        forced_hunks=sum(o.forced_hunks for o in rows),
        reasks=sum(o.reasks for o in rows),
        reasks_allowed=sum(o.reasks_allowed for o in rows),
        drift_denials=sum(o.drift_denials for o in rows),
        unnecessary_drift_denials=sum(o.unnecessary_drift_denials for o in rows),
        absent_drift_denials=sum(o.absent_drift_denials for o in rows),
        transplant_drift_denials=sum(o.transplant_drift_denials for o in rows),
        copy_drift_denials=sum(o.copy_drift_denials for o in rows),
        own_drift_denials=sum(o.own_drift_denials for o in rows),
        unnecessary_own_drift_denials=sum(o.unnecessary_own_drift_denials for o in rows),
    )
    if not merged.all():
        figures = replace(
            figures,
            merged_hunks=int((merged * hunks).sum()),
            merged_delayed_hunks=int((merged * delayed).sum()),
            share_delayed_merged=ci(lambda i: _ratio(merged[i] * delayed[i], merged[i] * hunks[i])),
            merged_denials=int((merged * denials).sum()),
            merged_unnecessary_denials=int((merged * unnecessary).sum()),
            merged_knock_on_denials=int((merged * knock_on).sum()),
            merged_own_drift_denials=sum(o.own_drift_denials for o in rows if not o.closed),
            merged_unnecessary_own_drift_denials=sum(
                o.unnecessary_own_drift_denials for o in rows if not o.closed
            ),
            share_unnecessary_merged=ci(
                lambda i: _ratio(merged[i] * unnecessary[i], merged[i] * judged[i])
            ),
        )
    checked = np.array([o.build_break is not None for o in rows], dtype=float)
    broke = np.array([bool(o.build_break) for o in rows], dtype=float)
    if checked.any():
        figures = replace(
            figures,
            build_checked=int(checked.sum()),
            build_breaks=int(broke.sum()),
            build_breaks_per_100=ci(lambda i: 100.0 * _ratio(broke[i], checked[i])),
        )
    if baseline is None:
        return figures
    base = merged * np.array(
        [baseline[o.pr].conflicted or baseline[o.pr].pull_conflicted for o in rows], dtype=float
    )
    resynced = merged * np.array([o.resync_conflicted for o in rows], dtype=float)
    resync_merged = merged * np.array([o.resync_merge_conflicted for o in rows], dtype=float)
    with_resync = np.maximum(conflicted, resynced)
    with_merges = np.maximum(conflicted, resync_merged)

    def avoided(values: NDArray[np.float64], den: NDArray[np.float64] = base) -> BootstrapInterval:
        return ci(lambda i: 1.0 - _ratio(values[i], den[i]))

    made = np.array([o.replay_made for o in rows], dtype=float)
    base_made = np.array([baseline[o.pr].replay_made for o in rows], dtype=float)

    base_broke = np.array([bool(baseline[o.pr].build_break) for o in rows], dtype=float)
    if checked.any():
        figures = replace(
            figures, build_breaks_avoided=ci(lambda i: 1.0 - _ratio(broke[i], base_broke[i]))
        )
    return replace(
        figures,
        avoided=avoided(conflicted),
        avoided_own=avoided(conflicted * (1 - made), base * (1 - base_made)),
        avoided_with_resync=avoided(with_resync),
        avoided_with_resync_merges=avoided(with_merges),
        conflicts_removed=int(((base == 1) & (conflicted == 0)).sum()),
        conflicts_added=int(((base == 0) & (conflicted == 1)).sum()),
    )
