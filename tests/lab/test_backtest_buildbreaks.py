"""Build-break labels and symbol data of mined pairs, on a real repository built here."""

from __future__ import annotations

import json
import subprocess
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proximity.engine.airspace import scan
from proximity.engine.evaluation.backtest import pair_from_json
from proximity.engine.evaluation.buildbreaks import (
    build_break_report,
    clean_pairs,
    symbol_profile_scorer,
)
from proximity.engine.evaluation.scoring import profile_scorer
from proximity.lab.backtest import (
    concurrent_candidates,
    mine_pairs,
    read_pull_requests,
    sample_candidates,
)
from proximity.lab.backtest.buildbreaks import (
    build_check,
    label_build_breaks,
    refresh_symbols,
    scratch_env,
)
from tests.lab.test_backtest import T0, _edit, _git, _merge

CORE = "def helper(x):\n    return x + 1\n\n\ndef other():\n    return 2\n"
USER = "import os\n\n\ndef main():\n    return os.sep\n"
MIG = "from django.db import migrations\n\n\nclass Migration(migrations.Migration):\n"


def _commit(repo: Path, branch: str, at: int, files: dict[str, str]) -> None:
    _git(repo, "checkout", "-q", branch)
    for path, text in files.items():
        _edit(repo, path, text)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", f"work on {branch}", at=at)


