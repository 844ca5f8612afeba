"""BM25 lexical ranking over the declared text fields of a snapshot (bm25s).

Text preparation is a policy choice (``OverlapPolicy.text_prep``): ``words-v1`` indexes lower-cased
words; ``identifiers-v2`` adds the objective once more, with identifiers split into their parts
(``DFSClient.getBlockLocations`` -> ``dfs client get block locations dfsclient getblocklocations``),
so a task's title weighs twice and a name written as one word, dotted, snake or camel case meets
its parts (variants measured on GitBugs hadoop only, docs/EVALUATION.md).

Scores follow the Lucene variant of BM25 as bm25s implements it (Kamphuis et al., "Which BM25 do
you mean?", ECIR 2020): ``sum_t idf(t) * tf / (tf + k1 * (1 - b + b * dl / avgdl))`` with
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, each distinct query term counted once.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from numpy.typing import NDArray

from proximity.engine.overlap.policy import INDEXABLE_FIELDS, SCOPE_PREP, TEXT_PREPS
from proximity.engine.overlap.rankers import RankerResult, top_by_score
from proximity.engine.overlap.records import TaskRecord
from proximity.engine.overlap.snapshot import Eligible, PoolSnapshot

__all__ = [
    "BM25Index",
    "BM25Ranker",
    "bm25_scores_reference",
    "case_parts",
    "declared_targets",
    "document_tokens",
    "identifier_pieces",
    "identifier_tokens",
    "lucene_idf",
    "query_terms",
    "query_tokens",
    "record_text",
    "tokenize",
    "top_rows",
]

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_STOP = frozenset(STOPWORDS_EN)
_WORDISH = re.compile(r"[\w./:\\-]+")
_SEPARATORS = re.compile(r"[./:\\_-]+")
_CASE_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def record_text(record: TaskRecord, fields: Sequence[str] = INDEXABLE_FIELDS) -> str:
    """The declared text a ranker reads: the indexed fields, undeclared ones left out."""
    parts: list[str] = []
    for name in fields:
        value = getattr(record, name)
        if isinstance(value, tuple):
            parts.extend(value)
        elif value is not None:
            parts.append(value)
    return "\n".join(parts)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens of two or more characters, English stop words removed."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


def identifier_pieces(text: str) -> list[list[str]]:
    """Each word of ``text`` (identifier characters included) as its separated pieces: split on
    dots, slashes, colons, dashes and underscores, case kept. ``a.b_cD x`` gives
    ``[[a, b, cD], [x]]``."""
    words = (m.group(0).strip("./:-\\") for m in _WORDISH.finditer(text))
    return [[p for p in _SEPARATORS.split(word) if p] for word in words]


def case_parts(piece: str) -> list[str]:
    """The parts of one piece split on case changes and digits: ``HTTPServer2`` gives
    ``HTTP Server 2``."""
    return _CASE_PARTS.findall(piece)


def identifier_tokens(text: str) -> list[str]:
    """Identifier-aware tokens: each word split on dots, slashes, dashes, underscores and case
    changes, and each separated piece of a compound kept whole too; stop words and single
    characters dropped. ``HTTPServer2`` gives ``http server httpserver2``."""
    out: list[str] = []
    for pieces in identifier_pieces(text):
        parts = [c.lower() for p in pieces for c in case_parts(p)]
        tokens = [t for t in parts if len(t) > 1 and t not in _STOP]
        if len(parts) > 1:
            seen = set(tokens)
            for piece in (p.lower() for p in pieces):
                if len(piece) > 1 and piece not in _STOP and piece not in seen:
                    tokens.append(piece)
                    seen.add(piece)
        out.extend(tokens)
    return out


def declared_targets(record: TaskRecord) -> list[str]:
    """The plan-sketch targets a record declares (paths, modules), normalised, each once."""
    nodes = record.plan_sketch.nodes if record.plan_sketch else ()
    targets = (n.target.strip().strip("./").lower() for n in nodes if n.target)
    return sorted({t for t in targets if t})


def document_tokens(
    record: TaskRecord, fields: Sequence[str] = INDEXABLE_FIELDS, prep: str = "words-v1"
) -> list[str]:
    """The tokens a record is indexed under: the one text preparation of every lexical index.

    ``prep`` is one of ``TEXT_PREPS``, or ``SCOPE_PREP`` for the scope source's index (the
    declared targets, whatever ``fields``); an unknown name is an error, not a fallback.
    """
    if prep == SCOPE_PREP:
        return declared_targets(record)
    if prep not in TEXT_PREPS:
        raise ValueError(f"prep must be one of {TEXT_PREPS}, got {prep!r}")
    tokens = tokenize(record_text(record, fields))
    if prep == "identifiers-v2" and "objective" in fields and record.objective:
        tokens.extend(identifier_tokens(record.objective))
    return tokens


def query_tokens(
    record: TaskRecord, fields: Sequence[str] = INDEXABLE_FIELDS, prep: str = "words-v1"
) -> list[str]:
    """A record's distinct document tokens in first-seen order: what it asks an index for."""
    return list(dict.fromkeys(document_tokens(record, fields, prep)))


def query_terms(text: str) -> list[str]:
    """The distinct tokens of a query, in first-seen order (each term counted once)."""
    return list(dict.fromkeys(tokenize(text)))


