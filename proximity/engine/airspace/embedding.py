"""Display positions: file coordinates, one dependency-pull step, weighted agent centroids.

ecc-v0 reproduces the reference's hashed path embedding (ECC-PROXIMITY.md section 3, "File
coordinate"): a sum of SHA-256 hashes of the path prefixes scaled by ``2**-i``. radar-v1 uses a
space-filling layout (:mod:`.layout`). Both then take the reference's dependency-pull step and
weighted centroids; the display says nothing about risk (section 9).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from proximity.engine.airspace.model import Agent
from proximity.engine.airspace.paths import path_segments

__all__ = ["Embedding", "embed_agents", "hashed_coordinate", "touched_files"]

Vector = list[float]


class Embedding(NamedTuple):
    file_coordinates: dict[str, Vector]
    positions: list[Vector]


def _hash_vector(prefix: str, dims: int) -> Vector:
    digest = hashlib.sha256(prefix.encode("utf-8")).digest()
    return [
        (digest[(2 * d) % 32] * 256 + digest[(2 * d + 1) % 32]) / 32768 - 1 for d in range(dims)
    ]


def hashed_coordinate(path: str, *, dims: int = 3) -> Vector:
    """``sum_i hashVec("/s0/.../si")[d] * 2**-i`` over the path's segments."""
    coord = [0.0] * dims
    prefix = ""
    for i, segment in enumerate(path_segments(path)):
        prefix += "/" + segment
        vec = _hash_vector(prefix, dims)
        scale = 2.0**-i
        for d in range(dims):
            coord[d] += vec[d] * scale
    return coord


def touched_files(agents: Sequence[Agent]) -> list[str]:
    """Distinct touched paths in first-seen order (agent order, then file order)."""
    return list(dict.fromkeys(f.path for agent in agents for f in agent.files))


def _pull(
    coords: dict[str, Vector], neighbours: Mapping[str, Sequence[str]], alpha: float
) -> dict[str, Vector]:
    out: dict[str, Vector] = {}
    for path, coord in coords.items():
        near = [coords[n] for n in neighbours.get(path, ()) if n in coords]
        if not near:
            out[path] = list(coord)
            continue
        means = [sum(c[d] for c in near) / len(near) for d in range(len(coord))]
        out[path] = [(1 - alpha) * coord[d] + alpha * means[d] for d in range(len(coord))]
    return out


def _centroid(
    agent: Agent, coords: Mapping[str, Vector], weight: Callable[..., float], dims: int
) -> Vector:
    total, acc = 0.0, [0.0] * dims
    for f in agent.files:
        w = weight(f)
        total += w
        for d in range(dims):
            acc[d] += w * coords[f.path][d]
    return [0.0] * dims if total == 0 else [x / total for x in acc]


def embed_agents(
    agents: Sequence[Agent],
    neighbours: Mapping[str, Sequence[str]],
    *,
    coordinate: Callable[[list[str]], dict[str, Vector]],
    weight: Callable[..., float],
    dims: int = 3,
    alpha: float = 0.35,
) -> Embedding:
    """Coordinates for touched files, one Jacobi pull step, then weighted agent centroids.

    ``neighbours`` decides the pull: ecc-v0 passes out-edges (importers move toward what they
    import, as the reference); radar-v1 passes both directions.
    """
    files = touched_files(agents)
    smoothed = _pull(coordinate(files), neighbours, alpha)
    return Embedding(smoothed, [_centroid(a, smoothed, weight, dims) for a in agents])
