"""Bounded work per file in the import graph (issue 31, item 2).

The probes: a 40 MB one-line ``.py`` pushed a scan past 21 GB; a 10 MB generated module cost
13.7 s and 1.4 GB on every tick, retried every tick. Here: files over the size or line bound are
not parsed (their coupling unknown, and said so), mid-sized ones are parsed in a limited child,
and a file refused once is not read again until its content changes.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from proximity.sources.imports import bounded
from proximity.sources.imports.bounded import MAX_PARSE_BYTES, MAX_PARSE_LINES, parse_file_bounded
from proximity.sources.imports.graph import build_import_graph
from tests.sources.gitrepo import ScriptedRepo


@pytest.fixture
def repo(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", "X = 1\n")
    repo.write("pkg/app.py", "from pkg import core\n")
    repo.commit("base")
    return repo


def _errors_for(graph, path: str) -> list[str]:
    return [e for e in graph.errors if e.startswith(f"{path}:")]


def test_a_file_over_the_size_bound_is_not_parsed_and_its_coupling_is_unknown(repo) -> None:
    # One line, all imports: whole, it would be parsed into millions of import sites.
    line = "from pkg import core;" * (MAX_PARSE_BYTES // 20)
    repo.write("pkg/generated.py", line)
    started = time.monotonic()
    graph = build_import_graph(repo.path())
    assert time.monotonic() - started < 30  # generous: a stall, not a benchmark
    assert "pkg/generated.py" not in graph.edges or not graph.edges["pkg/generated.py"]
    [error] = _errors_for(graph, "pkg/generated.py")
    assert "byte bound" in error
    assert "coupling is unknown" in error
    assert "pkg/core.py" in graph.edges["pkg/app.py"]  # the other files are read as before


def test_a_file_over_the_line_bound_is_not_parsed(repo) -> None:
    repo.write("pkg/many.py", "from pkg import core\n" * (MAX_PARSE_LINES + 1))
    graph = build_import_graph(repo.path())
    [error] = _errors_for(graph, "pkg/many.py")
    assert "line bound" in error
    assert not graph.edges.get("pkg/many.py")


def test_a_mid_sized_file_is_parsed_in_a_limited_child_with_its_edges(repo, tmp_path: Path) -> None:
    padding = "# padding\n" * (bounded.CHILD_PARSE_BYTES // 10 + 10)
    path = repo.write("pkg/big.py", "from pkg import core\n" + padding)
    assert path.stat().st_size > bounded.CHILD_PARSE_BYTES
    parsed = parse_file_bounded(path, "python")
    assert [s.target for s in parsed.sites] == ["pkg"]
    assert parsed.sites[0].names == ("core",)
    graph = build_import_graph(repo.path())
    assert "pkg/core.py" in graph.edges["pkg/big.py"]


def test_a_refused_file_is_not_read_again_until_it_changes(repo) -> None:
    repo.write("pkg/generated.py", "x = 1;" * (MAX_PARSE_BYTES // 5))
    cache: dict = {}
    first = build_import_graph(repo.path(), cache=cache)
    assert "pkg/generated.py" in first.parsed
    again = build_import_graph(repo.path(), cache=cache, previous=first)
    assert "pkg/generated.py" in again.reused
    assert "pkg/generated.py" not in again.parsed
    assert _errors_for(again, "pkg/generated.py")  # still shown as unknown
    repo.write("pkg/generated.py", "from pkg import core  # now small\n")
    changed = build_import_graph(repo.path(), cache=cache, previous=again)
    assert "pkg/generated.py" in changed.parsed
    assert "pkg/core.py" in changed.edges["pkg/generated.py"]
    assert not _errors_for(changed, "pkg/generated.py")
