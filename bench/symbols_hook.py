"""What symbols add to the agent's pre-edit check and to ``manage.py radar scan`` (issue 30).

Run: ``.venv/bin/python -m bench.symbols_hook --runs 100``. A repository of Python modules
(bench/hooks.py's shapes: 10 agents / 200 files and 50 agents / 2,000 files; every module
imports two others and defines five functions; each agent changes the body of a function in
the shared app/core.py and of one function in each of two modules of its own, uncommitted, one
of them with a new call), one process, as the daemon answers:

- the local check (:func:`proximity.agent.local.local_check`, the working sets read ahead as the
  daemon keeps them) on ``radar-v1`` (no symbol data) and on ``radar-v1-symbols`` (symbols read
  by :mod:`proximity.sources.symbols.local`, extraction cache warm as the daemon keeps it): p50
  and p95 of each, the added ms at p95 and the ratio;
- the first check after a change to the cache (a fresh :data:`LOCAL_CACHE` and index memo):
  the cold symbol read, once per run;
- per scan: ``scan()`` of the same working sets with and without symbols, and the local symbol
  read itself (warm), which ``manage.py radar scan`` adds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stack import percentile  # noqa: E402
from proximity.agent.local import Planned, local_check  # noqa: E402
from proximity.agent.worktree import find_worktree  # noqa: E402
from proximity.engine.airspace import scan  # noqa: E402
from proximity.sources.git import read_working_sets  # noqa: E402
from proximity.sources.symbols.local import clear_local_cache, local_symbols  # noqa: E402
from tests.sources.gitrepo import ScriptedRepo  # noqa: E402


def module(k: int, files: int) -> str:
    a, b = (k * 7 + 1) % files, (k * 13 + 2) % files
    head = f"from app.pkg{a % 10}.mod{a} import f{a}_0\nfrom app.pkg{b % 10}.mod{b} import f{b}_1\n"
    body = "".join(
        f"\n\ndef f{k}_{j}(x):\n    y = x + {j}\n    z = y * 2\n    return f{a}_0(z) if x else z\n"
        for j in range(5)
    )
    return head + body


def core(agents: int) -> str:
    return "".join(
        f"\n\ndef c{k}(x):\n    y = x + {k}\n    z = y * 2\n    w = z - 1\n    return w\n"
        for k in range(agents)
    )


def build(tmp: Path, agents: int, files: int) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp)
    repo.write("app/__init__.py", "")
    for p in range(10):
        repo.write(f"app/pkg{p}/__init__.py", "")
    repo.write("app/core.py", core(agents))
    for k in range(files - 1):
        repo.write(f"app/pkg{k % 10}/mod{k}.py", module(k, files - 1))
    repo.commit("base")
    for k in range(agents):
        name = f"agent{k}"
        repo.add_worktree(name)
        repo.write("app/core.py", core(agents).replace(f"y = x + {k}\n", f"y = x - {k}\n"),
                   worktree=name)  # fmt: skip
        for j in (k, k + files // 2):
            text = module(j, files - 1)
            text = text.replace(
                f"def f{j}_2(x):\n    y = x + 2\n", f"def f{j}_2(x):\n    y = f{j}_0(x)\n"
            )
            repo.write(f"app/pkg{j % 10}/mod{j}.py", text, worktree=name)
    return repo


def line(name: str, ms: list[float]) -> dict[str, float]:
    p50, p95 = percentile(ms, 0.5), percentile(ms, 0.95)
    print(f"  {name:<58} p50 {p50:7.2f}  p95 {p95:7.2f} ms")
    return {"p50": p50, "p95": p95}


def timed(fn: Any, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def cold_process(top: Path, n: int) -> None:
    """``radar check`` in a fresh process with no daemon (``RADAR_DAEMON=0``): the symbol read
    starts cold every time, which is what a hook without the daemon pays."""
    radar = str(Path(sys.executable).parent / "radar")
    env = {**os.environ, "RADAR_DAEMON": "0", "RADAR_STATE_DIR": str(top.parent / "state")}
    config = top / ".radar.toml"
    runs: dict[str, list[float]] = {"radar-v1": [], "radar-v1-symbols": []}
    for _ in range(n):
        for profile, ms in runs.items():
            config.write_text(f'[radar]\nprofile = "{profile}"\n')
            start = time.perf_counter()
            subprocess.run([radar, "check", "app/core.py", "--lines", "2-6"], cwd=top, env=env,
                           capture_output=True, check=False)  # fmt: skip
            ms.append((time.perf_counter() - start) * 1000)
    config.unlink()
    without = line("radar check, no daemon, radar-v1", runs["radar-v1"])
    with_ = line("radar check, no daemon, radar-v1-symbols (cold read)", runs["radar-v1-symbols"])
    print(f"  no daemon: symbols add {with_['p95'] - without['p95']:+.1f} ms at p95 "
          f"(x{with_['p95'] / without['p95']:.2f})")  # fmt: skip


def run(agents: int, files: int, n: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="radar-symbols-hook-"))
    print(f"{agents} agents / {files} files (building...)", flush=True)
    repo = build(tmp, agents, files)
    top = repo.path("agent0")
    worktree = find_worktree(top)
    sets = read_working_sets(top)
    planned: Planned = [("app/core.py", ((2, 6),), "M")]
    clear_local_cache()
    start = time.perf_counter()
    read = local_symbols(top, sets)
    cold = (time.perf_counter() - start) * 1000
    print(f"  symbol read, cold (empty cache): {cold:.1f} ms; {len(read.indexed or ())} files "
          f"indexed; problems: {len(read.problems)}")  # fmt: skip

    def check(profile: str) -> None:
        local_check(worktree, planned, profile=profile, sets=sets)

    for profile in ("radar-v1", "radar-v1-symbols"):  # warm both paths first
        check(profile)
    # Interleaved, so a neighbour's load on this shared machine falls on both alike.
    runs: dict[str, list[float]] = {"radar-v1": [], "radar-v1-symbols": []}
    for _ in range(n):
        for profile, ms in runs.items():
            ms += timed(lambda profile=profile: check(profile), 1)
    without = line("local check, radar-v1 (no symbols)", runs["radar-v1"])
    with_ = line("local check, radar-v1-symbols (warm cache)", runs["radar-v1-symbols"])
    added = with_["p95"] - without["p95"]
    print(f"  symbols add {added:+.1f} ms at p95 (x{with_['p95'] / without['p95']:.2f}), "
          f"{with_['p50'] - without['p50']:+.1f} ms at p50")  # fmt: skip
    cold_process(top, max(10, n // 5))
    agents_json = [ws.to_agent_json() for ws in sets if ws.merge_base is not None]
    airspace = {"agents": agents_json}
    reads = line("symbol read alone (warm), as radar scan adds it",
                 timed(lambda: local_symbols(top, sets), max(5, n // 5)))  # fmt: skip
    plain = line("scan(), radar-v1", timed(lambda: scan(airspace, profile="radar-v1"), n // 5 or 1))
    symbolic = line(
        "scan(), radar-v1-symbols with the symbol data",
        timed(lambda: scan(airspace, profile="radar-v1-symbols", symbols=read.data), n // 5 or 1),
    )
    total = symbolic["p50"] + reads["p50"]
    print(f"  per scan: symbols add {total - plain['p50']:+.1f} ms at p50 "
          f"(x{total / plain['p50']:.2f}, read + scoring)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--small-only", action="store_true", help="10 agents / 200 files only")
    args = parser.parse_args()
    run(10, 200, args.runs)
    if not args.small_only:
        run(50, 2000, args.runs)


if __name__ == "__main__":
    main()
