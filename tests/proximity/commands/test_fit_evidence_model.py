"""`manage.py fit_evidence_model`: refuses a holdout, fits on a development folder through the
shipped pipeline, and writes an artefact the service can load."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from proximity.engine.overlap.evidence import EVIDENCE_FEATURES, EvidenceModel

TOPICS = [
    ("NameNode disk quota exceeded", "quota on the namenode is exceeded after restart"),
    ("Web UI shows the wrong timezone", "the web ui renders times in the wrong timezone"),
    ("Upgrade jackson-databind for a CVE", "jackson databind has a published vulnerability"),
    ("S3A client retries SSL errors forever", "s3a retries on ssl handshake failures"),
    ("DataNode leaks file descriptors", "open descriptors grow on the datanode until it dies"),
    ("Balancer ignores excluded hosts", "the balancer moves blocks to hosts on the exclude list"),
    ("Kerberos ticket renewal fails at midnight", "renewal of kerberos tickets fails daily"),
    ("Distcp loses file permissions", "distcp does not keep permissions of copied files"),
]


def _csv(rows):
    head = "Summary,Issue id,Status,Priority,Resolution,Created,Resolved,Description\n"
    return head + "".join(f'"{s}",{i},Open,Major,,{c},,"{d}"\n' for s, i, c, d in rows)


def development_folder(folder):
    """Eight duplicate pairs, the second of each filed a day or a month after the first."""
    reports, pairs = [], []
    for n, (summary, description) in enumerate(TOPICS):
        first, second = 100 + 2 * n, 101 + 2 * n
        reports.append((summary, first, f"{1 + n:02d}/Jan/21 10:00", description))
        gap_month = "Mar" if n % 2 else "Feb"
        reports.append(
            (f"{summary} again", second, f"{1 + n:02d}/{gap_month}/21 10:00", description + ".")
        )
        pairs.append(f"{second},{first}\n")
    folder.mkdir(parents=True)
    (folder / f"{folder.name}_bugs.csv").write_text(_csv(reports))
    (folder / f"{folder.name}_bugs-combined.csv").write_text(
        "Issue id,Duplicate id\n" + "".join(pairs)
    )
    return folder


def fit(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("fit_evidence_model", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_a_holdout_folder_is_refused_before_it_is_read(tmp_path):
    folder = tmp_path / "seamonkey"  # not even created: refused on its name alone
    with pytest.raises(CommandError, match="holdout"):
        fit("--gitbugs", str(folder), "--model-version", "m/1")


def test_a_fit_writes_a_loadable_artefact_with_out_of_fold_figures(tmp_path):
    folder = development_folder(tmp_path / "dev")
    out_file = tmp_path / "model.json"
    out, err = fit(
        "--gitbugs", str(folder), "--model-version", "m/1", "--out", str(out_file),
        "--cache-dir", str(tmp_path / "c"),
    )  # fmt: skip
    artefact = json.loads(out_file.read_text())
    assert json.loads(out) == artefact
    model = EvidenceModel.from_mapping(artefact)
    assert model.digest in err
    assert model.status.startswith("fitted on GitBugs dev (8 duplicate queries)")
    assert {n for n, _ in model.weights} == set(EVIDENCE_FEATURES)
    report = artefact["fit"]
    assert report["positives"] == 8
    assert set(report["fitted"]) >= {"rank.lexical", "rank.fused"}
    # never evidence against overlap for agreement, never for it from a longer gap
    for name, weight in model.weights:
        assert weight <= 0 if name in {"time.gap", "version.gap", "purpose.review"} else weight >= 0
    # acceptance, plans and NLI are never declared by bug reports: they keep the prior weights
    assert "acceptance.jaccard" in report["prior"]
    assert set(report["outOfFold"]["queue"]) == {"1", "2", "3", "4", "5"}
    assert report["outOfFold"]["recall@20"] == 1.0  # every pair is found by the candidates
    # the probability is calibrated over every new report: the seven first reports of their
    # pair that have an earlier report are the frame, all taken (inclusion probability 1)
    calibration = report["calibration"]
    assert calibration["backgroundQueries"] == 7
    assert calibration["inclusionProbability"] == 1.0
    assert calibration["pairs"] > report["rows"]
    assert "7 sampled queries without a duplicate" in model.notes


def test_without_a_background_the_calibration_says_so(tmp_path):
    folder = development_folder(tmp_path / "dev")
    out, _ = fit(
        "--gitbugs", str(folder), "--model-version", "m/1", "--background", "0",
        "--cache-dir", str(tmp_path / "c"),
    )  # fmt: skip
    artefact = json.loads(out)
    assert artefact["fit"]["calibration"]["backgroundQueries"] == 0
    assert "duplicate queries only" in artefact["notes"]
    with pytest.raises(CommandError, match="--background"):
        fit("--gitbugs", str(folder), "--model-version", "m/1", "--background", "-1")


def test_a_budget_below_one_is_refused(tmp_path):
    with pytest.raises(CommandError, match="--budget"):
        fit("--gitbugs", str(tmp_path / "dev"), "--model-version", "m/1", "--budget", "0")
