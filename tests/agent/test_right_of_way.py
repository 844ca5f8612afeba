"""Right of way as every face applies it (issue 28 point 1, issue 27 point 4).

One encounter in real worktrees: alice made her branch first and committed core.py line 22;
bob made his later and changed line 23 (not committed). A Resolution
Advisory holds between them; alice holds course, bob steers. The holder's edit goes ahead with
context naming who must steer away and from which lines; the steerer's is denied. Every face
(the local hook, ``radar check``, MCP ``check_edit``, ``POST /api/check``, the scan and the
board) names the same holder, although bob's report claims a start long before alice's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from proximity.agent.config import Policy
from proximity.agent.decide import decide
from proximity.agent.mcp_server import server_for
from proximity.dashboard.kanban import card_view
from proximity.engine.findings import CheckResult
from proximity.models import Agent, ProximityAdvisory, Repository
from proximity.selectors.board import board_cards
from proximity.services.scans import scan_run
from proximity.sources.git import explicit_worktrees, read_working_set, read_working_sets
from tests.agent.conftest import Scene
from tests.agent.payloads import load
from tests.agent.test_mcp_server import _args, call
from tests.factories import bind_agents, make_caller, make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered, run_git

CLAIMED = "2001-01-01T00:00:00Z"  # far earlier than anything git shows for bob


def _at(minutes_ago: float) -> dict[str, str]:
    """git's dates for an act ``minutes_ago`` (reflog entries take the committer's date)."""
    stamp = f"@{int(time.time() - minutes_ago * 60)} +0000"
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def dated_pair(
    tmp_path: Path, state: Path, alice: tuple[int, int], bob: int, alice_ago: float = 5
) -> Scene:
    """alice's branch made 10 minutes ago (or ``alice_ago + 5``) with her lines ``alice``
    committed ``alice_ago`` minutes ago; bob's branch made 8 minutes ago with his line ``bob``
    not committed."""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("core.py", numbered(60))
    repo.commit("base")
    for name, minutes in (("alice", max(10.0, alice_ago + 5)), ("bob", 8.0)):
        target = tmp_path / name
        run_git(repo.root, "worktree", "add", "-q", "-b", name, str(target), "main",
                env=_at(minutes))  # fmt: skip
        repo.worktrees[name] = target
    first, last = alice
    repo.replace_lines("core.py", first, last, worktree="alice", tag="alice")
    where = f"{first}" if first == last else f"{first}-{last}"
    run_git(repo.path("alice"), "commit", "-qam", f"alice: core {where}", env=_at(alice_ago))
    repo.replace_lines("core.py", bob, bob, worktree="bob", tag="bob")
    return Scene(repo, repo.path("alice"), repo.path("bob"), state)


@pytest.fixture
def encounter(tmp_path: Path, _state_dir: Path) -> Scene:
    """alice's line 22 against bob's line 23. Recent, so a scan of the two working sets raises
    the Resolution the checks raise."""
    return dated_pair(tmp_path, _state_dir, (22, 22), 23)


def _hook(scene: Scene, who: str, old: str) -> dict[str, Any]:
    """A Claude Code Edit of ``old`` (one line) in ``who``'s core.py, through `radar hook`."""
    top = scene.repo.path(who)
    payload = load("claude_pre_edit", WORKTREE=str(top), FILE=str(top / "core.py"))
    payload["tool_input"].update(
        file_path=str(top / "core.py"), old_string=old, new_string=f"{who} again\n"
    )
    run = scene.hook("claude", payload)
    assert (run.returncode, run.stderr) == (0, "")
    return dict(json.loads(run.stdout)["hookSpecificOutput"])


def _mcp(scene: Scene, who: str, lines: str) -> str:
    text, error = call(server_for(_args(path=str(scene.repo.path(who)))), "check_edit",
                       path="core.py", lines=lines)  # fmt: skip
    assert not error, text
    return text


def _report(scene: Scene, who: str, caller: Any, post_json: Any, **extra: Any) -> None:
    """What `radar report` sends for ``who``'s worktree (its own reading of git), plus
    ``extra`` fields the agent adds."""
    worktree = explicit_worktrees([(scene.repo.path(who), "main")])[0]
    agent = read_working_set(worktree).to_agent_json()
    body = {"repository": "web", "agentId": who, "files": agent["files"], **extra}
    answer = post_json("/api/working-sets", body, caller)
    assert answer.status_code == 201, answer.content


