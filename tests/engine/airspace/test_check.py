"""The pre-edit check scores exactly as a scan does, and answers only for the asking agent."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from proximity.engine.airspace import AirspaceInputError, check_agent, parse_airspace, scan
from proximity.engine.airspace.profiles import PROFILES
from proximity.engine.airspace.rightofway import components
from tests.engine.airspace.randomworld import random_airspace

AIRSPACE = {
    "agents": [
        {
            "agentId": "bob",
            "label": "bob",
            "startedAt": "2026-01-01T10:00:00Z",
            "files": [{"path": "core.py", "lines": [[22, 22]], "baseHunks": [[22, 1]]}],
        },
        {
            "agentId": "alice",
            "label": "alice",
            "startedAt": "2026-01-01T09:00:00Z",
            "files": [{"path": "core.py", "lines": [[21, 23]], "baseHunks": [[21, 3]]}],
        },
        {
            "agentId": "carol",
            "label": "carol",
            "startedAt": "2026-01-01T09:30:00Z",
            "files": [{"path": "core.py", "lines": [[50, 52]], "baseHunks": [[50, 3]]}],
        },
        {
            "agentId": "dave",
            "label": "dave",
            "files": [{"path": "core.py", "lines": [[51, 51]], "baseHunks": [[51, 1]]}],
        },
    ],
    "options": {"now": "2026-01-01T10:05:00Z"},
}


def test_check_returns_the_scan_advisories_of_the_asking_agent_only() -> None:
    checked = check_agent(AIRSPACE, agent_id="bob")["advisories"]
    scanned = [a for a in scan(AIRSPACE)["advisories"] if "bob" in (a["a"], a["b"])]
    assert checked == scanned
    assert [(a["a"], a["b"], a["level"]) for a in checked] == [("bob", "alice", "resolution")]
    assert checked[0]["hold"] == "alice"
    assert checked[0]["steer"] == "bob"


def test_check_of_an_agent_far_from_everyone_is_empty() -> None:
    far = {**AIRSPACE, "agents": [*AIRSPACE["agents"][:1], AIRSPACE["agents"][2]]}
    assert check_agent(far, agent_id="bob")["advisories"] == []


def test_check_of_an_unknown_agent_names_the_field() -> None:
    with pytest.raises(AirspaceInputError) as caught:
        check_agent(AIRSPACE, agent_id="zoe")
    assert caught.value.field == "agentId"


def test_union_find_components_number_like_scipy() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, m = int(rng.integers(1, 40)), int(rng.integers(0, 60))
        i, j = rng.integers(0, n, m).astype(np.int64), rng.integers(0, n, m).astype(np.int64)
        _, expected = connected_components(coo_matrix((np.ones(m), (i, j)), (n, n)), directed=False)
        assert components(n, i, j).tolist() == expected.tolist()


def _tied(work: int | None) -> dict:
    """bob and erin started in the same second; erin's whole working set has two files, bob's
    check carries only its planned one (``workFiles``: how many its working set has)."""
    bob: dict = {
        "agentId": "bob",
        "startedAt": "2026-01-01T09:00:00Z",
        "files": [{"path": "core.py", "lines": [[22, 22]], "baseHunks": [[22, 1]]}],
    }
    if work is not None:
        bob["workFiles"] = work
    erin = {
        "agentId": "erin",
        "startedAt": "2026-01-01T09:00:00Z",
        "files": [
            {"path": "core.py", "lines": [[22, 22]], "baseHunks": [[22, 1]]},
            {"path": "util.py", "lines": [[1, 1]], "baseHunks": [[1, 1]]},
        ],
    }
    return {"agents": [bob, erin], "options": {"now": "2026-01-01T09:05:00Z"}}


@pytest.mark.parametrize(("work", "holder"), [(None, "erin"), (2, "bob"), (3, "bob"), (1, "erin")])
def test_a_checks_right_of_way_counts_the_askers_whole_working_set(
    work: int | None, holder: str
) -> None:
    """A tie on the start goes to more distinct files; a check counts the asker's whole
    working set (``workFiles``) as a scan does, not only its planned file (issue 27 item 4)."""
    [advisory] = check_agent(_tied(work), agent_id="bob")["advisories"]
    assert advisory["hold"] == holder


def test_work_files_must_be_a_count() -> None:
    with pytest.raises(AirspaceInputError, match=r"agents\[0\]\.workFiles"):
        check_agent(_tied(-1), agent_id="bob")


def _hot(seed: int, n_agents: int = 55) -> dict:
    """``n_agents`` agents editing one file (a hot group, past the block size) and a few others."""
    rng = random.Random(seed)
    agents = []
    for a in range(n_agents):
        start = rng.randint(1, 400)
        files = [{"path": "app/core.py", "lines": [[start, start + rng.randint(0, 4)]],
                  "baseHunks": [[start, rng.randint(0, 3)]]}]  # fmt: skip
        if rng.random() < 0.5:
            files.append({"path": f"app/m{rng.randint(0, 9)}.py", "lines": [[5, 8]]})
        started = f"2026-01-01T09:{rng.randint(0, 59):02d}:00Z" if rng.random() < 0.9 else None
        agents.append({"agentId": f"a{a}", "startedAt": started, "files": files})
    # a Traffic pair closing fast escalates: the closure reads the pair's own history only
    history = {f"a0|a{k}": [["2026-01-01T09:58:00Z", 0.05]] for k in range(1, 6)}
    return {"agents": agents, "options": {"now": "2026-01-01T10:00:00Z", "history": history}}


def _askers_rows(data: dict, profile: str, agent: str) -> list[dict]:
    rows = [a for a in scan(data, profile=profile)["advisories"] if agent in (a["a"], a["b"])]
    for row in rows:  # the component's number counts the airspace's other components
        row.pop("cluster", None)
    return rows


def _checked(data: dict, profile: str, agent: str) -> list[dict]:
    rows = check_agent(data, agent_id=agent, profile=profile)["advisories"]
    for row in rows:
        row.pop("cluster", None)
    return rows


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("seed", range(12))
def test_every_agents_check_is_its_rows_of_the_scan(profile: str, seed: int) -> None:
    """A check scores only the asker's pairs; each row equals the scan's, right of way too."""
    data = random_airspace(seed, n_agents=7)
    for agent in (a["agentId"] for a in data["agents"]):
        assert _checked(data, profile, agent) == _askers_rows(data, profile, agent)


@pytest.mark.parametrize("seed", range(3))
def test_a_check_in_a_hot_file_is_its_rows_of_the_scan(seed: int) -> None:
    data = _hot(seed)
    found = 0
    for agent in ("a0", "a1", "a7", "a54"):
        rows = _checked(data, "radar-v1", agent)
        assert rows == _askers_rows(data, "radar-v1", agent)
        found += len(rows)
    assert found  # the hot file raises something to compare


def test_an_agent_parsed_before_is_taken_as_it_is() -> None:
    """The agent side hands the engine the other agents it parsed on an earlier check."""
    parsed = parse_airspace(AIRSPACE).agents
    mixed = {**AIRSPACE, "agents": [AIRSPACE["agents"][0], *parsed[1:]]}
    assert check_agent(mixed, agent_id="bob") == check_agent(AIRSPACE, agent_id="bob")
    assert parse_airspace(mixed, lenient=True).agents[1:] == parsed[1:]
