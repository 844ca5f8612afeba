"""``radar ack`` before any denial says what it did and nothing about trail internals (issue 27,
point 8); the reason there is no receipt goes to the hook log."""

from __future__ import annotations

from tests.agent.conftest import Scene


def test_ack_before_any_denial_prints_one_plain_line(scene: Scene) -> None:
    run = scene.radar("ack", "alice")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "acknowledged alice for bob (local, 240 min)"
    assert "receipt" not in run.stdout + run.stderr
    assert "no receipt in the pair's trail" in (scene.state / "hooks.log").read_text()