def _server_check(post_json: Any, caller: Any, who: str, line: int) -> CheckResult:
    files = [{"path": "core.py", "lines": [[line, line]], "baseHunks": [[line, 1]]}]
    body = {"repository": "web", "agentId": who, "files": files}
    answer = post_json("/api/check", body, caller)
    assert answer.status_code == 200, answer.content
    return CheckResult.from_json(answer.json())


def _holder_context(text: str) -> None:
    assert "you hold course" in text
    assert "bob must steer away from core.py line 22" in text
    assert "would collide" not in text


def _steerer_denial(text: str) -> None:
    assert "would collide with another agent's work" in text
    assert "alice holds course; you steer: leave core.py line 22 to alice" in text


def test_the_holder_edits_on_and_the_steerer_is_denied_through_the_hook_and_mcp(
    encounter: Scene,
) -> None:
    mine = _hook(encounter, "alice", "alice 22\n")
    assert "permissionDecision" not in mine  # the holder's edit goes ahead
    _holder_context(mine["additionalContext"])
    theirs = _hook(encounter, "bob", "line 22\n")
    assert theirs["permissionDecision"] == "deny"
    _steerer_denial(theirs["permissionDecisionReason"])
    _holder_context(_mcp(encounter, "alice", "22"))
    _steerer_denial(_mcp(encounter, "bob", "22"))
    # Only the steerer's denial is remembered for an acknowledgement; the holder has none.
    acked = encounter.radar("ack", "alice", cwd=encounter.bob)
    assert acked.returncode == 0, acked.stderr
    assert "permissionDecision" not in _hook(encounter, "bob", "line 22\n")


