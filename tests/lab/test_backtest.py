"""The conflict miner on a scripted repository: PRs merged with --no-ff, some conflicting."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from proximity.engine.evaluation.backtest import base_ranges_collide, pair_from_json
from proximity.lab.backtest import (
    concurrent_candidates,
    mine_pairs,
    read_pull_requests,
    sample_candidates,
)
from proximity.lab.backtest.pyimports import imports_of_source, resolve_imports

T0 = 1_700_000_000
Records = dict[tuple[int, int], dict[str, Any]]
A_PY = "".join(f"line{i}\n" for i in range(1, 11))


def _git(repo: Path, *args: str, at: int = T0) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x",
           "GIT_AUTHOR_DATE": f"@{at} +0000", "GIT_COMMITTER_DATE": f"@{at} +0000"}  # fmt: skip
    out = subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return out.stdout.strip()


def _edit(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def _replace_line(repo: Path, path: str, n: int, new: str) -> None:
    lines = (repo / path).read_text().splitlines(keepends=True)
    lines[n - 1] = new + "\n"
    (repo / path).write_text("".join(lines))


def _branch_commit(repo: Path, branch: str, at: int, edits: list[tuple[str, int, str]]) -> None:
    _git(repo, "checkout", "-q", branch)
    for path, n, new in edits:
        _replace_line(repo, path, n, new)
    _git(repo, "commit", "-qam", f"work on {branch}", at=at)


def _merge(repo: Path, number: int, branch: str, at: int) -> None:
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{number} from me/{branch}",
         branch, at=at)  # fmt: skip


def build_history(repo: Path) -> Path:
    """Four pull requests forked together; #1 and #2 edit overlapping lines of pkg/a.py."""
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _edit(repo, "pkg/__init__.py", "")
    _edit(repo, "pkg/a.py", A_PY)
    _edit(repo, "pkg/b.py", "from pkg import a\n\nX = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "initial", at=T0)
    for b in ("pr1", "pr2", "pr3", "pr4"):
        _git(repo, "branch", b)
    _branch_commit(repo, "pr1", T0 + 10, [("pkg/a.py", 2, "one-2"), ("pkg/a.py", 3, "one-3")])
    _branch_commit(repo, "pr2", T0 + 20, [("pkg/a.py", 3, "two-3")])
    _branch_commit(repo, "pr3", T0 + 30, [("pkg/b.py", 3, "X = 3")])
    _branch_commit(repo, "pr4", T0 + 40, [("pkg/a.py", 9, "four-9")])
    _merge(repo, 1, "pr1", T0 + 100)
    # pr2 is brought up to date after #1 merged, resolving the conflict: the merged tip no longer
    # conflicts, but pr2's state when #1 merged did.
    _git(repo, "checkout", "-q", "pr2")
    subprocess.run(
        ["git", "-C", str(repo), "merge", "-q", "main"], capture_output=True, check=False
    )
    _edit(repo, "pkg/a.py", A_PY.replace("line2", "one-2").replace("line3", "two-3"))
    _git(repo, "commit", "-qam", "merge main into pr2", at=T0 + 110)
    _merge(repo, 2, "pr2", T0 + 200)
    _merge(repo, 3, "pr3", T0 + 300)
    _merge(repo, 4, "pr4", T0 + 400)
    return repo


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_history(tmp_path_factory.mktemp("bt") / "repo")


@pytest.fixture(scope="module")
def records(history: Path) -> dict[tuple[int, int], dict[str, Any]]:
    prs = read_pull_requests(history)
    sample = sample_candidates(concurrent_candidates(prs), max_pairs=100)
    return {(r["a"]["pr"], r["b"]["pr"]): r for r in mine_pairs(history, sample, repo_name="t")}


def _snapshot(repo: Path) -> list[tuple[str, int]]:
    git_dir = repo / ".git"
    return sorted((str(p.relative_to(git_dir)), p.stat().st_size)
                  for p in git_dir.rglob("*") if p.is_file())  # fmt: skip


def test_pull_requests_are_read_from_first_parent_merges(history: Path) -> None:
    prs = read_pull_requests(history)
    assert [p.number for p in prs] == [1, 2, 3, 4]
    assert [len(p.chain) for p in prs] == [1, 2, 1, 1]
    assert prs[1].started_at == T0 + 20
    assert prs[1].state_at(T0 + 100) == prs[1].chain[1][0]


def test_every_concurrent_pair_is_labelled_by_git_merge_tree(
    records: Records,
) -> None:
    """B's state when A merged, not B's final tip, is what conflicts (BACKTEST-NOTES)."""
    assert sorted(records) == [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)]
    assert {k: r["conflict"] for k, r in records.items()} == {
        (1, 2): True,
        (1, 3): False,
        (1, 4): False,
        (2, 3): False,
        (2, 4): False,
        (3, 4): False,
    }
    assert records[(1, 2)]["conflictFiles"] == ["pkg/a.py"]