def build_history(repo: Path) -> Path:
    """#1 renames ``helper``; #2 (open meanwhile) starts calling it; #3 edits an unrelated
    function; #4 and #5 each add a migration after 0001 of one app."""
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _edit(repo, "pkg/__init__.py", "")
    _edit(repo, "pkg/core.py", CORE)
    _edit(repo, "pkg/user.py", USER)
    _edit(repo, "app/__init__.py", "")
    _edit(repo, "app/migrations/__init__.py", "")
    _edit(repo, "app/migrations/0001_initial.py", MIG + "    dependencies = []\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "initial", at=T0)
    for b in ("pr1", "pr2", "pr3", "pr4", "pr5"):
        _git(repo, "branch", b)
    _commit(repo, "pr1", T0 + 10, {"pkg/core.py": CORE.replace("helper", "increment")})
    call = "from pkg.core import helper\n" + USER.replace("os.sep", "helper(1)")
    _commit(repo, "pr2", T0 + 20, {"pkg/user.py": call})
    _commit(repo, "pr3", T0 + 30, {"pkg/core.py": CORE.replace("return 2", "return 3")})
    leaf = MIG + "    dependencies = [('app', '0001_initial')]\n"
    _commit(repo, "pr4", T0 + 40, {"app/migrations/0002_a.py": leaf})
    _commit(repo, "pr5", T0 + 50, {"app/migrations/0002_b.py": leaf})
    for n in range(1, 6):
        _merge(repo, n, f"pr{n}", T0 + 100 * n)
    return repo


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_history(tmp_path_factory.mktemp("bb") / "repo")


@pytest.fixture(scope="module")
def records(history: Path) -> dict[tuple[int, int], dict[str, Any]]:
    sample = sample_candidates(concurrent_candidates(read_pull_requests(history)), max_pairs=100)
    with scratch_env(history) as env:
        mined = mine_pairs(history, sample, repo_name="t")
        labelled = list(label_build_breaks(history, mined, env))
    return {(r["a"]["pr"], r["b"]["pr"]): r for r in labelled}


def _snapshot(repo: Path) -> str:
    objects = subprocess.run(
        ["git", "-C", str(repo), "count-objects", "-v"], capture_output=True, text=True, check=True
    ).stdout
    refs = _git(repo, "for-each-ref")
    return objects + refs + _git(repo, "status", "--porcelain")


def test_rename_against_a_new_caller_is_a_build_break(records: dict[Any, Any]) -> None:
    pair = records[(1, 2)]
    assert pair["conflict"] is False
    assert pair["buildBreak"] is True
    kinds = [(p["kind"], p["path"], p["name"]) for p in pair["mergeCheck"]["problems"]]
    assert kinds == [("unresolved-name", "pkg/user.py", "pkg.core:helper")]


def test_unrelated_edits_of_one_file_are_checked_clean(records: dict[Any, Any]) -> None:
    # #3 changed other() while #1 renamed helper(): a clean merge with no new problem.
    pair = records[(1, 3)]
    assert pair["mergeCheck"]["status"] == "done"
    assert pair["buildBreak"] is False


def test_two_migration_leaves_of_one_app_are_a_build_break(records: dict[Any, Any]) -> None:
    pair = records[(4, 5)]
    assert pair["buildBreak"] is True
    assert [p["kind"] for p in pair["mergeCheck"]["problems"]] == ["migration-conflict"]


def test_symbol_data_names_the_renamed_symbol_and_its_new_use(records: dict[Any, Any]) -> None:
    symbols = json.dumps(records[(1, 2)]["symbols"])
    assert "pkg/core.py" in symbols
    assert "helper" in symbols


def test_symbol_channel_raises_the_break_and_leaves_radar_v1_unchanged(
    records: dict[Any, Any],
) -> None:
    pairs = [pair_from_json(r) for r in records.values()]
    clean, unchecked = clean_pairs(pairs)
    assert unchecked == 0
    sym = symbol_profile_scorer(scan, "radar-v1-symbols")
    base = profile_scorer(scan, "radar-v1")
    rename = next(p for p in clean if p.raw["a"]["pr"] == 1 and p.raw["b"]["pr"] == 2)
    assert sym(rename) >= 0.35 > base(rename)
    report = build_break_report(
        "t", clean, [sym(p) for p in clean], thresholds={"traffic": 0.35}, resamples=20
    )
    assert report.breaks == 2
    assert report.bands["traffic"].caught >= 1
    # without symbol data the symbols profile is radar-v1 to the bit
    stripped = [pair_from_json({k: v for k, v in p.raw.items() if k != "symbols"}) for p in pairs]
    assert [sym(p) for p in stripped] == [base(p) for p in stripped]


def test_a_check_over_its_time_bound_is_unchecked_not_clean(history: Path) -> None:
    tips = _git(history, "rev-parse", "pr1", "pr2").split()
    with scratch_env(history) as env:
        out = build_check(history, env, *tips, timeout=1e-6)
    assert out["status"] == "unchecked"
    assert "over" in out["reason"]


def test_command_mines_labels_and_scores_read_only(history: Path, tmp_path: Path) -> None:
    before = _snapshot(history)
    out = tmp_path / "pairs.jsonl"
    call_command("backtest_conflicts", str(history), "--build-breaks", "--out", str(out))
    assert _snapshot(history) == before
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sum(bool(r["buildBreak"]) for r in rows) == 2
    text = StringIO()
    call_command(
        "backtest_conflicts", "--score", str(out), "--profile", "radar-v1-symbols",
        "--build-breaks", "--resamples", "20", stdout=text,
    )  # fmt: skip
    assert "Build breaks, radar-v1-symbols" in text.getvalue()
    assert "#1-2@" in text.getvalue()
    assert "Traffic alarms by strongest symbol item, all" in text.getvalue()
    assert "| hazard/" in text.getvalue()  # the rename against its new caller


def test_after_outside_iso_is_a_one_line_error(history: Path) -> None:
    with pytest.raises(CommandError, match="--after"):
        call_command("backtest_conflicts", str(history), "--after", "yesterday")


def test_before_mines_the_train_side_only(history: Path, tmp_path: Path) -> None:
    def mined(*extra: str) -> int:
        out = tmp_path / "before.jsonl"
        call_command("backtest_conflicts", str(history), "--out", str(out), *extra)
        return len(out.read_text().splitlines())

    everything = mined()
    assert everything > 0
    assert mined("--before", "2100-01-01") == everything
    assert mined("--before", "1970-01-02") == 0
    with pytest.raises(CommandError, match="--before"):
        call_command("backtest_conflicts", str(history), "--before", "last week")


def test_resume_goes_on_where_a_stopped_run_stopped(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "pairs.jsonl"
    call_command("backtest_conflicts", str(history), "--out", str(out))
    full = out.read_text().splitlines()
    assert len(full) >= 3
    out.write_text("\n".join(full[:2]) + "\n" + full[2][:40])  # stopped mid-line
    call_command("backtest_conflicts", str(history), "--out", str(out), "--resume")
    resumed = out.read_text().splitlines()
    assert sorted(resumed) == sorted(full)  # nothing lost, nothing twice, no broken line
    with pytest.raises(CommandError, match="--resume"):
        call_command("backtest_conflicts", str(history), "--resume")


def _stale(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` as an older miner left it: another symbol version, fewer fields per change,
    and file entries without hunk ids."""
    old = json.loads(json.dumps(row["symbols"]))
    old["version"] = "symbols-older"
    for side in old["agents"].values():
        side["uses"] = []
        for change in side["changes"]:
            change.pop("params", None)
            change["changes"] = ["body"]
    files = {
        k: [{x: v for x, v in f.items() if x != "hunkIds"} for f in row[k]]
        for k in ("filesA", "filesB")
    }
    return {**row, **files, "symbols": old}


def test_refresh_recomputes_the_symbol_data_and_keeps_every_other_field(
    history: Path, tmp_path: Path
) -> None:
    mined = tmp_path / "pairs.jsonl"
    call_command("backtest_conflicts", str(history), "--build-breaks", "--out", str(mined),
                 stderr=StringIO())  # fmt: skip
    rows = [json.loads(line) for line in mined.read_text().splitlines()]
    stale = [_stale(r) for r in rows]
    stale[0] = {k: v for k, v in stale[0].items() if k != "symbols"}
    stale[0]["symbolsError"] = "an old failure"
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(r) + "\n" for r in stale))
    assert all(s != r for s, r in zip(stale, rows, strict=True))
    assert any("hunkIds" in f for r in rows for f in r["filesA"])  # what the refresh must restore
    before = _snapshot(history)
    out = tmp_path / "refreshed.jsonl"
    err = StringIO()
    call_command("backtest_conflicts", str(history), "--refresh-symbols", str(old),
                 "--out", str(out), stderr=err)  # fmt: skip
    assert _snapshot(history) == before
    assert f"{len(rows)} pairs refreshed, 0 with their symbol read unchecked" in err.getvalue()
    refreshed = [json.loads(line) for line in out.read_text().splitlines()]
    assert refreshed == rows  # today's symbols and hunk ids; labels, checks and hunks as mined

    def scored(path: Path) -> str:
        text = StringIO()
        call_command("backtest_conflicts", "--score", str(path), "--profile", "radar-v1-symbols",
                     "--build-breaks", "--resamples", "20", stdout=text)  # fmt: skip
        return text.getvalue()

    assert scored(out) == scored(mined)


def test_a_refresh_that_fails_or_runs_over_is_unchecked_not_clean(
    history: Path, records: dict[Any, Any]
) -> None:
    rows = [r for r in records.values() if not r["conflict"]]
    gone = {**rows[0], "a": {**rows[0]["a"], "commit": "0" * 40}}
    failed = list(refresh_symbols(history, [gone]))
    assert "symbols" not in failed[0]
    assert failed[0]["symbolsError"]
    late = list(refresh_symbols(history, rows, timeout=1e-6))
    assert all("symbols" not in r and r["symbolsError"] == "over 1e-06 s" for r in late)
    pairs = [pair_from_json(r) for r in late]
    clean, unchecked = clean_pairs(pairs, symbols=True)
    assert (clean, unchecked) == ([], len(rows))
    assert len(clean_pairs(pairs)[0]) == len(rows)  # radar-v1 does not read them


def test_refresh_needs_a_repository_and_another_output_file(history: Path, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("")
    with pytest.raises(CommandError, match="REPO"):
        call_command("backtest_conflicts", "--refresh-symbols", str(src), "--out", "x")
    with pytest.raises(CommandError, match="--out"):
        call_command("backtest_conflicts", str(history), "--refresh-symbols", str(src))
    with pytest.raises(CommandError, match="--out"):
        call_command("backtest_conflicts", str(history), "--refresh-symbols", str(src),
                     "--out", str(src))  # fmt: skip
