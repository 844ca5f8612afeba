"""The waits a denial starts, kept in the local state every worktree of a repository shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.agent.state import LocalState


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LocalState:
    monkeypatch.setenv("RADAR_STATE_DIR", str(tmp_path / "state"))
    return LocalState(tmp_path / "repo.git")


def test_a_denial_starts_a_wait_on_each_agent_it_named_while_that_agent_is_here(
    state: LocalState,
) -> None:
    state.remember_denial(agent="alice", others=["carol", "dave"], paths=["util.py"])
    assert state.waiting_agents({"bob", "carol", "dave"}) == {"alice"}
    assert state.waiting_agents({"dave"}) == {"alice"}
    # the agents it waited on have left (merged): nobody to wait for
    assert state.waiting_agents({"bob"}) == set()


def test_an_allowed_edit_of_another_file_leaves_the_wait_and_one_of_the_denied_file_ends_it(
    state: LocalState,
) -> None:
    state.remember_denial(agent="alice", others=["carol"], paths=["util.py"])
    state.went_ahead("alice", ["core.py"])
    assert state.waiting_agents({"carol"}) == {"alice"}
    state.went_ahead("alice", ["core.py", "util.py"])
    assert state.waiting_agents({"carol"}) == set()


def test_an_acknowledgement_ends_the_wait_on_that_agent_only(state: LocalState) -> None:
    state.remember_denial(agent="alice", others=["carol", "dave"], paths=["util.py"])
    state.acknowledge(agent="alice", other="carol", ttl_s=60)
    assert state.waiting_agents({"carol"}) == set()
    assert state.waiting_agents({"dave"}) == {"alice"}
    # the denial's paths stay, for ``radar ack`` to say what it acknowledges
    assert state.denied_paths("alice", "carol") == ["util.py"]
