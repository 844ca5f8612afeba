"""A watched repository: worktrees become snapshots, graph and conflicts; scans see them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from proximity.models import (
    DependencyGraphSnapshot,
    ProximityAdvisory,
    Repository,
    WorkingSetSnapshot,
)
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from tests.sources.gitrepo import build_scenario, repo_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def watched(tmp_path):
    scripted = build_scenario(tmp_path)
    repo = Repository.objects.create(
        name="scene", scope="team-a", path=str(scripted.root), base_branch="main", watch=True
    )
    return scripted, repo


def test_watch_tick_stores_every_worktree_graph_and_conflicts_read_only(watched) -> None:
    scripted, repo = watched
    before = repo_state(scripted)
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert repo_state(scripted) == before
    agents = set(WorkingSetSnapshot.objects.values_list("agent__agent_id", flat=True))
    assert {"alpha", "beta", "gamma"} <= agents
    assert outcome.agents == len(agents)
    assert all(s.source == "watch" for s in WorkingSetSnapshot.objects.all())
    assert DependencyGraphSnapshot.objects.filter(repository=repo).count() == 1
    repo.refresh_from_db()
    pairs = {tuple(sorted((c["a"], c["b"]))) for c in repo.watch_conflicts}
    assert ("alpha", "beta") in pairs
    assert repo.scan_requested_at is not None


def test_a_second_tick_without_edits_stores_nothing_new(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    count = WorkingSetSnapshot.objects.count()
    repository_watch_tick(repository_id=repo.pk)
    assert WorkingSetSnapshot.objects.count() == count


def test_scan_of_watched_repository_marks_textual_conflicts_and_carries_excerpts(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    scan = scan_run(repository_id=repo.pk)
    assert scan is not None
    assert scan.status == "done"
    pair = ProximityAdvisory.objects.get(agent_a__agent_id="alpha", agent_b__agent_id="beta")
    assert pair.band == "resolution"
    assert pair.conflict is True
    shared = {f["path"]: f for f in pair.detail["sharedFiles"]}
    assert "app/core.py" in shared
    assert "+" in shared["app/core.py"]["a"]["excerpt"]
    assert "+" in shared["app/core.py"]["b"]["excerpt"]


def test_a_path_that_is_not_a_repository_is_reported_not_raised(tmp_path) -> None:
    repo = Repository.objects.create(name="x", scope="s", path=str(tmp_path), watch=True)
    outcome = repository_watch_tick(repository_id=repo.pk)
    assert outcome.agents == 0
    assert len(outcome.problems) == 1


def test_advisories_carry_a_labelled_calibrated_probability(watched) -> None:
    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    scan_run(repository_id=repo.pk)
    pair = ProximityAdvisory.objects.get(agent_a__agent_id="alpha", agent_b__agent_id="beta")
    assert 0.0 <= pair.calibrated_probability <= 1.0
    assert "locally selected" in pair.calibration_label
    assert "pypa/pip" in pair.calibration_label
    assert "fitted with scorer" not in pair.calibration_label  # the map matches SCORER_VERSION


def test_committing_never_hands_right_of_way_to_the_other_side(tmp_path) -> None:
    """alice edits line 22 first, bob later; alice commits after bob's edit. alice still holds.

    The reader dates uncommitted work by file times and committed work by commit times, so
    alice's start moved from her first edit to her commit, after bob's edit (issue 16, item 3).
    """
    import os

    from tests.sources.gitrepo import EPOCH, ScriptedRepo, numbered, run_git

    scripted = ScriptedRepo.create(tmp_path)
    scripted.write("core.py", numbered(40))
    scripted.commit("base")
    for name, stamp in (("alice", EPOCH + 10_000), ("bob", EPOCH + 20_000)):
        scripted.add_worktree(name)
        scripted.replace_lines("core.py", 22, 22, worktree=name, tag=name)
        os.utime(scripted.path(name) / "core.py", (stamp, stamp))
    repo = Repository.objects.create(
        name="row", scope="team-a", path=str(scripted.root), base_branch="main", watch=True
    )

    def holder() -> str:
        repository_watch_tick(repository_id=repo.pk)
        scan_run(repository_id=repo.pk)
        advisory = ProximityAdvisory.objects.get(state__in=["open", "acknowledged"])
        assert advisory.band == "resolution"
        return advisory.hold.agent_id

    assert holder() == "alice"
    when = f"@{EPOCH + 30_000} +0000"  # after bob's edit
    run_git(
        scripted.path("alice"),
        "commit",
        "-qam",
        "alice's fix",
        env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when},
    )
    assert holder() == "alice"


def test_the_watcher_says_which_work_is_published_and_a_push_alone_is_a_new_scan_input(
    tmp_path,
) -> None:
    """A pushed branch (committed, its head on a remote) is published and never parks
    (docs/DECISIONS.md, "Published work waits on review"); the push changes no working set, so
    the watcher stores it on the agent and the scan's inputs change with it."""
    from proximity.selectors.airspace import airspace_inputs
    from tests.sources.gitrepo import ScriptedRepo, numbered

    scripted = ScriptedRepo.create(tmp_path / "r")
    scripted.write("core.py", numbered(40))
    scripted.commit("base")
    scripted.add_worktree("alice")
    scripted.replace_lines("core.py", 22, 22, worktree="alice", tag="alice")
    scripted.commit("alice: 22", worktree="alice")
    repo = Repository.objects.create(
        name="row", scope="team-a", path=str(scripted.root), base_branch="main", watch=True
    )
    repository_watch_tick(repository_id=repo.pk)
    alice = repo.agents.get(agent_id="alice")
    assert not alice.published
    at = timezone.now()  # one time bucket for both readings
    before = airspace_inputs(repo, now=at).input_hash
    scripted.push("alice")
    versions = WorkingSetSnapshot.objects.count()
    repository_watch_tick(repository_id=repo.pk)
    alice.refresh_from_db()
    assert alice.published
    assert WorkingSetSnapshot.objects.count() == versions  # the same work, now handed in
    inputs = airspace_inputs(repo, now=at)
    assert inputs.input_hash != before
    assert [a.get("published") for a in inputs.airspace["agents"]] == [True]


