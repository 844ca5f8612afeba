"""Command line: `python -m proximity.engine scan ...` and `... trail ...`.

The one place in the engine allowed to read and write files and standard streams.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from proximity.engine.airspace import PROFILES, AirspaceInputError, scan
from proximity.engine.airspace.parse import graph_adjacency
from proximity.engine.airspace.profiles import DEFAULT_PROFILE

__all__ = ["main"]

Graphs = Mapping[str, Mapping[str, tuple[str, ...]]]


def _scan_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m proximity.engine scan")
    parser.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
    parser.add_argument("--input", default="-", help="JSON file, or - for stdin")
    parser.add_argument("--jsonl", action="store_true", help="one airspace per line")
    parser.add_argument("--graphs", help='JSONL of {"id", "adjacency"} named by "graphRef"')
    return parser


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _load_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise AirspaceInputError(where, f"not JSON ({exc.msg})") from exc


def _load_graphs(path: str | None) -> Graphs | None:
    if path is None:
        return None
    graphs: dict[str, Mapping[str, tuple[str, ...]]] = {}
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            entry = _load_json(line, f"graphs line {number}")
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise AirspaceInputError(f"graphs line {number}.id", "is required")
            graphs[entry["id"]] = graph_adjacency(entry, f"graphs line {number}")
    return graphs


def _airspaces(stream: TextIO, jsonl: bool) -> Iterator[tuple[str, Any]]:
    if not jsonl:
        yield "input", _load_json(stream.read(), "input")
        return
    for number, line in enumerate(stream, start=1):
        if line.strip():
            yield f"line {number}", _load_json(line, f"line {number}")


def _run_scan(argv: list[str]) -> int:
    args = _scan_parser().parse_args(argv)
    try:
        graphs = _load_graphs(args.graphs)
        if args.input == "-":
            items = list(_airspaces(sys.stdin, args.jsonl))
        else:
            with Path(args.input).open(encoding="utf-8") as handle:
                items = list(_airspaces(handle, args.jsonl))
        # Score everything before writing anything, so bad input never leaves partial output.
        results = []
        for where, data in items:
            try:
                results.append(scan(data, profile=args.profile, graphs=graphs))
            except AirspaceInputError as exc:
                prefix = f"{where}: " if args.jsonl else ""
                return _fail(f"{prefix}{exc}")
    except AirspaceInputError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot read {exc.filename}: {exc.strerror}")
    for result in results:
        sys.stdout.write(json.dumps(result, separators=(",", ":") if args.jsonl else None))
        sys.stdout.write("\n")
    return 0


def _run_trail(argv: list[str]) -> int:
    try:
        module = importlib.import_module("proximity.engine.trail_cli")
    except ModuleNotFoundError as exc:
        if exc.name != "proximity.engine.trail_cli":
            raise
        return _fail("the trail command is not available (proximity.engine.trail_cli is missing)")
    code: int = module.main(argv)
    return code


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    commands = {"scan": _run_scan, "trail": _run_trail}
    if not args or args[0] not in commands:
        return _fail("usage: python -m proximity.engine {scan,trail} [options]")
    return commands[args[0]](args[1:])


if __name__ == "__main__":
    sys.exit(main())
