"""``manage.py backtest_conflicts``: mine concurrent pull-request pairs, or score mined pairs.

Mining: ``backtest_conflicts REPO [--since DATE] [--max-pairs N] [--out pairs.jsonl]`` (read-only on
REPO); ``--build-breaks`` also labels each textually clean pair by the static merge check and adds
its symbol data; ``REPO --refresh-symbols pairs.jsonl --out new.jsonl`` recomputes the file
entries and the symbol data of mined pairs with this code (not the merge checks). Scoring:
``backtest_conflicts --score pairs.jsonl --profile NAME`` (``--build-breaks``: the symbol
channel's recall on build breaks and its alarm rate; a pair whose symbol read failed is
unchecked for a profile with the symbol channel).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.airspace import PROFILES, scan
from proximity.engine.evaluation.backtest import pair_from_json
from proximity.engine.evaluation.buildbreaks import (
    alarm_causes,
    build_break_report,
    clean_pairs,
    format_alarm_causes,
    format_build_break_reports,
    strongest_symbol_item,
    symbol_profile_scorer,
)
from proximity.engine.evaluation.calibration import artefact_from_json
from proximity.engine.evaluation.report import backtest_reports, format_reliability, format_reports
from proximity.engine.evaluation.scoring import profile_scorer, split_by_time
from proximity.lab.backtest import (
    Candidate,
    concurrent_candidates,
    mine_pairs,
    read_pull_requests,
    sample_candidates,
)
from proximity.lab.backtest.buildbreaks import label_build_breaks, refresh_symbols, scratch_env
from proximity.lab.backtest.pairs import pair_id, refresh_files


def _moment(date: str, flag: str) -> float:
    try:
        return datetime.fromisoformat(date).replace(tzinfo=UTC).timestamp()
    except ValueError as exc:
        raise CommandError(f"{flag}: {exc}") from exc


def _after(sample: list[Candidate], date: str) -> list[Candidate]:
    """Sampled pairs whose two PRs merged on or after ``date`` (weights kept: same sample)."""
    moment = _moment(date, "--after")
    return [c for c in sample if min(c.a.merged_at, c.b.merged_at) >= moment]


def _before(sample: list[Candidate], date: str) -> list[Candidate]:
    """Sampled pairs whose two PRs both merged before ``date``: the train side of ``--cut``."""
    moment = _moment(date, "--before")
    return [c for c in sample if max(c.a.merged_at, c.b.merged_at) < moment]


def _mined_ids(path: Path) -> set[str]:
    """Pair ids already written to ``path``; a half-written last line is cut off the file."""
    if not path.exists():
        return set()
    done, good = set(), 0
    with path.open("rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break
            try:
                done.add(str(json.loads(line)["pairId"]))
            except (ValueError, KeyError):
                break
            good += len(line)
    with path.open("r+b") as fh:
        fh.truncate(good)
    return done


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
        parser.add_argument(
            "--build-breaks",
            action="store_true",
            help="mining: label clean pairs by the static merge check and add symbol data; "
            "scoring: report recall on build breaks and the alarm rate",
        )
        parser.add_argument(
            "--check-timeout", type=float, default=120.0, help="seconds per merge check"
        )
        parser.add_argument(
            "--after",
            help="mine only sampled pairs whose two PRs merged on or after this ISO date "
            "(the sample itself is unchanged)",
        )
        parser.add_argument(
            "--before",
            help="mine only sampled pairs whose two PRs merged before this ISO date "
            "(the train side of --cut; the sample itself is unchanged)",
        )
        parser.add_argument(
            "--resume",
            action="store_true",
            help="mining: keep the pairs already in --out and mine only the others (a run "
            "stopped midway goes on where it stopped; a last half-written line is dropped)",
        )
        parser.add_argument(
            "--refresh-symbols",
            metavar="PAIRS",
            help="recompute the symbol data of this mined JSONL from REPO with this code (the "
            "merge checks are kept) and write it to --out",
        )
        parser.add_argument(
            "--symbol-timeout", type=float, default=60.0, help="seconds per pair's symbol read"
        )
        parser.add_argument("--cut", help="scoring: also report before/after this ISO date")
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
        elif options["refresh_symbols"]:
            self._refresh(options)
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
        if o["after"]:
            sample = _after(sample, o["after"])
        if o["before"]:
            sample = _before(sample, o["before"])
        name = o["repo_name"] or (repo.resolve().parent.name if repo.name == ".git" else repo.name)
        if o["resume"]:
            if not o["out"]:
                raise CommandError("--resume: needs --out, the file to go on with")
            done = _mined_ids(Path(o["out"]))
            sample = [c for c in sample if pair_id(name, c) not in done]
        records = mine_pairs(repo, sample, repo_name=name, with_imports=not o["no_imports"])
        with ExitStack() as stack:
            if o["build_breaks"]:
                env = stack.enter_context(scratch_env(repo))
                records = label_build_breaks(repo, records, env, timeout=o["check_timeout"])
            written = self._write(o, records)
        self.stderr.write(
            f"{len(prs)} pull requests, {len(candidates)} concurrent candidates, "
            f"{len(sample)} sampled, {written} pairs written"
        )

    def _refresh(self, o: dict[str, Any]) -> None:
        if not o["repo"]:
            raise CommandError("--refresh-symbols: give REPO, the repository the pairs came from")
        source, repo = Path(o["refresh_symbols"]), Path(o["repo"])
        for path, flag in ((source, "--refresh-symbols"), (repo, "repo")):
            if not path.exists():
                raise CommandError(f"{flag}: {path} does not exist")
        if not o["out"] or Path(o["out"]).resolve() == source.resolve():
            raise CommandError("--refresh-symbols: needs --out, a file other than the input")
        if o["resume"]:
            raise CommandError("--refresh-symbols: --resume is for mining")
        with source.open(encoding="utf-8") as fh:
            records = (json.loads(line) for line in fh if line.strip())
            failed = 0

            def counted(rows: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
                nonlocal failed
                for row in rows:
                    failed += "symbolsError" in row
                    yield row

            refreshed = refresh_symbols(
                repo, refresh_files(repo, records), timeout=o["symbol_timeout"]
            )
            written = self._write(o, counted(refreshed))
        self.stderr.write(f"{written} pairs refreshed, {failed} with their symbol read unchecked")

    def _write(self, o: dict[str, Any], records: Iterable[dict[str, Any]]) -> int:
        lines = (json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in records)
        written = 0
        if o["out"]:
            with Path(o["out"]).open("a" if o.get("resume") else "w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line)
                    written += 1
        else:
            for line in lines:
                sys.stdout.write(line)
                written += 1
        return written

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
        # Pairs mined with --build-breaks carry symbol data; only a profile with the symbol
        # channel is fed it, so every other profile's figures are computed exactly as before.
        make = symbol_profile_scorer if "symbol" in profile.channels else profile_scorer
        scorer = make(scan, o["profile"], options=opts, engine=o["engine"])
        if o["build_breaks"]:
            self._build_breaks(o, pairs, scorer, thresholds)
            return
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

    def _build_breaks(
        self, o: dict[str, Any], pairs: list[Any], scorer: Any, thresholds: dict[str, float]
    ) -> None:
        slices: list[tuple[str, Any]] = [("all", pairs)]
        if o["cut"]:
            train, test, dropped = split_by_time(pairs, o["cut"])
            slices += [(f"before {o['cut']}", train), (f"from {o['cut']}", test)]
            self.stdout.write(f"{dropped} pairs straddle {o['cut']} (dropped from the slices)")
        reports, textual, causes = [], [], ""
        base = profile_scorer(scan, "radar-v1", engine=o["engine"])
        symbolic = "symbol" in PROFILES[o["profile"]].channels
        for name, chunk in slices:
            clean, unchecked = clean_pairs(chunk, symbols=symbolic)
            scores = [scorer(p) for p in clean]
            reports.append(
                build_break_report(
                    name, clean, scores, thresholds=thresholds, unchecked=unchecked,
                    resamples=o["resamples"], seed=o["seed"],
                )
            )  # fmt: skip
            textual.append((name, {"radar-v1": base, o["profile"]: scorer}, chunk))
            if not causes and symbolic:
                causes = self._causes(o, clean, scores, base, thresholds["traffic"])
        self.stdout.write(f"Build breaks, {o['profile']} (clean, checked pairs):\n")
        self.stdout.write(format_build_break_reports(reports))
        for name, scorers, chunk in textual:
            self.stdout.write(f"\nTextual conflicts, {name}: {len(chunk)} pairs\n")
            found = backtest_reports(
                chunk, scorers, thresholds=thresholds, resamples=o["resamples"], seed=o["seed"]
            )
            self.stdout.write(format_reports(found, thresholds))
        if causes:
            self.stdout.write(f"\nTraffic alarms by strongest symbol item, {slices[0][0]}:\n")
            self.stdout.write(causes)
        self._examples(pairs)

    def _causes(
        self, o: dict[str, Any], clean: list[Any], scores: list[float], base: Any, threshold: float
    ) -> str:
        hit = [s >= threshold for s in scores]
        items = [
            strongest_symbol_item(scan, o["profile"], p, engine=o["engine"]) if h else ""
            for p, h in zip(clean, hit, strict=True)
        ]
        without = [h and base(p) >= threshold for p, h in zip(clean, hit, strict=True)]
        return format_alarm_causes(alarm_causes(clean, items, hit, without))

    def _examples(self, pairs: list[Any]) -> None:
        self.stdout.write("\nBuild breaks found:")
        for p in pairs:
            if p.raw.get("buildBreak"):
                first = p.raw["mergeCheck"]["problems"][0]
                self.stdout.write(
                    f"- {p.pair_id}: {first['kind']} {first['path']} {first['name']!r} "
                    f"({len(p.raw['mergeCheck']['problems'])} problems)"
                )

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
