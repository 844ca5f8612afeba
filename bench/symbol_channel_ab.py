"""The symbol channel against an earlier revision of itself, interleaved in one process.

Run: ``.venv/bin/python -m bench.symbol_channel_ab --against REV`` (about a minute). On a
shared 2-core machine a whole scan moves by 20-30 % between runs, more than most changes to
the channel; two versions timed turn about on the same data in one process share that drift.
``REV``'s ``proximity/engine/symbols/fastchannel.py`` is loaded beside the working tree's
(the rest of the package is the working tree's, so the revision must be API-compatible), and
each round times both on bench/symbols.py's 500-agent world: the rows' construction
(``_Rows``) and the whole channel. Printed: CPU medians and the median of the per-round ratio.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

from bench.symbols import world_symbols
from bench.world import build_agents, build_world
from proximity.engine.airspace import PROFILES
from proximity.engine.symbols import Strengths
from proximity.engine.symbols import fastchannel as current

_PATH = "proximity/engine/symbols/fastchannel.py"


def _load(rev: str, folder: Path) -> ModuleType:
    text = subprocess.run(
        ["git", "show", f"{rev}:{_PATH}"], check=True, capture_output=True, text=True
    ).stdout
    path = folder / "fastchannel_then.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("fastchannel_then", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {_PATH} at {rev}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="a git revision of this repository")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    world = build_world()
    agents = build_agents(world, 500, 50)
    data = world_symbols(world, agents)
    ids = [a["agentId"] for a in agents]
    strengths = Strengths.of(PROFILES["radar-v1-symbols"].symbol_strengths or {})
    with tempfile.TemporaryDirectory() as folder:
        then = _load(args.against, Path(folder))
        parts: dict[str, Callable[[ModuleType], object]] = {
            "rows (``_Rows``)": lambda m: m._Rows(ids, data),
            "the channel (``symbol_scores_fast``)": lambda m: m.symbol_scores_fast(
                ids, data, strengths
            ),
        }
        for part in parts.values():  # warm both
            part(then), part(current)
        gc.collect()
        gc.freeze()
        print(f"| part | {args.against} | working tree | ratio (median of {args.rounds} rounds) |")
        print("|---|---:|---:|---:|")
        for name, part in parts.items():
            old, new = [], []
            for _ in range(args.rounds):
                old.append(_cpu(partial(part, then)))
                new.append(_cpu(partial(part, current)))
            ratio = statistics.median(n / o for o, n in zip(old, new, strict=True))
            print(
                f"| {name} | {statistics.median(old) * 1e3:.0f} ms | "
                f"{statistics.median(new) * 1e3:.0f} ms | x{ratio:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
