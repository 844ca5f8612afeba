"""The replay harness on constructed histories whose outcome is known (tests/sources/
replay_scenario.py): every policy, both ways into the radar, and a source left untouched."""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from proximity.lab.replay_copies import mainline_copies
from proximity.lab.replay_history import read_window
from proximity.lab.replay_repo import ReplayRepo
from proximity.lab.replay_report import ReplayReport, format_report, replay_window
from tests.lab.replay_scenario import (
    DAY,
    DRIFT,
    PARKED,
    RESYNC,
    SLOW,
    T0,
    build_bases,
    build_break_history,
    build_cherry_picks,
    build_closed,
    build_closed_at_last_commit,
    build_knock_on,
    build_rich,
    build_scenario,
    git,
    numbered,
)

POLICIES = ["ignore", "obey", "acknowledge"]


def fingerprint(repo: Path) -> dict[str, str]:
    """Every byte of the git directory, the refs, the object count, HEAD and the status."""
    digest = hashlib.sha256()
    for path in sorted((repo / ".git").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes())
    return {
        "bytes": digest.hexdigest(),
        "refs": git(repo, "for-each-ref"),
        "objects": git(repo, "count-objects", "-v"),
        "head": git(repo, "rev-parse", "HEAD"),
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
    }


def events(out: Path, policy: str) -> list[dict[str, Any]]:
    lines = (out / f"events-{policy}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path,
                                                               ReplayReport]:  # fmt: skip
    root = tmp_path_factory.mktemp("replay")
    repo = build_scenario(root / "source")
    before = fingerprint(repo)
    report = replay_window(read_window(repo, max_prs=10), policies=POLICIES, out=root / "out",
                           work=root, resamples=200)  # fmt: skip
    return repo, before, root / "out", report


def test_the_window_reads_each_merge_commit_as_an_agent_and_the_rest_as_pushes(
    scenario: tuple[Path, dict[str, str], Path, ReplayReport],
) -> None:
    history = scenario[3].history
    assert [p.number for p in history.prs] == [1, 4, 2, 5, 3, 6]
    assert [(s.pr, s.at - T0) for s in history.mainline] == [
        (1, 1000), (4, 1200), (None, 1500), (2, 2000), (5, 2500), (3, 5000), (6, 6000),
    ]  # fmt: skip
    assert history.clock_start == T0 + 100
    assert {p.number: p.commits[0].committer_at - T0 for p in history.prs}[6] == 2300


def test_figures_of_each_policy_are_those_known_by_construction(
    scenario: tuple[Path, dict[str, str], Path, ReplayReport],
) -> None:
    figures = scenario[3].figures
    base, obey, ack = figures["ignore"], figures["obey"], figures["acknowledge"]
    assert (base.conflicts, base.merges, base.denials, base.delayed_hunks) == (2, 6, 0, 0)
    assert (obey.conflicts, obey.denials, obey.unnecessary_denials) == (0, 2, 0)
    assert obey.avoided is not None
    assert obey.avoided.estimate == 1.0
    # #2 re-applied its line over #1's, #6 beside #3's: the conflicts moved into their own work
    assert obey.avoided_with_resync is not None
    assert obey.avoided_with_resync.estimate == 0.0
    # ... deferred lines written over the others', not mainline merges that met applied work
    assert (obey.resync_conflicts, obey.resync_merge_conflicts) == (2, 0)
    assert obey.avoided_with_resync_merges is not None
    assert obey.avoided_with_resync_merges.estimate == 1.0
    assert (obey.hunks, obey.delayed_hunks, obey.share_delayed.estimate) == (6, 2, 2 / 6)
    assert obey.median_delay_h.estimate == pytest.approx((800 + 2700) / 2 / 3600)
    assert (ack.conflicts, ack.denials, ack.delayed_hunks, ack.unnecessary_denials) == (2, 2, 0, 0)
    assert scenario[3].runs["obey"].pairs_clean == {"pr-1/pr-2": False, "pr-3/pr-6": False}
    assert ack.avoided is not None
    assert ack.avoided.estimate == 0.0
    # the baseline rebuilds history's tree at every mainline step
    run = scenario[3].runs["ignore"]
    assert run.steps_matching_history == run.steps == 7


def test_events_say_what_each_agent_was_told(
    scenario: tuple[Path, dict[str, str], Path, ReplayReport],
) -> None:
    out = scenario[2]
    obey = events(out, "obey")
    denials = [(e["agent"], e["others"], e["t"] - T0) for e in obey if e["kind"] == "deny"]
    assert denials == [("pr-2", ["pr-1"], 200), ("pr-6", ["pr-3"], 2300)]
    told = next(e["told"] for e in obey if e["kind"] == "deny")
    assert "Resolution Advisory with pr-1" in told
    assert "`radar ack pr-1`" in told
    advisory = [e for e in obey if e["kind"] == "advisory"]
    assert [(e["agent"], e["traffic"]) for e in advisory] == [("pr-5", ["pr-4"])]
    told5 = next(e["told"] for e in advisory if e["agent"] == "pr-5")
    assert "git would merge these cleanly (pr-4 changed c.py line 10" in told5
    merge6 = next(e for e in obey if e["kind"] == "merge" and e["agent"] == "pr-6")
    assert merge6["conflicts"] == []  # it waited for #3, then wrote its line beside #3's
    base6 = next(e for e in events(out, "ignore") if e["kind"] == "merge" and e["agent"] == "pr-6")
    assert base6["conflicts"] == ["b.py"]
    assert base6["counterparts"] == {"b.py": ["pr-3"]}
    assert base6["liveCounterparts"] == {"b.py": ["pr-3"]}  # #3 merged after #6 started
    acks = [e for e in events(out, "acknowledge") if e["kind"] == "ack"]
    assert [(e["agent"], e["others"]) for e in acks] == [("pr-2", ["pr-1"]), ("pr-6", ["pr-3"])]
    assert acks[0]["said"][0].startswith("acknowledged pr-1 for pr-2 (local")
    assert not [e for e in events(out, "ignore") if e["kind"] in {"deny", "advisory"}]
    # #6 starts at 2300, after four merges and a push, but from where its branch forked
    start6 = next(e for e in obey if e["kind"] == "start" and e["agent"] == "pr-6")
    assert start6["base"] == start6["forkPoint"] == scenario[3].history.start


