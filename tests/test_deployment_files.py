"""The compose file validates and lists one env file; .env.example names every variable we read."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[1]


def _compose_command() -> list[str] | None:
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return ["docker", "compose"]
    exe = shutil.which("docker-compose")
    return [exe] if exe else None


def test_docker_compose_config_validates(tmp_path: Path) -> None:
    command = _compose_command()
    if command is None:
        message = "neither `docker compose` nor `docker-compose` is installed"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    for name in ("docker-compose.yml", "Dockerfile"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    result = subprocess.run(
        [*command, "config"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    for service in ("postgres:", "redis:", "web:", "worker:", "beat:"):
        assert service in result.stdout


def test_env_example_lists_every_variable_the_settings_read() -> None:
    read = set()
    for path in (ROOT / "overlap_site" / "settings").glob("*.py"):
        read |= set(re.findall(r'env_\w+\(\s*"([A-Z_]+)"', path.read_text()))
    listed = set(re.findall(r"^([A-Z_]+)=", (ROOT / ".env.example").read_text(), re.MULTILINE))
    assert read, "no variables found: the pattern is stale"
    assert read <= listed, f"missing from .env.example: {sorted(read - listed)}"
