"""A repository's parked time (``[radar] parked_hours``): what the file may say, and what a
malformed one does (docs/DECISIONS.md, "A repository's parked time"). How every face applies
it: tests/agent/test_right_of_way.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.agent.config import ConfigError, load_config
from proximity.sources.radar_files import read_parked_hours
from tests.agent.conftest import Scene


@pytest.mark.parametrize(("written", "read"), [("0", 0.0), ("36.5", 36.5), ("8760", 8760.0)])
def test_a_parked_time_from_0_to_a_year_is_read(tmp_path: Path, written: str, read: float) -> None:
    (tmp_path / ".radar.toml").write_text(f"[radar]\nparked_hours = {written}\n")
    assert load_config(tmp_path).parked_hours == read
    assert read_parked_hours(str(tmp_path)) == read


def test_unset_is_the_profile_s(tmp_path: Path) -> None:
    assert load_config(tmp_path).parked_hours is None
    (tmp_path / ".radar.toml").write_text('[radar]\nbase = "main"\n')
    assert load_config(tmp_path).parked_hours is None
    assert read_parked_hours(str(tmp_path)) is None


@pytest.mark.parametrize("written", ["-1", "8761", "true", '"a week"', "nan", "inf", "[1]"])
def test_a_malformed_parked_time_is_a_config_error_naming_it(tmp_path: Path, written: str) -> None:
    (tmp_path / ".radar.toml").write_text(f"[radar]\nparked_hours = {written}\n")
    with pytest.raises(ConfigError, match=r"radar\.parked_hours: must be a number of hours"):
        load_config(tmp_path)
    with pytest.raises(ValueError, match=r"\.radar\.toml: radar\.parked_hours"):
        read_parked_hours(str(tmp_path))


def test_radar_check_refuses_a_malformed_parked_time_with_one_line(scene: Scene) -> None:
    (scene.bob / ".radar.toml").write_text("[radar]\nparked_hours = -3\n")
    run = scene.radar("check", str(scene.bob / "core.py"), "--lines", "22", cwd=scene.bob)
    assert run.returncode == 1
    assert run.stdout == ""
    [line] = run.stderr.splitlines()
    assert "radar.parked_hours: must be a number of hours" in line


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("parked_hours = 0", "an idle branch never yields ([radar] parked_hours = 0)"),
        (
            "parked_hours = 36",
            "an idle branch yields after 36 h ([radar] parked_hours); pushed work with nothing "
            "uncommitted never does",
        ),
        ('profile = "ecc-v0"', "an idle branch never yields (profile ecc-v0)"),
    ],
)
def test_doctor_says_how_long_an_idle_branch_keeps_right_of_way(
    scene: Scene, written: str, said: str
) -> None:
    (scene.bob / ".radar.toml").write_text(f"[radar]\n{written}\n")
    run = scene.radar(
        "hooks", "doctor", "--harness", "claude", "--path", str(scene.bob), cwd=scene.bob
    )
    assert f"right of way: {said}" in run.stdout, run.stdout + run.stderr
