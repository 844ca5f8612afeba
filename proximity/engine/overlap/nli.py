"""Directional NLI features through an injected adapter, with the acceptance checks of the design.

The core assumes no model name, separator, tokenizer limit or label order (requirement 34): an
adapter returns named probabilities and says whether its input was complete. The result is a
feature, never a verdict (requirement 40): no overlap boolean exists anywhere; neutral stays
neutral (requirement 41).
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from proximity.engine.overlap.features import Feature

log = logging.getLogger(__name__)

__all__ = [
    "NLI_LABELS",
    "NliAdapter",
    "NliResponse",
    "check_nli_response",
    "directional_nli_features",
]

NLI_LABELS = ("entailment", "neutral", "contradiction")
_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class NliResponse:
    """What an adapter returns for one (premise, hypothesis) call.

    ``input_status`` is ``"complete"`` or ``"truncated"``; a truncated input is acceptable only
    with a non-empty ``truncation`` disclosure, which is then reported with the feature
    (requirement 39).
    """

    input_status: str
    probabilities: Mapping[str, float]
    truncation: str | None = None


class NliAdapter(Protocol):
    """A premise/hypothesis classifier returning named class probabilities."""

    def __call__(self, premise: str, hypothesis: str) -> NliResponse: ...


def check_nli_response(response: object) -> str | None:
    """Return the reason a response is unusable, or None when it is acceptable (req. 36, 39).

    No renormalisation is ever attempted: a response that does not sum to one is rejected.
    """
    if not isinstance(response, NliResponse):
        return "adapter returned something other than NliResponse"
    if response.input_status == "truncated" and not response.truncation:
        return "undisclosed truncation"
    if response.input_status not in {"complete", "truncated"}:
        return f"input status {response.input_status!r} is not complete"
    probs = response.probabilities
    if set(probs) != set(NLI_LABELS):
        return f"labels {sorted(probs)} are not exactly {list(NLI_LABELS)}"
    values = [probs[label] for label in NLI_LABELS]
    if not all(isinstance(v, float | int) and math.isfinite(v) and 0 <= v <= 1 for v in values):
        return "a probability is not finite in [0, 1]"
    if abs(math.fsum(values) - 1.0) > _SUM_TOLERANCE:
        return f"probabilities sum to {math.fsum(values)!r}, not 1 within 1e-6"
    return None


_POOL_LOCK = threading.Lock()
_POOL: list[concurrent.futures.ThreadPoolExecutor] = []
_POOL_WORKERS = 2


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    """One small pool for every call: a model call that never returns keeps its thread (Python
    threads cannot be killed), so a pool per call leaked one thread per timeout; a shared pool
    bounds them to ``_POOL_WORKERS``, and calls queued behind stuck ones time out as unknown."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(
                concurrent.futures.ThreadPoolExecutor(_POOL_WORKERS, thread_name_prefix="nli")
            )
        return _POOL[0]


def _call_with_timeout(
    adapter: NliAdapter, premise: str, hypothesis: str, timeout_s: float
) -> NliResponse | str:
    future = _pool().submit(adapter, premise, hypothesis)
    try:
        return future.result(timeout=timeout_s)
    except concurrent.futures.TimeoutError:
        future.cancel()  # still queued behind a stuck call: never runs
        return "unknown-nli-timeout"
    except Exception as exc:  # the adapter's own failure: an unknown, and a log line
        log.warning("NLI adapter failed: %s: %s", type(exc).__name__, exc)
        return "unknown-nli-adapter"


def _direction(
    name: str, adapter: NliAdapter, premise: object, hypothesis: object, timeout_s: float
) -> tuple[Feature, ...]:
    if not (isinstance(premise, str) and isinstance(hypothesis, str)):
        return (Feature(f"nli.{name}", "unknown", None, "unknown-nli-input: non-string text"),)
    if not premise.strip() or not hypothesis.strip():
        return (Feature(f"nli.{name}", "unknown", None, "unknown-nli-input: empty or blank text"),)
    outcome = _call_with_timeout(adapter, premise, hypothesis, timeout_s)
    if isinstance(outcome, str):
        return (Feature(f"nli.{name}", "unknown", None, outcome),)
    problem = check_nli_response(outcome)
    if problem is not None:
        return (Feature(f"nli.{name}", "unknown", None, f"unknown-nli-input: {problem}"),)
    detail = f"truncated (disclosed): {outcome.truncation}" if outcome.truncation else None
    return tuple(
        Feature(f"nli.{name}.{label}", "value", float(outcome.probabilities[label]), detail)
        for label in NLI_LABELS
    )


def directional_nli_features(
    text_a: object, text_b: object, adapter: NliAdapter | None, *, timeout_s: float = 5.0
) -> tuple[Feature, ...]:
    """Six class probabilities, A as premise of B and B as premise of A (requirement 35).

    Parameters
    ----------
    text_a, text_b : str
        Declared texts of the two records; anything else is ``unknown-nli-input``.
    adapter : NliAdapter or None
        ``None`` (no model configured) yields one ``unavailable`` feature.
    timeout_s : float, default 5.0
        Bound on each adapter call; a timeout is an unknown status, not a missing feature.

    Returns
    -------
    tuple of Feature
        ``nli.a_to_b.<label>`` and ``nli.b_to_a.<label>``, or one unknown per failed direction.
    """
    if adapter is None:
        return (Feature("nli", "unavailable", None, "no NLI model configured"),)
    return _direction("a_to_b", adapter, text_a, text_b, timeout_s) + _direction(
        "b_to_a", adapter, text_b, text_a, timeout_s
    )
