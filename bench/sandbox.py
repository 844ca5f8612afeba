"""What the sandbox of a merge check's test run costs (issue 30, point 4).

Three ways to start the same command (the plain interpreter running ``pass``), each ``--runs``
times, median and p95 wall time: a bare subprocess (the baseline), the sandbox as a root worker
runs it (namespaces plus the drop to ``nobody``), and, with ``--userns``, the sandbox as a
worker that is not root would (a user namespace). Then one real pytest run of a one-test
repository in the sandbox, the unit a merge check pays up to four times per tree pair.

Run: ``.venv/bin/python -m bench.sandbox`` (root; a few seconds).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from proximity.sources.limits import Limits
from proximity.sources.sandbox import Sandbox
from proximity.sources.testenv import choose_python, system_python
from proximity.sources.testruns import run_pytest


def _timed(start: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        start()
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.median(times), times[max(0, int(len(times) * 0.95) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--userns", action="store_true", help="also time the user-namespace path")
    args = parser.parse_args()
    python = system_python()
    argv = [python, "-S", "-c", "pass"]
    env = {"PATH": "/usr/bin:/bin"}

    def bare() -> object:
        return subprocess.run(argv, env=env, check=True)

    ways: dict[str, Callable[[], object]] = {"bare subprocess (baseline)": bare}
    sandboxes = {"sandbox, root worker (uid nobody)": Sandbox()}
    if args.userns:
        sandboxes["sandbox, user namespace"] = Sandbox(worker_is_root=False)
    for name, sandbox in sandboxes.items():
        assert not sandbox.unavailable(), sandbox.unavailable()
        command = sandbox.command(argv, cwd="/", env=env)
        ways[name] = lambda command=command: subprocess.run(command, check=True)  # type: ignore[misc]
    base = None
    print(f"{'start of `python -S -c pass`':42} {'median ms':>10} {'p95 ms':>8} {'ratio':>6}")
    for name, start in ways.items():
        median, p95 = _timed(start, args.runs)
        base = base or median
        print(f"{name:42} {median:10.1f} {p95:8.1f} {median / base:6.2f}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "test_one.py").write_text("def test_one():\n    assert True\n")
        plain = choose_python(configured="", worktrees=(), plain=python)
        limits = Limits(cpu_seconds=60)
        median, p95 = _timed(
            lambda: run_pytest(root, ["test_one.py"], python=plain, timeout=60, limits=limits),
            max(3, args.runs // 5),
        )
    print(f"{'one pytest run, one test, in the sandbox':42} {median:10.1f} {p95:8.1f}")


if __name__ == "__main__":
    main()
