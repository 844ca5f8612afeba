"""One answer everywhere (issue 30 point 1, the end-to-end half of point 5).

Three real worktrees of one repository: alpha changes the signature of ``normalise`` in
app/util.py (committed), beta adds a call to ``normalise`` on its changed lines of app/views.py
(uncommitted), gamma rewords a method of app/cart.py that neither touches. The agent's own
pre-edit check (the ``radar check --lines`` command and its session), ``manage.py radar scan``
and the server (a watched repository scanned by the service, then ``POST /api/check``) must
all hear the symbol coupling of alpha and beta, and the import between their files, with the
same band and channel values on the default profile, and all must leave every pair with gamma
clear.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from proximity.agent.edits import PlannedEdit
from proximity.agent.session import AgentSession
from proximity.engine.airspace import DEFAULT_PROFILE
from proximity.engine.findings import CheckResult
from proximity.sources.symbols import clear_index_cache
from tests.agent.conftest import RADAR
from tests.sources.gitrepo import ScriptedRepo
from tests.sources.test_symbols_worktrees import CART, UTIL, VIEWS

CALL = "return normalise(request)"


@pytest.fixture
def trio(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/__init__.py", "")
    repo.write("app/util.py", UTIL)
    repo.write("app/views.py", VIEWS)
    repo.write("app/cart.py", CART)
    repo.commit("base")
    for name in ("alpha", "beta", "gamma"):
        repo.add_worktree(name)
    repo.write("app/util.py", UTIL.replace("def normalise(name)", "def normalise(name, *, lower)"),
               worktree="alpha")  # fmt: skip
    repo.commit("alpha: normalise takes lower", worktree="alpha")
    repo.write("app/views.py", VIEWS.replace('return "about"', CALL), worktree="beta")
    repo.write("app/cart.py", CART.replace('"a cart"', '"the cart"'), worktree="gamma")
    return repo


def _local(repo: ScriptedRepo, who: str, path: str, lines: tuple[int, int]) -> CheckResult:
    top = repo.path(who)
    session = AgentSession.open_home(str(top), str(top / path))
    return session.check([PlannedEdit(str(top / path), (lines,))])


def _cli(repo: ScriptedRepo, who: str, path: str, lines: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [RADAR, "check", path, "--lines", lines],
        cwd=repo.path(who),
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _scan(repo: ScriptedRepo) -> dict[frozenset[str], dict[str, Any]]:
    out = io.StringIO()
    call_command("radar", "scan", "--repo", str(repo.root), "--json", stdout=out)
    return {frozenset((a["a"], a["b"])): a for a in json.loads(out.getvalue())["advisories"]}


def _channels(channels: dict[str, float]) -> tuple[float, float]:
    # the dependency channel fades with recency: checks a few seconds apart differ in the 5th place
    return round(channels.get("symbol", 0.0), 6), round(channels.get("dependency", 0.0), 3)


def _findings(result: CheckResult) -> dict[str, tuple[str, tuple[float, float]]]:
    return {f.other: (f.level, _channels(f.channels)) for f in result.findings}


def _band(advisory: dict[str, Any]) -> tuple[str, tuple[float, float]]:
    return advisory["level"], _channels(advisory["channels"])


def report_working_sets(repo: ScriptedRepo, name: str, post_json: Any) -> dict[str, Any]:
    """Each worktree's agent reports its working set to repository ``name`` as ``radar report``
    does (scope team-a); the callers by agent."""
    from proximity.sources.git import explicit_worktrees, read_working_set
    from tests.factories import bind_agents, make_caller

    callers = {}
    for who in sorted(repo.worktrees):
        caller = make_caller(f"{who}-agent", scopes=["team-a"], kind="agent")
        callers[who] = bind_agents(caller, name, who)
        worktree = explicit_worktrees([(repo.path(who), "main")])[0]
        files = read_working_set(worktree).to_agent_json()["files"]
        body = {"repository": name, "agentId": who, "files": files}
        answer = post_json("/api/working-sets", body, callers[who])
        assert answer.status_code == 201, answer.content
    return callers


def server_check(
    post_json: Any, caller: Any, name: str, who: str, path: str, line: int
) -> dict[str, tuple[str, tuple[float, float]]]:
    """``POST /api/check`` of a one-line edit, as the pre-edit check's findings."""
    files = [{"path": path, "lines": [[line, line]], "baseHunks": [[line, 1]]}]
    body = {"repository": name, "agentId": who, "files": files}
    answer = post_json("/api/check", body, caller)
    assert answer.status_code == 200, answer.content
    return _findings(CheckResult.from_json(answer.json()))


def test_the_default_profile_has_the_symbol_channel_on_every_face() -> None:
    from proximity.agent.config import DEFAULT_PROFILE as AGENT_DEFAULT
    from proximity.agent.config import RadarConfig

    assert DEFAULT_PROFILE == AGENT_DEFAULT == RadarConfig().profile == "radar-v1-symbols"


def test_the_hook_and_the_scan_command_hear_the_same_coupling(trio: ScriptedRepo) -> None:
    local = _findings(_local(trio, "beta", "app/views.py", (8, 9)))
    scanned = _scan(trio)
    assert set(local) == {"alpha"}  # gamma is clear
    symbol, dependency = local["alpha"][1]
    assert symbol > 0
    assert dependency > 0  # views.py imports util.py: read by the hook as by the scan
    assert local["alpha"] == _band(scanned[frozenset(("alpha", "beta"))])
    assert all("gamma" not in pair for pair in scanned)
    # the real command line (a fresh process, as a harness runs it) says the same
    run = _cli(trio, "beta", "app/views.py", "8-9")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "alpha" in run.stdout
    assert "normalise" in run.stdout  # the symbol evidence is named
    control = _cli(trio, "gamma", "app/cart.py", "5")
    assert control.returncode == 0, control.stdout + control.stderr
    assert _findings(_local(trio, "gamma", "app/cart.py", (5, 5))) == {}


@pytest.mark.django_db
def test_the_server_answers_as_the_hook_does(trio: ScriptedRepo, post_json: Any) -> None:
    """Each agent reports its working set as ``radar report`` does, the watcher stores the
    import graph; the service scans (reading the symbols from the worktrees it can see) and
    ``POST /api/check`` scores with them."""
    from proximity.models import Repository
    from proximity.services.scans import scan_run
    from proximity.services.watch import repository_watch_tick

    repo = Repository.objects.create(name="web", scope="team-a", path=str(trio.root))
    assert repo.profile == DEFAULT_PROFILE
    callers = report_working_sets(trio, "web", post_json)
    # the watcher stores the repository's import graph, as a watched repository's beat does
    assert repository_watch_tick(repository_id=repo.pk).edges > 0
    assert scan_run(repository_id=repo.pk) is not None

    def server(who: str, path: str, line: int) -> dict[str, tuple[str, tuple[float, float]]]:
        return server_check(post_json, callers[who], "web", who, path, line)

    local = _findings(_local(trio, "beta", "app/views.py", (9, 9)))
    assert local["alpha"][1][0] > 0
    assert local["alpha"][1][1] > 0
    assert server("beta", "app/views.py", 9) == local
    assert server("alpha", "app/util.py", 5) == _findings(
        _local(trio, "alpha", "app/util.py", (5, 5))
    )
    assert server("gamma", "app/cart.py", 5) == {}
