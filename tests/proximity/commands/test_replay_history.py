"""``manage.py replay_history`` on the constructed history, and its refusals."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.lab.replay_scenario import build_closed, build_scenario


def test_the_command_replays_a_window_and_writes_events_and_summary(tmp_path: Path) -> None:
    repo = build_scenario(tmp_path / "source")
    out = tmp_path / "out"
    stdout = StringIO()
    call_command("replay_history", str(repo), "--policy", "obey", "--max-prs", "4", "--out",
                 str(out), "--work", str(tmp_path), "--resamples", "50", stdout=stdout,
                 stderr=StringIO())  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    assert summary["prs"] == [1, 4, 2, 5]  # the first four merges
    assert sorted(summary["policies"]) == ["ignore", "obey"]
    assert summary["order"] == "committer"
    assert summary["branchMerges"] == "replay"  # the branches' own merges of the mainline
    assert summary["branches"] == "published"  # a pull request's branch is on its remote
    obey = summary["policies"]["obey"]["figures"]
    # issue 28: the second denial (lines git merges cleanly) is Traffic now; see tests/lab
    assert (obey["conflicts"], obey["denials"], obey["unnecessary_denials"]) == (0, 1, 0)
    assert summary["policies"]["ignore"]["figures"]["conflicts"] == 1
    assert "| obey |" in stdout.getvalue()
    assert (out / "events-obey.jsonl").exists()
    assert not list(tmp_path.glob("replay-*"))  # the scratch repository is removed


def test_branch_merges_skip_gives_the_earlier_replay_and_says_so(tmp_path: Path) -> None:
    repo = build_scenario(tmp_path / "source")
    stdout = StringIO()
    call_command("replay_history", str(repo), "--policy", "ignore", "--max-prs", "4", "--out",
                 str(tmp_path / "out"), "--work", str(tmp_path), "--resamples", "20",
                 "--branch-merges", "skip", stdout=stdout, stderr=StringIO())  # fmt: skip
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["branchMerges"] == "skip"
    assert "the branches' own merges of the mainline skipped" in stdout.getvalue()
    with pytest.raises(CommandError, match="--branch-merges"):
        call_command("replay_history", str(repo), "--out", str(tmp_path / "o"),
                     "--branch-merges", "sometimes")  # fmt: skip


def test_closed_prs_include_adds_the_closed_pull_requests_and_refuses_other_values(
    tmp_path: Path,
) -> None:
    repo = build_closed(tmp_path / "source")
    stdout = StringIO()
    call_command("replay_history", str(repo), "--policy", "obey", "--out", str(tmp_path / "out"),
                 "--work", str(tmp_path), "--resamples", "20", "--closed-prs", "include",
                 stdout=stdout, stderr=StringIO())  # fmt: skip
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["prs"], summary["closedPrs"]) == ([1, 2], [9])
    assert summary["policies"]["obey"]["figures"]["denials"] == 1  # #1 waits on the closed #9
    assert "(2 pull requests and 1 closed without merging," in stdout.getvalue()
    with pytest.raises(CommandError, match="--closed-prs"):
        call_command("replay_history", str(repo), "--out", str(tmp_path / "o"),
                     "--closed-prs", "some")  # fmt: skip
    out = tmp_path / "last"
    call_command("replay_history", str(repo), "--policy", "obey", "--out", str(out),
                 "--work", str(tmp_path), "--resamples", "20", "--closed-prs", "include",
                 "--closed-at", "last-commit", stdout=stdout, stderr=StringIO())  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    # #9's only commit (200 s) is before #1's edit (250 s): closed by then, it holds nothing
    assert (summary["closedAt"], summary["policies"]["obey"]["figures"]["denials"]) == (
        "last-commit",
        0,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-prs", "0"], "--max-prs"),
        (["--since", "2022-01-01"], "--since/--until"),
        (["--since", "2099-01-01T00:00:00+00:00"], "no pull request"),
        (["--bases", "mapped", "--mode", "hook"], "--bases"),
        (["--closed-at", "last-commit"], "--closed-at: needs --closed-prs include"),
        (["--closed-prs", "include", "--closed-at", "never"], "--closed-at"),
        (["--parked-hours", "-1"], "--parked-hours: must be"),
        (["--parked-hours", "nan"], "--parked-hours: must be"),
        (["--parked-hours", "9000"], "--parked-hours: must be"),
        (["--branches", "published", "--mode", "hook"], "--branches: 'published' needs"),
        (["--branches", "remote"], "--branches"),
    ],
)
def test_bad_input_is_refused_naming_the_option(
    tmp_path: Path, args: list[str], message: str
) -> None:
    repo = build_scenario(tmp_path / "source")
    with pytest.raises(CommandError, match=message):
        call_command("replay_history", str(repo), "--out", str(tmp_path / "o"), *args)


def test_a_missing_repository_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="repo:"):
        call_command("replay_history", str(tmp_path / "nope"), "--out", str(tmp_path / "o"))