def test_working_sets_carry_base_and_new_side_ranges_against_the_common_base(
    records: Records,
) -> None:
    r = records[(1, 2)]
    bare = {
        k: [{x: v for x, v in f.items() if x != "hunkIds"} for f in r[k]]
        for k in ("filesA", "filesB")
    }
    ids_a, ids_b = r["filesA"][0]["hunkIds"], r["filesB"][0]["hunkIds"]
    assert bare["filesA"] == [{"path": "pkg/a.py", "status": "M", "baseHunks": [[2, 2]],
                               "lines": [[2, 3]]}]  # fmt: skip
    assert bare["filesB"] == [{"path": "pkg/a.py", "status": "M", "baseHunks": [[3, 1]],
                               "lines": [[3, 3]]}]  # fmt: skip
    # one digest per hunk, of its text: the two sides changed other lines differently
    assert len(ids_a) == len(ids_b) == 1
    assert ids_a != ids_b
    assert r["b"]["at"] == "2023-11-14T22:13:40Z"  # pr2's first commit, T0 + 20
    assert r["drift"] == {"a": False, "b": False}


def test_drift_is_flagged_when_a_side_carries_later_mainline_changes(
    records: Records,
) -> None:
    r = records[(2, 4)]
    assert r["drift"] == {"a": True, "b": False}
    assert {f["path"] for f in r["filesA"]} == {"pkg/a.py"}
    assert r["conflict"] is False


def test_base_side_rule_agrees_with_git_on_the_scripted_pairs(
    records: Records,
) -> None:
    for key in ((1, 2), (1, 4)):
        r = records[key]
        files_a = {f["path"]: f for f in r["filesA"]}
        files_b = {f["path"]: f for f in r["filesB"]}
        hit = any(base_ranges_collide(files_a[p]["baseHunks"], files_b[p]["baseHunks"])
                  for p in files_a.keys() & files_b.keys())  # fmt: skip
        assert hit == r["conflict"]


def test_import_edges_of_the_merge_base_are_recorded(
    records: Records,
) -> None:
    assert records[(1, 3)]["imports"] == {"pkg/b.py": ["pkg/a.py"]}
    pair = pair_from_json(records[(1, 3)])
    assert pair.imports == {"pkg/b.py": ("pkg/a.py",)}


def test_strata_and_weights_follow_the_sample(
    records: Records,
) -> None:
    strata = {k: r["stratum"] for k, r in records.items()}
    assert strata[(1, 2)] == "shared-file"
    assert strata[(1, 3)] == "disjoint"
    assert all(r["weight"] == 1.0 for r in records.values())
    assert all(r["cluster"] == r["b"]["commit"] for r in records.values())


def test_mining_is_deterministic_and_read_only(history: Path) -> None:
    before = _snapshot(history)
    prs = read_pull_requests(history)
    first = sample_candidates(concurrent_candidates(prs), max_pairs=3, seed=5)
    again = sample_candidates(concurrent_candidates(prs), max_pairs=3, seed=5)
    assert [c.key for c in first] == [c.key for c in again]
    assert sum(c.weight for c in first) == pytest.approx(6)  # weights restore the 6 candidates
    list(mine_pairs(history, first, repo_name="t"))
    assert _snapshot(history) == before


def test_python_imports_resolve_relative_and_src_layouts() -> None:
    src = b"from . import util\nfrom ..core import api as x\nimport os\nif 1:\n    import pkg.mod\n"
    sites = imports_of_source(src)
    files = frozenset({"src/pkg/sub/util.py", "src/pkg/core/api.py", "src/pkg/mod.py",
                       "src/pkg/sub/here.py", "src/pkg/core/__init__.py"})  # fmt: skip
    assert resolve_imports("src/pkg/sub/here.py", sites, files) == (
        "src/pkg/core/api.py",
        "src/pkg/mod.py",
        "src/pkg/sub/util.py",
    )
    assert imports_of_source(b"def broken(:\n import x") == ()
    assert imports_of_source(b"# import os\ns = 'import sys'\n") == ()