def top_rows(
    scores: NDArray[np.floating[Any]], mask: NDArray[np.bool_], depth: int
) -> tuple[int, ...]:
    """Rows with a positive score inside ``mask``, best first, ties by row, at most ``depth``."""
    return top_by_score(scores, np.flatnonzero(mask & (scores > 0)), depth)


@dataclass(frozen=True, slots=True)
class _Params:
    k1: float
    b: float


class BM25Index:
    """A bm25s index aligned with the rows of one snapshot."""

    def __init__(
        self,
        snapshot_id: str,
        retriever: bm25s.BM25 | None,
        fields: tuple[str, ...],
        params: _Params,
        size: int,
        prep: str = "words-v1",
    ) -> None:
        self.snapshot_id = snapshot_id
        self.fields = fields
        self.prep = prep
        self._retriever = retriever
        self._params = params
        self._size = size
        self.index_id = (
            f"bm25s-lucene:k1={params.k1}:b={params.b}:{','.join(fields)}{_prep_tag(prep)}"
            f"@{snapshot_id}"
        )

    @classmethod
    def build(
        cls,
        snapshot: PoolSnapshot,
        *,
        fields: Sequence[str] = INDEXABLE_FIELDS,
        k1: float = 1.5,
        b: float = 0.75,
        prep: str = "words-v1",
    ) -> BM25Index:
        """Index every record of ``snapshot`` (row order kept). Defaults are bm25s's.

        A corpus without a single indexable token (short words only, say "a", "b", "c") is a
        valid index that scores every row zero: bm25s cannot index an empty vocabulary, so none
        is built and the ranker answers "available, zero candidates" (requirement 18).
        """
        corpus = [document_tokens(r, fields, prep) for r in snapshot.records]
        retriever: bm25s.BM25 | None = None
        if any(corpus):
            retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
            retriever.index(corpus, show_progress=False)
        params = _Params(k1, b)
        return cls(snapshot.snapshot_id, retriever, tuple(fields), params, len(corpus), prep)

    def scores(self, text: str) -> NDArray[np.float32]:
        """BM25 score of every row for the words of ``text`` (zeros when none is indexed)."""
        return self.term_scores(query_terms(text))

    def term_scores(self, terms: Sequence[str]) -> NDArray[np.float32]:
        """BM25 score of every row for distinct ``terms``, each counted once."""
        ids = [] if self._retriever is None else self._retriever.get_tokens_ids(list(terms))
        if self._retriever is None or not ids:
            return np.zeros(self._size, dtype=np.float32)
        return np.asarray(self._retriever.get_scores_from_ids(ids), dtype=np.float32)

    def retrieve(
        self, terms: Sequence[str], mask: NDArray[np.bool_], *, depth: int
    ) -> tuple[int, ...]:
        return top_rows(self.term_scores(terms), mask, depth)

    def idf(self, terms: Sequence[str]) -> dict[str, float]:
        """Lucene IDF of each term over the indexed rows (df 0 for a term not indexed)."""
        vocab = {} if self._retriever is None else self._retriever.vocab_dict
        indptr = None if self._retriever is None else self._retriever.scores["indptr"]
        out = {}
        for term in terms:
            tid = vocab.get(term)
            df = 0 if tid is None or indptr is None else int(indptr[tid + 1] - indptr[tid])
            out[term] = lucene_idf(df, self._size)
        return out


def _prep_tag(prep: str) -> str:
    return "" if prep == "words-v1" else f":{prep}"  # v1 ids stay as they were stored


@dataclass(frozen=True, slots=True)
class BM25Ranker:
    """The lexical ranker: BM25 over the policy's fields of one snapshot's index."""

    index: BM25Index

    def __call__(self, query: TaskRecord, eligible: Eligible, *, depth: int) -> RankerResult:
        if eligible.snapshot_id != self.index.snapshot_id:
            return RankerResult(False, reason="lexical-index-snapshot-mismatch")
        terms = query_tokens(query, self.index.fields, self.index.prep)
        rows = self.index.retrieve(terms, eligible.mask, depth=depth)
        return RankerResult(True, rows, None, self.index.index_id)

    def idf(self, terms: Sequence[str]) -> dict[str, float]:
        return self.index.idf(terms)


def lucene_idf(df: int, n_docs: int) -> float:
    """Lucene's BM25 IDF, ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (Kamphuis et al. 2020)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def bm25_scores_reference(
    query: str, documents: Sequence[str], *, k1: float = 1.5, b: float = 0.75
) -> list[float]:
    """Loop version of Lucene BM25 over raw texts (same tokenizer), for tests and bench."""
    docs = [Counter(tokenize(d)) for d in documents]
    lengths = [sum(d.values()) for d in docs]
    avgdl = sum(lengths) / len(docs)
    scores = [0.0] * len(docs)
    for term in dict.fromkeys(tokenize(query)):
        df = sum(1 for d in docs if term in d)
        if df == 0:
            continue
        idf = lucene_idf(df, len(docs))
        for i, d in enumerate(docs):
            tf = d[term]
            scores[i] += idf * tf / (tf + k1 * (1 - b + b * lengths[i] / avgdl))
    return scores
