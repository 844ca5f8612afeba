"""A Traffic Advisory's context reaches each real harness's model, answered by a live server.

alice works on another machine and told the server she intends to change core.py (her declared
intent); bob's far edit of core.py is then a Traffic Advisory: the edit goes through and the
advisory is context. The hooks are installed with the server flags docs/AGENTS.md gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.factories import bind_agents, file_entry, make_caller, make_repository, working_set
from tests.harness.conftest import Bench

pytestmark = [
    pytest.mark.harness,
    pytest.mark.integration,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]


def test_a_traffic_advisory_reaches_the_model_and_the_edit_goes_through(
    bench: Bench, live_server: Any, in_process_tasks: None, client: Any, tmp_path: Path
) -> None:
    make_repository("web", scope="team-a")
    # each token reports only the agent id it was issued (tokens issue --agent web:ID)
    alice = bind_agents(make_caller("alice", scopes=["team-a"], kind="agent"), "web", "alice")
    bob = bind_agents(make_caller("bob", scopes=["team-a"], kind="agent"), "web", "bob")
    token = tmp_path / "bob.token"
    token.write_text(bob.token)
    token.chmod(0o600)
    entry = file_entry("core.py", [[22, 22]], excerpt="-line 22\n+alice 22")
    body = working_set("web", "alice", [entry], label="Fix rounding", intent=[{"path": "core.py"}])
    posted = client.post(
        "/api/working-sets", json.dumps(body), content_type="application/json", **alice.headers
    )
    assert posted.status_code == 201
    bench.install("--server", live_server.url, "--token-file", str(token), "--repository", "web")
    run = bench.run(bench.edit_call("line 50\n", "bob 50\n"), "traffic advisory (server)")
    assert run.returncode == 0, run.stderr[-2000:]
    assert (bench.bob / "core.py").read_text().splitlines()[49] == "bob 50"
    assert "Traffic Advisory with alice" in run.after_call
    assert "would collide" not in run.after_call