def test_the_source_repository_is_byte_for_byte_unchanged(
    scenario: tuple[Path, dict[str, str], Path, ReplayReport],
) -> None:
    repo, before, _, _ = scenario
    assert fingerprint(repo) == before


def test_the_hook_process_path_and_fresh_recency_give_the_same_answers(
    scenario: tuple[Path, dict[str, str], Path, ReplayReport], tmp_path: Path
) -> None:
    repo, _, out, _ = scenario
    history = read_window(repo, max_prs=10)
    hooked = replay_window(history, policies=["obey"], out=tmp_path / "hook", work=tmp_path,
                           mode="hook", resamples=20)  # fmt: skip

    def answers(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        keep = {"deny", "advisory", "defer", "resync", "merge"}
        return [(e["kind"], e["t"], e.get("agent"), e.get("others"), e.get("conflicts"))
                for e in rows if e["kind"] in keep]  # fmt: skip

    assert answers(events(tmp_path / "hook", "obey")) == answers(events(out, "obey"))
    assert hooked.figures["obey"].conflicts == 0
    fresh = replay_window(history, policies=["obey"], out=tmp_path / "fresh", work=tmp_path,
                          recency="fresh", resamples=20)  # fmt: skip
    # every edit counted as just made: the same answers, since neither overlap nor abutting
    # lines fade (#6 is denied beside #3's 2,000-second-old line and waits for it either way)
    assert answers(events(tmp_path / "fresh", "obey")) == answers(events(out, "obey"))
    delays = sorted(d for o in fresh.runs["obey"].outcomes() for d in o.delays_s)
    assert delays == [800.0, 2700.0]


def test_a_richer_history_is_rebuilt_exactly_hunk_by_hunk(tmp_path: Path) -> None:
    repo = build_rich(tmp_path / "source")
    before = fingerprint(repo)
    report = replay_window(read_window(repo, max_prs=5), policies=["obey"], out=tmp_path / "out",
                           work=tmp_path, resamples=20)  # fmt: skip
    for policy in ("ignore", "obey"):
        run = report.runs[policy]
        assert run.steps_matching_history == run.steps == 3
        assert run.transplanted == 0
        assert run.apply_conflicts == 0
    hunks = [e for e in events(tmp_path / "out", "ignore") if e["kind"] == "merge"]
    assert [e["conflicts"] for e in hunks] == [[], []]
    # one: 2 hunks + a new file, then a deletion, an insertion, a repeated line; two: 2 hunks
    assert report.runs["ignore"].hunks == 8
    assert report.figures["obey"].denials == 0
    assert fingerprint(repo) == before


def test_a_branch_merging_the_mainline_in_skips_that_merge_but_keeps_its_own_side_work(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "source"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("".join(f"{i}\n" for i in range(20)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base", at=0)
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "t.py").write_text("topic\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "topic work", at=10)
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "s.py").write_text("side\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "side work (a second clone of the branch)", at=20)
    git(repo, "checkout", "-q", "main")
    (repo / "m.py").write_text("main\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "mainline work", at=30)
    git(repo, "checkout", "-q", "topic")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'main' into topic", "main", at=40)
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side", at=50)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge pull request #9 from x/topic", "topic", at=60)
    (pr,) = read_window(repo, max_prs=1).prs
    assert pr.skipped_merges == 1
    assert [sorted(f.path for f in c.files) for c in pr.commits] == [["t.py"], ["s.py"]]


def test_overlapping_and_abutting_lines_days_old_are_still_denied_and_avoided(
    tmp_path: Path,
) -> None:
    """Human pace (replay_scenario.SLOW): the other side's unmerged line conflicts at merge
    however old it is, whether the edit shares it or touches it, so obey denies both."""
    repo = build_scenario(tmp_path / "source", SLOW)
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, base.merges) == (2, 4)
    assert (obey.conflicts, obey.denials, obey.unnecessary_denials, obey.delayed_hunks) == (
        0, 2, 0, 2,
    )  # fmt: skip
    assert obey.avoided is not None
    assert obey.avoided.estimate == 1.0
    rows = events(tmp_path / "o", "obey")
    denials = [(e["agent"], e["others"], e["t"] - T0) for e in rows if e["kind"] == "deny"]
    assert denials == [("pr-4", ["pr-3"], DAY), ("pr-2", ["pr-1"], 2 * DAY)]
    merges = {e["agent"]: e["conflicts"] for e in rows if e["kind"] == "merge"}
    assert merges == {"pr-1": [], "pr-2": [], "pr-3": [], "pr-4": []}
    delays = sorted(d for o in report.runs["obey"].outcomes() for d in o.delays_s)
    assert delays == [3.0 * DAY, 3.0 * DAY]  # #4: 1 day -> #3 at 4; #2: 2 days -> #1 at 5


@pytest.mark.parametrize("mode", ["session", "hook"])
def test_a_denied_agent_asks_again_when_the_idle_holder_parks(tmp_path: Path, mode: str) -> None:
    """replay_scenario.PARKED: the denial says when #1, idle since its edit at 100 s, counts as
    parked (168 h later); #2 asks again then, is allowed (the parked branch yields), and meets
    #1's line at its merge: the parked rule's trade. The hook process reads the time from the
    text it prints, the same."""
    repo = build_scenario(tmp_path / "source", PARKED)
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20, mode=mode)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    avoided = obey.avoided.estimate if obey.avoided else None
    figures = (base.conflicts, obey.conflicts, obey.denials, obey.unnecessary_denials, avoided)
    assert figures == (1, 1, 1, 0, 0.0)
    rows = events(tmp_path / "o", "obey")
    assert [(e["agent"], e["t"] - T0) for e in rows if e["kind"] == "deny"] == [("pr-2", 2 * DAY)]
    parks = 100 + 168 * 3600
    [defer] = [e for e in rows if e["kind"] == "defer"]
    asked = datetime.fromtimestamp(T0 + parks, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert defer["askAgainAt"] == asked
    assert [(e["agent"], e["t"] - T0) for e in rows if e["kind"] == "reask"] == [("pr-2", parks)]
    assert (obey.reasks, obey.reasks_allowed, base.reasks) == (1, 1, 0)
    assert (
        "Asked again at the time a denial gave (its idle holder parking): obey 1 (1 allowed)."
        in (format_report(report))
    )
    # the re-ask: #2 holds course over parked #1
    [told] = [e for e in rows if e["kind"] == "advisory"]
    assert (told["agent"], told["others"], told["t"] - T0) == ("pr-2", ["pr-1"], parks)
    assert "you hold course (pr-1 is parked" in told["told"]
    merges = {e["agent"]: e["conflicts"] for e in rows if e["kind"] == "merge"}
    assert merges == {"pr-1": [], "pr-2": ["a.py"]}
    delays = sorted(d for o in report.runs["obey"].outcomes() for d in o.delays_s)
    assert delays == [float(parks - 2 * DAY)]  # denied at 2 days, asked again as #1 parked


@pytest.mark.parametrize("mode", ["session", "hook"])
def test_a_repository_that_never_parks_keeps_the_steerer_waiting_for_the_merge(
    tmp_path: Path, mode: str
) -> None:
    """replay_scenario.PARKED with ``parked_hours = 0`` in every agent's ``.radar.toml`` (what
    ``--parked-hours 0`` sets): #1 never parks, so #2's denial gives no time to ask again; #2
    waits for #1's merge and brings it in: the conflict is avoided, at the cost of #2's wait."""
    repo = build_scenario(tmp_path / "source", PARKED)
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20, mode=mode,
                           parked_after_hours=0)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, obey.conflicts, obey.denials, obey.unnecessary_denials) == (1, 0, 1, 0)
    rows = events(tmp_path / "o", "obey")
    [defer] = [e for e in rows if e["kind"] == "defer"]
    assert defer.get("askAgainAt") is None
    assert [e for e in rows if e["kind"] == "reask"] == []
    merges = {e["agent"]: e["conflicts"] for e in rows if e["kind"] == "merge"}
    assert merges == {"pr-1": [], "pr-2": []}
    delays = sorted(d for o in report.runs["obey"].outcomes() for d in o.delays_s)
    assert delays == [float(10 * DAY - 2 * DAY)]  # denied at 2 days, #1 merged at 10


def test_a_published_pull_request_keeps_the_steerer_waiting_for_its_merge(tmp_path: Path) -> None:
    """replay_scenario.PARKED at the default parked time, with each pull request's branch
    published as it is made (``branches="published"``, what ``replay_history`` does in session
    mode): #1, idle in review, never parks; #2 is told why, waits for #1's merge and brings it
    in, and the conflict is avoided (docs/DECISIONS.md, "Published work waits on review")."""
    repo = build_scenario(tmp_path / "source", PARKED)
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20, branches="published")  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, obey.conflicts, obey.denials, obey.unnecessary_denials) == (1, 0, 1, 0)
    rows = events(tmp_path / "o", "obey")
    [deny] = [e for e in rows if e["kind"] == "deny"]
    assert "pr-1's work is published" in deny["told"]
    [defer] = [e for e in rows if e["kind"] == "defer"]
    assert defer.get("askAgainAt") is None
    merges = {e["agent"]: e["conflicts"] for e in rows if e["kind"] == "merge"}
    assert merges == {"pr-1": [], "pr-2": []}
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["branches"] == "published"
    with pytest.raises(ValueError, match=r"^branches: 'published' needs mode 'session'"):
        replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "h",
                      work=tmp_path, resamples=20, mode="hook", branches="published")  # fmt: skip


