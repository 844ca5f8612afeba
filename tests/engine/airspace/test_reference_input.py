"""ecc-v0 accepts what the reference accepts; radar-v1 and the CLI's default refuse it.

Three shapes (ECC-PROXIMITY.md sections 2 and 3): a reversed line range, agents without an id,
and a bare adjacency object as ``graph``. docs/DECISIONS.md, "ecc-v0 accepts what the
reference accepts".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from proximity.engine.__main__ import main
from proximity.engine.airspace import AirspaceInputError, check_agent, scan
from tests.engine.airspace.helpers import agent, airspace, pair_link

ENGINES = ["fast", "reference"]


def reversed_range() -> dict[str, Any]:
    return airspace(
        agent("a", {"path": "src/x.js", "lines": [[20, 10]]}),
        agent("b", {"path": "src/x.js", "lines": [[15, 24]]}),
    )


def idless_agents() -> dict[str, Any]:
    data = airspace(agent("a", "src/x.js"), agent("b", "src/x.js"))
    data["agents"][1:1] = [
        {"agentId": "", "files": [{"path": "src/x.js"}]},
        {"agentId": None, "files": [{"path": "src/x.js"}]},
        {"files": [{"path": "src/x.js"}]},
    ]
    return data


def bare_graph() -> dict[str, Any]:
    data = airspace(agent("a", "pkg/a.js"), agent("b", "pkg/b.js"))
    data["graph"] = {"pkg/a.js": ["pkg/b.js"]}
    return data


@pytest.mark.parametrize("engine", ENGINES)
def test_ecc_normalises_a_reversed_range(engine: str) -> None:
    got = scan(reversed_range(), profile="ecc-v0", engine=engine)
    # [10, 20] vs [15, 24]: 6 shared lines over min(11, 10) = 0.6, so R = 1 - 0.4 * 0.75 = 0.7
    assert pair_link(got, "a", "b")["channels"]["overlap"] == pytest.approx(0.6, abs=1e-12)
    assert pair_link(got, "a", "b")["risk"] == pytest.approx(0.7, abs=1e-12)
    upright = reversed_range()
    upright["agents"][0]["files"][0]["lines"] = [[10, 20]]
    assert got == scan(upright, profile="ecc-v0", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_ecc_drops_agents_with_an_empty_or_null_id_and_scores_the_rest(engine: str) -> None:
    got = scan(idless_agents(), profile="ecc-v0", engine=engine)
    assert got["counts"] == {"agents": 2, "advisories": 1, "resolutions": 1}
    assert [p["agentId"] for p in got["positions"]] == ["a", "b"]
    assert [(link["a"], link["b"]) for link in got["links"]] == [("a", "b")]
    assert pair_link(got, "a", "b")["risk"] == 1.0


def test_ecc_names_faults_by_the_input_index_after_dropping_agents() -> None:
    data = idless_agents()
    data["agents"][4]["files"][0]["path"] = 7
    with pytest.raises(AirspaceInputError) as caught:
        scan(data, profile="ecc-v0")
    assert caught.value.field == "agents[4].files[0].path"


@pytest.mark.parametrize("engine", ENGINES)
def test_ecc_uses_a_bare_adjacency_for_dependency_and_positions(engine: str) -> None:
    got = scan(bare_graph(), profile="ecc-v0", engine=engine)
    wrapped = bare_graph()
    wrapped["graph"] = {"adjacency": wrapped["graph"]}
    assert pair_link(got, "a", "b")["channels"]["dependency"] == 1.0
    expected = scan(wrapped, profile="ecc-v0", engine=engine)
    assert got["positions"] == expected["positions"]
    assert got["fileCoordinates"] == expected["fileCoordinates"]
    no_graph = bare_graph()
    no_graph["graph"] = {}
    # the dependency pull moved a toward b: the graph was used for the positions too
    assert got["positions"] != scan(no_graph, profile="ecc-v0", engine=engine)["positions"]


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (reversed_range, "agents[0].files[0].lines[0]"),
        (idless_agents, "agents[1].agentId"),
        (bare_graph, "graph.adjacency"),
    ],
)
def test_radar_v1_and_the_check_refuse_reference_only_input(build: Any, field: str) -> None:
    for call in (lambda: scan(build()), lambda: check_agent(build(), agent_id="a")):
        with pytest.raises(AirspaceInputError) as caught:
            call()
        assert caught.value.field == field


def test_the_check_under_ecc_reads_input_as_the_scan_does() -> None:
    got = check_agent(idless_agents(), agent_id="a", profile="ecc-v0")
    assert [(a["a"], a["b"]) for a in got["advisories"]] == [("a", "b")]


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (reversed_range, "agents[0].files[0].lines[0]"),
        (idless_agents, "agents[1].agentId"),
        (bare_graph, "graph.adjacency"),
    ],
)
def test_cli_default_refuses_with_one_line_and_ecc_accepts(
    build: Any, field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "airspace.json"
    source.write_text(json.dumps(build()))
    assert main(["scan", "--input", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {field}: ")
    assert err.count("\n") == 1
    assert main(["scan", "--profile", "ecc-v0", "--input", str(source)]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["agents"] == 2
