"""``trail verify FILE``: exit 0 with a one-line ok, or 1 with a one-line reason."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proximity.engine.trail_cli import main
from tests.engine.trail.factory import full_chain, round_trip
from tests.engine.trail.golden import GOLDEN, dump

ROOT = Path(__file__).resolve().parents[3]


def test_valid_trail_exits_zero_with_count_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(GOLDEN)]) == 0
    assert capsys.readouterr().out == "ok: 7 receipts, trail shadow-1\n"


def test_tampered_trail_exits_one_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trail = round_trip(full_chain())
    trail["receipts"][2]["payload"]["scopeRevision"] = 2
    file = tmp_path / "tampered.json"
    file.write_text(dump(trail), encoding="utf-8")
    assert main(["verify", str(file)]) == 1
    out = capsys.readouterr().out
    assert out == "invalid: receipts[2].hash: does not match the receipt content\n"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "invalid: cannot read file (FileNotFoundError)\n"),
        (b"{not json", "invalid: not JSON (line 1, column 2)\n"),
        (b'{"version": NaN}', "invalid: not JSON\n"),
        (b"\xff\xfe", "invalid: file is not UTF-8 text\n"),
        (b"[]", "invalid: trail: not a plain object\n"),
    ],
)
def test_unreadable_or_non_json_files_exit_one_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, reason: str
) -> None:
    file = tmp_path / "trail.json"
    if content is not None:
        file.write_bytes(content)
    assert main(["verify", str(file)]) == 1
    assert capsys.readouterr().out == reason


def test_summary_prints_the_read_only_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["summary", str(GOLDEN)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["mode"], summary["receiptCount"]) == ("shadow-read-only", 7)


@pytest.mark.parametrize("argv", [[], ["verify"], ["sign", "x.json"], ["verify", "a", "b"]])
def test_bad_usage_exits_two(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("usage:")


def run_module(file: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "proximity.engine", "trail", "verify", str(file)]
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, check=False, timeout=60
    )


def test_module_entry_point_runs_trail_verify(tmp_path: Path) -> None:
    ok = run_module(GOLDEN)
    assert (ok.returncode, ok.stdout) == (0, "ok: 7 receipts, trail shadow-1\n")
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    failed = run_module(bad)
    assert (failed.returncode, failed.stdout) == (1, "invalid: trail: missing field\n")


def test_importing_the_trail_engine_loads_no_django() -> None:
    code = (
        "import sys, proximity.engine.trail; "
        "print(sorted(m for m in sys.modules if m.startswith(('django', 'celery'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert result.stdout == "[]\n"
