"""The recorded advisory uses the ecc-v0 three-channel risk for whole-file edits."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.trail import summarize_shadow_trail
from tests.engine.trail.factory import observation, start

CHAIN = {
    "apps/web/page.js": ["lib/mid.js"],
    "lib/mid.js": ["lib/deep.js"],
    "lib/deep.js": ["pkg/core.js"],
}


def advisory(
    a_writes: list[str], b_paths: dict[str, list[str]], edges: dict[str, Any]
) -> dict[str, Any]:
    trail = start(
        observation("a", writePaths=a_writes),
        observation("b", **b_paths),
        graph={"adjacency": edges},
    )
    result: dict[str, Any] = summarize_shadow_trail(trail)["latestAdvisory"]
    return result


@pytest.mark.parametrize(
    ("a_writes", "b_paths", "edges", "risk", "state"),
    [
        # A direct import alone -> 0.9 (ECC-PROXIMITY.md section 2, reference values).
        (["apps/web/page.js"], {"writePaths": ["lib/mid.js"]}, CHAIN, 0.9, "advisory"),
        # d = 2 alone -> 0.45.
        (
            ["apps/web/page.js"],
            {"writePaths": ["lib/deep.js"]},
            CHAIN,
            0.45,
            "advisory",
        ),
        # d = 3 alone -> 0.225, below tau_TA = 0.35.
        (
            ["apps/web/page.js"],
            {"writePaths": ["pkg/core.js"]},
            CHAIN,
            0.225,
            "no-advisory-in-scope",
        ),
        # The same file, whole-file edits -> 1.
        (["src/shared.js"], {"writePaths": ["src/shared.js"]}, {}, 1, "advisory"),
        # Nothing shared and different roots -> no tree contribution at all.
        (["apps/x.js"], {"writePaths": ["docs/y.md"]}, {}, 0, "no-advisory-in-scope"),
        # B only *reads* what A's file imports: reads count as B's files, so still 0.9.
        (
            ["apps/web/page.js"],
            {"readPaths": ["lib/mid.js"], "writePaths": []},
            CHAIN,
            0.9,
            "advisory",
        ),
    ],
)
def test_heuristic_risk_matches_the_reference_values(
    a_writes: list[str],
    b_paths: dict[str, list[str]],
    edges: dict[str, Any],
    risk: float,
    state: str,
) -> None:
    result = advisory(a_writes, b_paths, edges)
    assert result["heuristicRisk"] == pytest.approx(risk, abs=1e-12)
    assert (result["state"], result["hazard"]) == (state, "write-write" if risk == 1 else None)


def test_sibling_tree_risk_alone_stays_below_the_traffic_threshold() -> None:
    # Siblings at depth 2 share one segment: treeDistance 0.5, r_tree 0.5, R = 0.25 * 0.5.
    result = advisory(["src/a.js"], {"writePaths": ["src/b.js"]}, {})
    assert result["heuristicRisk"] == pytest.approx(0.125)
    assert result["state"] == "no-advisory-in-scope"


def test_risk_is_the_worse_of_both_directions() -> None:
    # A writes nothing, so only B's writes against A's reads count.
    forward = advisory([], {"writePaths": ["lib/mid.js"]}, CHAIN)
    assert forward["heuristicRisk"] == 0
    reading = start(
        observation("a", readPaths=["apps/web/page.js"], writePaths=[]),
        observation("b", writePaths=["lib/mid.js"]),
        graph={"adjacency": CHAIN},
    )
    assert summarize_shadow_trail(reading)["latestAdvisory"]["heuristicRisk"] == pytest.approx(0.9)
