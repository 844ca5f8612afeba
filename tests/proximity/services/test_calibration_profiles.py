"""The conflict probability beside a risk under the default profile (radar-v1-symbols).

The shipped map was fitted on radar-v1's risks. radar-v1-symbols only appends the symbol and
merge-check channels, so where both are silent on a pair its risk is radar-v1's to the bit and
the map applies; where either speaks, the risk includes a coupling that is no textual conflict,
and no probability is claimed.
"""

from __future__ import annotations

import pytest

from proximity.services.calibration import calibrate


def test_the_base_map_applies_exactly_where_the_appended_channels_are_silent() -> None:
    base, base_label = calibrate(0.8, profile="radar-v1", scorer_version="airspace-2026.12.1")
    assert base is not None
    got, label = calibrate(0.8, profile="radar-v1-symbols", scorer_version="airspace-2026.12.1",
                           channels={"overlap": 1.0, "symbol": 0.0})  # fmt: skip
    assert got == pytest.approx(base)
    assert label.startswith(base_label)
    assert "radar-v1's map: no symbol/merge-check evidence" in label


@pytest.mark.parametrize("speaks", [{"symbol": 0.4}, {"merge-check": 1.0}])
def test_no_probability_is_claimed_where_a_symbol_or_merge_check_speaks(speaks) -> None:
    channels = {"overlap": 1.0, **speaks}
    assert calibrate(0.8, profile="radar-v1-symbols", scorer_version="airspace-2026.12.1",
                     channels=channels) == (None, "")  # fmt: skip


def test_without_the_pairs_channels_or_a_related_map_nothing_is_claimed() -> None:
    assert calibrate(0.8, profile="radar-v1-symbols", scorer_version="x") == (None, "")
    assert calibrate(0.8, profile="ecc-v0", scorer_version="x", channels={}) == (None, "")
