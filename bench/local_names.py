"""What reading local names adds to a detailed symbol extraction (issue 30, ``same_body``).

Run: ``.venv/bin/python -m bench.local_names [--source GIT_DIR] [--rounds 5]`` (default source:
this checkout). Every Python file of the source's HEAD is read from git's object store; the
detailed extraction (what the change classifier runs on the two sides of every changed file,
in the hook as in a scan) is timed whole, and the part of it that reads each function's local
names (:func:`proximity.engine.symbols.pyast.local_names`) is timed alone on the same parsed
functions. Printed: the median of ``--rounds`` for each, and the share of the extraction the
names take (the baseline is the same run's extraction without that part).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proximity.engine.symbols.pyast import local_names  # noqa: E402
from proximity.engine.symbols.python import extract_python_symbols  # noqa: E402


def sources(git_dir: Path) -> list[bytes]:
    """Every ``.py`` blob at HEAD, read with one ``git cat-file --batch``."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    blobs = [line.split()[2] for line in listing.splitlines() if line.endswith(".py")]
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
        input=("\n".join(blobs) + "\n").encode(), capture_output=True, check=True,
    ).stdout  # fmt: skip
    out, at = [], 0
    for _ in blobs:
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        out.append(batch[header_end + 1 : header_end + 1 + size])
        at = header_end + 1 + size + 1
    return out


def functions(
    texts: list[bytes],
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]:
    """Each indexed function with its instance name, as the extractor hands them over."""
    out: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]] = []
    for text in texts:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append((node, None))
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        params = [*item.args.posonlyargs, *item.args.args]
                        out.append((item, params[0].arg if params else None))
    return out


def timed(run: object, rounds: int) -> float:
    spans = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        spans.append(time.perf_counter() - start)
    return statistics.median(spans) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT / ".git")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts = sources(args.source)
    defs = functions(texts)
    whole = timed(lambda: [extract_python_symbols(t, detail=True) for t in texts], args.rounds)
    names = timed(lambda: [local_names(node, me) for node, me in defs], args.rounds)
    size = sum(map(len, texts)) / 1e6
    print(f"source {args.source}: {len(texts)} Python files, {size:.1f} MB, {len(defs)} functions")
    print(f"detailed extraction, whole: {whole:,.0f} ms (median of {args.rounds})")
    print(f"  of which local names:     {names:,.0f} ms")
    base = whole - names
    print(f"  baseline (without them):  {base:,.0f} ms; names add x{whole / base:.2f}")


if __name__ == "__main__":
    main()
