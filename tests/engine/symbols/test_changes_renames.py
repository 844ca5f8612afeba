"""Rename detection's similarity: difflib's figure behind exact bounds, and a bounded budget."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

from proximity.engine.symbols.changes import RENAME_SIMILARITY, _Similarity
from proximity.engine.symbols.model import Definition


def _d(body: str) -> Definition:
    return Definition("f", "function", 1, 2, body=body)


def test_the_bounds_never_hide_a_match_difflib_would_make() -> None:
    rng = random.Random(14)
    for _ in range(400):
        a = "".join(rng.choice("abcde(): =\n") for _ in range(rng.randint(20, 90)))
        b = list(a)
        for _ in range(rng.randint(0, 30)):
            b[rng.randrange(len(b))] = rng.choice("abcxyz")
        b = "".join(b)
        full = SequenceMatcher(None, a, b, autojunk=False).ratio()
        got = _Similarity()(_d(a), _d(b))
        if a == b:
            assert got == 1.0
        elif full >= RENAME_SIMILARITY and min(len(a), len(b)) >= 24:
            assert got == full
        else:
            assert got < RENAME_SIMILARITY


def test_past_its_budget_only_identical_bodies_match() -> None:
    body = "return compute(alpha, beta) + offset * scale\n"
    near = body.replace("offset", "offsets")
    spent = _Similarity(budget=len(body) * len(near))
    assert spent(_d(body), _d(near)) >= RENAME_SIMILARITY
    assert spent(_d(body), _d(near)) == 0.0  # the budget is gone
    assert spent(_d(body), _d(body)) == 1.0
