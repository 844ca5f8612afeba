"""The JSONL holdout ledger (requirement 69: every holdout inspection is logged)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from proximity.sources.ledger import ledger_status, read_ledger, record_holdout_evaluation


def test_evaluations_are_appended_and_replayed_into_holdout_state(tmp_path: Path) -> None:
    """Requirement 69: inspected, then consumed by another policy digest, and reported as such."""
    ledger = tmp_path / "var" / "ledger.jsonl"
    assert ledger_status("q4", path=ledger).state == "fresh"
    first = record_holdout_evaluation("q4", "sha256:aaa", "lead", path=ledger)
    assert first.at.endswith("+00:00")
    record_holdout_evaluation("q4", "sha256:aaa", "lead", path=ledger)
    assert ledger_status("q4", path=ledger).state == "inspected"
    record_holdout_evaluation("q4", "sha256:bbb", "intern", path=ledger)
    status = ledger_status("q4", path=ledger)
    assert status.state == "consumed"
    assert status.policies == ("sha256:aaa", "sha256:bbb")
    assert [e.who for e in read_ledger(path=ledger)] == ["lead", "lead", "intern"]


def test_concurrent_writers_never_lose_or_tear_a_line(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    threads = [
        threading.Thread(
            target=lambda i=i: [
                record_holdout_evaluation(f"d{i}", "sha256:x", f"w{i}", path=ledger)
                for _ in range(25)
            ]
        )
        for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(read_ledger(path=ledger)) == 100


def test_bad_input_and_corrupt_lines_are_named(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    with pytest.raises(ValueError, match="policy_digest"):
        record_holdout_evaluation("q4", " ", "lead", path=ledger)
    ledger.write_text('{"dataset": "q4"}\n')
    with pytest.raises(ValueError, match=r"ledger\.jsonl:1"):
        read_ledger(path=ledger)


def test_default_path_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RADAR_HOLDOUT_LEDGER", str(tmp_path / "env.jsonl"))
    record_holdout_evaluation("q1", "sha256:a", "me")
    assert (tmp_path / "env.jsonl").exists()
