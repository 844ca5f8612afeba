"""The overlap engine loads no Django and no model libraries."""

from __future__ import annotations

import subprocess
import sys


def test_overlap_engine_imports_without_django_or_models():
    code = (
        "import sys, proximity.engine.overlap, proximity.engine.evaluation.recall_rate;"
        "import proximity.engine.overlap.retrieval_eval, proximity.engine.overlap.telemetry;"
        "bad = [m for m in ('django', 'celery', 'dash', 'torch', 'sentence_transformers',"
        " 'transformers', 'datasketch') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
