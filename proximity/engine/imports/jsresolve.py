"""Resolve JavaScript/TypeScript specifiers to repository files, against a supplied file list.

Relative specifiers, then tsconfig ``paths`` (longest matching prefix first, as TypeScript
picks), then ``baseUrl``, then workspace package names from ``package.json``. Each candidate is
probed as a file, with each extension, with a ``.js`` written for a ``.ts`` source (ESM style),
and as a folder's ``index``.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from proximity.engine.imports.tsconfig import TsConfig, load_tsconfig, strip_jsonc

__all__ = ["JsIndex", "js_index", "resolve_js"]

EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json")
_TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")


@dataclass(frozen=True, slots=True)
class JsIndex:
    """The file set, each folder's effective tsconfig, and in-repo package names."""

    files: frozenset[str]
    configs: Mapping[str, TsConfig]
    packages: Mapping[str, tuple[str, str | None]]


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _packages(texts: Mapping[str, str]) -> dict[str, tuple[str, str | None]]:
    out = {}
    for path, text in texts.items():
        if path == "package.json" or path.endswith("/package.json"):
            try:
                data = json.loads(strip_jsonc(text))
            except ValueError:
                continue
            if isinstance(data, dict) and isinstance(data.get("name"), str):
                entry = next(
                    (
                        data[k]
                        for k in ("source", "types", "module", "main")
                        if isinstance(data.get(k), str)
                    ),
                    None,
                )
                out[data["name"]] = (_folder(path), entry)
    return out


def js_index(files: frozenset[str], texts: Mapping[str, str]) -> JsIndex:
    """Build once per file set: ``texts`` holds the tsconfig/jsconfig/package.json contents."""
    configs = {
        _folder(p): load_tsconfig(p, texts)
        for p in sorted(texts)
        if p.rsplit("/", 1)[-1] in CONFIG_NAMES
    }
    return JsIndex(files, configs, _packages(texts))


def _config_for(index: JsIndex, importer: str) -> TsConfig | None:
    folder = _folder(importer)
    while True:
        if folder in index.configs:
            return index.configs[folder]
        if not folder:
            return None
        folder = _folder(folder)


def _probe(files: frozenset[str], target: str) -> str | None:
    if target in files:
        return target
    for ext in EXTENSIONS:
        if target + ext in files:
            return target + ext
    stem, dot, ext = target.rpartition(".")
    for alt in _TS_FOR_JS.get(dot + ext, ()):
        if stem + alt in files:
            return stem + alt
    for ext in EXTENSIONS:
        if f"{target}/index{ext}" in files:
            return f"{target}/index{ext}"
    return None


def _norm(folder: str, spec: str) -> str | None:
    joined = posixpath.normpath(posixpath.join(folder, spec))
    return None if joined.startswith("..") else joined.removeprefix("./")


def _via_paths(index: JsIndex, config: TsConfig, spec: str) -> str | None:
    ranked = sorted(config.paths, key=lambda p: -len(p[0].split("*", 1)[0]))
    for pattern, targets in ranked:
        head, star, tail = pattern.partition("*")
        if star and spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head + tail):
            middle = spec[len(head) : len(spec) - len(tail)]
        elif not star and spec == pattern:
            middle = ""
        else:
            continue
        for target in targets:
            found = _probe(index.files, target.replace("*", middle, 1))
            if found:
                return found
    return None


def _via_package(index: JsIndex, spec: str) -> str | None:
    for name, (folder, entry) in index.packages.items():
        if spec == name:
            main = _norm(folder, entry) if entry else None
            return (
                (_probe(index.files, main) if main else None)
                or _probe(index.files, f"{folder}/src/index".lstrip("/"))
                or _probe(index.files, f"{folder}/index".lstrip("/"))
            )
        if spec.startswith(name + "/"):
            rest = spec[len(name) + 1 :]
            return _probe(index.files, f"{folder}/{rest}".lstrip("/")) or _probe(
                index.files, f"{folder}/src/{rest}".lstrip("/")
            )
    return None


def resolve_js(index: JsIndex, importer: str, spec: str) -> str | None:
    """The repository file ``spec`` names from ``importer``, or ``None`` (external/unknown)."""
    if spec.startswith("."):
        target = _norm(_folder(importer), spec)
        return _probe(index.files, target) if target is not None else None
    if spec.startswith("/") or ":" in spec:  # absolute file paths, URLs, node: builtins
        return None
    config = _config_for(index, importer)
    if config is not None:
        found = _via_paths(index, config, spec)
        if found is None and config.base_url is not None:
            target = _norm(config.base_url, spec)
            found = _probe(index.files, target) if target else None
        if found:
            return found
    return _via_package(index, spec)
