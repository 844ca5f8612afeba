"""Task-overlap speed: one new record against 1k, 10k and 100k active records (seeded, synthetic).

Prints, per pool size: index build times, median/p95 latency of ``run_overlap`` excluding and
including the query embedding, and the ratio of the vectorised dense and BM25 scorers to their
loop references measured in the same run; then bulk embedding throughput of the local model.

    .venv/bin/python -m bench.overlap                      # default: 1k, 10k, 100k; 30 queries
    .venv/bin/python -m bench.overlap --sizes 1000 --queries 10 --embed-sample 200
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    BM25Index,
    BM25Ranker,
    DenseIndex,
    DenseRanker,
    PoolSnapshot,
    Provenance,
    TaskRecord,
    Viewer,
    recheck_against,
    record_text,
    run_overlap,
)
from proximity.engine.overlap.dense import cosine_top_reference
from proximity.engine.overlap.lexical import bm25_scores_reference

SEED = 20261129
DIM = 384
SPACE = "space:bench"
SCOPES = ("payments", "search", "billing", "infra", "web")
VIEWER = Viewer("bench", frozenset(SCOPES[:4]), frozenset({"internal"}))


#: Plain software vocabulary for the embedding sample, so word pieces per record are realistic.
PLAIN = [
    "add",
    "fix",
    "remove",
    "update",
    "refactor",
    "test",
    "validate",
    "cache",
    "order",
    "invoice",
    "payment",
    "refund",
    "export",
    "import",
    "report",
    "nightly",
    "api",
    "endpoint",
    "service",
    "database",
    "driver",
    "connection",
    "pool",
    "replica",
    "query",
    "index",
    "search",
    "ranking",
    "page",
    "settings",
    "user",
    "account",
    "login",
    "session",
    "token",
    "timeout",
    "retry",
    "error",
    "log",
    "metric",
    "alert",
    "deploy",
    "build",
    "release",
    "version",
    "config",
    "flag",
    "feature",
    "migration",
    "schema",
    "table",
    "column",
    "field",
    "value",
    "rate",
    "currency",
    "total",
    "rounding",
    "csv",
    "json",
    "stream",
    "upload",
    "download",
    "file",
    "path",
]


def plain_texts(n: int, *, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_words(rng, PLAIN, rng.randint(20, 30)) for _ in range(n)]


def _words(rng: random.Random, vocab: Sequence[str], n: int) -> str:
    return " ".join(rng.choice(vocab) for _ in range(n))


def synthetic_records(n: int, *, seed: int = SEED, prefix: str = "T") -> list[TaskRecord]:
    """``n`` declared tasks over a 5,000-word vocabulary; 1 % in another space, 5 % secret."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    return [
        TaskRecord(
            task_id=f"{prefix}{i}",
            work_version=1,
            scope=rng.choice(SCOPES),
            objective=_words(rng, vocab, rng.randint(8, 12)),
            deliverable=_words(rng, vocab, rng.randint(6, 10)),
            acceptance=tuple(_words(rng, vocab, 5) for _ in range(rng.randint(1, 2))),
            provenance=Provenance(owner=f"agent-{i % 50}"),
            disclosure=frozenset({"internal", "secret"} if rng.random() < 0.05 else {"internal"}),
            dependencies=(),
            purpose="implementation",
            space_id="space:other" if rng.random() < 0.01 else SPACE,
        )
        for i in range(n)
    ]


def unit_rows(n: int, *, seed: int) -> NDArray[np.float32]:
    matrix = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    unit: NDArray[np.float32] = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return unit


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


class Pool:
    """A snapshot of ``n`` pool records plus the query records, with both indexes built once."""

    def __init__(self, n: int, queries: int) -> None:
        records = synthetic_records(n) + synthetic_records(queries, seed=SEED + 1, prefix="Q")
        self.queries = records[n:]
        self.build_s: dict[str, float] = {}
        self.build_s["snapshot"], self.snapshot = timed(lambda: PoolSnapshot.build("b", records))
        self.build_s["bm25"], self.bm25 = timed(lambda: BM25Index.build(self.snapshot))
        matrix = unit_rows(len(records), seed=n)
        vectors = [matrix[i] if r.space_id == SPACE else None for i, r in enumerate(records)]
        self.build_s["dense"], self.dense = timed(
            lambda: DenseIndex.build(self.snapshot, vectors, space_id=SPACE)
        )

    def run(self, query: TaskRecord, vector: NDArray[np.float32] | None = None) -> Any:
        return run_overlap(
            query.ref,
            self.snapshot,
            VIEWER,
            BOOTSTRAP_POLICY,
            lexical=BM25Ranker(self.bm25),
            dense=DenseRanker(self.dense, self.snapshot, query_vector=vector),
            recheck=recheck_against(self.snapshot, VIEWER),
        )


