"""Embedding-space identity: what must match exactly before two vectors are compared.

A spaceId digests everything that defines the vector space (requirement 15); runtime facts such as
device and library versions live in ``RuntimeProvenance`` beside it (requirement 16), because two
runs on different hardware still produce comparable vectors.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass

__all__ = ["RuntimeProvenance", "SpaceDefinition", "space_id"]


@dataclass(frozen=True, slots=True)
class SpaceDefinition:
    """The space-defining facts of an embedding pipeline."""

    model_identity: str
    weights_sha256: str
    text_template: str
    preprocessing: str
    pooling: str
    dimension: int
    normalization: str
    metric: str
    precision: str
    quantization: str = "none"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str) and not value.strip():
                raise ValueError(f"space definition field {f.name} must not be blank")
        if self.dimension < 1:
            raise ValueError(f"dimension must be >= 1, got {self.dimension}")


@dataclass(frozen=True, slots=True)
class RuntimeProvenance:
    """How a vector was produced at run time; stored beside, never inside, the spaceId."""

    device: str
    library_versions: tuple[tuple[str, str], ...]


def space_id(definition: SpaceDefinition) -> str:
    """Digest of a space definition.

    Returns
    -------
    str
        ``"space:" + sha256(canonical JSON)[:32]``; changing any field changes it.
    """
    text = json.dumps(dataclasses.asdict(definition), sort_keys=True, separators=(",", ":"))
    return "space:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
