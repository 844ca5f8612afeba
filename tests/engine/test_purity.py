"""The engine and the sources import no Django, Celery or Dash (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _modules_under(package: str) -> list[str]:
    base = ROOT / package.replace(".", "/")
    names = []
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def test_engine_and_sources_import_without_django_celery_or_dash() -> None:
    modules = _modules_under("proximity.engine") + _modules_under("proximity.sources")
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "roots = {'django', 'celery', 'dash', 'ninja'}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in roots)\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
    assert "proximity.engine" in modules
