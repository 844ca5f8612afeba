"""The symbol index: references resolved across modules, built incrementally."""

from __future__ import annotations

import hashlib

from proximity.engine.imports import build_resolver
from proximity.engine.symbols import SymbolIndex, extract_python_symbols

TREE = {
    "pkg/__init__.py": "from pkg.core import Engine\n",
    "pkg/core.py": (
        "class Engine:\n"
        "    def start(self):\n"
        "        return self.spin()\n\n"
        "    def spin(self):\n"
        "        return 1\n\n\n"
        "def build():\n"
        "    return Engine()\n"
    ),
    "pkg/tools.py": "from .core import *\n\n\ndef helper():\n    return build()\n",
    "app/main.py": (
        "import pkg.core\n"
        "from pkg import Engine\n"
        "from pkg.tools import helper as h\n\n\n"
        "def run():\n"
        "    engine = Engine()\n"
        "    pkg.core.build()\n"
        "    return h(), Engine.spin\n"
    ),
    "app/other.py": "def unrelated():\n    return 0\n",
}


def _blob(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def _index(tree: dict[str, str], previous: SymbolIndex | None = None) -> SymbolIndex:
    files = {p: extract_python_symbols(t) for p, t in tree.items()}
    blobs = {p: _blob(t) for p, t in tree.items()}
    return SymbolIndex.build(files, blobs, build_resolver(list(tree), {}), previous=previous)


def test_references_resolve_through_imports_re_exports_and_stars() -> None:
    index = _index(TREE)
    assert set(index.uses("app/main.py::run")) == {
        "pkg/core.py::Engine",  # from pkg import Engine, re-exported by pkg/__init__.py
        "pkg/core.py::build",  # import pkg.core; pkg.core.build()
        "pkg/tools.py::helper",  # an aliased from-import
        "pkg/core.py::Engine.spin",  # a member through the class
    }
    assert index.uses("pkg/tools.py::helper") == ("pkg/core.py::build",)  # a star import
    assert index.uses("pkg/core.py::Engine.start") == ("pkg/core.py::Engine.spin",)  # self.
    assert set(index.users("pkg/core.py::build")) == {"app/main.py::run", "pkg/tools.py::helper"}
    assert index.unique_callable("spin") == "pkg/core.py::Engine.spin"
    assert index.definition("pkg/core.py::Engine.spin") is not None


def test_an_edit_relinks_only_the_file_and_those_that_read_its_changed_surface() -> None:
    first = _index(TREE)
    assert len(first.relinked) == len(TREE)
    body_only = {**TREE, "app/other.py": "def unrelated():\n    return 1\n"}
    second = _index(body_only, previous=first)
    assert second.relinked == ("app/other.py",)
    renamed = {**body_only, "pkg/core.py": TREE["pkg/core.py"].replace("def build", "def make")}
    third = _index(renamed, previous=second)
    # core's surface changed: it, and every file whose lookups read it, are linked again
    assert set(third.relinked) == {"pkg/core.py", "pkg/tools.py", "app/main.py", "pkg/__init__.py"}
    assert "pkg/core.py::build" not in third.uses("app/main.py::run")
    assert third.uses("app/main.py::run") == _index(renamed).uses("app/main.py::run")
