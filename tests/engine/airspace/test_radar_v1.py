"""radar-v1 behaviour: each documented weakness of the reference, and how radar-v1 answers it."""

from __future__ import annotations

from typing import Any

import pytest

from proximity.engine.airspace import build_triggers, scan
from tests.engine.airspace.helpers import agent, airspace, pair_link

ENGINES = ["fast", "reference"]


def radar(data: dict[str, Any], engine: str = "fast") -> dict[str, Any]:
    return scan(data, profile="radar-v1", engine=engine)


def channels(data: dict[str, Any], engine: str, a: str = "a", b: str = "b") -> dict[str, float]:
    got: dict[str, float] = pair_link(radar(data, engine), a, b)["channels"]
    return got


@pytest.mark.parametrize("engine", ENGINES)
def test_base_side_hunks_overlap_even_when_new_side_lines_drifted(engine: str) -> None:
    # Both agents edit base lines 100-109; agent b inserted 50 lines above first.
    data = airspace(
        agent("a", {"path": "src/x.py", "lines": [[100, 109]], "baseHunks": [[100, 10]]}),
        agent("b", {"path": "src/x.py", "lines": [[150, 159]], "baseHunks": [[100, 10]]}),
    )
    assert channels(data, engine)["overlap"] == 1.0
    assert pair_link(radar(data, engine), "a", "b")["level"] == "resolution"


@pytest.mark.parametrize("engine", ENGINES)
def test_abutting_hunks_score_adjacency_not_overlap(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[10, 5]]}),
        agent("b", {"path": "src/x.py", "baseHunks": [[15, 3]]}),
    )
    got = channels(data, engine)
    assert (got["overlap"], got["adjacency"]) == (0.0, 1.0)
    # git conflicts on abutting edits as on overlapping ones: a Resolution Advisory by default.
    assert pair_link(radar(data, engine), "a", "b")["level"] == "resolution"
    data["options"]["channelWeights"] = {"adjacency": 0.5}
    assert pair_link(radar(data, engine), "a", "b")["level"] == "advisory"  # Traffic Advisory


@pytest.mark.parametrize("engine", ENGINES)
def test_insertions_one_unchanged_line_apart_do_not_abut(engine: str) -> None:
    # git merges these cleanly; an insertion beside a changed line does conflict.
    apart = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[20, 0]]}),
        agent("b", {"path": "src/x.py", "baseHunks": [[21, 0]]}),
        agent("c", {"path": "src/x.py", "baseHunks": [[21, 1]]}),
    )
    result = radar(apart, engine)
    assert pair_link(result, "a", "b")["channels"]["adjacency"] == 0.0
    assert pair_link(result, "a", "c")["channels"]["adjacency"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_overlap_floor_makes_any_shared_base_line_a_full_overlap(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[1, 100]]}),
        agent("b", {"path": "src/x.py", "baseHunks": [[100, 100]]}),
    )
    assert channels(data, engine)["overlap"] == 1.0  # the default floor (backtest evidence)
    data["options"]["overlapFloor"] = 0.0
    assert channels(data, engine)["overlap"] == pytest.approx(1 / 199)