@pytest.mark.parametrize(("bases", "conflicts", "denials"), [("as-read", 1, 0), ("mapped", 0, 1)])
def test_lines_on_different_bases_meet_only_once_renumbered_onto_one_base(
    tmp_path: Path, bases: str, conflicts: int, denials: int
) -> None:
    """replay_scenario.build_bases: as read, #1's line 20 (on the base commit) and #3's line 30
    (after a push added 10 lines) look apart; mapped onto #3's base they are one line."""
    repo = build_bases(tmp_path / "source")
    history = read_window(repo, max_prs=5)
    assert [p.number for p in history.prs] == [1, 3]
    report = replay_window(history, policies=["obey"], out=tmp_path / "o", work=tmp_path,
                           resamples=20, bases=bases)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, base.merges) == (1, 2)
    assert (obey.conflicts, obey.denials) == (conflicts, denials)
    start3 = next(e for e in events(tmp_path / "o", "obey") if e["kind"] == "start"
                  and e["agent"] == "pr-3")  # fmt: skip
    assert start3["base"] != history.start  # #3 really forks from the pushed commit
    if denials:
        delays = [d for o in report.runs["obey"].outcomes() for d in o.delays_s]
        assert delays == [4000.0]  # denied at 1000, #1 merged at 5000


def _one_file_source(tmp_path: Path) -> tuple[Path, str]:
    """A source repository whose main holds a.py, and its one commit."""
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "a.py").write_text(numbered())
    git(source, "add", "-A")
    git(source, "commit", "-qm", "base", at=0)
    return source, git(source, "rev-parse", "HEAD")


