"""MinHash resemblance and 64-bit SimHash over declared plan atoms, each with a reference.

MinHash: Broder, "On the resemblance and containment of documents" (1997); the permutation family
``((a * h + b) mod 2^64) mod (2^61 - 1)`` truncated to 32 bits and the SHA-1 token hash are those of
datasketch's ``scheme="legacy"`` so the signatures are checkable against that well-kept library
(tests/engine/overlap/test_hashing.py does so). SimHash: Charikar, "Similarity estimation
techniques from rounding algorithms" (2002), with blake2b 64-bit token hashes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "hamming_distance",
    "minhash_permutations",
    "minhash_resemblance",
    "minhash_signature",
    "minhash_signature_reference",
    "simhash64",
    "simhash64_reference",
]

_MERSENNE = (1 << 61) - 1
_MAX32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1


def _sha1_32(token: str) -> int:
    value: int = struct.unpack("<I", hashlib.sha1(token.encode("utf-8")).digest()[:4])[0]  # noqa: S324 - a fingerprint, not security
    return value


def _blake64(token: str) -> int:
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")


def minhash_permutations(*, num_perm: int = 128, seed: int = 1) -> NDArray[np.uint64]:
    """The ``(2, num_perm)`` affine permutation parameters, drawn as datasketch draws them."""
    gen = np.random.RandomState(seed)
    pairs = [
        (
            gen.randint(1, _MERSENNE, dtype=np.uint64),
            gen.randint(0, _MERSENNE, dtype=np.uint64),
        )
        for _ in range(num_perm)
    ]
    return np.array(pairs, dtype=np.uint64).T


def minhash_signature(
    atoms: Iterable[str], *, num_perm: int = 128, seed: int = 1
) -> NDArray[np.uint64]:
    """MinHash signature of an atom set (vectorised over atoms and permutations).

    Parameters
    ----------
    atoms : iterable of str
        The declared atoms (see ``plan_sketch.plan_atoms``).
    num_perm : int, default 128
        Number of permutations; the estimator's standard error is about ``1/sqrt(num_perm)``.
    seed : int, default 1
        Seed of the permutation draw; both signatures of a comparison must share it.

    Returns
    -------
    ndarray of uint64, shape (num_perm,)
        All ``2^32 - 1`` for an empty set (no atom, nothing estimated).
    """
    a, b = minhash_permutations(num_perm=num_perm, seed=seed)
    hv = np.array(sorted({_sha1_32(t) for t in atoms}), dtype=np.uint64)
    if hv.size == 0:
        return np.full(num_perm, _MAX32, dtype=np.uint64)
    phv = (a[:, None] * hv[None, :] + b[:, None]) % np.uint64(_MERSENNE)
    return np.asarray(np.bitwise_and(phv, np.uint64(_MAX32)).min(axis=1), dtype=np.uint64)


def minhash_signature_reference(
    atoms: Iterable[str], *, num_perm: int = 128, seed: int = 1
) -> list[int]:
    """Obviously-correct loop version of :func:`minhash_signature` (Python ints, explicit wrap)."""
    a, b = (list(map(int, row)) for row in minhash_permutations(num_perm=num_perm, seed=seed))
    signature = [_MAX32] * num_perm
    for token in set(atoms):
        h = _sha1_32(token)
        for i in range(num_perm):
            value = (((a[i] * h + b[i]) & _MASK64) % _MERSENNE) & _MAX32
            signature[i] = min(signature[i], value)
    return signature


def minhash_resemblance(left: NDArray[np.uint64], right: NDArray[np.uint64]) -> float:
    """Estimated Jaccard resemblance: the fraction of agreeing signature slots (Broder 1997)."""
    if left.shape != right.shape:
        raise ValueError("minhash signatures must have the same num_perm")
    return float(np.mean(left == right))


def simhash64(tokens: Iterable[str]) -> int:
    """64-bit SimHash of a token multiset (Charikar 2002), bits voted with weight 1.

    Returns
    -------
    int
        Bit ``i`` is set when more tokens have hash bit ``i`` set than unset; ties give 0.
    """
    hashes = np.array([_blake64(t) for t in tokens], dtype=np.uint64)
    if hashes.size == 0:
        return 0
    shifts = np.arange(64, dtype=np.uint64)
    bits = ((hashes[:, None] >> shifts[None, :]) & np.uint64(1)).astype(np.int64)
    votes = (2 * bits - 1).sum(axis=0)
    return int(sum(1 << i for i in np.flatnonzero(votes > 0).tolist()))


def simhash64_reference(tokens: Iterable[str]) -> int:
    """Loop version of :func:`simhash64`."""
    votes = [0] * 64
    for token in tokens:
        h = _blake64(token)
        for i in range(64):
            votes[i] += 1 if (h >> i) & 1 else -1
    return sum(1 << i for i in range(64) if votes[i] > 0)


def hamming_distance(left: int, right: int) -> int:
    """Number of differing bits between two 64-bit fingerprints."""
    return (left ^ right).bit_count()
