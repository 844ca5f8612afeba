"""``python -m proximity.engine trail verify FILE`` and ``trail summary FILE``.

The only place in the trail code that reads a file. Verdicts go to stdout as one line
(``ok: ...`` / ``invalid: <reason>``), so a script can both test the exit status and log why.
Reasons come from the engine's fixed vocabulary and never repeat file content.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from proximity.engine.trail import ShadowTrailError, summarize_shadow_trail, verify_shadow_trail

__all__ = ["main"]

USAGE = "usage: python -m proximity.engine trail {verify,summary} FILE"


class _Unreadable(Exception):  # noqa: N818 - a verdict, not a programming error
    pass


def _refuse_constant(name: str) -> object:
    raise ValueError("JSON has no NaN or Infinity")  # JSON.parse refuses them too


def _load(file: str) -> object:
    try:
        text = Path(file).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _Unreadable("file is not UTF-8 text") from None
    except OSError as error:
        raise _Unreadable(f"cannot read file ({type(error).__name__})") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise _Unreadable(f"not JSON (line {error.lineno}, column {error.colno})") from None
    except (ValueError, RecursionError):
        raise _Unreadable("not JSON") from None


def _verify(trail: object) -> str:
    verify_shadow_trail(trail)
    summary = summarize_shadow_trail(trail)
    return f"ok: {summary['receiptCount']} receipts, trail {summary['trailId']}"


def _summary(trail: object) -> str:
    return json.dumps(summarize_shadow_trail(trail), ensure_ascii=False, indent=2)


def main(argv: list[str]) -> int:
    """Run ``trail <command> FILE``; 0 when the trail is valid, 1 otherwise, 2 on bad usage."""
    commands = {"verify": _verify, "summary": _summary}
    if len(argv) != 2 or argv[0] not in commands:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        print(commands[argv[0]](_load(argv[1])))
    except _Unreadable as error:
        print(f"invalid: {error}")
        return 1
    except ShadowTrailError as error:
        print(f"invalid: {error.reason}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
