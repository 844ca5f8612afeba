"""Scoring profiles: named, versioned sets of channels, weights and thresholds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from proximity.engine.airspace.model import Options

__all__ = ["DEFAULT_PROFILE", "PROFILES", "SCORER_VERSION", "Profile", "Settings", "resolve"]

SCORER_VERSION = "airspace-2026.12.1"
"""Bumped whenever any profile's numbers can change; travels with every result."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Defaults of one profile; ``channels`` is the noisy-OR order (it fixes rounding)."""

    name: str
    channels: tuple[str, ...]
    weights: Mapping[str, float]
    dep_decay: float
    dependency_cap: int
    ta: float
    ra: float
    overlap_floor: float | None = None
    reference_input: bool = False
    """Parse input as the reference does (``parse_airspace(..., lenient=True)``)."""
    symbol_strengths: Mapping[str, float] | None = None
    """For a profile with the ``symbol`` channel: :class:`~proximity.engine.symbols.Strengths`
    fields (kept as plain data so loading a profile loads no symbol code)."""
    parked_after_s: float | None = None
    """Right of way: an agent none of whose files changed for this long yields to active ones
    (``None``: never; docs/DECISIONS.md, "A parked branch yields")."""
    overlap_recency_floor: float | None = None
    """Recency floor of the overlap and adjacency channels (``None``: the options'
    ``recencyFloor``). A line another agent changed and has not merged conflicts at merge however
    old the edit, and so does a line beside it (git's rule: changes that touch conflict), so
    neither need fade; dependency, intent and the rest model attention and keep decaying."""


@dataclass(frozen=True, slots=True)
class Settings:
    """A profile with the scan's ``options`` applied."""

    profile: Profile
    weights: tuple[float, ...]
    dep_decay: float
    dependency_cap: int
    ta: float
    ra: float
    overlap_floor: float | None = None
    overlap_recency_floor: float | None = None

    def weight(self, channel: str) -> float:
        return self.weights[self.profile.channels.index(channel)]


_RADAR_V1 = Profile(
    name="radar-v1",
    channels=("conflict", "overlap", "adjacency", "dependency", "intent", "tree"),
    # Chosen on the conflict backtest (docs/DECISIONS.md, "Recommended radar-v1 defaults"
    # and "Abutting edits are a Resolution Advisory"):
    # any base-side intersection is a full overlap (git conflicts on one shared line), and
    # imports and tree closeness add nothing measurable to textual-conflict prediction.
    weights={
        "conflict": 1.0,
        "overlap": 1.0,
        # git conflicts when two changes abut as surely as when they overlap: every pair its
        # rule calls abutting conflicted in the backtest (27 of 27 on train, 2026.11.4).
        "adjacency": 1.0,
        "dependency": 0.1,
        "intent": 0.5,
        "tree": 0.1,
    },
    dep_decay=0.5,
    dependency_cap=2,
    ta=0.35,
    ra=0.7,
    overlap_floor=1.0,
    # Unmerged overlapping lines conflict days later as surely as minutes later: the replay of
    # pip found decayed overlap silenced every denial at human timescales (airspace-2026.11.5);
    # abutting lines too (scrapy: an edit beside a 17-day-old change passed, then conflicted,
    # airspace-2026.12.1).
    overlap_recency_floor=1.0,
    # A branch nobody changed for a week is waiting on review, not flying: holding every active
    # agent behind it made the replay's convoy (docs/EVALUATION.md, issue 28). A week, not three
    # days, since the steerer asks again at the time its denial gives (docs/DECISIONS.md).
    parked_after_s=168 * 3600.0,
)

PROFILES: Mapping[str, Profile] = {
    "ecc-v0": Profile(
        name="ecc-v0",
        channels=("overlap", "dependency", "tree"),
        weights={"overlap": 1.0, "dependency": 0.9, "tree": 0.25},
        dep_decay=0.5,
        dependency_cap=6,
        ta=0.35,
        ra=0.7,
        reference_input=True,  # same inputs as the reference, for migration (DECISIONS.md)
    ),
    "radar-v1": _RADAR_V1,
    # radar-v1 plus the symbol channel, last in the noisy-OR order: with no symbol data the
    # channel is 0 and the product gains a factor of exactly 1.0, so every risk is radar-v1's
    # to the bit, and radar-v1 itself (its stored scans, calibration maps and backtest
    # figures) is untouched (docs/DECISIONS.md, "The symbol channel").
    "radar-v1-symbols": replace(
        _RADAR_V1,
        name="radar-v1-symbols",
        # merge-check: a done speculative merge check of the pair's current trees found a
        # problem only the merge has (options.mergeChecks); like a textual conflict it is a
        # fact, not a likelihood, so it weighs 1.0 and makes a Resolution Advisory. No input:
        # the column is 0 and every risk is unchanged to the bit.
        channels=(*_RADAR_V1.channels, "symbol", "merge-check"),
        # the strengths are the risks of each symbol item alone, so the channel weighs 1.0
        weights={**_RADAR_V1.weights, "symbol": 1.0, "merge-check": 1.0},
        symbol_strengths={
            "breaking": 0.8,
            "returns": 0.6,
            "coupling": 0.5,
            "loose": 0.15,
            "hop": 0.4,
            "by_name": 0.6,
            "max_distance": 2,
            # issue 30's narrow couplings, each needing both sides' changed lines or symbols:
            # Traffic alone (docs/DECISIONS.md, "Semantic coupling categories (issue 30)")
            "body_call": 0.4,
            # ... but not for a hub: a callee that code in 10 or more other files calls
            # (docs/DECISIONS.md, "body_call leaves hubs out")
            "hub_files": 10,
            # both sides editing one function's body, where one edit writes a local name the
            # other's changed lines read or write (docs/DECISIONS.md, "same_body needs a shared
            # local"); without that condition it cost 4.2 % of pip train's clean pairs
            "same_body": 0.4,
            "shared_state": 0.4,
            "parameter_call": 0.4,
        },
    ),
}
# Semantic coupling is heard by default (issue 30): with no symbol data the channel is 0 and
# every risk is radar-v1's to the bit, so a caller that reads no symbols answers as before.
DEFAULT_PROFILE = "radar-v1-symbols"


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))


def resolve(profile: Profile, options: Options) -> Settings:
    """Apply ``options`` as the reference does: weights merged over the defaults, each clamped
    to [0, 1] and a null weight read as 0 (ECC-PROXIMITY.md section 2, "Combination")."""
    merged = {**profile.weights, **options.channel_weights}
    weights = tuple(_clamp01(merged.get(name) or 0.0) for name in profile.channels)
    thresholds = {"ta": profile.ta, "ra": profile.ra, **options.thresholds}
    return Settings(
        profile=profile,
        weights=weights,
        dep_decay=profile.dep_decay if options.dep_decay is None else options.dep_decay,
        dependency_cap=(
            profile.dependency_cap if options.dependency_cap is None else options.dependency_cap
        ),
        ta=thresholds["ta"],
        ra=thresholds["ra"],
        overlap_floor=(
            profile.overlap_floor if options.overlap_floor is None else options.overlap_floor
        ),
        overlap_recency_floor=profile.overlap_recency_floor,
    )
