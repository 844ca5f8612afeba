"""Speed of one speculative merge check on the generated 5,000-file tree (issue 14, item 7).

Run: ``.venv/bin/python -m bench.merge_check`` (about a minute). The tree is bench/readers.py's
generator (2,500 Python and 2,500 TypeScript files) committed to a fresh repository; two
worktrees each change one Python and one TypeScript module (alpha renames ``helper_0`` of
``src/pkg0/mod0.py`` and ``fn2`` of ``web/src/ui0/mod0.ts``, beta adds a module importing each),
so the check has two merge-only problems to find, one per language. Figures, each a
median over repeats in this run, beside a baseline measured in the same run since the machine
is shared: byte-compiling every Python file of the tree (what ``compileall`` does, without
writing). Target: one check cold (a fresh facts cache) < 5 s. Warm is the next check of the
same worker (the trees' unchanged files analysed already).
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bench.readers import generate_tree
from proximity.sources.git import read_working_sets
from proximity.sources.git.mergecheck import run_merge_check
from tests.sources.gitrepo import ScriptedRepo

T = TypeVar("T")


def _median(fn: Callable[[], T], repeats: int) -> tuple[float, T]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result  # type: ignore[return-value]


def _compile_all(root: Path) -> int:
    paths = [p for p in root.rglob("*.py") if ".git" not in p.parts]
    paused = gc.isenabled()
    gc.disable()
    try:
        for p in paths:
            compile(p.read_text(), str(p), "exec", dont_inherit=True)
    finally:
        if paused:
            gc.enable()
    return len(paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="radar-mergecheck-"))
    try:
        repo = ScriptedRepo.create(scratch)
        generate_tree(repo, args.files)
        for name in ("alpha", "beta"):
            repo.add_worktree(name)
        target = "src/pkg0/mod0.py"
        repo.write(target, repo.read(target).replace("helper_0", "helper_zero"), worktree="alpha")
        repo.write("src/pkg0/extra.py", "from pkg0.mod0 import helper_0\n", worktree="beta")
        # and one in TypeScript: alpha renames fn2 of a module, beta starts importing it
        ts = "web/src/ui0/mod0.ts"
        repo.write(ts, repo.read(ts).replace("function fn2(", "function fnTwo("), worktree="alpha")
        extra = "import { fn2 } from './mod0';\n\nexport const total = fn2([]);\n"
        repo.write("web/src/ui0/extra.ts", extra, worktree="beta")
        sets = {ws.agent_id: ws for ws in read_working_sets(repo.root, base="main")}
        a, b = sets["alpha"], sets["beta"]
        cold, run = _median(lambda: run_merge_check(a, b, cache={}), args.repeats)
        cache: dict[str, object] = {}
        run_merge_check(a, b, cache=cache)
        warm, _ = _median(lambda: run_merge_check(a, b, cache=cache), args.repeats)
        base, count = _median(lambda: _compile_all(repo.root), args.repeats)
        problems = run.result.problems if run.result else ()
        print(
            f"merge check, {run.read_files} distinct Python blobs read, {len(problems)} merge-only"
        )
        for p in problems:
            print(f"  {p.kind} {p.path} {p.name}")
        print(
            f"| one merge check, cold | {cold:.2f} s | < 5 s | x{cold / base:.2f} of compileall |"
        )
        print(f"| one merge check, warm | {warm:.2f} s | | x{warm / base:.2f} of compileall |")
        print(f"| baseline: compile() of {count} .py files | {base:.2f} s | | |")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