def test_a_resynchronisation_keeps_the_mainlines_other_changes_in_a_conflicted_file(
    tmp_path: Path,
) -> None:
    """The agent's side wins only the conflicting hunk: #1's line 25 survives #2's resync."""
    source, base = _one_file_source(tmp_path)
    repo = ReplayRepo.create(tmp_path / "replay", source=source, start=base)

    def edit(agent: str, changes: dict[int, str]) -> Path:
        path = repo.worktree(agent) / "a.py"
        lines = path.read_text().splitlines()
        for line, text in changes.items():
            lines[line - 1] = text
        path.write_text("\n".join(lines) + "\n")
        return path

    repo.add_agent("pr-1")
    repo.add_agent("pr-2", base)
    edit("pr-1", {5: "pr1", 25: "pr1 too"})
    assert repo.merge_agent("pr-1", 1000, historical=base).conflicts == ()
    mine = edit("pr-2", {5: "pr2", 15: "pr2 too"})
    assert repo.resync("pr-2", 1500) == ("a.py",)
    lines = mine.read_text().splitlines()
    assert (lines[4], lines[14], lines[24]) == ("pr2", "pr2 too", "pr1 too")
    assert git(source, "rev-parse", "HEAD") == base  # the source is only read


def test_an_edit_of_lines_the_mainline_changed_brings_the_mainline_in_first(
    tmp_path: Path,
) -> None:
    """replay_scenario.DRIFT: #1 has merged when #2 (forked before) edits the next line."""
    repo = build_scenario(tmp_path / "source", DRIFT)
    report = replay_window(read_window(repo, max_prs=10), policies=POLICIES, out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    base, obey, ack = (report.figures[p] for p in POLICIES)
    assert (base.conflicts, base.merges, base.drift_denials) == (1, 4, 0)
    assert (obey.conflicts, obey.denials, obey.delayed_hunks) == (0, 0, 0)
    assert (obey.drift_denials, obey.unnecessary_drift_denials) == (1, 0)
    # #2's own edit of the file it had: no text the replay made
    assert (obey.absent_drift_denials, obey.transplant_drift_denials) == (0, 0)
    assert (obey.own_drift_denials, obey.unnecessary_own_drift_denials) == (1, 0)
    assert obey.avoided is not None
    assert obey.avoided.estimate == 1.0
    assert (ack.conflicts, ack.drift_denials) == (1, 1)
    rows = events(tmp_path / "o", "obey")
    denial = next(e for e in rows if e["kind"] == "deny")
    assert (denial["agent"], denial["others"], denial["drift"]) == ("pr-2", [], True)
    assert "work already on main" in denial["told"]
    assert "main changed a.py line 5" in denial["told"]
    resync = [e for e in rows if e["kind"] == "resync"]
    assert [(e["agent"], e["t"] - T0) for e in resync] == [("pr-2", 1300)]
    merges = {e["agent"]: e["conflicts"] for e in rows if e["kind"] == "merge"}
    assert merges == {"pr-1": [], "pr-2": [], "pr-3": [], "pr-4": []}
    acks = [e for e in events(tmp_path / "o", "acknowledge") if e["kind"] == "ack"]
    assert [(e["agent"], e["others"]) for e in acks] == [("pr-2", ["main"])]


def test_a_resync_that_meets_the_agent_s_own_work_is_counted_as_its_real_work(
    tmp_path: Path,
) -> None:
    """replay_scenario.RESYNC: #1, holding, changed line 20 after #2 had; #2's resync after #1's
    merge conflicts there (a merge), besides re-applying its deferred line 5."""
    repo = build_scenario(tmp_path / "source", RESYNC)
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, base.merges, obey.conflicts, obey.denials) == (1, 3, 0, 1)
    assert (obey.resync_conflicts, obey.resync_merge_conflicts) == (1, 1)
    assert obey.avoided is not None
    assert obey.avoided.estimate == 1.0
    for figure in (obey.avoided_with_resync, obey.avoided_with_resync_merges):
        assert figure is not None
        assert figure.estimate == 0.0
    rows = events(tmp_path / "o", "obey")
    assert [e["conflicts"] for e in rows if e["kind"] == "resync"] == [["a.py"]]
    assert [e["agent"] for e in rows if e["kind"] == "apply_conflict"] == ["pr-2"]


def test_the_hook_process_path_brings_the_mainline_in_the_same_way(tmp_path: Path) -> None:
    repo = build_scenario(tmp_path / "source", DRIFT)
    history = read_window(repo, max_prs=10)
    for mode in ("session", "hook"):
        replay_window(history, policies=["obey"], out=tmp_path / mode, work=tmp_path,
                      resamples=20, mode=mode)  # fmt: skip
    kinds = {"deny", "resync", "merge", "apply_conflict"}

    def seen(mode: str) -> list[tuple[str, ...]]:
        rows = events(tmp_path / mode, "obey")
        return [(e["kind"], e.get("agent", ""), str(e.get("drift", ""))) for e in rows
                if e["kind"] in kinds]  # fmt: skip

    assert seen("hook") == seen("session")
    assert ("deny", "pr-2", "True") in seen("hook")


def test_obey_with_a_cap_acknowledges_after_the_wait_and_keeps_the_conflicts(
    tmp_path: Path,
) -> None:
    """replay_scenario.SCENARIO with a 300-s cap: #2 (denied at 200, #1 merges at 1000) gives up
    at 500 and #6 (denied at 2300, #3 merges at 5000) at 2600, so each waits 300 s and conflicts
    as in the baseline (#5, whose identical edit git merges cleanly, is not denied)."""
    repo = build_scenario(tmp_path / "source")
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20, max_wait_s=300)  # fmt: skip
    obey = report.figures["obey"]
    assert (obey.conflicts, obey.denials, obey.delayed_hunks) == (2, 2, 2)
    delays = sorted(d for o in report.runs["obey"].outcomes() for d in o.delays_s)
    assert delays == [300.0, 300.0]
    rows = events(tmp_path / "o", "obey")
    gave_up = [(e["agent"], e["others"], e["t"] - T0) for e in rows if e["kind"] == "giveup"]
    assert gave_up == [("pr-2", ["pr-1"], 500), ("pr-6", ["pr-3"], 2600)]
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["maxWaitS"] == 300


