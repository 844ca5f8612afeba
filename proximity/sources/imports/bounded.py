"""Parse one file's imports with bounded work: a size and line bound, then a limited child.

A 40 MB one-line ``.py`` in an agent's worktree pushed a scan past 21 GB and a 10 MB generated
module cost 13.7 s and 1.4 GB on every tick (issue 31, item 2). So a file above
``MAX_PARSE_BYTES`` or ``MAX_PARSE_LINES`` is not parsed at all; one above ``CHILD_PARSE_BYTES``
is parsed in a child process under a memory, CPU and wall-clock limit (``ast`` and tree-sitter
run in C, so no in-process alarm could stop them); smaller ones, nearly every file, in process.
A file not parsed yields no edges and an error naming why: its coupling is unknown, not absent.
The caller caches the result under the file's blob hash, refusals and failures included, so a
file is not tried again until its content changes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from proximity.engine.imports import ImportSite, ParsedImports, parse_python_imports
from proximity.sources.limits import Limits

__all__ = [
    "CHILD_PARSE_BYTES",
    "MAX_PARSE_BYTES",
    "MAX_PARSE_LINES",
    "parse_bytes_bounded",
    "parse_file_bounded",
    "parse_source",
]

MAX_PARSE_BYTES = 2 * 1024**2
MAX_PARSE_LINES = 50_000
CHILD_PARSE_BYTES = 256 * 1024
CHILD_LIMITS = Limits(memory_bytes=1024**3, cpu_seconds=10, processes=None)
CHILD_SECONDS = 15.0


def parse_source(source: bytes, language: str) -> ParsedImports:
    """Dispatch to ``ast`` for Python and tree-sitter for the others (no bound: see below).

    tree-sitter is loaded on first use: the agent side's light core has no tree-sitter and
    parses Python only (:func:`~proximity.sources.symbols.local.local_languages`)."""
    if language == "python":
        return parse_python_imports(source)
    from proximity.sources.imports.treesitter import parse_tree_sitter_imports

    return parse_tree_sitter_imports(source, language)


def _unknown(language: str, why: str) -> ParsedImports:
    return ParsedImports(language, (), f"not parsed ({why}): its coupling is unknown")


def parse_file_bounded(path: Path, language: str) -> ParsedImports:
    """The file's imports, or an error saying why they are unknown. Raises OSError if unreadable."""
    size = path.stat().st_size
    if size > MAX_PARSE_BYTES:
        return _unknown(language, f"{size} bytes, over the {MAX_PARSE_BYTES} byte bound")
    source = path.read_bytes()[: MAX_PARSE_BYTES + 1]  # grown since the stat: still bounded
    return parse_bytes_bounded(source, language)


def parse_bytes_bounded(source: bytes, language: str) -> ParsedImports:
    """:func:`parse_file_bounded` for bytes already read (a blob, a bounded read)."""
    if len(source) > MAX_PARSE_BYTES:
        return _unknown(language, f"over the {MAX_PARSE_BYTES} byte bound")
    lines = source.count(b"\n") + 1
    if lines > MAX_PARSE_LINES:
        return _unknown(language, f"{lines} lines, over the {MAX_PARSE_LINES} line bound")
    if len(source) <= CHILD_PARSE_BYTES:
        return parse_source(source, language)
    return _parse_in_child(source, language)


def _parse_in_child(source: bytes, language: str) -> ParsedImports:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "proximity.sources.imports.bounded", language],
            input=source,
            capture_output=True,
            timeout=CHILD_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _unknown(language, f"parsing took over {CHILD_SECONDS:g} s")
    if done.returncode != 0:
        return _unknown(language, "the parser ran out of memory or time")
    data = json.loads(done.stdout)
    sites = tuple(ImportSite(**{**s, "names": tuple(s["names"])}) for s in data["sites"])
    return ParsedImports(language, sites, data["error"])


def _child_main() -> None:
    """In the child: limit itself first (no ``preexec_fn``, so callers may run on any thread),
    then parse standard input and write the result as JSON."""
    CHILD_LIMITS.apply()
    parsed = parse_source(sys.stdin.buffer.read(), sys.argv[1])
    sites = [asdict(s) for s in parsed.sites]
    sys.stdout.write(json.dumps({"sites": sites, "error": parsed.error}))


if __name__ == "__main__":
    _child_main()
