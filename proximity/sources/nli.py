"""A directional NLI adapter over a local sequence-classification cross-encoder.

No package ships NLI weights, so the model comes from a configured local folder
(``OVERLAP_NLI_MODEL_DIR``). Label names are read from the model config's ``id2label``; no order
is assumed. The adapter discloses truncation; the engine's ``directional_nli_features`` applies
the acceptance checks and the timeout.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from proximity.engine.overlap.nli import NLI_LABELS, NliResponse

__all__ = ["CrossEncoderNli", "NliModelError", "nli_adapter_for"]


class NliModelError(RuntimeError):
    """The configured NLI model is unusable; the message says why."""


class CrossEncoderNli:
    """Premise/hypothesis probabilities from ``AutoModelForSequenceClassification``.

    Loaded lazily on first call so that configuring a model costs nothing until NLI is used.
    """

    def __init__(self, model_dir: Path | str, *, max_length: int = 512, device: str = "cpu"):
        self.model_dir = Path(model_dir)
        self.max_length = max_length
        self.device = device
        self._loaded: tuple[Any, Any, dict[int, str]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any, dict[int, str]]:
        with self._lock:  # one load even when two feature threads start together
            if self._loaded is None:
                self._loaded = self._read_model()
            return self._loaded

    def _read_model(self) -> tuple[Any, Any, dict[int, str]]:
        if not self.model_dir.is_dir():
            raise NliModelError(f"NLI model folder not found: {self.model_dir}")
        from proximity.sources.runtime import quiet_model_loading

        quiet_model_loading()  # offline, no progress bars; before the heavy import
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(self.model_dir), local_files_only=True)
        model = AutoModelForSequenceClassification.from_pretrained(
            str(self.model_dir), local_files_only=True
        ).to(self.device)
        model.eval()
        labels = {int(i): str(name).lower() for i, name in model.config.id2label.items()}
        if sorted(labels.values()) != sorted(NLI_LABELS):
            raise NliModelError(f"id2label {labels} does not name exactly {list(NLI_LABELS)}")
        return tokenizer, model, labels

    def _limit(self, tokenizer: Any, model: Any) -> int:
        limits = [self.max_length, int(model.config.max_position_embeddings)]
        if isinstance(tokenizer.model_max_length, int) and tokenizer.model_max_length < 1 << 30:
            limits.append(tokenizer.model_max_length)
        return min(limits)

    def __call__(self, premise: str, hypothesis: str) -> NliResponse:
        import torch

        tokenizer, model, labels = self._load()
        limit = self._limit(tokenizer, model)
        full = len(tokenizer(premise, hypothesis, truncation=False)["input_ids"])
        batch = tokenizer(
            premise, hypothesis, truncation=True, max_length=limit, return_tensors="pt"
        ).to(self.device)
        with torch.no_grad():
            logits = model(**batch).logits[0].to(torch.float64)
        probs = torch.softmax(logits, dim=-1).tolist()
        truncated = full > limit
        return NliResponse(
            input_status="truncated" if truncated else "complete",
            probabilities={labels[i]: float(p) for i, p in enumerate(probs)},
            truncation=f"pair of {full} tokens cut to {limit}" if truncated else None,
        )


def nli_adapter_for(model_dir: Path | str | None) -> CrossEncoderNli | None:
    """The adapter for a configured folder, or None (NLI features then read ``unavailable``)."""
    return None if not model_dir else CrossEncoderNli(model_dir)
