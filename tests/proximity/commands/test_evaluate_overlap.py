"""`manage.py evaluate_overlap`: JSON schema on a tiny GitBugs pair, holdout refusal and ledger."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from proximity.engine.overlap import SHIPPED_POLICY
from proximity.management.commands.evaluate_overlap import VARIANTS
from proximity.services.holdouts import holdout_ledger

REPORTS = """Summary,Issue id,Status,Priority,Resolution,Created,Resolved,Description
NameNode disk quota exceeded,101,Resolved,Major,Fixed,30/Sep/21 17:20,,quota on namenode
Web UI shows wrong timezone,102,Open,Minor,,01/Oct/21 09:00,,timezone in web ui
Disk quota exceeded on the NameNode again,103,Open,Major,,02/Oct/21 10:00,,namenode quota
"""
PAIRS = "Issue id,Duplicate id\n103,101\n101,103\n"


def gitbugs(folder):
    folder.mkdir(parents=True)
    (folder / f"{folder.name}_bugs.csv").write_text(REPORTS)
    (folder / f"{folder.name}_bugs-combined.csv").write_text(PAIRS)
    return folder


def evaluate(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate_overlap", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_json_output_has_the_documented_schema(tmp_path):
    """Issue item 8: dataset, queries, policy digest, default method and four methods."""
    folder = gitbugs(tmp_path / "tiny")
    out, _ = evaluate("--gitbugs", str(folder), "--json", "--cache-dir", str(tmp_path / "c"))
    payload = json.loads(out)
    assert set(payload) == {"dataset", "queries", "policy", "default", "methods", "queue"}
    assert payload["dataset"] == "tiny"
    assert payload["queries"] == 1
    assert payload["policy"] == SHIPPED_POLICY.digest
    assert payload["default"] == "rrf"
    assert set(payload["methods"]) == {"lexical", "dense", "rrf", "convex"}
    for figures in payload["methods"].values():
        assert set(figures) == {"recall@1", "recall@5", "recall@10", "recall@20"}
    assert payload["methods"]["lexical"]["recall@1"] == 1.0
    queue = payload["queue"]  # the shipped two stages: candidates, then the evidence order
    assert queue["budget"] == 4
    assert queue["queries"] == 1
    assert queue["recall@1"] == 1.0
    assert queue["queue"]["4"]["holdsDuplicate"] == 1.0
    assert queue["queue"]["4"]["cards"] == 2  # both earlier reports, the duplicate first
    calibration = queue["calibration"]  # over the duplicate and the other report with a past
    assert calibration["backgroundQueries"] == 1
    assert calibration["inclusionProbability"] == 1.0
    assert calibration["pairs"] == 3  # 103's two candidates and 102's one
    assert 0.0 <= calibration["brier"] <= 1.0


def test_variants_report_every_candidate_variant_and_refuse_a_holdout(tmp_path):
    folder = gitbugs(tmp_path / "tiny")
    out, _ = evaluate("--gitbugs", str(folder), "--variants", "--cache-dir", str(tmp_path / "c"))
    rows = json.loads(out)
    assert len(rows) == len(VARIANTS) == 12
    assert len({r["variant"] for r in rows}) == 12
    assert {"recall@1", "recall@20", "queueHolds@4", "queuePrecision@4"} <= set(rows[0])
    assert rows[1]["variant"].startswith(SHIPPED_POLICY.text_prep)
    with pytest.raises(CommandError, match="no tuning"):
        evaluate("--gitbugs", str(gitbugs(tmp_path / "seamonkey")), "--holdout", "--variants")


def test_holdout_folder_is_refused_without_the_flag_and_never_tuned(tmp_path):
    """Requirements 66, 69: seamonkey is a holdout; no tuning decision may use it."""
    folder = gitbugs(tmp_path / "seamonkey")
    with pytest.raises(CommandError, match="holdout"):
        evaluate("--gitbugs", str(folder))
    with pytest.raises(CommandError, match="no tuning"):
        evaluate("--gitbugs", str(folder), "--holdout", "--tune")


@pytest.mark.django_db
def test_holdout_evaluation_is_logged_in_the_ledger(tmp_path):
    """Requirement 69: every holdout evaluation is written to the holdout ledger."""
    folder = gitbugs(tmp_path / "seamonkey")
    out, err = evaluate(
        "--gitbugs", str(folder), "--holdout", "--json", "--cache-dir", str(tmp_path / "c")
    )
    (entry,) = holdout_ledger("seamonkey")
    assert (entry.dataset, entry.policy_digest) == ("seamonkey", SHIPPED_POLICY.digest)
    assert "logged: inspected" in err
    assert json.loads(out)["dataset"] == "seamonkey"


def test_missing_folder_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match="not a folder"):
        evaluate("--gitbugs", str(tmp_path / "absent"))
