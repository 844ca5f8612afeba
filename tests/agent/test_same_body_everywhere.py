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


def _worktrees(
    tmp_path: Path, path: str, text: str, edits: dict[str, tuple[str, str]], committed: str
) -> ScriptedRepo:
    """One base file and a worktree per edit; ``committed``'s edit is committed, the rest not."""
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/__init__.py", "")
    repo.write(path, text)
    repo.commit("base")
    for name, edit in edits.items():
        repo.add_worktree(name)
        repo.write(path, text.replace(*edit), worktree=name)
    repo.commit(f"{committed}'s edit", worktree=committed)
    return repo


@pytest.fixture
def three(tmp_path: Path) -> ScriptedRepo:
    edits = {"alpha": ALPHA, "beta": BETA, "gamma": GAMMA}
    return _worktrees(tmp_path, "app/stats.py", STATS, edits, committed="alpha")


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


NET = '''"""Connections."""


def connect(url):
    client = open_client(url)
    client.timeout = 5
    log(url)
    client.retries = 3
    log(url)
    return client
'''
# one unchanged line between any two edits, so git's merge (and the radar's abutting rule)
# sees no textual collision: only the data can couple them
DELTA = ("client.timeout = 5", "client.timeout = 10")  # line 6, committed
EPSILON = ("client.retries = 3", "client.retries = 5")  # line 8: another field
ZETA = ("    return client\n", "    return client.ready()\n")  # line 10: reads the object


@pytest.fixture
def fields(tmp_path: Path) -> ScriptedRepo:
    edits = {"delta": DELTA, "epsilon": EPSILON, "zeta": ZETA}
    return _worktrees(tmp_path, "app/net.py", NET, edits, committed="delta")


def test_two_fields_of_one_local_object_stay_apart_and_a_read_of_it_meets_both(
    fields: ScriptedRepo,
) -> None:
    # epsilon sets another field of the object delta configures: git merges both, nothing meets
    assert "delta" not in _findings(_local(fields, "epsilon", "app/net.py", (8, 8)))
    # zeta reads the object both configure: it meets each field write
    read = _findings(_local(fields, "zeta", "app/net.py", (10, 10)))
    assert read["delta"][0] == "advisory"
    scanned = _scan(fields)
    assert {frozenset(p) for p in scanned} == {
        frozenset(("delta", "zeta")),
        frozenset(("epsilon", "zeta")),
    }
    assert read["delta"] == _band(scanned[frozenset(("delta", "zeta"))])
    [item, *_] = scanned[frozenset(("delta", "zeta"))]["symbols"]
    assert "client" in item["text"]


@pytest.mark.django_db
def test_the_server_keeps_two_fields_apart_as_the_hook_does(
    fields: ScriptedRepo, post_json: Any
) -> None:
    from proximity.models import Repository
    from proximity.services.scans import scan_run

    repo = Repository.objects.create(name="net", scope="team-a", path=str(fields.root))
    callers = report_working_sets(fields, "net", post_json)
    assert scan_run(repository_id=repo.pk) is not None

    def server(who: str, line: int) -> dict[str, tuple[str, tuple[float, float]]]:
        return server_check(post_json, callers[who], "net", who, "app/net.py", line)

    for who, line in (("epsilon", 8), ("zeta", 10)):
        assert server(who, line) == _findings(_local(fields, who, "app/net.py", (line, line)))
    assert "delta" not in server("epsilon", 8)
    assert server("zeta", 10)["delta"][0] == "advisory"
