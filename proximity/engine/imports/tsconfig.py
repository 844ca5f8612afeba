"""tsconfig/jsconfig ``baseUrl`` and ``paths``, read as TypeScript does (JSON with comments).

Only what module resolution needs: ``compilerOptions.baseUrl`` and ``compilerOptions.paths``,
following relative ``extends`` chains among the supplied files. ``paths`` entries resolve against
``baseUrl`` when set, else against the folder of the config that declares them (TypeScript 4.1+).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TsConfig", "load_tsconfig", "strip_jsonc"]


@dataclass(frozen=True, slots=True)
class TsConfig:
    """``paths`` as (pattern, [substitutions made absolute within the repository])."""

    folder: str
    base_url: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]


def _string_end(text: str, i: int) -> int:
    """Index just past the JSON string starting at ``text[i] == '"'``."""
    j = i + 1
    while j < len(text) and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _skip_blank(text: str, i: int) -> int:
    """Index of the next character that is not whitespace or inside a comment."""
    n = len(text)
    while i < n:
        if text[i] in " \t\r\n":
            i += 1
        elif text.startswith("//", i):
            i = n if (j := text.find("\n", i)) < 0 else j
        elif text.startswith("/*", i):
            i = n if (j := text.find("*/", i + 2)) < 0 else j + 2
        else:
            break
    return i


def strip_jsonc(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments and trailing commas, leaving strings intact."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = _skip_blank(text, i)
        if j > i:
            out.append(" ")
            i = j
            continue
        if text[i] == '"':
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
            continue
        if text[i] != "," or text[_skip_blank(text, i + 1) : _skip_blank(text, i + 1) + 1] not in (
            "]",
            "}",
        ):
            out.append(text[i])
        i += 1
    return "".join(out)


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _join(folder: str, rel: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, rel)) if folder or rel else ""
    return "" if joined == "." else joined


def _options(path: str, texts: Mapping[str, str], depth: int = 0) -> dict[str, object]:
    """compilerOptions with extends applied; ``baseUrl``/``paths`` made repository-relative."""
    try:
        data = json.loads(strip_jsonc(texts[path]))
    except (KeyError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    merged: dict[str, object] = {}
    parents = data.get("extends")
    for parent in [parents] if isinstance(parents, str) else parents or []:
        if isinstance(parent, str) and parent.startswith(".") and depth < 8:
            target = _join(_folder(path), parent)
            target = target if target.endswith(".json") else target + ".json"
            merged.update(_options(target, texts, depth + 1))
    options = data.get("compilerOptions")
    if isinstance(options, dict):
        if isinstance(options.get("baseUrl"), str):
            merged["baseUrl"] = _join(_folder(path), options["baseUrl"])
        if isinstance(options.get("paths"), dict):
            merged["paths"] = options["paths"]
            merged["pathsFolder"] = _folder(path)
    return merged


def load_tsconfig(path: str, texts: Mapping[str, str]) -> TsConfig:
    """The effective config at ``path`` (a key of ``texts``); unreadable parts are ignored."""
    options = _options(path, texts)
    base_url = options.get("baseUrl")
    base = base_url if isinstance(base_url, str) else None
    anchor = base if base is not None else str(options.get("pathsFolder", _folder(path)))
    raw = options.get("paths")
    paths: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(raw, dict):
        for pattern, subs in raw.items():
            if isinstance(subs, list):
                targets = tuple(_join(anchor, s) for s in subs if isinstance(s, str))
                paths.append((pattern, targets))
    return TsConfig(_folder(path), base, tuple(paths))
