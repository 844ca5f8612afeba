"""The constructed suite of issue 14, item 6, for the merge check: what only the merge breaks.

Each case is a base tree, side A and side B as ``{path: text}`` and the merged tree as git's
clean merge would write it (here: the union of the sides' files, each file from the side that
changed it). What the static check catches is names, not arity or types: a signature change
against a new call byte-compiles and resolves, and is the symbol channel's to flag.
"""

from __future__ import annotations

import pytest

from proximity.engine.mergecheck import Problem, merge_check, merge_only

UTIL = "def helper(x):\n    return x * 2\n"
MAIN = "from app.util import helper\n\n\ndef run():\n    return helper(1)\n"
BASE = {"app/__init__.py": "", "app/util.py": UTIL, "app/main.py": MAIN}


def _sides(a: dict[str, str], b: dict[str, str]) -> tuple[dict[str, str], ...]:
    side_a, side_b = {**BASE, **a}, {**BASE, **b}
    merged = {**BASE, **a, **b}
    return side_a, side_b, {p: t for p, t in merged.items() if t is not None}


def _keys(result: list[Problem] | tuple[Problem, ...]) -> set[tuple[str, str, str]]:
    return {p.key for p in result}


def test_rename_against_a_caller_added_on_the_other_side_is_found() -> None:
    renamed = {
        "app/util.py": UTIL.replace("helper", "assist"),
        "app/main.py": MAIN.replace("helper", "assist"),
    }
    caller = {
        "app/report.py": "from app.util import helper\n\n\ndef total():\n    return helper(3)\n"
    }
    result = merge_check(*_sides(renamed, caller))
    assert _keys(result.problems) == {("unresolved-name", "app/report.py", "app.util:helper")}
    assert "cannot import name 'helper'" in result.problems[0].message


def test_rename_against_a_caller_in_the_same_module_is_an_undefined_name() -> None:
    renamed = {"app/util.py": UTIL.replace("helper", "assist")}
    caller = {"app/util.py": UTIL + "\n\ndef twice(x):\n    return helper(helper(x))\n"}
    side_a, side_b, _ = _sides(renamed, caller)
    merged = {**BASE, "app/util.py": "def assist(x):\n    return x * 2\n\n\ndef twice(x):\n"
              "    return helper(helper(x))\n"}  # fmt: skip
    result = merge_check(side_a, side_b, merged)
    assert ("undefined-name", "app/util.py", "helper") in _keys(result.problems)


def test_removed_export_against_a_new_module_attribute_use_is_found() -> None:
    removed = {
        "app/util.py": "def other():\n    return 0\n",
        "app/main.py": "def run():\n    return 1\n",
    }
    uses = {"app/cli.py": "import app.util\n\n\ndef go():\n    return app.util.helper(2)\n"}
    result = merge_check(*_sides(removed, uses))
    assert _keys(result.problems) == {("missing-attribute", "app/cli.py", "app.util.helper")}


def test_removed_module_against_a_new_import_is_an_unresolved_module() -> None:
    gone = {"app/util.py": None, "app/main.py": "def run():\n    return 1\n"}
    uses = {"app/cli.py": "from app import util\nfrom app.util import helper\n"}
    side_a, side_b, merged = _sides(gone, uses)
    side_a = {p: t for p, t in side_a.items() if t is not None}
    keys = _keys(merge_check(side_a, side_b, merged).problems)
    assert keys == {
        ("unresolved-name", "app/cli.py", "app:util"),
        ("unresolved-module", "app/cli.py", "app.util"),
    }


def test_signature_change_against_a_new_call_resolves_and_is_not_a_build_problem() -> None:
    changed = {
        "app/util.py": "def helper(x, y):\n    return x * y\n",
        "app/main.py": MAIN.replace("(1)", "(1, 2)"),
    }
    call = {"app/report.py": "from app.util import helper\n\nTOTAL = helper(3)\n"}
    assert merge_check(*_sides(changed, call)).problems == ()


def test_migration_leaf_collision_is_found_and_a_merge_migration_clears_it() -> None:
    initial = (
        "from django.db import migrations\n\n\n"
        "class Migration(migrations.Migration):\n    dependencies = []\n"
    )
    child = (
        "from django.conf import settings\nfrom django.db import migrations\n\n\n"
        "class Migration(migrations.Migration):\n"
        "    dependencies = [migrations.swappable_dependency(settings.AUTH_USER_MODEL), "
        "('blog', '0001_initial')]\n"
    )
    base = {
        "blog/__init__.py": "",
        "blog/migrations/__init__.py": "",
        "blog/migrations/0001_initial.py": initial,
    }
    a = {**base, "blog/migrations/0002_tags.py": child}
    b = {**base, "blog/migrations/0002_authors.py": child}
    merged = {**a, **b}
    found = merge_check(a, b, merged).problems
    assert _keys(found) == {("migration-conflict", "blog/migrations", "blog")}
    assert "0002_authors, 0002_tags" in found[0].message
    joined = child.replace(
        "('blog', '0001_initial')", "('blog', '0002_tags'), ('blog', '0002_authors')"
    )
    fixed = {**merged, "blog/migrations/0003_merge.py": joined}
    assert merge_check(a, b, fixed).problems == ()


def test_identical_refactors_on_both_sides_leave_nothing_merge_only() -> None:
    refactor = {
        "app/util.py": UTIL.replace("helper", "assist"),
        "app/main.py": MAIN.replace("helper", "assist"),
    }
    assert merge_check(*_sides(refactor, dict(refactor))).problems == ()


def test_a_problem_one_side_has_alone_is_not_reported() -> None:
    broken = {"app/main.py": MAIN + "\n\ndef later():\n    return undefined_thing\n"}
    other = {"app/extra.py": "VALUE = 1\n"}
    side_a, side_b, merged = _sides(broken, other)
    result = merge_check(side_a, side_b, merged)
    assert result.problems == ()
    assert result.counts["a"] == 1
    assert result.counts["merged"] == 1


def test_a_line_shift_does_not_make_an_old_problem_new() -> None:
    old = Problem("undefined-name", "app/main.py", "thing", "line 3", 3)
    moved = Problem("undefined-name", "app/main.py", "thing", "line 9", 9)
    new = Problem("undefined-name", "app/main.py", "other", "line 4", 4)
    assert merge_only([moved, new], [old], []) == [new]


@pytest.mark.parametrize(
    "text",
    [
        "try:\n    from app.util import gone\nexcept ImportError:\n    gone = None\n",
        "from app.util import *\n\n\ndef f():\n    return nowhere\n",
        "import app.util\n\nif hasattr(app.util, 'gone'):\n    app.util.gone()\n",
        "def f():\n    try:\n        return later\n    except NameError:\n        return None\n",
    ],
)
def test_what_cannot_be_told_is_never_reported(text: str) -> None:
    removed = {
        "app/util.py": "def kept():\n    return 0\n",
        "app/main.py": "def run():\n    return 1\n",
    }
    result = merge_check(*_sides(removed, {"app/guarded.py": text}))
    assert result.problems == ()
