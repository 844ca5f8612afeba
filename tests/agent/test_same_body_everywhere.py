"""Both sides editing one function's body, end to end (issue 30, category 2 of point 5).

Three real worktrees edit ``summarise``: alpha changes what ``total`` starts from (committed),
beta changes the line that reads ``total`` (uncommitted), gamma changes how ``lowest`` is
found, a strand neither of the others touches. The pre-edit check, the ``radar check`` command,
``manage.py radar scan`` and the server must all raise alpha and beta to Traffic through the
shared local, and leave gamma clear with both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proximity.sources.symbols import clear_index_cache
from tests.agent.test_symbols_everywhere import (
    _band,
    _cli,
    _findings,
    _local,
    _scan,
    report_working_sets,
    server_check,
)
from tests.sources.gitrepo import ScriptedRepo

STATS = '''"""Figures."""


def summarise(values):
    total = 0
    for v in values:
        total += v
    count = len(values)
    lowest = min(values)
    highest = max(values)
    spread = highest - lowest
    label = f"n={count}"
    unit = "items"
    mean = total / count if count else 0
    return mean, label, spread, unit
'''
ALPHA = ("    total = 0\n", "    total = 0.0\n")  # line 5
BETA = ("mean = total / count if", "mean = round(total / count, 2) if")  # line 14
GAMMA = ("lowest = min(values)", "lowest = min(values, default=0)")  # line 9


@pytest.fixture
def three(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/__init__.py", "")
    repo.write("app/stats.py", STATS)
    repo.commit("base")
    for name in ("alpha", "beta", "gamma"):
        repo.add_worktree(name)
    repo.write("app/stats.py", STATS.replace(*ALPHA), worktree="alpha")
    repo.commit("alpha: totals are floats", worktree="alpha")
    repo.write("app/stats.py", STATS.replace(*BETA), worktree="beta")
    repo.write("app/stats.py", STATS.replace(*GAMMA), worktree="gamma")
    return repo


def test_the_hook_the_command_and_the_scan_hear_two_edits_that_meet_through_a_local(
    three: ScriptedRepo,
) -> None:
    local = _findings(_local(three, "beta", "app/stats.py", (14, 14)))
    assert set(local) == {"alpha"}  # gamma's strand is its own
    level, (symbol, _) = local["alpha"]
    assert (level, symbol) == ("advisory", 0.4)
    scanned = _scan(three)
    assert local["alpha"] == _band(scanned[frozenset(("alpha", "beta"))])
    assert {frozenset(p) for p in scanned} == {frozenset(("alpha", "beta"))}
    [item, *_] = scanned[frozenset(("alpha", "beta"))]["symbols"]
    assert "meet through its local total" in item["text"]
    run = _cli(three, "beta", "app/stats.py", "14")
    assert run.returncode == 2, run.stdout + run.stderr  # EXIT_ADVISORY
    assert "total" in run.stdout
    assert _findings(_local(three, "gamma", "app/stats.py", (9, 9))) == {}


@pytest.mark.django_db
def test_the_server_answers_as_the_hook_does(three: ScriptedRepo, post_json: Any) -> None:
    from proximity.models import Repository
    from proximity.services.scans import scan_run

    repo = Repository.objects.create(name="stats", scope="team-a", path=str(three.root))
    callers = report_working_sets(three, "stats", post_json)
    assert scan_run(repository_id=repo.pk) is not None

    def server(who: str, line: int) -> dict[str, tuple[str, tuple[float, float]]]:
        return server_check(post_json, callers[who], "stats", who, "app/stats.py", line)

    assert server("beta", 14) == _findings(_local(three, "beta", "app/stats.py", (14, 14)))
    assert server("beta", 14)["alpha"][0] == "advisory"
    assert server("gamma", 9) == {}