@pytest.mark.parametrize("engine", ENGINES)
def test_insertions_at_the_same_point_overlap(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[20, 0]]}),
        agent("b", {"path": "src/x.py", "baseHunks": [[20, 0]]}),
    )
    assert channels(data, engine)["overlap"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_deleted_file_is_kept_as_a_whole_file_change(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/old.py", "status": "D"}),
        agent("b", {"path": "src/old.py", "baseHunks": [[3, 1]]}),
    )
    assert channels(data, engine)["overlap"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_rename_is_compared_under_its_old_path(engine: str) -> None:
    data = airspace(
        agent(
            "a",
            {"path": "src/new.py", "status": "R", "oldPath": "src/old.py", "baseHunks": [[5, 2]]},
        ),
        agent("b", {"path": "src/old.py", "baseHunks": [[5, 1]]}),
    )
    assert channels(data, engine)["overlap"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_shared_dependency_couples_two_importers(engine: str) -> None:
    graph = {"app/a.py": ["core/c.py"], "web/b.py": ["core/c.py"]}
    data = airspace(agent("a", "app/a.py"), agent("b", "web/b.py"), graph=graph)
    assert channels(data, engine)["dependency"] == 0.5


@pytest.mark.parametrize("engine", ENGINES)
def test_dependency_reaches_through_untouched_files_within_the_cap(engine: str) -> None:
    graph = {"app/a.py": ["mid/m.py"], "mid/m.py": ["web/b.py"]}
    data = airspace(agent("a", "app/a.py"), agent("b", "web/b.py"), graph=graph)
    assert channels(data, engine)["dependency"] == 0.5
    capped = airspace(agent("a", "app/a.py"), agent("b", "web/b.py"), graph=graph, dependencyCap=1)
    assert all(link["channels"]["dependency"] == 0 for link in radar(capped, engine)["links"])


@pytest.mark.parametrize("engine", ENGINES)
def test_direct_import_alone_is_clear_by_default_and_never_a_resolution(engine: str) -> None:
    """The backtest found imports add nothing to textual-conflict prediction (weight 0.1)."""
    data = airspace(
        agent("a", "app/a.py"), agent("b", "web/b.py"), graph={"app/a.py": ["web/b.py"]}
    )
    assert pair_link(radar(data, engine), "a", "b")["level"] == "clear"
    data["options"]["channelWeights"] = {"dependency": 0.6}
    assert pair_link(radar(data, engine), "a", "b")["level"] == "advisory"


@pytest.mark.parametrize("engine", ENGINES)
def test_unmerged_abutting_lines_do_not_decay(engine: str) -> None:
    """git conflicts on changes that touch as on changes that share a line, however old the
    edit: adjacency keeps the overlap's floor (1.0 in radar-v1), a Resolution a day later too.
    Before airspace-2026.12.1 it decayed to 0.15 in hours, and an edit beside a 17-day-old
    change passed unnoticed (scrapy #3648 beside #3607), then conflicted at the pull."""

    def adjacency(touched: str) -> tuple[float, str]:
        data = airspace(
            agent("a", {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": touched}),
            agent("b", {"path": "src/x.py", "baseHunks": [[15, 3]]}),
            halfLifeSeconds=1800,
        )
        return channels(data, engine)["adjacency"], pair_link(radar(data, engine), "a", "b")[
            "level"
        ]

    for touched in ("2026-09-15T12:00:00Z", "2026-09-15T11:30:00Z", "2026-08-29T12:00:00Z"):
        assert adjacency(touched) == (1.0, "resolution")


@pytest.mark.parametrize("engine", ENGINES)
def test_unmerged_overlapping_lines_do_not_decay(engine: str) -> None:
    """Changed, unmerged lines conflict at merge however old: overlap keeps full weight
    (``overlap_recency_floor`` 1.0) while the attention channels (dependency here) decay."""
    for touched in ("2026-09-15T12:00:00Z", "2026-09-15T11:30:00Z", "2026-09-05T12:00:00Z"):
        data = airspace(
            agent("a", {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": touched}),
            agent("b", {"path": "src/x.py", "baseHunks": [[12, 1]]}),
            halfLifeSeconds=1800,
        )
        assert channels(data, engine)["overlap"] == 1.0
        assert pair_link(radar(data, engine), "a", "b")["level"] == "resolution"
    coupled = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": touched}),
        agent("b", {"path": "src/y.py", "baseHunks": [[12, 1]]}),
        graph={"src/x.py": ["src/y.py"]},
        halfLifeSeconds=1800,
    )
    assert channels(coupled, engine)["dependency"] == pytest.approx(0.15, abs=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_profile_without_an_overlap_recency_floor_decays_overlap_and_adjacency(
    engine: str,
) -> None:
    from dataclasses import replace

    from proximity.engine.airspace.parse import parse_airspace
    from proximity.engine.airspace.profiles import PROFILES, resolve
    from proximity.engine.airspace.scorers import score

    fading = replace(PROFILES["radar-v1"], overlap_recency_floor=None)

    def channel(name: str, a: dict[str, Any], b: dict[str, Any]) -> float:
        parsed = parse_airspace(airspace(agent("a", a), agent("b", b), halfLifeSeconds=1800))
        table = score(parsed, resolve(fading, parsed.options), parsed.options.now_ms, engine=engine)
        return float(table.channels[0, fading.channels.index(name)])

    day_old = {"path": "src/x.py", "touchedAt": "2026-09-14T12:00:00Z"}
    assert channel("overlap", day_old, {"path": "src/x.py"}) == pytest.approx(0.15, abs=1e-6)
    half = {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": "2026-09-15T11:30:00Z"}
    beside = {"path": "src/x.py", "baseHunks": [[15, 3]]}
    assert channel("adjacency", half, beside) == pytest.approx(0.15 + 0.85 * 0.5)


@pytest.mark.parametrize("engine", ENGINES)
def test_intent_on_a_folder_meets_the_other_agents_file_until_it_expires(engine: str) -> None:
    live = airspace(
        agent("a", intent=[{"path": "src/api", "expiresAt": "2026-09-15T13:00:00Z"}]),
        agent("b", "src/api/users.py"),
    )
    expired = airspace(
        agent("a", intent=[{"path": "src/api", "expiresAt": "2026-09-15T11:00:00Z"}]),
        agent("b", "src/api/users.py"),
    )
    assert channels(live, engine)["intent"] == 1.0
    assert pair_link(radar(live, engine), "a", "b")["level"] == "advisory"
    assert all(link["channels"]["intent"] == 0 for link in radar(expired, engine)["links"])


@pytest.mark.parametrize("engine", ENGINES)
def test_same_file_disjoint_lines_count_the_tree_as_siblings_only(engine: str) -> None:
    data = airspace(
        agent("a", {"path": "src/api/users.py", "baseHunks": [[1, 20]]}),
        agent("b", {"path": "src/api/users.py", "baseHunks": [[500, 40]]}),
    )
    got = channels(data, engine)
    assert got["tree"] == pytest.approx(1 - 1 / 3)
    assert pair_link(radar(data, engine), "a", "b")["level"] == "clear"


@pytest.mark.parametrize("engine", ENGINES)
def test_supplied_conflict_forces_a_resolution_marked_conflict(engine: str) -> None:
    data = airspace(
        agent("a", "docs/a.md"),
        agent("b", "tools/b.sh"),
        conflicts=[{"a": "b", "b": "a", "files": ["docs/a.md"]}],
    )
    result = radar(data, engine)
    (advisory,) = result["advisories"]
    assert (advisory["level"], advisory["conflict"]) == ("resolution", True)
    assert result["counts"]["conflicts"] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_rising_traffic_advisory_escalates_with_steer_and_hold(engine: str) -> None:
    base = (agent("a", "app/a.py"), agent("b", "web/b.py"))
    graph = {"app/a.py": ["web/b.py"]}
    weights = {"dependency": 0.6}  # an import-driven Traffic Advisory, as a team might configure
    rising = airspace(
        *base, graph=graph, history={"a|b": [["2026-09-15T11:59:00Z", 0.1]]}, channelWeights=weights
    )
    steady = airspace(
        *base, graph=graph, history={"b|a": [["2026-09-15T11:59:00Z", 0.6]]}, channelWeights=weights
    )
    (up,) = radar(rising, engine)["advisories"]
    (flat,) = radar(steady, engine)["advisories"]
    assert (up["level"], up["escalated"], up["closureRate"] > 0) == ("resolution", True, True)
    assert (flat["level"], flat["escalated"]) == ("advisory", False)
    assert {t["type"] for t in build_triggers([up])} == {"proximity_steer", "proximity_hold"}


@pytest.mark.parametrize("engine", ENGINES)
def test_cluster_right_of_way_gives_one_consistent_order(engine: str) -> None:
    started = ["2026-09-15T10:00:00Z", "2026-09-15T11:00:00Z", "2026-09-15T11:30:00Z"]
    names = ["c", "a", "b"]
    agents = [agent(n, "src/x.py", started=s) for n, s in zip(names, started, strict=True)]
    result = radar(airspace(*agents), engine)
    resolutions = [a for a in result["advisories"] if a["level"] == "resolution"]
    assert len(resolutions) == 3
    assert len({a["cluster"] for a in resolutions}) == 1
    holds = {(a["hold"], a["steer"]) for a in resolutions}
    assert holds == {("c", "a"), ("c", "b"), ("a", "b")}


def _holder(data: dict[str, Any], engine: str = "fast") -> str:
    (advisory,) = radar(data, engine)["advisories"]
    assert advisory["level"] == "resolution"
    return str(advisory["hold"])


def _old_and_idle(touched: str, **options: Any) -> dict[str, Any]:
    """``a`` started first and last changed its file at ``touched``; ``b`` is at work now."""
    old = {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": touched}
    new = {"path": "src/x.py", "baseHunks": [[12, 1]], "touchedAt": "2026-09-15T11:59:00Z"}
    return airspace(
        agent("a", old, started="2026-09-01T00:00:00Z"),
        agent("b", new, started="2026-09-14T00:00:00Z"),
        **options,
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parked_agent_yields_right_of_way_to_an_active_one(engine: str) -> None:
    """No change for 168 hours (radar-v1's ``parked_after_s``): the earlier start no longer holds
    (docs/DECISIONS.md, "A parked branch yields"); the encounter stays a Resolution."""
    for touched, holder in (
        ("2026-09-08T12:00:01Z", "a"),  # 167:59:59 ago: still flying
        ("2026-09-08T12:00:00Z", "b"),  # exactly 168 h: parked
        ("2026-09-01T12:00:00Z", "b"),
    ):
        assert _holder(_old_and_idle(touched), engine) == holder, touched
        (advisory,) = radar(_old_and_idle(touched), engine)["advisories"]
        assert advisory.get("parked", []) == (["a"] if holder == "b" else []), touched


@pytest.mark.parametrize("engine", ENGINES)
def test_the_advisory_says_when_an_idle_holder_would_yield(engine: str) -> None:
    """``holderYieldsAt``: the holder's last change plus the parked time, rounded up to the
    second (the steerer's time to ask again); the active holder that took over from a parked one
    yields in its turn; absent with an undated file or with parking switched off."""
    (flying,) = radar(_old_and_idle("2026-09-13T12:00:01.250Z"), engine)["advisories"]
    assert (flying["hold"], flying["holderYieldsAt"]) == ("a", "2026-09-20T12:00:02Z")
    (later,) = radar(_old_and_idle("2026-09-13T12:00:01Z", parkedAfterHours=100), engine)[
        "advisories"
    ]
    assert later["holderYieldsAt"] == "2026-09-17T16:00:01Z"
    (parked,) = radar(_old_and_idle("2026-09-01T12:00:00Z"), engine)["advisories"]
    assert (parked["hold"], parked["holderYieldsAt"]) == ("b", "2026-09-22T11:59:00Z")
    undated = _old_and_idle("2026-09-13T12:00:01Z")
    undated["agents"][0]["files"].append({"path": "src/y.py"})
    (unknown,) = radar(undated, engine)["advisories"]
    assert unknown["hold"] == "a"
    assert "holderYieldsAt" not in unknown
    (never,) = radar(_old_and_idle("2026-09-13T12:00:01Z", parkedAfterHours=0), engine)[
        "advisories"
    ]
    assert never["hold"] == "a"
    assert "holderYieldsAt" not in never


@pytest.mark.parametrize("engine", ENGINES)
def test_an_agent_waiting_on_a_denial_is_not_idle(engine: str) -> None:
    """``askedAt``: an edit the radar denied is work, so the agent parks a week after its last
    ask as after its last change (docs/DECISIONS.md, "Waiting on the radar is not idleness")."""
    idle = _old_and_idle("2026-09-01T12:00:00Z")
    assert _holder(idle, engine) == "b"
    idle["agents"][0]["askedAt"] = "2026-09-10T00:00:00Z"
    (waiting,) = radar(idle, engine)["advisories"]
    assert (waiting["hold"], waiting.get("parked", [])) == ("a", [])
    assert waiting["holderYieldsAt"] == "2026-09-17T00:00:00Z"
    idle["agents"][0]["askedAt"] = "2026-09-08T12:00:00Z"  # its last ask a week ago: parked
    assert _holder(idle, engine) == "b"
    idle["agents"][0]["askedAt"] = "2026-08-01T00:00:00Z"  # before its last change: no effect
    flying = _old_and_idle("2026-09-13T12:00:00Z")
    flying["agents"][0]["askedAt"] = "2026-08-01T00:00:00Z"
    (same,) = radar(flying, engine)["advisories"]
    assert same["holderYieldsAt"] == "2026-09-20T12:00:00Z"


@pytest.mark.parametrize("engine", ENGINES)
def test_published_work_never_parks(engine: str) -> None:
    """``published``: committed and pushed, waiting on review; its merge is coming, so however
    long it is idle its earlier start holds (docs/DECISIONS.md, "Published work waits on
    review"), the steerer is told so and given no time to ask again."""
    idle = _old_and_idle("2026-09-01T12:00:00Z")
    assert _holder(idle, engine) == "b"
    idle["agents"][0]["published"] = True
    (held,) = radar(idle, engine)["advisories"]
    assert (held["hold"], held.get("parked", []), held["holderPublished"]) == ("a", [], True)
    assert "holderYieldsAt" not in held
    flying = _old_and_idle("2026-09-13T12:00:00Z")
    flying["agents"][0]["published"] = True
    (same,) = radar(flying, engine)["advisories"]
    assert (same["hold"], same["holderPublished"]) == ("a", True)
    assert "holderYieldsAt" not in same
    # with no parked time at all, being published changes nothing and is not said
    never = _old_and_idle("2026-09-01T12:00:00Z", parkedAfterHours=0)
    never["agents"][0]["published"] = True
    (plain,) = radar(never, engine)["advisories"]
    assert plain["hold"] == "a"
    assert "holderPublished" not in plain
    # a published steerer is told nothing about itself
    idle["agents"][1]["published"] = True
    (both,) = radar(idle, engine)["advisories"]
    assert (both["hold"], both["holderPublished"]) == ("a", True)


@pytest.mark.parametrize("bad", ["yes", 1, None, [True]])
def test_published_must_be_true_or_false(bad: Any) -> None:
    from proximity.engine.airspace.validate import AirspaceInputError

    data = _old_and_idle("2026-09-01T12:00:00Z")
    data["agents"][0]["published"] = bad
    with pytest.raises(AirspaceInputError, match=r"agents\[0\]\.published"):
        radar(data)


@pytest.mark.parametrize("bad", ["yesterday", True, [1]])
def test_asked_at_must_be_a_time(bad: Any) -> None:
    from proximity.engine.airspace.validate import AirspaceInputError

    data = _old_and_idle("2026-09-01T12:00:00Z")
    data["agents"][0]["askedAt"] = bad
    with pytest.raises(AirspaceInputError, match=r"agents\[0\]\.askedAt"):
        radar(data)


@pytest.mark.parametrize("engine", ENGINES)
def test_parked_after_hours_replaces_the_profile_s_threshold(engine: str) -> None:
    week_old = "2026-09-08T12:00:00Z"
    assert _holder(_old_and_idle(week_old), engine) == "b"
    never = _old_and_idle(week_old, parkedAfterHours=0)
    assert _holder(never, engine) == "a"
    longer = _old_and_idle(week_old, parkedAfterHours=24 * 8)
    assert _holder(longer, engine) == "a"
    shorter = _old_and_idle("2026-09-15T06:00:00Z", parkedAfterHours=5)
    assert _holder(shorter, engine) == "b"


def test_an_agent_with_an_undated_file_or_parked_agents_among_themselves() -> None:
    """An undated file cannot show the agent idle; two parked agents rank by start again."""
    undated = {"path": "src/y.py"}
    old = {"path": "src/x.py", "baseHunks": [[10, 5]], "touchedAt": "2026-09-01T00:00:00Z"}
    other = {"path": "src/x.py", "baseHunks": [[12, 1]], "touchedAt": "2026-09-02T00:00:00Z"}
    first = agent("a", old, undated, started="2026-08-01T00:00:00Z")
    second = agent("b", other, started="2026-08-02T00:00:00Z")
    assert _holder(airspace(first, second)) == "a"
    both_parked = airspace(agent("a", old, started="2026-08-01T00:00:00Z"), second)
    assert _holder(both_parked) == "a"


@pytest.mark.parametrize("bad", [-1, "72", True, float("inf")])
def test_parked_after_hours_must_be_a_non_negative_number(bad: Any) -> None:
    from proximity.engine.airspace.validate import AirspaceInputError

    with pytest.raises(AirspaceInputError, match=r"options\.parkedAfterHours"):
        radar(_old_and_idle("2026-09-05T12:00:00Z", parkedAfterHours=bad))


def test_links_are_bounded_to_non_clear_pairs_and_a_few_per_agent() -> None:
    agents = [agent(f"ag{k:02d}", f"pkg{k % 4}/mod{k}/f.py") for k in range(40)]
    result = radar(airspace(*agents, linksPerAgent=2))
    non_clear = sum(1 for link in result["links"] if link["level"] != "clear")
    assert len(result["links"]) <= non_clear + 2 * 40
    assert len(result["links"]) < 40 * 39 // 2
    per_agent = {a["agentId"]: 0 for a in agents}
    for link in result["links"]:
        per_agent[link["a"]] += 1
        per_agent[link["b"]] += 1
    assert min(per_agent.values()) >= 2


def test_profile_and_version_travel_with_the_result() -> None:
    result = radar(airspace(agent("a", "x.py"), agent("b", "y.py")))
    assert result["profile"] == "radar-v1"
    assert result["scorerVersion"]
    assert result["generatedAt"] == "2026-09-15T12:00:00.000Z"


def _made(path: str, *hunks: tuple[int, int, str]) -> dict[str, Any]:
    """A git working-set entry: base hunks with the digest of each one's text."""
    return {
        "path": path,
        "baseHunks": [[s, n] for s, n, _ in hunks],
        "hunkIds": [h for _, _, h in hunks],
    }


SAME, OTHER, THIRD = "a1" * 8, "b2" * 8, "c3" * 8


@pytest.mark.parametrize("engine", ENGINES)
def test_a_hunk_both_made_identically_is_no_overlap(engine: str) -> None:
    # One branch carries the other's change (a cherry-pick, a merged-in branch): git takes the
    # one result on those lines and reports nothing, so neither does the radar.
    twins = airspace(
        agent("a", _made("src/x.py", (20, 2, SAME))),
        agent("b", _made("src/x.py", (20, 2, SAME), (40, 1, OTHER))),
    )
    got = channels(twins, engine)
    assert (got["overlap"], got["adjacency"]) == (0.0, 0.0)
    assert pair_link(radar(twins, engine), "a", "b")["level"] == "clear"
    # the same lines changed differently still overlap
    rival = airspace(
        agent("a", _made("src/x.py", (20, 2, OTHER))),
        agent("b", _made("src/x.py", (20, 2, SAME), (40, 1, OTHER))),
    )
    assert channels(rival, engine)["overlap"] == 1.0
    # without ids (a planned edit, an older reporter) nothing is set apart
    bare = airspace(
        agent("a", {"path": "src/x.py", "baseHunks": [[20, 2]]}),
        agent("b", _made("src/x.py", (20, 2, SAME))),
    )
    assert channels(bare, engine)["overlap"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_the_rest_of_two_branches_that_share_a_hunk_is_compared_as_usual(engine: str) -> None:
    a = _made("src/x.py", (20, 2, SAME), (30, 2, OTHER))
    overlapping = airspace(
        agent("a", a), agent("b", _made("src/x.py", (20, 2, SAME), (31, 1, THIRD)))
    )
    assert channels(overlapping, engine)["overlap"] == 1.0
    abutting = airspace(agent("a", a), agent("b", _made("src/x.py", (20, 2, SAME), (32, 3, THIRD))))
    got = channels(abutting, engine)
    assert (got["overlap"], got["adjacency"]) == (0.0, 1.0)


@pytest.mark.parametrize("engine", ENGINES)
def test_twins_count_per_pair_on_a_hot_file(engine: str) -> None:
    # 60 agents on one file take the fast scorer's dense-block path; t0 and t1 made one hunk
    # identically, tx changed the same line differently, the rest other lines
    agents = [agent(t, _made("hot.py", (5, 1, SAME))) for t in ("t0", "t1")]
    agents.append(agent("tx", _made("hot.py", (5, 1, OTHER))))
    agents += [agent(f"t{k}", _made("hot.py", (5 + 3 * k, 1, f"{k:016x}"))) for k in range(2, 59)]
    result = radar(airspace(*agents), engine)
    twins = [link for link in result["links"] if {link["a"], link["b"]} == {"t0", "t1"}]
    assert all(link["channels"]["overlap"] == 0.0 for link in twins)
    assert all(link["level"] == "clear" for link in twins)
    for t in ("t0", "t1"):
        assert pair_link(result, t, "tx")["channels"]["overlap"] == 1.0


def test_hunk_ids_must_name_each_base_hunk() -> None:
    from proximity.engine.airspace import parse_airspace
    from proximity.engine.airspace.validate import AirspaceInputError

    short = airspace(agent("a", {"path": "x.py", "baseHunks": [[1, 1], [5, 0]], "hunkIds": [SAME]}))
    with pytest.raises(AirspaceInputError, match=r"agents\[0\]\.files\[0\]\.hunkIds"):
        parse_airspace(short)
    odd = airspace(agent("a", {"path": "x.py", "baseHunks": [[1, 1]], "hunkIds": ["not hex"]}))
    with pytest.raises(AirspaceInputError, match=r"hunkIds\[0\]"):
        parse_airspace(odd)
