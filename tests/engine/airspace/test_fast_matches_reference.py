"""The vectorised scorers against the per-pair reference scorers on random airspaces."""

from __future__ import annotations

import numpy as np
import pytest

from proximity.engine.airspace import parse_airspace, scan
from proximity.engine.airspace.profiles import PROFILES, resolve
from proximity.engine.airspace.scorers import score
from proximity.engine.airspace.table import PairTable
from tests.engine.airspace.randomworld import NOW_MS, random_airspace


def _dense(table: PairTable, n: int) -> np.ndarray:
    out = np.zeros((n, n, table.channels.shape[1]))
    out[table.i, table.j] = table.channels
    return out


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("seed", range(25))
def test_fast_channels_equal_reference_channels(profile: str, seed: int) -> None:
    parsed = parse_airspace(random_airspace(seed))
    settings = resolve(PROFILES[profile], parsed.options)
    fast = score(parsed, settings, NOW_MS, engine="fast")
    slow = score(parsed, settings, NOW_MS, engine="reference")
    n = len(parsed.agents)
    np.testing.assert_allclose(_dense(fast, n), _dense(slow, n), rtol=0, atol=1e-12)


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_scan_output_equals_reference_scan_output(profile: str, seed: int) -> None:
    data = random_airspace(seed, n_agents=8)
    assert scan(data, profile=profile, engine="fast") == scan(
        data, profile=profile, engine="reference"
    )


def test_bench_world_ten_agents_match_the_published_counts() -> None:
    from bench.world import build_agents, build_world

    world = build_world()
    expected = {(10, 10): (0, 1, 44), (50, 10): (2, 32, 1191), (10, 50): (5, 36, 4)}
    for (n, f), counts in expected.items():
        data = {"agents": build_agents(world, n, f), "graph": {"adjacency": world.adjacency}}
        levels = [link["level"] for link in scan(data, profile="ecc-v0")["links"]]
        got = tuple(levels.count(x) for x in ("resolution", "advisory", "clear"))
        assert got == counts, (n, f)


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_hot_file_block_path_equals_reference(profile: str) -> None:
    # 60 agents on one file exceeds the block threshold, so the dense-block path is used.
    data = random_airspace(11, n_agents=60, max_files=2)
    rng = __import__("random").Random(5)
    for member in data["agents"]:
        start = rng.randint(1, 40)
        member["files"].append(
            {
                "path": "hot/file.js",
                "lines": [[start, start + rng.randint(0, 6)]],
                "baseHunks": [[start, rng.choice([0, 1, 4])]],
                "weight": rng.random(),
            }
        )
    parsed = parse_airspace(data)
    settings = resolve(PROFILES[profile], parsed.options)
    fast = score(parsed, settings, NOW_MS, engine="fast")
    slow = score(parsed, settings, NOW_MS, engine="reference")
    n = len(parsed.agents)
    overlap = PROFILES[profile].channels.index("overlap")
    assert (fast.channels[:, overlap] > 0).sum() > 100
    np.testing.assert_allclose(_dense(fast, n), _dense(slow, n), rtol=0, atol=1e-12)
