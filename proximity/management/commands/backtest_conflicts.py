"""``manage.py backtest_conflicts``: mine concurrent pull-request pairs, or score mined pairs.

Mining: ``backtest_conflicts REPO [--since DATE] [--max-pairs N] [--out pairs.jsonl]`` (read-only on
REPO). Scoring: ``backtest_conflicts --score pairs.jsonl --profile NAME``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.airspace import PROFILES, scan
from proximity.engine.evaluation.backtest import pair_from_json
from proximity.engine.evaluation.calibration import artefact_from_json
from proximity.engine.evaluation.report import backtest_reports, format_reliability, format_reports
from proximity.engine.evaluation.scoring import profile_scorer
from proximity.sources.backtest import (
    concurrent_candidates,
    mine_pairs,
    read_pull_requests,
    sample_candidates,
)


class Command(BaseCommand):
    help = "Mine concurrent PR pairs labelled by git merge-tree, or score mined pairs."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("repo", nargs="?", help="git directory or worktree to mine (read-only)")
        parser.add_argument("--ref", default="HEAD", help="mainline ref (default HEAD)")
        parser.add_argument("--since", help="only merges after this date (git --since syntax)")
        parser.add_argument("--max-pairs", type=int, default=2000)
        parser.add_argument("--seed", type=int, default=0, help="sampling/bootstrap seed")
        parser.add_argument("--out", help="write pairs JSONL here (default stdout)")
        parser.add_argument("--repo-name", help="name recorded in pair ids (default folder name)")
        parser.add_argument("--no-imports", action="store_true", help="skip import edges")
        parser.add_argument("--score", metavar="PAIRS", help="score this pairs JSONL instead")
        parser.add_argument("--profile", default="radar-v1", choices=sorted(PROFILES))
        parser.add_argument("--options", default="{}", help="scan options JSON for the profile")
        parser.add_argument("--calibration", help="calibration artefact JSON to report beside")
        parser.add_argument("--resamples", type=int, default=300, help="bootstrap resamples")
        parser.add_argument(
            "--engine", default="reference", help="airspace scorer implementation (fast|reference)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["score"]:
            self._score(options)
        elif options["repo"]:
            self._mine(options)
        else:
            raise CommandError("give REPO to mine, or --score PAIRS to score")

    def _mine(self, o: dict[str, Any]) -> None:
        repo = Path(o["repo"])
        if not repo.exists():
            raise CommandError(f"repo: {repo} does not exist")
        prs = read_pull_requests(repo, ref=o["ref"], since=o["since"])
        candidates = concurrent_candidates(prs)
        sample = sample_candidates(candidates, max_pairs=o["max_pairs"], seed=o["seed"])
        name = o["repo_name"] or (repo.resolve().parent.name if repo.name == ".git" else repo.name)
        records = mine_pairs(repo, sample, repo_name=name, with_imports=not o["no_imports"])
        lines = (json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in records)
        written = 0
        if o["out"]:
            with Path(o["out"]).open("w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line)
                    written += 1
        else:
            for line in lines:
                sys.stdout.write(line)
                written += 1
        self.stderr.write(
            f"{len(prs)} pull requests, {len(candidates)} concurrent candidates, "
            f"{len(sample)} sampled, {written} pairs written"
        )

    def _score(self, o: dict[str, Any]) -> None:
        path = Path(o["score"])
        if not path.exists():
            raise CommandError(f"--score: {path} does not exist")
        pairs = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                pairs.append(pair_from_json(json.loads(line)))
            except ValueError as exc:
                raise CommandError(f"{path}:{n}: {exc}") from exc
        profile = PROFILES[o["profile"]]
        opts = json.loads(o["options"])
        given = opts.get("thresholds", {})
        thresholds = {
            "traffic": given.get("ta", profile.ta),
            "resolution": given.get("ra", profile.ra),
        }
        scorer = profile_scorer(scan, o["profile"], options=opts, engine=o["engine"])
        reports = backtest_reports(
            pairs,
            {o["profile"]: scorer},
            thresholds=thresholds,
            resamples=o["resamples"],
            seed=o["seed"],
        )
        self.stdout.write(format_reports(reports, thresholds))
        self.stdout.write("")
        self.stdout.write(format_reliability(reports[0]))
        if o["calibration"]:
            self._calibrated(o, pairs, scorer)

    def _calibrated(self, o: dict[str, Any], pairs: list[Any], scorer: Any) -> None:
        artefact = artefact_from_json(Path(o["calibration"]).read_text(encoding="utf-8"))
        if artefact.profile != o["profile"]:
            raise CommandError(f"--calibration: fitted for {artefact.profile}, not {o['profile']}")
        risks = [scorer(p) for p in pairs]
        probs = artefact.probability(risks)
        self.stdout.write(
            f"\nCalibrated with {artefact.digest} (fitted on {artefact.fitted_on}): mean predicted "
            f"{float(probs.mean()):.3f}, observed {sum(p.conflict for p in pairs) / len(pairs):.3f}"
        )
