"""The cross-encoder NLI adapter on a tiny randomly initialised 3-label BERT built here.

No package ships NLI weights, so the test writes a real (untrained) model and WordPiece vocabulary
to a temporary folder and drives the real loading and inference path (requirements 34-39).
"""

from __future__ import annotations

import math

import pytest
import torch
from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    BM25Index,
    BM25Ranker,
    PoolSnapshot,
    UnavailableRanker,
    recheck_against,
    run_overlap,
)
from proximity.engine.overlap.nli import NLI_LABELS, directional_nli_features
from proximity.sources.nli import CrossEncoderNli, NliModelError, nli_adapter_for
from tests.engine.overlap.builders import LEAD, record

WORDS = ["fix", "the", "order", "api", "validation", "review", "refund", "export", "csv"]


def build_model(folder, id2label):
    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=5 + len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=32,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    BertTokenizer(vocab_file=str(vocab)).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    # label order deliberately not entailment/neutral/contradiction: the adapter reads id2label
    labels = {0: "CONTRADICTION", 1: "entailment", 2: "Neutral"}
    return build_model(tmp_path_factory.mktemp("nli"), labels)


def test_adapter_returns_named_probabilities_from_id2label(model_dir):
    """Requirements 34, 36: labels come from the config, probabilities sum to 1 within 1e-6."""
    response = CrossEncoderNli(model_dir)("fix the order api", "review the refund")
    assert response.input_status == "complete"
    assert response.truncation is None
    assert set(response.probabilities) == set(NLI_LABELS)
    assert math.isclose(sum(response.probabilities.values()), 1.0, abs_tol=1e-6)


def test_real_model_gives_six_directional_features(model_dir):
    """Requirement 35."""
    feats = directional_nli_features("fix the order api", "export csv", CrossEncoderNli(model_dir))
    assert len(feats) == 6
    assert {f.status for f in feats} == {"value"}


def test_input_longer_than_the_model_limit_is_disclosed_truncation(model_dir):
    """Requirement 39: the adapter discloses truncation; the feature reports it."""
    long_text = " ".join(["order"] * 60)
    feats = directional_nli_features(long_text, "fix the api", CrossEncoderNli(model_dir))
    assert {f.status for f in feats} == {"value"}
    assert all("cut to 32" in f.detail for f in feats)


def test_model_with_other_labels_is_an_adapter_failure(tmp_path):
    """Requirements 34, 37: a two-label model is refused; the feature is unknown-nli-adapter."""
    folder = build_model(tmp_path / "two", {0: "yes", 1: "no"})
    with pytest.raises(NliModelError, match="id2label"):
        CrossEncoderNli(folder)("fix", "api")
    feats = directional_nli_features("fix", "api", CrossEncoderNli(folder))
    assert [f.detail for f in feats] == ["unknown-nli-adapter"] * 2


def test_missing_folder_is_adapter_failure_and_no_config_is_unavailable(tmp_path):
    """Issue item 4: without a configured model the NLI features are unavailable."""
    feats = directional_nli_features("a", "b", CrossEncoderNli(tmp_path / "absent"))
    assert [f.detail for f in feats] == ["unknown-nli-adapter"] * 2
    assert nli_adapter_for(None) is None
    (only,) = directional_nli_features("a", "b", nli_adapter_for(""))
    assert only.status == "unavailable"


def test_pipeline_attaches_nli_features_to_advisories(model_dir):
    """NLI joins the features of each advisory and never changes its status (requirement 40)."""
    q = record("Q", "fix the order api validation")
    snapshot = PoolSnapshot.build("s", [q, record("A", "fix the order api")])
    result = run_overlap(
        q.ref,
        snapshot,
        LEAD,
        BOOTSTRAP_POLICY,
        lexical=BM25Ranker(BM25Index.build(snapshot)),
        dense=UnavailableRanker("not needed here"),
        recheck=recheck_against(snapshot, LEAD),
        nli=CrossEncoderNli(model_dir),
    )
    (advisory,) = result.advisories
    nli = [f for f in advisory.features if f.name.startswith("nli.")]
    assert len(nli) == 6
    assert advisory.status == "needs-independent-adjudication"
