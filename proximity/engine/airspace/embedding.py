"""Display positions: file coordinates, one dependency-pull step, weighted agent centroids.

ecc-v0 reproduces the reference's hashed path embedding (ECC-PROXIMITY.md section 3, "File
coordinate"): a sum of SHA-256 hashes of the path prefixes scaled by ``2**-i``. radar-v1 uses a
space-filling layout (:mod:`.layout`). Both then take the reference's dependency-pull step and
weighted centroids; the display says nothing about risk (section 9).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from proximity.engine.airspace.model import Agent
from proximity.engine.airspace.paths import path_segments

__all__ = ["Embedding", "embed_agents", "hashed_coordinate", "touched_files"]

Floats = NDArray[np.float64]
Ints = NDArray[np.int64]


class Embedding(NamedTuple):
    """Coordinates of touched files (rows in ``files`` order) and of agents."""

    files: list[str]
    file_coordinates: Floats
    positions: Floats


@lru_cache(maxsize=131072)
def _hash_vector(prefix: str, dims: int) -> tuple[float, ...]:
    digest = hashlib.sha256(prefix.encode("utf-8")).digest()
    return tuple(
        (digest[(2 * d) % 32] * 256 + digest[(2 * d + 1) % 32]) / 32768 - 1 for d in range(dims)
    )


@lru_cache(maxsize=65536)
def hashed_coordinate(path: str, *, dims: int = 3) -> tuple[float, ...]:
    """``sum_i hashVec("/s0/.../si")[d] * 2**-i`` over the path's segments."""
    coord = [0.0] * dims
    prefix = ""
    for i, segment in enumerate(path_segments(path)):
        prefix += "/" + segment
        vec = _hash_vector(prefix, dims)
        scale = 2.0**-i
        for d in range(dims):
            coord[d] += vec[d] * scale
    return tuple(coord)


def touched_files(agents: Sequence[Agent]) -> list[str]:
    """Distinct touched paths in first-seen order (agent order, then file order)."""
    return list(dict.fromkeys(f.path for agent in agents for f in agent.files))


def _pull(coords: Floats, source: Ints, target: Ints, alpha: float) -> Floats:
    """One Jacobi step: ``(1 - a) c + a mean(neighbours)``; no neighbours, no move."""
    n, dims = coords.shape
    count = np.bincount(source, minlength=n).astype(np.float64)
    sums = np.zeros((n, dims))
    np.add.at(sums, source, coords[target])
    moved = count > 0
    out = coords.copy()
    means = sums[moved] / count[moved][:, None]
    out[moved] = (1 - alpha) * coords[moved] + alpha * means
    return out


def embed_agents(
    agents: Sequence[Agent],
    coords: Floats,
    edges: tuple[Ints, Ints],
    weights: Floats,
    *,
    alpha: float = 0.35,
) -> Embedding:
    """Pull the touched files' coordinates along ``edges`` once, then weighted centroids.

    ``coords`` rows follow :func:`touched_files`; ``edges`` are (file, neighbour) row pairs
    (ecc-v0: out-edges, so importers move toward what they import, as the reference; radar-v1:
    both directions); ``weights`` has one value per file entry in agent order. An agent whose
    weights sum to 0 sits at the origin, as in the reference.
    """
    files = touched_files(agents)
    smoothed = _pull(coords, edges[0], edges[1], alpha)
    row = {p: k for k, p in enumerate(files)}
    owner = np.array([a for a, agent in enumerate(agents) for _ in agent.files], dtype=np.int64)
    which = np.array([row[f.path] for agent in agents for f in agent.files], dtype=np.int64)
    dims = coords.shape[1]
    total = np.bincount(owner, weights=weights, minlength=len(agents))
    acc = np.zeros((len(agents), dims))
    if len(which):
        np.add.at(acc, owner, weights[:, None] * smoothed[which])
    safe = np.where(total == 0, 1.0, total)
    positions = np.where((total == 0)[:, None], 0.0, acc / safe[:, None])
    return Embedding(files, smoothed, positions)