def test_agents_the_watcher_finds_are_held_so_no_api_caller_reports_under_them(
    watched, partial, post_json
) -> None:
    from proximity.models import Agent
    from proximity.services.tokens import agent_bind

    _, repo = watched
    repository_watch_tick(repository_id=repo.pk)
    alpha = Agent.objects.get(repository=repo, agent_id="alpha")
    assert alpha.principal is not None
    assert alpha.principal.name == "watcher-scene"
    body = {"repository": "scene", "agentId": "alpha", "files": [{"path": "x.py"}]}
    answer = post_json("/api/working-sets", body, partial)
    assert answer.status_code == 404
    assert answer.json()["detail"] == "agent not found"
    # The operator hands the id to the agent's own token (tokens issue --agent scene:alpha).
    agent_bind(principal=partial.principal, repository="scene", agent_id="alpha")
    assert post_json("/api/working-sets", body, partial).status_code == 201
    repository_watch_tick(repository_id=repo.pk)  # the watcher still reads it
    alpha.refresh_from_db()
    assert alpha.principal == partial.principal


def test_a_file_too_large_to_parse_is_reported_as_unknown_coupling_by_the_tick(watched) -> None:
    from proximity.sources.imports.bounded import MAX_PARSE_BYTES

    scripted, repo = watched
    scripted.write("app/generated.py", "x = 1;" * (MAX_PARSE_BYTES // 5))
    outcome = repository_watch_tick(repository_id=repo.pk)
    [unknown] = [p for p in outcome.problems if "app/generated.py" in p]
    assert "coupling is unknown" in unknown
    graph = DependencyGraphSnapshot.objects.filter(repository=repo).latest("created_at")
    assert not graph.adjacency.get("app/generated.py")


def test_the_main_checkout_is_the_mainline_not_an_agent(watched) -> None:
    _scripted, repo = watched
    outcome = repository_watch_tick(repository_id=repo.pk)
    agents = set(WorkingSetSnapshot.objects.values_list("agent__agent_id", flat=True))
    assert "main" not in agents
    assert outcome.agents == len(agents) >= 3
    scan = scan_run(repository_id=repo.pk)
    assert "main" not in {p["agentId"] for p in scan.result["positions"]}


@pytest.mark.parametrize("how", ["git worktree remove", "directory deleted"])
def test_a_worktree_that_is_gone_holds_nothing_from_the_next_tick(watched, how) -> None:
    """Its lines free at the next tick, not at the TTL; an agent reporting from elsewhere stays."""
    import shutil

    from proximity.selectors.airspace import current_snapshots
    from proximity.services.working_sets import WorkingSetReport, working_set_report

    scripted, repo = watched
    remote = WorkingSetReport("scene", "remote", [{"path": "app/core.py", "lines": [[4, 4]]}], [])
    working_set_report(principal=None, report=remote)  # through the API, from another machine
    repository_watch_tick(repository_id=repo.pk)
    scan_run(repository_id=repo.pk)
    pair = ProximityAdvisory.objects.get(agent_a__agent_id="alpha", agent_b__agent_id="beta")
    assert pair.state == "open"
    if how == "git worktree remove":
        scripted.git("worktree", "remove", "--force", str(scripted.path("alpha")))
    else:
        shutil.rmtree(scripted.path("alpha"))

    repository_watch_tick(repository_id=repo.pk)

    current = {s.agent.agent_id: s for s in current_snapshots(repo, timezone.now())}
    assert "alpha" not in current
    assert {"beta", "gamma", "remote"} <= set(current)
    assert current["remote"].source == "api"
    alpha = WorkingSetSnapshot.objects.filter(agent__agent_id="alpha")
    assert alpha.exists()  # retired, not deleted: the versions stay for the trail
    scan_run(repository_id=repo.pk)
    pair.refresh_from_db()
    assert pair.state == "expired"
    assert ProximityAdvisory.objects.filter(
        agent_a__agent_id="beta", agent_b__agent_id="remote", state="open"
    ).exists()