def test_build_breaks_after_clean_merges_are_counted_per_policy(tmp_path: Path) -> None:
    """replay_scenario.build_break_history: #2's call of a.helper merges cleanly after #1
    renamed it; the static check of #2's merge finds the break, in every policy."""
    repo = build_break_history(tmp_path / "source")
    report = replay_window(read_window(repo, max_prs=5), policies=POLICIES, out=tmp_path / "o",
                           work=tmp_path, resamples=20, build_breaks=True)  # fmt: skip
    for name in POLICIES:
        f = report.figures[name]
        assert (f.conflicts, f.build_checked, f.build_breaks) == (0, 2, 1), name
        assert f.build_breaks_per_100 is not None
        assert f.build_breaks_per_100.estimate == 50.0
    assert report.figures["obey"].build_breaks_avoided is not None
    assert report.figures["obey"].build_breaks_avoided.estimate == 0.0
    merges = {e["agent"]: e.get("build") for e in events(tmp_path / "o", "obey")
              if e["kind"] == "merge"}  # fmt: skip
    assert merges["pr-1"]["problems"] == []
    assert any("helper" in p["message"] for p in merges["pr-2"]["problems"])
    without = replay_window(read_window(repo, max_prs=5), policies=["obey"],
                            out=tmp_path / "plain", work=tmp_path, resamples=20)  # fmt: skip
    assert without.figures["obey"].build_checked == 0


def test_a_commit_that_modifies_a_file_the_replayed_branch_lacks_is_written_whole_and_marked(
    tmp_path: Path,
) -> None:
    """A stacked branch: history's commit modifies e.py, which the branch below it added; the
    replayed worktree forked from the mainline has no e.py, so the change is a whole-file write
    of a file the branch lacks (``absent``, the replay's artefact), while the addition is not."""
    from proximity.engine.replay.schedule import Change, FileChange

    source, base = _one_file_source(tmp_path)
    git(source, "checkout", "-q", "-b", "topic")
    (source / "e.py").write_text(numbered(5))
    git(source, "add", "e.py")
    git(source, "commit", "-qm", "add e.py", at=10)
    added = git(source, "rev-parse", "HEAD")
    (source / "e.py").write_text(numbered(6))
    git(source, "commit", "-qam", "extend e.py", at=20)
    extended = git(source, "rev-parse", "HEAD")
    repo = ReplayRepo.create(tmp_path / "replay", source=source, start=base)
    repo.add_agent("pr-2", base)

    def change(commit: str, parent: str, status: str) -> Change:
        old = git(source, "rev-parse", f"{parent}:e.py") if status == "M" else "0" * 40
        new = git(source, "rev-parse", f"{commit}:e.py")
        mode = "100644" if status == "M" else "000000"
        return Change(
            2, 0, commit, parent, FileChange("e.py", status, old, new, mode, "100644", 1), 0
        )

    modified = repo.plan_change("pr-2", change(extended, added, "M"))
    assert (modified.kind, modified.absent) == ("write", True)
    assert modified.content == numbered(6).encode()
    addition = repo.plan_change("pr-2", change(added, base, "A"))
    assert (addition.kind, addition.absent) == ("write", False)


def _set_line(repo: Path, path: str, line: int, text: str) -> None:
    lines = (repo / path).read_text().splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    (repo / path).write_text("".join(lines))


def _after_the_first_merge(tmp_path: Path, first: tuple[str, int]) -> Path:
    """#1 sets line 5 of a.py and merges; #2 first changed ``first`` (path, line) from the same
    base. Left checked out on #2's branch."""
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    for name in ("a.py", "b.py"):
        (source / name).write_text(numbered())
    git(source, "add", "-A")
    git(source, "commit", "-qm", "base", at=0)
    base = git(source, "rev-parse", "HEAD")
    git(source, "checkout", "-q", "-b", "topic1", base)
    _set_line(source, "a.py", 5, "pr1")
    git(source, "commit", "-qam", "pr1: a.py", at=100)
    git(source, "checkout", "-q", "-b", "topic2", base)
    _set_line(source, first[0], first[1], "pr2")
    git(source, "commit", "-qam", f"pr2: {first[0]}", at=200)
    git(source, "checkout", "-q", "main")
    git(source, "merge", "-q", "--no-ff", "-m", "Merge pull request #1 from someone/topic1",
        "topic1", at=1000)  # fmt: skip
    git(source, "checkout", "-q", "topic2")
    return source


def _branch_merges_the_mainline(tmp_path: Path) -> Path:
    """#2 merges the mainline (with #1's line 5) into its branch and then rewrites line 5."""
    source = _after_the_first_merge(tmp_path, ("b.py", 10))
    git(source, "merge", "-q", "--no-ff", "-m", "Merge branch 'main' into topic2", "main",
        at=1100)  # fmt: skip
    _set_line(source, "a.py", 5, "pr2")
    git(source, "commit", "-qam", "pr2: a.py over #1", at=1300)
    git(source, "checkout", "-q", "main")
    git(source, "merge", "-q", "--no-ff", "-m", "Merge pull request #2 from someone/topic2",
        "topic2", at=2000)  # fmt: skip
    return source