def reference_ratio(pool: Pool, repeats: int) -> tuple[float, float]:
    """Brute-force cosine loop time / vectorised dense retrieve time (same query, same rows)."""
    mask = np.ones(len(pool.snapshot), dtype=np.bool_)
    query = pool.dense.matrix[-1]
    fast = min(timed(lambda: pool.dense.retrieve(query, mask, depth=20))[0] for _ in range(5))
    rows = [
        list(map(float, r)) if has else None
        for r, has in zip(pool.dense.matrix, pool.dense.has_vector, strict=True)
    ]
    slow, ref = timed(lambda: cosine_top_reference(list(map(float, query)), rows, depth=20))
    got = pool.dense.retrieve(query, mask, depth=20)
    assert list(got[:5]) == ref[:5], "vectorised dense top-5 differs from the reference"
    return slow, slow / fast


def bm25_ratio(pool: Pool) -> float:
    texts = [record_text(r) for r in pool.snapshot.records]
    query = record_text(pool.queries[0])
    fast = min(timed(lambda: pool.bm25.scores(query))[0] for _ in range(5))
    slow, ref = timed(lambda: bm25_scores_reference(query, texts))
    assert np.allclose(pool.bm25.scores(query), ref, atol=1e-4), "BM25 differs from reference"
    return slow / fast


def measure_size(n: int, queries: int, embed: Callable[[str], Any] | None) -> None:
    pool = Pool(n, queries)
    builds = ", ".join(f"{k} {v:.2f} s" for k, v in pool.build_s.items())
    print(f"\n== pool {n:,} (+{queries} queries): build {builds}")
    pool.run(pool.queries[0])  # warm-up
    floor = [timed(lambda: pool.dense.matrix @ pool.dense.matrix[0])[0] * 1000 for _ in range(9)]
    print(f"floor: one exact float32 mat-vec over the pool p50 {statistics.median(floor):.1f} ms")
    times = [timed(functools.partial(pool.run, q))[0] * 1000 for q in pool.queries]
    run = pool.run(pool.queries[0])
    print(
        f"run_overlap excl. embedding: p50 {statistics.median(times):.1f} ms, "
        f"p95 {pct(times, 95):.1f} ms  ({len(run.advisories)} advisories, "
        f"{len(run.omissions)} omissions, coverage {run.coverage})"
    )
    if embed is not None:

        def embedded(query: TaskRecord) -> Any:
            return pool.run(query, embed(record_text(query)))

        sample = pool.queries[: min(queries, 15)]
        total = [timed(functools.partial(embedded, q))[0] * 1000 for q in sample]
        print(
            f"run_overlap incl. embedding: p50 {statistics.median(total):.1f} ms, "
            f"p95 {pct(total, 95):.1f} ms"
        )
    if n <= 10_000:
        slow, ratio = reference_ratio(pool, 1)
        print(f"dense top-20: reference loop {slow * 1000:.0f} ms, vectorised x{ratio:,.0f} faster")
    if n <= 1_000:
        print(f"BM25 scores: vectorised (bm25s) x{bm25_ratio(pool):,.0f} faster than the loop")


def measure_embedding(sample: int) -> Callable[[str], Any]:
    from proximity.sources.embedding import SentenceEmbedder

    embedder = SentenceEmbedder()
    load, _ = timed(embedder.load)
    texts = plain_texts(sample, seed=SEED + 2)
    bulk, _ = timed(lambda: embedder.embed_texts(texts))
    singles = [timed(functools.partial(embedder.embed_texts, [t]))[0] * 1000 for t in texts[:20]]
    rate = sample / bulk
    print(
        f"\n== embedding (all-MiniLM-L6-v2, cpu): load {load:.1f} s; bulk {rate:.0f} records/s "
        f"({sample} records in {bulk:.1f} s) -> 10,000 records ~ {10_000 / rate:.0f} s; "
        f"single query p50 {statistics.median(singles):.1f} ms, p95 {pct(singles, 95):.1f} ms"
    )
    # The same bulk batch pinned to one torch thread: the baseline of embed_texts's bulk mode.
    import torch

    narrow, _ = timed(lambda: embedder._encode(texts))  # the one-thread baseline
    print(
        f"   bulk at one torch thread ({torch.get_num_threads()}): {sample / narrow:.0f} records/s"
        f" -> 10,000 records ~ {10_000 * narrow / sample:.0f} s; bulk mode is "
        f"{narrow / bulk:.2f}x faster"
    )
    return lambda text: embedder.embed_texts([text])[0]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--embed-sample", type=int, default=500, help="0 skips the model")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    embed = measure_embedding(args.embed_sample) if args.embed_sample else None
    for n in (int(s) for s in args.sizes.split(",")):
        measure_size(n, args.queries, embed)


if __name__ == "__main__":
    main()
