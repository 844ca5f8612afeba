from __future__ import annotations

import pytest

from proximity.engine.imports import ImportSite, parse_python_imports

SOURCE = '''
"""import not_a_module"""
from __future__ import annotations
import os, pkg.sub as ps
from . import sibling
from ..parent import thing, other
from typing import TYPE_CHECKING
# import commented_out
text = "import in_a_string"

if TYPE_CHECKING:
    from pkg.types import Model
else:
    import runtime_only

try:
    import fast_json
except ImportError:
    fast_json = None

def lazy():
    import heavy

class Config:
    import in_class_body

mod = importlib.import_module("plugins.alpha")
'''


def test_every_kind_of_import_with_its_flags() -> None:
    parsed = parse_python_imports(SOURCE)
    assert parsed.error is None
    assert parsed.sites == (
        ImportSite("os"),
        ImportSite("pkg.sub"),
        ImportSite("", level=1, names=("sibling",)),
        ImportSite("parent", level=2, names=("thing", "other")),
        ImportSite("typing", names=("TYPE_CHECKING",)),
        ImportSite("pkg.types", names=("Model",), type_only=True),
        ImportSite("runtime_only", conditional=True),
        ImportSite("fast_json", conditional=True),
        ImportSite("heavy", conditional=True),
        ImportSite("in_class_body"),
        ImportSite("plugins.alpha", conditional=True, dynamic=True),
    )


def test_star_import_keeps_the_module_without_names() -> None:
    (site,) = parse_python_imports("from pkg.mod import *\n").sites
    assert site == ImportSite("pkg.mod")


def test_typing_dot_type_checking_is_type_only() -> None:
    source = "import typing\nif typing.TYPE_CHECKING:\n    import a\n"
    assert parse_python_imports(source).sites[1] == ImportSite("a", type_only=True)


@pytest.mark.parametrize("source", ["def broken(:\n", b"\x00\x01"])
def test_unparsable_file_reports_error_and_no_sites(source: str | bytes) -> None:
    parsed = parse_python_imports(source)
    assert parsed.sites == ()
    assert parsed.error is not None