def test_a_denial_of_a_diff_the_replay_merged_in_with_a_conflict_is_counted_apart(
    tmp_path: Path,
) -> None:
    """With the branch's merge of the mainline skipped, the replayed worktree never has #1's
    line, so the commit's diff (pr1 -> pr2) does not apply to the file it has: the replay merges
    it in with a conflict, resolved as the commit's side. The mainline denial of that text is
    the replay's, counted apart from the agents' own edits and flagged on the event."""
    source = _branch_merges_the_mainline(tmp_path)
    report = replay_window(read_window(source, max_prs=10), policies=["ignore", "obey"],
                           out=tmp_path / "o", work=tmp_path, resamples=20,
                           pulls=False)  # fmt: skip
    obey = report.figures["obey"]
    assert (obey.drift_denials, obey.transplant_drift_denials, obey.absent_drift_denials) == (
        1, 1, 0,
    )  # fmt: skip
    assert (obey.own_drift_denials, obey.unnecessary_own_drift_denials) == (0, 0)
    rows = events(tmp_path / "o", "obey")
    assert not [e for e in rows if e["kind"] == "pull"]
    transplanted = [e for e in rows if e["kind"] == "apply_conflict"]
    assert [(e["agent"], e["path"]) for e in transplanted][:1] == [("pr-2", "a.py")]
    [denial] = [e for e in rows if e["kind"] == "deny"]
    assert (denial["agent"], denial["path"], denial["drift"]) == ("pr-2", "a.py", True)
    assert denial["transplantConflict"] is True
    assert "absent" not in denial
    assert "of a conflicted transplant" in format_report(report)
    assert "merges of the mainline skipped" in format_report(report)
    # the baseline's merge of #2 conflicts on that text: the replay's own conflict, set apart
    ignore = report.figures["ignore"]
    assert (ignore.conflicts, ignore.replay_made_conflicts) == (1, 1)
    assert obey.avoided is not None
    assert obey.avoided_own is not None
    assert (obey.avoided.estimate, math.isnan(obey.avoided_own.estimate)) == (1.0, True)


