"""The hook's import edges (``near_graph``) against the whole graph, on a real repository.

Run: ``.venv/bin/python -m bench.near_imports [--source GIT_DIR] [--agents 10] [--files 5]``
(default source: this checkout). The source is cloned into a temporary folder and ``--agents``
worktrees are added, each changing ``--files`` random tracked source files (a line appended;
one agent also adds, one deletes and one renames a file, and half commit). Printed, beside the
baseline measured in the same run (the whole graph of every worktree, as a scan builds it,
with an empty parse cache):

- ``near_graph`` cold (every cache of the process cleared): the cost a hook with no daemon
  adds, p50/p95 over ``--repeats``;
- ``near_graph`` with warm parses and a new planned file (the daemon between edits);
- ``near_graph`` repeated on unchanged worktrees (the daemon's lookup);
- whether the distances between changed files up to 2 are the whole graph's, and the files
  ``near_graph`` parsed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stack import percentile  # noqa: E402
from proximity.engine.imports import language_of  # noqa: E402
from proximity.sources.git import read_working_sets  # noqa: E402
from proximity.sources.git.airspace import read_repository_airspace  # noqa: E402
from proximity.sources.git.objects import COMMIT_BASES  # noqa: E402
from proximity.sources.imports.near import clear_near_cache, near_graph  # noqa: E402

T = TypeVar("T")


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    done = subprocess.run(
        ["git", "-C", str(cwd), *ident, *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def build(source: Path, tmp: Path, agents: int, files: int, seed: int) -> Path:
    root = tmp / "repo"
    subprocess.run(["git", "clone", "-q", str(source), str(root)], check=True)
    _git(root, "checkout", "-q", "-B", "main")
    tracked = sorted(p for p in _git(root, "ls-files").splitlines() if language_of(p))
    rng = random.Random(seed)
    picks = rng.sample(tracked, min(len(tracked), agents * (files + 1)))
    for k in range(agents):
        name = f"agent{k:02d}"
        where = tmp / name
        _git(root, "worktree", "add", "-q", "-b", name, str(where), "main")
        mine = picks[k * (files + 1) : (k + 1) * (files + 1)]
        for path in mine[:files]:
            with (where / path).open("a", encoding="utf-8") as out:
                out.write(f"\n# {name}\n" if path.endswith((".py", ".pyi")) else f"\n// {name}\n")
        extra = mine[files] if len(mine) > files else None
        if extra and k == 0:
            fresh = Path(extra).with_name(f"bench_new_{k}{Path(extra).suffix}")
            (where / fresh).write_text(
                (where / extra).read_text(encoding="utf-8", errors="replace")
            )
        elif extra and k == 1:
            _git(where, "rm", "-q", extra)
        elif extra and k == 2:
            _git(where, "mv", extra, str(Path(extra).with_name(f"bench_moved{Path(extra).suffix}")))
        if k % 2:
            _git(where, "add", "-A")
            _git(where, "commit", "-q", "-m", f"{name} wip")
    return root


def _times(
    fn: Callable[[], T], repeats: int, before: Callable[[], None] | None = None
) -> list[float]:
    out = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def _cold() -> None:
    clear_near_cache()
    COMMIT_BASES.clear()


def _line(label: str, times: list[float], baseline: float) -> str:
    p50, p95 = statistics.median(times) * 1000, percentile(times, 0.95) * 1000
    ratio = p95 / 1000 / baseline
    return f"{label}: p50 {p50:.1f} ms, p95 {p95:.1f} ms (x{ratio:.3f} the whole graph)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--files", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-near-") as tmp:
        root = build(args.source, Path(tmp), args.agents, args.files, args.seed)
        sets = read_working_sets(root)
        kept = [ws for ws in sets if ws.merge_base]
        seeds = {f.path for ws in kept for f in ws.files} | {
            f.old_path for ws in kept for f in ws.files if f.old_path
        }
        whole_times = _times(lambda: read_repository_airspace(root, conflicts=False), 3)
        whole = read_repository_airspace(root, conflicts=False).graph
        assert whole is not None
        baseline = statistics.median(whole_times)
        _cold()
        graph = near_graph(root, sets)
        expected, got = whole.distances(seeds), graph.distances(seeds)
        cold = _times(lambda: near_graph(root, sets), args.repeats, before=_cold)
        tracked = sorted(p for p in _git(root, "ls-files").splitlines() if language_of(p))
        planned = iter(random.Random(args.seed + 1).sample(tracked, args.repeats))
        warm = _times(lambda: near_graph(root, sets, [next(planned)]), args.repeats)
        again = _times(lambda: near_graph(root, sets), args.repeats)
        print(f"{args.source.name}: {len(whole.files)} source files, {whole.edge_count()} edges; "
              f"{args.agents} agents, {len(seeds)} changed files")  # fmt: skip
        print(f"baseline, the whole graph of every worktree: median {baseline * 1000:.0f} ms")
        print(_line("near_graph cold (no daemon)", cold, baseline))
        print(_line("near_graph, warm parses, a new planned file", warm, baseline))
        print(_line("near_graph, unchanged worktrees", again, baseline))
        nodes = len(graph.files)
        print(f"distances up to 2 between changed files: {len(expected)} pairs in the whole "
              f"graph, {len(got)} here, equal: {expected == got}; {nodes} files in the near "
              f"graph, {len(graph.errors)} notes")  # fmt: skip
        for note in graph.errors[:5]:
            print(f"  note: {note}")
        if expected != got:
            for pair in sorted(set(expected) ^ set(got))[:10]:
                print(f"  differs: {pair} whole {expected.get(pair)} near {got.get(pair)}")


if __name__ == "__main__":
    main()
