"""Loading the embedding model prints no progress bar: ``doctor`` and a server's log stay
readable (issue 27, point 8)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proximity.sources.runtime import bundled_model_dir

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(bundled_model_dir() is None, reason="the embedding model is not installed")
def test_probing_the_embedding_model_prints_no_progress_bar() -> None:
    probe = "from proximity.sources.runtime import probe_embedding_model as p; print(p().loaded)"
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.stdout.strip() == "True", proc.stderr
    assert "%|" not in proc.stderr
    assert "Loading weights" not in proc.stderr
