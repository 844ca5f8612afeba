from __future__ import annotations

import json

import pytest

from proximity.engine.imports import (
    EdgeFlags,
    ImportSite,
    ParsedImports,
    build_resolver,
    resolve_file,
)
from proximity.engine.imports.tsconfig import load_tsconfig, strip_jsonc

PY_FILES = [
    "src/pkg/__init__.py",
    "src/pkg/a.py",
    "src/pkg/sub/__init__.py",
    "src/pkg/sub/b.py",
    "tests/test_a.py",
    "tools/json.py",
    "tools/run.py",
    "ns/mod.py",
    "setup.py",
]


def _py(importer: str, site: ImportSite, files: list[str] = PY_FILES) -> list[str]:
    resolver = build_resolver(files, {})
    return sorted(resolve_file(resolver, importer, ParsedImports("python", (site,))))


@pytest.mark.parametrize(
    ("importer", "site", "expected"),
    [
        # src layout: `src/` is a root because it is not a package
        ("tests/test_a.py", ImportSite("pkg", names=("a",)), ["src/pkg/a.py"]),
        ("tests/test_a.py", ImportSite("pkg.sub.b"), ["src/pkg/sub/b.py"]),
        # a name that is not a submodule couples to the package's __init__
        ("tests/test_a.py", ImportSite("pkg.sub", names=("Thing",)), ["src/pkg/sub/__init__.py"]),
        # relative imports, from . import x, and the package itself
        ("src/pkg/sub/b.py", ImportSite("", level=2, names=("a",)), ["src/pkg/a.py"]),
        ("src/pkg/a.py", ImportSite("", level=1, names=("sub",)), ["src/pkg/sub/__init__.py"]),
        (
            "src/pkg/sub/b.py",
            ImportSite("", level=1, names=("helper",)),
            ["src/pkg/sub/__init__.py"],
        ),
        ("src/pkg/sub/__init__.py", ImportSite("b", level=1), ["src/pkg/sub/b.py"]),
        # a missing submodule still couples to the deepest existing package
        ("setup.py", ImportSite("pkg.sub.b.Missing"), ["src/pkg/sub/b.py"]),
        # namespace package (no __init__.py)
        ("setup.py", ImportSite("ns.mod"), ["ns/mod.py"]),
        # stdlib names are not captured by a scripts folder, except for its own siblings
        ("src/pkg/a.py", ImportSite("json"), []),
        ("tools/run.py", ImportSite("json"), ["tools/json.py"]),
        # external packages resolve to nothing
        ("src/pkg/a.py", ImportSite("numpy"), []),
        # relative import above the repository root resolves to nothing
        ("setup.py", ImportSite("x", level=3), []),
    ],
)
def test_python_resolution(importer: str, site: ImportSite, expected: list[str]) -> None:
    assert _py(importer, site) == expected


def test_nearest_candidate_wins_when_a_name_is_ambiguous() -> None:
    files = ["svc_a/util.py", "svc_a/main.py", "svc_b/util.py", "svc_b/main.py"]
    assert _py("svc_b/main.py", ImportSite("util"), files) == ["svc_b/util.py"]
    assert _py("svc_a/main.py", ImportSite("util"), files) == ["svc_a/util.py"]


def test_flags_combine_to_the_weakest_claim() -> None:
    resolver = build_resolver(["a.py", "b.py"], {})
    parsed = ParsedImports(
        "python", (ImportSite("b", type_only=True), ImportSite("b", names=("x",), conditional=True))
    )
    assert resolve_file(resolver, "a.py", parsed) == {"b.py": EdgeFlags()}
    typed = ParsedImports("python", (ImportSite("b", type_only=True),))
    assert resolve_file(resolver, "a.py", typed) == {"b.py": EdgeFlags(type_only=True)}


JS_FILES = [
    "web/tsconfig.json",
    "web/tsconfig.base.json",
    "web/src/app.tsx",
    "web/src/lib/index.ts",
    "web/src/lib/math.ts",
    "web/src/util.js",
    "web/src/data.json",
    "web/src/esm.ts",
    "web/shared/log.ts",
    "packages/ui/package.json",
    "packages/ui/src/index.ts",
    "packages/ui/src/button.tsx",
    "plain/a.js",
    "plain/b.mjs",
]
CONFIGS = {
    "web/tsconfig.base.json": '{"compilerOptions": {"baseUrl": "./src"}}',
    "web/tsconfig.json": """{
        // comments and trailing commas, as tsc accepts them
        "extends": "./tsconfig.base",
        "compilerOptions": {
            "paths": {"@lib/*": ["lib/*"], "@shared/*": ["../shared/*"], "~": ["lib"],},
            /* "paths": {"@bad/*": ["nowhere/*"]} */
        },
    }""",
    "packages/ui/package.json": '{"name": "@acme/ui", "main": "src/index.ts"}',
}


@pytest.mark.parametrize(
    ("importer", "spec", "expected"),
    [
        ("web/src/app.tsx", "./util", "web/src/util.js"),
        ("web/src/app.tsx", "./lib", "web/src/lib/index.ts"),
        ("web/src/app.tsx", "./data.json", "web/src/data.json"),
        ("web/src/app.tsx", "./esm.js", "web/src/esm.ts"),  # ESM-style .js naming a .ts file
        ("web/src/app.tsx", "@lib/math", "web/src/lib/math.ts"),
        ("web/src/app.tsx", "@shared/log", "web/shared/log.ts"),
        ("web/src/app.tsx", "~", "web/src/lib/index.ts"),
        ("web/src/app.tsx", "lib/math", "web/src/lib/math.ts"),  # baseUrl from extends
        ("web/src/app.tsx", "@acme/ui", "packages/ui/src/index.ts"),
        ("web/src/app.tsx", "@acme/ui/button", "packages/ui/src/button.tsx"),
        ("web/src/app.tsx", "react", None),
        ("web/src/app.tsx", "node:fs", None),
        ("plain/a.js", "./b", "plain/b.mjs"),
        ("plain/a.js", "lib/math", None),  # no tsconfig above plain/
        ("plain/a.js", "../../outside", None),
    ],
)
def test_js_resolution(importer: str, spec: str, expected: str | None) -> None:
    resolver = build_resolver(JS_FILES, CONFIGS)
    found = resolve_file(resolver, importer, ParsedImports("tsx", (ImportSite(spec),)))
    assert list(found) == ([expected] if expected else [])


def test_strip_jsonc_keeps_comment_markers_inside_strings() -> None:
    text = '{"a": "http://x/*y*/", // c\n "b": [1, 2,], /* d */ "c": "\\"//"}'
    assert json.loads(strip_jsonc(text)) == {"a": "http://x/*y*/", "b": [1, 2], "c": '"//'}


def test_paths_without_base_url_resolve_from_the_config_folder() -> None:
    config = load_tsconfig(
        "app/tsconfig.json",
        {"app/tsconfig.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}'},
    )
    assert config.base_url is None
    assert config.paths == (("@/*", ("app/src/*",)),)


def test_go_imports_within_the_module_couple_to_every_package_file() -> None:
    files = [
        "go.mod",
        "cmd/main.go",
        "pkg/store/db.go",
        "pkg/store/cache.go",
        "pkg/store/db_test.go",
    ]
    resolver = build_resolver(files, {"go.mod": "module example.com/shop\n\ngo 1.22\n"})
    parsed = ParsedImports("go", (ImportSite("example.com/shop/pkg/store"), ImportSite("fmt")))
    assert sorted(resolve_file(resolver, "cmd/main.go", parsed)) == [
        "pkg/store/cache.go",
        "pkg/store/db.go",
    ]
