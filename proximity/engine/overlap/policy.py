"""The versioned overlap policy; its digest is stored with every run and advisory.

The design names no RRF constant, depth, model or cutoff: each is "locally selected" on development
data and frozen before any holdout (TASK-OVERLAP-REQUIREMENTS.md, background facts). The bootstrap
policy below (RRF k=60 from Cormack et al. 2009, depth 20) is marked provisional until tuned.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from proximity.engine.overlap.plan_sketch import PLAN_RECIPE_VERSION

__all__ = [
    "BOOTSTRAP_POLICY",
    "EMBEDDING_INPUT_MODES",
    "INDEXABLE_FIELDS",
    "REPAIR_ROUTE",
    "SCOPE_PREP",
    "SHIPPED_POLICY",
    "TEXT_PREPS",
    "FeatureRecipe",
    "OverlapPolicy",
    "policy_digest",
]

#: The health command that degraded retrieval names; it is never run automatically (req. 31).
REPAIR_ROUTE = "python manage.py doctor"
INDEXABLE_FIELDS = ("objective", "deliverable", "acceptance")
#: Requirement 32: streaming or partial records are embedded only under one of these.
EMBEDDING_INPUT_MODES = ("full-current-record", "buffered-snapshot", "rolling-window")
#: Lexical text preparations (``lexical.document_tokens``); the first is the engine's default.
TEXT_PREPS = ("words-v1", "identifiers-v2")
#: The preparation of the scope source's index: a record's declared plan-sketch targets.
SCOPE_PREP = "declared-targets-v1"


@dataclass(frozen=True, slots=True)
class FeatureRecipe:
    """How features are computed; versioned with the policy (requirement 46)."""

    plan_recipe: str = PLAN_RECIPE_VERSION
    minhash_num_perm: int = 128
    minhash_seed: int = 1
    simhash_bits: int = 64
    nli_timeout_s: float = 5.0
    review_purposes: tuple[str, ...] = ("independent-review", "review", "audit")
    #: the pair similarities the review stage reads (engine/overlap/similarity.py)
    similarity_recipe: str = "similarity-v1"


@dataclass(frozen=True, slots=True)
class OverlapPolicy:
    """Everything that changes which candidates a run emits.

    Attributes
    ----------
    version : str
        Human name; the digest, not the name, identifies the policy.
    rrf_k : int
        Reciprocal-rank-fusion constant (default 60, Cormack et al. 2009; provisional).
    depth : int
        Maximum candidates per ranked list and per query (requirement 27).
    permits_lexical_only : bool
        Whether a dense outage may degrade to lexical-only (requirement 23).
    fields_indexed : tuple of str
        Record fields in the lexical index and the embedding template.
    fusion : {"rrf"}
        Only rank fusion is allowed in the pipeline (requirement 20); score mixtures are
        evaluated offline but never shipped.
    embedding_input : str
        One of ``EMBEDDING_INPUT_MODES`` (requirement 32).
    text_prep : str
        The lexical text preparation, one of ``TEXT_PREPS``.
    scope_slots : int
        Candidate places, of ``depth``, kept for records that declare a plan target the query
        also declares and that no ranked list found (the scope source; 0 turns it off).
    status : {"provisional", "locally selected", "frozen"}
        "provisional" until tuned on development data.
    """

    version: str = "overlap-policy/0.1.0-bootstrap"
    rrf_k: int = 60
    depth: int = 20
    permits_lexical_only: bool = True
    fields_indexed: tuple[str, ...] = INDEXABLE_FIELDS
    fusion: Literal["rrf"] = "rrf"
    embedding_input: str = "full-current-record"
    text_prep: str = "words-v1"
    scope_slots: int = 0
    features: FeatureRecipe = FeatureRecipe()
    status: Literal["provisional", "locally selected", "frozen"] = "provisional"
    notes: str = "bootstrap values (RRF k=60, depth 20); not tuned"

    def __post_init__(self) -> None:
        if self.rrf_k < 0:
            raise ValueError(f"rrf_k must be >= 0, got {self.rrf_k}")
        if self.depth < 1:
            raise ValueError(f"depth must be >= 1, got {self.depth}")
        bad = [f for f in self.fields_indexed if f not in INDEXABLE_FIELDS]
        if bad or not self.fields_indexed:
            raise ValueError(f"fields_indexed must be a non-empty subset of {INDEXABLE_FIELDS}")
        if self.embedding_input not in EMBEDDING_INPUT_MODES:
            raise ValueError(f"embedding_input must be one of {EMBEDDING_INPUT_MODES}")
        if not 0 <= self.scope_slots <= self.depth:
            raise ValueError(f"scope_slots must be in [0, depth], got {self.scope_slots}")
        if self.text_prep not in TEXT_PREPS:
            raise ValueError(f"text_prep must be one of {TEXT_PREPS}")
        if self.fusion != "rrf":
            raise ValueError("fusion must be 'rrf': score mixtures are never shipped")

    @property
    def digest(self) -> str:
        return policy_digest(self)


@lru_cache(maxsize=64)
def policy_digest(policy: OverlapPolicy) -> str:
    """SHA-256 of the canonical JSON of every policy field (the stored policy identity)."""
    text = json.dumps(dataclasses.asdict(policy), sort_keys=True, separators=(",", ":"))
    return "policy:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


BOOTSTRAP_POLICY = OverlapPolicy()
#: The policy the service and the evaluation command use. Chosen on GitBugs hadoop (development)
#: only: recall-rate@{1,5,10,20} of RRF was identical for k in {5, 10, 20, 30, 60, 100}, so k=60
#: stays; depth 20 is the largest k evaluated; the identifier-aware text preparation gained one
#: query at @1 and one at @20 over plain words (docs/EVALUATION.md, "Variants"). Five of the 20
#: places go to records sharing a declared plan target (bug reports declare none: not measurable
#: there, so a quarter of the depth, by judgement). 0.4.0 adds the pair similarities the review
#: stage reads (``similarity_recipe``): candidates are unchanged. Frozen before its one holdout
#: evaluation; locally selected, not validated (requirement 72): a change after it needs a new
#: holdout.
SHIPPED_POLICY = OverlapPolicy(
    version="overlap-policy/0.4.0-hadoop-dev",
    text_prep="identifiers-v2",
    scope_slots=5,
    status="frozen",
    notes=(
        "RRF k=60, depth 20, identifiers-v2 text and 5 scope-source places locally selected on "
        "GitBugs hadoop (dev); similarity-v1 pair similarities for the review stage; frozen "
        "before the seamonkey holdout"
    ),
)