@pytest.mark.django_db
def test_the_holder_edits_on_and_the_steerer_is_denied_by_the_server_and_on_the_board(
    encounter: Scene, post_json: Any, lead: Any
) -> None:
    repo = make_repository("web", scope="team-a", path=str(encounter.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(encounter, "alice", alice, post_json)
    _report(encounter, "bob", bob, post_json)
    holder = _server_check(post_json, alice, "alice", 22)
    [finding] = holder.findings
    assert (finding.level, finding.hold, finding.steer) == ("resolution", "alice", "bob")
    decision = decide(holder, Policy())
    assert decision.kind == "context"
    _holder_context(decision.text)
    steerer = decide(_server_check(post_json, bob, "bob", 22), Policy())
    assert steerer.kind == "deny"
    _steerer_denial(steerer.text)
    scan_run(repository_id=repo.pk, now=timezone.now())
    [card] = board_cards(lead.principal, repository="web")["resolution"][1]
    board = str(card_view(card).to_plotly_json())
    assert (card.hold, card.steer) == ("alice", "bob")
    assert "holds course" in board
    assert "steer" in board


def _hook_holder(scene: Scene) -> str:
    reason = _hook(scene, "bob", "line 22\n")["permissionDecisionReason"]
    return reason.split("Right of way: ")[1].split(" holds course")[0]


def _check_holder(scene: Scene) -> str:
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert run.returncode == 2, run.stderr
    return run.stdout.split("Right of way: ")[1].split(" holds course")[0]


def _mcp_holder(scene: Scene) -> str:
    return _mcp(scene, "bob", "22").split("Right of way: ")[1].split(" holds course")[0]


@pytest.mark.django_db
def test_every_face_names_the_same_holder_whatever_start_a_report_claims(
    encounter: Scene, post_json: Any, lead: Any
) -> None:
    """Issue 27 point 4: the same pair at the same moment, from the same inputs (the starts
    git records), through the local hook, `radar check`, MCP, the server's check, the scan and
    the board. bob reports first and claims a start in 2001; the server reads his branch from
    the repository instead, so the claim moves nothing."""
    repo = make_repository("web", scope="team-a", path=str(encounter.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(encounter, "bob", bob, post_json, startedAt=CLAIMED)
    _report(encounter, "alice", alice, post_json)
    stored = dict(Agent.objects.values_list("agent_id", "started_at"))
    assert stored["bob"] > stored["alice"]  # git's dates, not the claim nor the report order
    holders = {
        "hook": _hook_holder(encounter),
        "radar check": _check_holder(encounter),
        "mcp check_edit": _mcp_holder(encounter),
        "/api/check": _server_check(post_json, bob, "bob", 22).findings[0].hold,
    }
    scan_run(repository_id=repo.pk, now=timezone.now())
    advisory = ProximityAdvisory.objects.get()
    holders["scan"] = advisory.hold.agent_id if advisory.hold else None
    [card] = board_cards(lead.principal, repository="web")["resolution"][1]
    holders["board"] = card.hold
    assert holders == dict.fromkeys(holders, "alice")


@pytest.fixture
def parked(tmp_path: Path, _state_dir: Path) -> Scene:
    """alice's line 22, committed eight days ago, against bob's change of the same line now:
    overlap, which does not fade, so the scan raises it too."""
    return dated_pair(tmp_path, _state_dir, (22, 22), 22, alice_ago=8 * 24 * 60)


@pytest.mark.django_db
def test_every_face_lets_the_active_agent_hold_when_the_other_is_parked(
    parked: Scene, post_json: Any, lead: Any
) -> None:
    """alice started first but committed her line eight days ago and changed nothing since: past
    radar-v1's 168 hours she is parked and yields (docs/DECISIONS.md, "A parked branch yields").
    Every face names bob, at work now, as the holder; the encounter is still a Resolution. When
    alice edits again she is active, and her earlier start holds again."""
    scene = parked
    repo = make_repository("web", scope="team-a", path=str(scene.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(scene, "alice", alice, post_json)
    _report(scene, "bob", bob, post_json)
    told = "you hold course (alice is parked: none of its files changed, nor was an edit of it"
    mine = _hook(scene, "bob", "bob 22\n")
    assert "permissionDecision" not in mine  # bob's edit goes ahead
    assert told in mine["additionalContext"]
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert told in run.stdout, run.stdout + run.stderr
    assert told in _mcp(scene, "bob", "22")
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert (finding.level, finding.hold, finding.steer) == ("resolution", "bob", "alice")
    assert finding.parked == ("alice",)
    scan_run(repository_id=repo.pk, now=timezone.now())
    advisory = ProximityAdvisory.objects.get()
    assert (advisory.hold.agent_id if advisory.hold else None) == "bob"
    [card] = board_cards(lead.principal, repository="web")["resolution"][1]
    assert (card.hold, card.steer) == ("bob", "alice")
    # alice at work again (her planned edit is undated: the asker is never parked) holds again
    back = _hook(scene, "alice", "alice 22\n")
    assert "permissionDecision" not in back
    assert "you hold course; bob must steer away" in back["additionalContext"]


PARKED_H = 168  # radar-v1's parked time


def _committed_at(scene: Scene) -> int:
    """alice's last commit, as git dates it (what her files' ``touchedAt`` carry)."""
    return int(run_git(scene.repo.path("alice"), "log", "-1", "--format=%ct").strip())


@pytest.mark.django_db
def test_every_face_tells_the_steerer_when_the_idle_holder_yields(
    encounter: Scene, post_json: Any
) -> None:
    """Issue 28 point 3, "when to ask again": the steerer's denial gives the moment the holder,
    idle since its last commit, counts as parked and so yields (its last change plus the
    profile's 168 hours), the same through the hook, `radar check`, MCP and the server's check.
    The holder is told no such time: it holds course."""
    expected = time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime(_committed_at(encounter) + PARKED_H * 3600)
    )
    told = f"Ask again after {expected}: if alice changes nothing before then, nor waits on a"
    denied = _hook(encounter, "bob", "line 22\n")["permissionDecisionReason"]
    assert told in denied
    assert "or after the time given above if it stays idle" in denied
    run = encounter.radar("check", str(encounter.bob / "core.py"), "--lines", "22",
                          cwd=encounter.bob)  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert told in run.stdout
    assert told in _mcp(encounter, "bob", "22")
    assert "Ask again" not in _hook(encounter, "alice", "alice 22\n")["additionalContext"]
    make_repository("web", scope="team-a", path=str(encounter.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(encounter, "alice", alice, post_json)
    _report(encounter, "bob", bob, post_json)
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert finding.holder_yields_at == expected
    assert told in decide(_server_check(post_json, bob, "bob", 22), Policy()).text


def test_asking_again_at_the_time_given_finds_the_holder_parked(
    tmp_path: Path,
    _state_dir: Path,  # noqa: PT019 (its value is the Scene's state dir)
) -> None:
    """The time is the one the right of way turns at: alice committed the parked time less a
    few seconds ago, so bob's edit of her line is denied with her commit plus the parked time;
    asked again after it, through the same hook, bob holds course and alice is the parked one."""
    scene = dated_pair(tmp_path, _state_dir, (22, 22), 22, alice_ago=PARKED_H * 60 - 8 / 60)
    due = _committed_at(scene) + PARKED_H * 3600
    denied = _hook(scene, "bob", "bob 22\n")
    assert time.time() < due, "the machine took longer than the margin to ask"
    assert denied["permissionDecision"] == "deny"
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(due))
    assert f"Ask again after {when}:" in denied["permissionDecisionReason"]
    time.sleep(max(0.0, due - time.time()) + 0.2)
    again = _hook(scene, "bob", "bob 22\n")
    assert "permissionDecision" not in again
    assert "you hold course (alice is parked" in again["additionalContext"]


def _with_carol(scene: Scene) -> Scene:
    """carol's branch, made nine days ago (before alice's), at work now on core.py line 40."""
    carol = scene.repo.root.parent / "carol"
    run_git(scene.repo.root, "worktree", "add", "-q", "-b", "carol", str(carol), "main",
            env=_at(9 * 24 * 60))  # fmt: skip
    scene.repo.worktrees["carol"] = carol
    scene.repo.replace_lines("core.py", 40, 40, worktree="carol", tag="carol")
    return scene


@pytest.mark.django_db
def test_an_agent_waiting_on_a_denial_is_not_parked(
    parked: Scene, post_json: Any, lead: Any
) -> None:
    """alice's files are eight days old, but the radar has just denied her an edit: she is
    waiting on it, not idle (docs/DECISIONS.md, "Waiting on the radar is not idleness"). carol,
    whose branch is older than alice's and who is at work on core.py line 40, holds there;
    after alice's denial, bob's edit of alice's line 22 is denied (alice holds) through the
    hook, `radar check`, MCP and the server's check, and told to ask again a week after alice's
    ask, not after her last commit."""
    scene = _with_carol(parked)
    assert "permissionDecision" not in _hook(scene, "bob", "bob 22\n")  # alice parked: bob holds
    asked = time.time()
    waits = _hook(scene, "alice", "line 40\n")
    assert waits["permissionDecision"] == "deny"
    assert (
        "carol holds course; you steer: leave core.py line 40 to carol"
        in (waits["permissionDecisionReason"])
    )
    denied = _hook(scene, "bob", "bob 22\n")
    assert denied["permissionDecision"] == "deny", denied
    reason = denied["permissionDecisionReason"]
    assert "alice holds course; you steer: leave core.py line 22 to alice" in reason
    when = reason.split("Ask again after ", 1)[1][:20]
    due = time.mktime(time.strptime(when, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert asked + PARKED_H * 3600 - 1 <= due <= time.time() + PARKED_H * 3600 + 1
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "alice holds course" in run.stdout
    assert "alice holds course" in _mcp(scene, "bob", "22")


@pytest.mark.django_db
def test_the_server_reads_a_wait_from_its_own_check_and_from_reports(
    parked: Scene, post_json: Any, lead: Any
) -> None:
    """The server's check that tells alice to steer records her ask (``Agent.asked_at``): bob's
    next server check, the scan and the board name alice the holder. A report carries the
    local hook's denials (``askedAt``), never later than the report itself; a bad one is a
    422 naming the field and changes nothing."""
    scene = _with_carol(parked)
    repo = make_repository("web", scope="team-a", path=str(scene.repo.root))
    callers = {
        who: bind_agents(make_caller(f"{who}-agent", scopes=["team-a"], kind="agent"), "web", who)
        for who in ("alice", "bob", "carol")
    }
    for who, caller in callers.items():
        _report(scene, who, caller, post_json)
    [before] = _server_check(post_json, callers["bob"], "bob", 22).findings
    assert (before.hold, before.parked) == ("bob", ("alice",))
    [told] = _server_check(post_json, callers["alice"], "alice", 40).findings
    assert (told.hold, told.steer) == ("carol", "alice")
    asked = Agent.objects.get(agent_id="alice").asked_at
    assert asked is not None
    assert abs(time.time() - asked.timestamp()) < 60
    [after] = _server_check(post_json, callers["bob"], "bob", 22).findings
    assert (after.hold, after.steer, after.parked) == ("alice", "bob", ())
    due = time.mktime(time.strptime(after.holder_yields_at or "", "%Y-%m-%dT%H:%M:%SZ"))
    assert abs(due - time.timezone - (asked.timestamp() + PARKED_H * 3600)) <= 1
    scan_run(repository_id=repo.pk, now=timezone.now())
    holds = {a.steer.agent_id: a.hold.agent_id for a in ProximityAdvisory.objects.all()
             if a.hold and a.steer}  # fmt: skip
    assert holds.get("bob") == "alice"
    cards = board_cards(lead.principal, repository="web")["resolution"][1]
    assert ("alice", "bob") in {(c.hold, c.steer) for c in cards}
    # a report: the later of the stored and the sent; a future or bad time is a 422 naming
    # the field and changes nothing
    _report(scene, "alice", callers["alice"], post_json, askedAt="2026-01-01T00:00:00Z")
    assert Agent.objects.get(agent_id="alice").asked_at == asked
    for wrong in ("2999-01-01T00:00:00Z", "yesterday"):
        body = {"repository": "web", "agentId": "alice", "files": [], "askedAt": wrong}
        answer = post_json("/api/working-sets", body, callers["alice"])
        assert (answer.status_code, answer.json()["field"]) == (422, "askedAt"), wrong
    assert Agent.objects.get(agent_id="alice").asked_at == asked
    later = timezone.now()
    _report(scene, "alice", callers["alice"], post_json, askedAt=later.isoformat())
    assert Agent.objects.get(agent_id="alice").asked_at == later


def _parked_hours(scene: Scene, hours: float) -> None:
    """The repository's ``[radar] parked_hours``, in both worktrees (radar's own file is
    nobody's work, so writing it changes no working set)."""
    for who in ("alice", "bob"):
        (scene.repo.path(who) / ".radar.toml").write_text(f"[radar]\nparked_hours = {hours}\n")


@pytest.mark.django_db
def test_a_repository_that_never_parks_keeps_the_earlier_start_on_every_face(
    parked: Scene, post_json: Any, lead: Any
) -> None:
    """The case above (alice idle eight days) in a repository that sets ``parked_hours = 0``
    and registers with the same time (docs/DECISIONS.md, "A repository's parked time"): alice
    is never parked, so her earlier start holds through the hook, `radar check`, MCP, the
    server's check, the scan and the board, and bob is told no time to ask again."""
    scene = parked
    _parked_hours(scene, 0)
    repo = make_repository("web", scope="team-a", path=str(scene.repo.root), parked_hours=0)
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report(scene, "alice", alice, post_json)
    _report(scene, "bob", bob, post_json)
    denied = _hook(scene, "bob", "bob 22\n")
    assert denied["permissionDecision"] == "deny"
    _steerer_denial(denied["permissionDecisionReason"])
    assert "Ask again after" not in denied["permissionDecisionReason"]
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert run.returncode == 2, run.stdout + run.stderr
    _steerer_denial(run.stdout)
    _steerer_denial(_mcp(scene, "bob", "22"))
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert (finding.hold, finding.steer, finding.parked) == ("alice", "bob", ())
    assert finding.holder_yields_at is None
    scan_run(repository_id=repo.pk, now=timezone.now())
    advisory = ProximityAdvisory.objects.get()
    assert (advisory.hold.agent_id if advisory.hold else None) == "alice"
    [card] = board_cards(lead.principal, repository="web")["resolution"][1]
    assert (card.hold, card.steer) == ("alice", "bob")
    # the profile's time again (the setting removed): the next scan parks alice, bob holds
    Repository.objects.filter(pk=repo.pk).update(parked_hours=None)
    scan_run(repository_id=repo.pk, now=timezone.now())
    [now_open] = ProximityAdvisory.objects.filter(state="open")
    assert (now_open.hold.agent_id if now_open.hold else None) == "bob"
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert (finding.hold, finding.parked) == ("bob", ("alice",))


def test_a_shorter_parked_time_lets_active_work_hold_sooner(
    tmp_path: Path,
    _state_dir: Path,  # noqa: PT019 (its value is the Scene's state dir)
) -> None:
    """alice idle two days: under the profile's 168 hours she holds; in a repository that sets
    24 hours she is parked and bob holds, told why."""
    scene = dated_pair(tmp_path, _state_dir, (22, 22), 22, alice_ago=2 * 24 * 60)
    assert _hook(scene, "bob", "bob 22\n")["permissionDecision"] == "deny"
    _parked_hours(scene, 24)
    mine = _hook(scene, "bob", "bob 22\n")
    assert "permissionDecision" not in mine
    assert "you hold course (alice is parked" in mine["additionalContext"]


def _report_as_radar(scene: Scene, who: str, caller: Any, post_json: Any) -> None:
    """What `radar report` sends: its reading of every worktree (which says ``published``)."""
    [ws] = [w for w in read_working_sets(scene.repo.root) if w.agent_id == who]
    agent = ws.to_agent_json()
    body = {"repository": "web", "agentId": who, "files": agent["files"]}
    if agent.get("published"):
        body["published"] = True
    answer = post_json("/api/working-sets", body, caller)
    assert answer.status_code == 201, answer.content


@pytest.mark.django_db
def test_published_work_keeps_its_lines_on_every_face_however_long_it_is_idle(
    parked: Scene, post_json: Any, lead: Any
) -> None:
    """alice's line, committed eight days ago, is pushed as it is: work handed in for review,
    whose merge is coming (docs/DECISIONS.md, "Published work waits on review"). At the
    default parked time it never parks: her earlier start holds on every face, and bob is told
    why and given no time to ask again. When the remote drops her branch it is idle local work
    again, and parks."""
    scene = parked
    scene.repo.push("alice")
    repo = make_repository("web", scope="team-a", path=str(scene.repo.root))
    alice = bind_agents(make_caller("alice-agent", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob-agent", scopes=["team-a"], kind="agent"), "web", "bob")
    _report_as_radar(scene, "alice", alice, post_json)
    _report_as_radar(scene, "bob", bob, post_json)
    assert Agent.objects.get(agent_id="alice").published
    told = "alice's work is published (committed, its branch on a remote), waiting on review"
    denied = _hook(scene, "bob", "bob 22\n")
    assert denied["permissionDecision"] == "deny"
    _steerer_denial(denied["permissionDecisionReason"])
    assert told in denied["permissionDecisionReason"]
    assert "Ask again after" not in denied["permissionDecisionReason"]
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert run.returncode == 2, run.stdout + run.stderr
    assert told in run.stdout
    assert told in _mcp(scene, "bob", "22")
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert (finding.hold, finding.steer, finding.parked) == ("alice", "bob", ())
    assert (finding.holder_published, finding.holder_yields_at) == (True, None)
    scan_run(repository_id=repo.pk, now=timezone.now())
    advisory = ProximityAdvisory.objects.get()
    assert (advisory.hold.agent_id if advisory.hold else None) == "alice"
    [card] = board_cards(lead.principal, repository="web")["resolution"][1]
    assert (card.hold, card.steer) == ("alice", "bob")
    # the remote deleted her branch (`git fetch --prune`): idle local work, parked; bob holds
    run_git(scene.repo.root, "update-ref", "-d", "refs/remotes/origin/alice")
    mine = _hook(scene, "bob", "bob 22\n")
    assert "permissionDecision" not in mine
    assert "you hold course (alice is parked" in mine["additionalContext"]
    _report_as_radar(scene, "alice", alice, post_json)
    assert not Agent.objects.get(agent_id="alice").published
    scan_run(repository_id=repo.pk, now=timezone.now())  # a live advisory's holder turns here
    [now_open] = ProximityAdvisory.objects.filter(state="open")
    assert (now_open.hold.agent_id if now_open.hold else None) == "bob"
    [finding] = _server_check(post_json, bob, "bob", 22).findings
    assert (finding.hold, finding.parked, finding.holder_published) == ("bob", ("alice",), False)
