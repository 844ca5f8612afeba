"""The daemon's symbol read: one answer while nothing changed, a new read after any change.

In a process whose git reads are watched (the daemon), the same working-set objects with no
file event since the last symbol read are answered with that read, without stat-ing every
changed file again; a file event (another agent's edit) makes the next read a real one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proximity.agent import local as local_mod
from proximity.agent.dependency import read_local_graph
from proximity.agent.local import Planned, local_check, read_local_symbols
from proximity.agent.worktree import find_worktree
from proximity.sources.git import _run, read_working_sets, readcache
from tests.sources.gitrepo import ScriptedRepo

BASE = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"


@pytest.fixture
def watched() -> Iterator[readcache.GitReadCache]:
    cache = readcache.install()
    if cache is None:
        pytest.skip("no file notifications on this machine")
    try:
        yield cache
    finally:
        _run.use_read_cache(None)
        cache.close()


def _repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("calc.py", BASE)
    repo.commit("base")
    repo.add_worktree("alice")
    repo.add_worktree("bob")
    repo.write("calc.py", BASE.replace("sum(xs)", "sum(xs) + 0"), worktree="alice")
    return repo


def _changed(read: object) -> list[str]:
    sides = read.data.sides  # type: ignore[attr-defined]
    return sorted(c.symbol for c in sides["alice"].changes)


def _settle(cache: readcache.GitReadCache, after: int) -> None:
    """Until the notifications of an edit have arrived (well within the freshness bound)."""
    deadline = time.monotonic() + readcache.FRESHNESS_S
    while cache.sequence == after and time.monotonic() < deadline:
        time.sleep(0.01)


def test_an_unchanged_airspace_is_one_read_and_an_edit_is_read_again(
    tmp_path: Path, watched: readcache.GitReadCache
) -> None:
    repo = _repo(tmp_path)
    sets = read_working_sets(repo.root)  # its git calls put every worktree under watch
    assert watched.covers([str(repo.root), *(ws.path for ws in sets)])
    time.sleep(0.2)  # the setup's own events
    first = read_local_symbols(repo.root, sets)
    assert first is not None
    assert _changed(first) == ["calc.py::total"]
    again = read_local_symbols(repo.root, list(reversed(sets)))  # any order, same sets
    assert again is first

    mark = watched.sequence
    repo.write("calc.py", BASE.replace("/ len(xs)", "/ max(len(xs), 1)"), worktree="alice")
    _settle(watched, mark)
    # The same working-set objects, read before the edit: the event alone makes it a read.
    assert read_local_symbols(repo.root, sets) is not first
    fresh = read_local_symbols(repo.root, read_working_sets(repo.root))  # as the daemon reads
    assert fresh is not None
    assert _changed(fresh) == ["calc.py::mean"]


def test_without_watched_reads_every_call_reads(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    sets = read_working_sets(repo.root)
    assert readcache.current() is None
    first = read_local_symbols(repo.root, sets)
    second = read_local_symbols(repo.root, sets)
    assert first is not None
    assert second is not None
    assert second is not first
    assert _changed(second) == _changed(first) == ["calc.py::total"]


def test_the_other_agents_kept_entries_are_never_extended(tmp_path: Path) -> None:
    """The daemon keeps each other agent's engine entry per working set; a check that quotes
    the other side's diff adds the excerpts to its own copy, never to the kept entry."""
    repo = _repo(tmp_path)
    repo.write("calc.py", BASE.replace("sum(xs)", "sum(xs) * 1"), worktree="bob")
    sets = read_working_sets(repo.root)
    bob = find_worktree(repo.path("bob"))
    planned: Planned = [("calc.py", ((2, 2),), "M")]
    first = local_check(bob, planned, sets=sets)
    assert [f.other for f in first.findings] == ["alice"]
    alice = next(ws for ws in sets if ws.agent_id == "alice")
    kept = local_mod._ENTRIES[id(alice)][1]
    assert all("excerpt" not in f for f in kept["files"])
    again = local_check(bob, planned, sets=sets)  # the same objects: the kept entry is used
    assert again.findings == first.findings
    assert local_mod._ENTRIES[id(alice)][1] is kept
    assert all("excerpt" not in f for f in kept["files"])


def test_the_import_edges_are_one_read_while_unchanged_and_read_again_after_an_edit(
    tmp_path: Path, watched: readcache.GitReadCache
) -> None:
    repo = _repo(tmp_path)
    repo.write("stats.py", "import json\n", worktree="bob")
    sets = read_working_sets(repo.root)
    time.sleep(0.2)
    first = read_local_graph(repo.root, sets, ["calc.py"])
    assert first is not None
    assert "calc.py" not in first["adjacency"].get("stats.py", [])
    assert read_local_graph(repo.root, list(reversed(sets)), ["calc.py"]) is first

    mark = watched.sequence
    repo.write("stats.py", "import json\nfrom calc import mean\n", worktree="bob")
    _settle(watched, mark)
    again = read_local_graph(repo.root, sets, ["calc.py"])  # the same objects: read again
    assert again is not first
    assert again is not None
    assert again["adjacency"]["stats.py"] == ["calc.py"]
