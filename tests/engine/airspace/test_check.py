"""The pre-edit check scores exactly as a scan does, and answers only for the asking agent."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from proximity.engine.airspace import AirspaceInputError, check_agent, scan
from proximity.engine.airspace.rightofway import components

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