def test_a_branch_that_merged_the_mainline_brings_the_replayed_mainline_in_at_that_moment(
    tmp_path: Path,
) -> None:
    """The same history replayed as it happened: #2 brings the mainline in at its merge's time
    (after #1's merge), so its rewrite of line 5 is an edit of the file it has: no transplant,
    no denial, and both merges clean under every policy, as in history."""
    source = _branch_merges_the_mainline(tmp_path)
    history = read_window(source, max_prs=10)
    [pull] = next(p for p in history.prs if p.number == 2).pulls
    assert (pull.after, pull.committer_at) == (1, T0 + 1100)
    report = replay_window(history, policies=["ignore", "obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    for policy in ("ignore", "obey"):
        rows = events(tmp_path / "o", policy)
        [pulled] = [e for e in rows if e["kind"] == "pull"]
        assert (pulled["agent"], pulled["t"], pulled["conflicts"]) == ("pr-2", T0 + 1100, [])
        merge_1 = next(e for e in rows if e["kind"] == "merge" and e["agent"] == "pr-1")
        assert merge_1["seq"] < pulled["seq"]
        assert not [e for e in rows if e["kind"] in {"apply_conflict", "deny"}]
        f = report.figures[policy]
        assert (f.conflicts, f.pull_conflicts, f.drift_denials) == (0, 0, 0)
        assert f.replay_made_conflicts == 0
    assert report.runs["ignore"].steps_matching_history == 2


def test_a_pull_that_conflicts_is_the_branch_s_collision_under_every_policy(
    tmp_path: Path,
) -> None:
    """#2 changed line 5 before #1's merge and resolved the conflict when it merged the
    mainline in: the replay meets that conflict at #2's pull, not at its merge, resolves it as
    history did, and counts it as #2's conflict (the baseline's, so obey is compared on the
    same collision)."""
    source = _after_the_first_merge(tmp_path, ("a.py", 5))
    # the conflict on line 5 resolved by hand: both sides' words
    git(source, "merge", "-q", "-s", "ours", "--no-commit", "main", at=1100)
    _set_line(source, "a.py", 5, "pr1 and pr2")
    git(source, "commit", "-qam", "Merge branch 'main' into topic2", at=1100)
    git(source, "checkout", "-q", "main")
    git(source, "merge", "-q", "--no-ff", "-m", "Merge pull request #2 from someone/topic2",
        "topic2", at=2000)  # fmt: skip
    report = replay_window(read_window(source, max_prs=10), policies=["ignore", "obey"],
                           out=tmp_path / "o", work=tmp_path, resamples=20)  # fmt: skip
    rows = events(tmp_path / "o", "ignore")
    [pulled] = [e for e in rows if e["kind"] == "pull"]
    assert (pulled["agent"], pulled["conflicts"]) == ("pr-2", ["a.py"])
    merge_2 = next(e for e in rows if e["kind"] == "merge" and e["agent"] == "pr-2")
    assert merge_2["conflicts"] == []
    f = report.figures["ignore"]
    assert (f.conflicts, f.merge_conflicts, f.pull_conflicts) == (1, 0, 1)
    # the conflicted path took history's resolution, so the replayed mainline is history's
    assert report.runs["ignore"].steps_matching_history == 2
    # obey: #2 is denied on #1's line and waits for its merge; the denial is necessary, for
    # the baseline met the collision at #2's pull (the final states no longer show it)
    obey = report.figures["obey"]
    assert (obey.conflicts, obey.denials, obey.unnecessary_denials) == (0, 1, 0)
    skipped = replay_window(read_window(source, max_prs=10), policies=["ignore"],
                            out=tmp_path / "s", work=tmp_path, resamples=20,
                            pulls=False)  # fmt: skip
    g = skipped.figures["ignore"]
    assert (g.conflicts, g.merge_conflicts, g.pull_conflicts) == (1, 1, 0)


def test_a_branch_forked_from_a_merged_branch_s_commit_starts_from_the_merge_not_the_start(
    tmp_path: Path,
) -> None:
    """#2 forks from #1's own commit after #1 merged: its base is off the first-parent line.
    Its worktree starts from the mainline after #1's merge (the first mainline commit holding
    the base), not from the replay's start, so #1's line is there and #2's edit of it applies
    to the file it was written against."""
    source, _ = _one_file_source(tmp_path)
    git(source, "checkout", "-q", "-b", "topic1")
    _set_line(source, "a.py", 5, "pr1")
    git(source, "commit", "-qam", "pr1: a.py", at=100)
    pr1_commit = git(source, "rev-parse", "HEAD")
    git(source, "checkout", "-q", "main")
    git(source, "merge", "-q", "--no-ff", "-m", "Merge pull request #1 from someone/topic1",
        "topic1", at=1000)  # fmt: skip
    merge_1 = git(source, "rev-parse", "HEAD")
    git(source, "checkout", "-q", "-b", "topic2", pr1_commit)
    _set_line(source, "a.py", 5, "pr2")
    git(source, "commit", "-qam", "pr2: a.py over #1", at=1300)
    git(source, "checkout", "-q", "main")
    git(source, "merge", "-q", "--no-ff", "-m", "Merge pull request #2 from someone/topic2",
        "topic2", at=2000)  # fmt: skip
    history = read_window(source, max_prs=10)
    assert next(p for p in history.prs if p.number == 2).fork_point == merge_1
    report = replay_window(history, policies=["ignore"], out=tmp_path / "o", work=tmp_path,
                           resamples=20)  # fmt: skip
    rows = events(tmp_path / "o", "ignore")
    assert not [e for e in rows if e["kind"] == "apply_conflict"]
    assert report.figures["ignore"].conflicts == 0
    assert report.runs["ignore"].steps_matching_history == 2


def test_a_mainline_denial_of_a_cherry_pick_of_the_mainline_s_commit_is_counted_apart(
    tmp_path: Path,
) -> None:
    """replay_scenario.build_cherry_picks: #2's first cherry-pick of #1's commit meets the
    mainline's later line. git copied that commit (same author, author date and patch), which no
    pre-edit hook sees: the denial is counted apart from the agents' own edits and flagged on
    the event; #1's, #3's and #4's commits, their own, are not copies."""
    source = build_cherry_picks(tmp_path / "source")
    history = read_window(source, max_prs=10)
    cherry = mainline_copies(history.source, history.start, history.mainline, history.prs)
    pr2 = next(p for p in history.prs if p.number == 2)
    merges = {p.number: p.merge for p in history.prs}
    # its two copies of #1's commits, and its copy of #4's merge (``cherry-pick -m 1``)
    assert cherry == dict(
        zip([c.sha for c in pr2.commits], [frozenset({merges[n]}) for n in (1, 1, 4)], strict=True)
    )
    report = replay_window(history, policies=["ignore", "obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.conflicts, base.drift_denials) == (0, 0)
    assert (obey.drift_denials, obey.copy_drift_denials) == (1, 1)
    assert (obey.own_drift_denials, obey.unnecessary_own_drift_denials) == (0, 0)
    assert obey.unnecessary_drift_denials == 1  # #2's baseline merge is clean
    [denial] = [e for e in events(tmp_path / "o", "obey") if e["kind"] == "deny"]
    assert (denial["agent"], denial["path"], denial["drift"]) == ("pr-2", "a.py", True)
    assert denial["mainlineCopy"] is True
    assert "of git's copy of the mainline's work" in format_report(report)


def test_a_denial_naming_an_agent_only_the_policy_s_wait_kept_open_is_a_knock_on(
    tmp_path: Path,
) -> None:
    """replay_scenario.build_knock_on: #3 is denied naming #2, which history had merged before
    #3 started; under obey #2 waits on #1 past its merge time. The baseline pair merges cleanly,
    so the baseline's label would call the denial unnecessary; it is counted apart instead."""
    repo = build_knock_on(tmp_path / "source")
    assert git(repo, "merge-tree", "--write-tree", "topic2", "topic3")  # the pair is clean
    report = replay_window(read_window(repo, max_prs=10), policies=["obey"], out=tmp_path / "o",
                           work=tmp_path, resamples=20)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    rows = events(tmp_path / "o", "obey")
    denied = [(e["agent"], e["others"], e["path"], e["t"] - T0) for e in rows
              if e["kind"] == "deny"]  # fmt: skip
    assert denied == [("pr-2", ["pr-1"], "a.py", 300), ("pr-3", ["pr-2"], "b.py", 1500)]
    merged = {e["agent"]: e["t"] - T0 for e in events(tmp_path / "o", "ignore")
              if e["kind"] == "merge"}  # fmt: skip
    assert merged["pr-2"] == 1000 < 1500
    assert (base.conflicts, obey.conflicts) == (1, 0)
    assert (obey.denials, obey.knock_on_denials, obey.unnecessary_denials) == (2, 1, 0)
    assert obey.share_unnecessary.estimate == 0.0  # of the one denial the baseline can judge
    assert report.runs["obey"].pairs_clean == {"pr-1/pr-2": False}
    assert "| 2 [1] |" in format_report(report)


def test_a_pull_request_closed_without_merging_is_an_agent_that_never_merges(
    tmp_path: Path,
) -> None:
    """replay_scenario.build_closed: by default the window holds merged pull requests only; with
    ``closed`` the closed #9 joins, holds a.py line 5 against #1 until it parks, never merges,
    and every denial naming it is unnecessary. The squash-merged #7 stays a mainline push."""
    repo = build_closed(tmp_path / "source")
    assert [p.number for p in read_window(repo, max_prs=10).prs] == [1, 2]
    history = read_window(repo, max_prs=10, closed=True)
    assert [(p.number, p.closed) for p in history.prs] == [(1, False), (2, False), (9, True)]
    report = replay_window(history, policies=["obey"], out=tmp_path / "o", work=tmp_path,
                           resamples=20)  # fmt: skip
    base, obey = report.figures["ignore"], report.figures["obey"]
    assert (base.merges, base.conflicts, base.denials) == (2, 0, 0)
    assert (obey.merges, obey.conflicts, obey.denials, obey.unnecessary_denials) == (2, 0, 1, 1)
    assert (obey.knock_on_denials, obey.delayed_hunks) == (0, 1)
    rows = events(tmp_path / "o", "obey")
    assert [(e["agent"], e["others"]) for e in rows if e["kind"] == "deny"] == [("pr-1", ["pr-9"])]
    parks = 200 + 168 * 3600
    assert [(e["agent"], e["t"] - T0) for e in rows if e["kind"] == "reask"] == [("pr-1", parks)]
    done = {e["agent"]: (e["kind"], e["t"] - T0) for e in rows if e["kind"] in {"merge", "close"}}
    assert done == {"pr-1": ("merge", parks), "pr-2": ("merge", 20 * DAY),
                    "pr-9": ("close", 20 * DAY)}  # fmt: skip
    hours = {o.pr: o.agent_hours for o in report.runs["obey"].outcomes()}
    assert hours[9] == pytest.approx((20 * DAY - 200) / 3600)  # open until it closed
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (summary["prs"], summary["closedPrs"]) == ([1, 2], [9])
    assert "(2 pull requests and 1 closed without merging," in format_report(report)


@pytest.mark.parametrize("closing", ["window-end", "last-commit"])
def test_a_closed_pull_request_closes_at_the_window_s_end_or_right_after_its_last_commit(
    tmp_path: Path, closing: str
) -> None:
    """replay_scenario.build_closed_at_last_commit: the two closing times bracket the truth git
    does not keep. Closed at its last commit (5000 s), #9 releases #1 there and drops its own
    c.py change, still waiting on #3: a delayed hunk that never lands. Closed at the window's
    end (#3's merge, three days), #3's merge frees #9's c.py first and #9's close then frees #1.
    The hunks of the merged pull requests are counted apart."""
    repo = build_closed_at_last_commit(tmp_path / "source")
    history = read_window(repo, max_prs=10, closed=True)
    report = replay_window(history, policies=["obey"], out=tmp_path / "o", work=tmp_path,
                           resamples=20, closing=closing)  # fmt: skip
    rows = events(tmp_path / "o", "obey")
    denied = [(e["agent"], e["others"], e["t"] - T0) for e in rows if e["kind"] == "deny"]
    assert denied == [("pr-1", ["pr-9"], 250), ("pr-9", ["pr-3"], 1000)]
    closed_at = 5000 if closing == "last-commit" else 3 * DAY
    done = {e["agent"]: (e["kind"], e["t"] - T0) for e in rows if e["kind"] in {"merge", "close"}}
    assert done["pr-9"] == ("close", closed_at)
    dropped = [(e["agent"], e["path"], e["t"] - T0) for e in rows if e["kind"] == "drop"]
    obey = report.figures["obey"]
    delays = {o.pr: o.delays_s for o in report.runs["obey"].outcomes()}
    assert delays[1] == (closed_at - 250,)  # #1 waits until #9 closes, either way
    if closing == "last-commit":
        assert dropped == [("pr-9", "c.py", 5000)]
        assert delays[9] == (5000 - 1000,)  # dropped at the close, never applied
    else:
        assert dropped == []
        assert delays[9] == (3 * DAY - 1000,)  # #3's merge freed it before the close
    assert (obey.merges, obey.conflicts, obey.denials, obey.unnecessary_denials) == (2, 0, 2, 2)
    assert (obey.hunks, obey.delayed_hunks) == (5, 2)
    assert (obey.merged_hunks, obey.merged_delayed_hunks) == (2, 1)
    assert obey.share_delayed_merged is not None
    assert obey.share_delayed_merged.estimate == pytest.approx(0.5)
    assert report.figures["ignore"].share_delayed_merged is not None
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["closedAt"] == closing
    text = format_report(report)
    assert "Hunks delayed, of the pull requests that merged: ignore 0.00" in text
    assert re.search(r"; obey 50\.00 \([0-9.]+-[0-9.]+\) \[1/2\]\.\n", text)
    assert (obey.merged_denials, obey.merged_knock_on_denials, obey.merged_unnecessary_denials) == (
        1,
        0,
        1,
    )  # #1's wait on the closed #9; #9's own denial is not delivered work's
    assert "that merged [knock-on], unnecessary % (knock-on set apart) [n]: ignore 0 [0]" in text
    assert "Mainline denials of their own edits (unnecessary): ignore 0 (0); obey 0 (0)." in text


@pytest.mark.parametrize(("hours", "released"), [(None, 200 + 168 * 3600), (1.0, 200 + 3600),
                                                 (0.0, 20 * DAY)])  # fmt: skip
def test_the_parked_time_can_be_measured_at_another_value(
    tmp_path: Path, hours: float | None, released: int
) -> None:
    """replay_scenario.build_closed: #1 waits on the closed #9 until #9 parks, at the profile's
    168 h; at one hour it asks again an hour after #9's last change; never parked (0), it waits
    until #9 closes at the window's end."""
    history = read_window(build_closed(tmp_path / "source"), max_prs=10, closed=True)
    report = replay_window(history, policies=["obey"], out=tmp_path / "o", work=tmp_path,
                           resamples=20, parked_after_hours=hours)  # fmt: skip
    rows = events(tmp_path / "o", "obey")
    done = {e["agent"]: e["t"] - T0 for e in rows if e["kind"] in {"merge", "close"}}
    assert done["pr-1"] == max(released, 2 * DAY)  # never before its historical merge
    reasks = [e["t"] - T0 for e in rows if e["kind"] == "reask"]
    assert reasks == ([] if hours == 0.0 else [released])
    delays = {o.pr: o.delays_s for o in report.runs["obey"].outcomes()}
    assert delays[1] == (released - 250,)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["parkedAfterHours"] == hours
