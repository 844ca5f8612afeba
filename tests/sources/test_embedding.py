"""The local all-MiniLM-L6-v2 embedder: offline load, spaceId, provenance, degraded mode."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    COVERAGE_DEGRADED,
    BM25Index,
    BM25Ranker,
    DenseRanker,
    PoolSnapshot,
    UnavailableRanker,
    recheck_against,
    run_overlap,
    space_id,
)
from proximity.sources.embedding import (
    EmbeddingUnavailableError,
    SentenceEmbedder,
    default_model_dir,
    dense_ranker_for,
    embed_records_cached,
    weights_sha256,
)
from tests.engine.overlap.builders import LEAD, record


@pytest.fixture(scope="module")
def embedder():
    return SentenceEmbedder()


def test_model_comes_from_the_installed_package_and_loads_offline(embedder):
    assert default_model_dir() is not None
    assert (default_model_dir() / "model.safetensors").is_file()
    vectors = embedder.embed_texts(["fix the order api", "rewrite the pdf renderer"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_space_id_digests_the_space_definition_and_weights(embedder):
    """Requirement 15 on the real model: weights hash, template, pooling, dimension..."""
    space = embedder.space
    weights = default_model_dir() / "model.safetensors"
    digest = hashlib.sha256(b"model.safetensors" + weights.read_bytes()).hexdigest()
    assert space.weights_sha256 == weights_sha256(default_model_dir()) == digest
    assert (space.dimension, space.metric, space.normalization) == (384, "cosine", "l2")
    assert space.pooling == "pooling_mode_mean_tokens"
    assert embedder.space_id.startswith("space:")
    template_only = dataclasses.replace(space, text_template="{objective}")
    assert embedder.space_id == space_id(space) != space_id(template_only)


def test_runtime_provenance_is_kept_beside_the_space(embedder):
    """Requirement 16: device and library versions are not in the space definition."""
    runtime = embedder.runtime()
    assert runtime.device == "cpu"
    assert dict(runtime.library_versions).keys() >= {"torch", "sentence-transformers"}
    assert "cpu" not in str(dataclasses.asdict(embedder.space).values())


def test_paraphrase_is_closer_than_an_unrelated_task(embedder):
    a, b, c = embedder.embed_texts(
        [
            "Speed up the nightly report by caching currency conversion rates",
            "Nightly reporting is slow: memoize the exchange-rate lookups",
            "Add dark mode to the settings page",
        ]
    )
    assert float(a @ b) > float(a @ c)


def test_empty_model_folder_makes_dense_unavailable_and_run_degraded(tmp_path):
    """Issue item 2: a model that cannot load -> dense unavailable with the reason ->
    degraded-lexical-only with a repair record naming the doctor command."""
    broken = SentenceEmbedder(tmp_path)
    with pytest.raises(EmbeddingUnavailableError, match="no weight files"):
        broken.load()
    q = record("Q", "fix the order api validation")
    snapshot = PoolSnapshot.build("s", [q, record("A", "fix the order api")])
    dense = dense_ranker_for(snapshot, broken)
    assert isinstance(dense, UnavailableRanker)
    result = run_overlap(
        q.ref,
        snapshot,
        LEAD,
        BOOTSTRAP_POLICY,
        lexical=BM25Ranker(BM25Index.build(snapshot)),
        dense=dense,
        recheck=recheck_against(snapshot, LEAD),
    )
    assert result.coverage == COVERAGE_DEGRADED
    assert "no weight files" in result.repairs[0].reason
    assert result.repairs[0].route == "python manage.py doctor"


def test_dense_ranker_embeds_only_rows_of_its_own_space(embedder):
    sid = embedder.space_id
    q = record("Q", "fix the order api", space_id=sid)
    snapshot = PoolSnapshot.build(
        "s", [q, record("A", "fix the order api", space_id=sid), record("B", "x", space_id="other")]
    )
    ranker = dense_ranker_for(snapshot, embedder)
    assert isinstance(ranker, DenseRanker)
    assert ranker.index.has_vector.tolist() == [True, True, False]


def test_embedding_cache_is_keyed_by_space_and_text(embedder, tmp_path):
    records = [record("A", "fix the order api")]
    first = embed_records_cached(embedder, records, tmp_path)
    (cached,) = tmp_path.glob("*.npy")
    np.save(cached, np.zeros_like(first))  # a marker: the second call must read the file
    again = embed_records_cached(embedder, records, tmp_path)
    assert not again.any()
    embed_records_cached(embedder, [record("B", "other text")], tmp_path)
    assert len(list(tmp_path.glob("*.npy"))) == 2
