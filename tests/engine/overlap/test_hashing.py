"""MinHash and SimHash: vectorised versions, loop references, datasketch and golden values."""

from __future__ import annotations

import numpy as np
import pytest
from datasketch import MinHash
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.overlap.hashing import (
    hamming_distance,
    minhash_resemblance,
    minhash_signature,
    minhash_signature_reference,
    simhash64,
    simhash64_reference,
)

ATOMS = [set(), {"a"}, {"action:edit", "target:edit:api.py", "edge:before:edit->test"}]


@pytest.mark.parametrize("atoms", ATOMS)
def test_minhash_matches_reference_and_datasketch_legacy_scheme(atoms):
    ours = minhash_signature(atoms, num_perm=64, seed=3)
    assert ours.tolist() == minhash_signature_reference(atoms, num_perm=64, seed=3)
    library = MinHash(num_perm=64, seed=3, scheme="legacy")
    for atom in sorted(atoms):
        library.update(atom.encode("utf-8"))
    assert np.array_equal(ours, library.hashvalues)


@pytest.mark.parametrize(
    ("left", "right", "golden"),
    [({"a", "b"}, {"a", "b"}, 1.0), (set(), set(), 1.0), ({"x"}, {"y"}, 0.0)],
)
def test_minhash_resemblance_golden_cases(left, right, golden):
    sig = lambda s: minhash_signature(s, num_perm=128)  # noqa: E731
    assert minhash_resemblance(sig(left), sig(right)) == golden


def test_minhash_resemblance_estimates_jaccard():
    """Broder 1997: E[agreement] = Jaccard; 512 permutations put it within ~0.07 (3 sigma)."""
    left = {f"t{i}" for i in range(60)}
    right = {f"t{i}" for i in range(30, 90)}  # Jaccard 30 / 90
    estimate = minhash_resemblance(
        minhash_signature(left, num_perm=512), minhash_signature(right, num_perm=512)
    )
    assert abs(estimate - 1 / 3) < 0.07


@pytest.mark.parametrize(
    ("tokens", "golden"),
    [([], 0), (["x", "x", "x"], simhash64_reference(["x"]))],
)
def test_simhash_golden_cases(tokens, golden):
    assert simhash64(tokens) == golden == simhash64_reference(tokens)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=6), max_size=12))
def test_simhash_vectorised_equals_reference(tokens):
    assert simhash64(tokens) == simhash64_reference(tokens)


@pytest.mark.parametrize(("a", "b", "golden"), [(0, 0, 0), (0b1011, 0b0001, 2), (2**64 - 1, 0, 64)])
def test_hamming_distance_golden(a, b, golden):
    assert hamming_distance(a, b) == golden
