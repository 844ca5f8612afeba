"""Concurrent pull-request pairs and their two-stratum, seeded sample (BACKTEST-NOTES)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from proximity.lab.backtest.history import PullRequest

__all__ = ["Candidate", "concurrent_candidates", "sample_candidates"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A's merged tip against B's branch state at the moment A merged; ``weight`` = 1/inclusion."""

    a: PullRequest
    b: PullRequest
    state_b: str
    stratum: str
    weight: float = 1.0

    @property
    def key(self) -> tuple[int, int]:
        return (self.a.number, self.b.number)


def concurrent_candidates(prs: Sequence[PullRequest]) -> list[Candidate]:
    """Every ordered pair where B was open (had a commit) when A merged and merged later.

    Final tips are never paired: by the time B merged it had been updated to merge cleanly, so B's
    state at A's merge is what two agents would really have held side by side.
    """
    out = []
    ordered = sorted(prs, key=lambda p: (p.merged_at, p.number))
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b.merged_at <= a.merged_at or b.started_at > a.merged_at:
                continue
            state = b.state_at(a.merged_at)
            if state is None or state == a.tip:
                continue
            stratum = "shared-file" if a.files & b.files else "disjoint"
            out.append(Candidate(a, b, state, stratum))
    return out


def sample_candidates(
    candidates: Sequence[Candidate], *, max_pairs: int, seed: int = 0, shared_share: float = 0.5
) -> list[Candidate]:
    """Seeded stratified sample: up to ``shared_share`` of the budget on file-sharing pairs, the
    rest on disjoint pairs (unused budget moves to the other stratum). Each pair carries its
    stratum's inverse inclusion probability so figures can be weighted back to the natural mix.
    """
    strata = {
        name: sorted((c for c in candidates if c.stratum == name), key=lambda c: c.key)
        for name in ("shared-file", "disjoint")
    }
    n_shared = min(len(strata["shared-file"]), math.ceil(max_pairs * shared_share))
    n_disjoint = min(len(strata["disjoint"]), max_pairs - n_shared)
    n_shared = min(len(strata["shared-file"]), max_pairs - n_disjoint)
    rng = random.Random(seed)  # noqa: S311 - reproducible sampling, not cryptography
    out: list[Candidate] = []
    for name, n in (("shared-file", n_shared), ("disjoint", n_disjoint)):
        pool = strata[name]
        chosen = sorted(rng.sample(range(len(pool)), n)) if n < len(pool) else range(len(pool))
        weight = len(pool) / n if n else 1.0
        out.extend(Candidate(pool[i].a, pool[i].b, pool[i].state_b, name, weight) for i in chosen)
    return sorted(out, key=lambda c: c.key)
