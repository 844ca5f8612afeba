"""``manage.py replay_history REPO``: replay a window of real pull requests as agents (issue 17).

Read-only on REPO. Writes ``events-<policy>.jsonl`` and ``summary.json`` into ``--out`` and
prints the figures table (docs/EVALUATION.md, "Measured benefit").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.replay.schedule import CLOSINGS, ORDERS
from proximity.lab.replay_history import read_window
from proximity.lab.replay_radar import BASES, BRANCHES, MODES, RECENCY
from proximity.lab.replay_report import format_report, replay_window
from proximity.lab.replay_run import POLICIES
from proximity.sources.git._run import GitError
from proximity.sources.radar_files import MAX_PARKED_HOURS, parked_hours_ok


class Command(BaseCommand):
    help = "Replay a window of merged pull requests as agents under the radar; report the figures."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("repo", help="git directory or worktree of the source (read-only)")
        parser.add_argument("--ref", default="HEAD", help="mainline ref (default HEAD)")
        parser.add_argument("--since", help="first merge at or after (ISO 8601 with timezone)")
        parser.add_argument("--until", help="last merge at or before (ISO 8601 with timezone)")
        parser.add_argument("--max-prs", type=int, default=100)
        parser.add_argument("--policy", default="all", choices=[*POLICIES, "all"])
        parser.add_argument("--out", required=True, help="folder for events and summary.json")
        parser.add_argument("--order", default="committer", choices=ORDERS,
                            help="which historical time dates a commit")  # fmt: skip
        parser.add_argument("--recency", default="historical", choices=RECENCY)
        parser.add_argument(
            "--mode",
            default="session",
            choices=MODES,
            help="session: the hook's steps in-process; hook: run_hook per edit",
        )
        parser.add_argument(
            "--bases",
            default="as-read",
            choices=BASES,
            help="mapped: renumber other agents' lines onto the asker's base (session mode)",
        )
        parser.add_argument(
            "--max-wait-hours",
            type=float,
            help="obey: give up a wait after this much replay time and acknowledge (default: wait "
            "until the other side has merged, asking again at any time a denial gives)",
        )
        parser.add_argument(
            "--build-breaks",
            action="store_true",
            help="run the static merge check on every clean merge (build breaks per policy)",
        )
        parser.add_argument(
            "--branch-merges",
            default="replay",
            choices=("replay", "skip"),
            help="replay: a branch brings the replayed mainline in where history's branch merged "
            "the mainline; skip: it keeps its fork's base (the replay before 2026-12-06)",
        )
        parser.add_argument(
            "--closed-prs",
            default="skip",
            choices=("skip", "include"),
            help="include: pull requests closed without merging (refs/pull/N/head) join as "
            "agents that never merge, open until --closed-at",
        )
        parser.add_argument(
            "--closed-at",
            default="window-end",
            choices=CLOSINGS,
            help="with --closed-prs include: when a closed pull request closes (git keeps no "
            "closing time): the window's end (the longest it could stay open) or right after its "
            "last commit (the shortest); run both to bracket the truth",
        )
        parser.add_argument(
            "--parked-hours",
            type=float,
            help="the repository's parked time (an agent idle this long yields right of way; "
            "0: never parked), set as [radar] parked_hours, to measure another value",
        )
        parser.add_argument(
            "--branches",
            choices=BRANCHES,
            help="published (the default in session mode): each pull request's branch is on its "
            "remote as its work is made, as a pull request is, so its idle work never parks; "
            "local (the default, and the only choice, in hook mode): unpushed work, which parks "
            "after the parked time",
        )
        parser.add_argument("--lookback-days", type=float, default=30.0)
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--work", help="folder for the scratch repository (default: temp)")
        parser.add_argument("--keep", action="store_true", help="keep the scratch repository")

    def handle(self, *args: Any, **o: Any) -> None:
        repo = Path(o["repo"])
        if not repo.exists():
            raise CommandError(f"repo: {repo} does not exist")
        if o["max_prs"] < 1:
            raise CommandError("--max-prs: must be at least 1")
        if o["resamples"] < 1:
            raise CommandError("--resamples: must be at least 1")
        wait = o["max_wait_hours"]
        if wait is not None and not wait > 0:
            raise CommandError("--max-wait-hours: must be a positive number of hours")
        parked = o["parked_hours"]
        if parked is not None and not parked_hours_ok(parked):
            raise CommandError(
                f"--parked-hours: must be a number of hours from 0 to {MAX_PARKED_HOURS:g}"
            )
        if o["closed_at"] != "window-end" and o["closed_prs"] != "include":
            raise CommandError("--closed-at: needs --closed-prs include")
        try:
            history = read_window(repo, ref=o["ref"], since=o["since"], until=o["until"],
                                  max_prs=o["max_prs"], lookback_days=o["lookback_days"],
                                  order=o["order"],
                                  closed=o["closed_prs"] == "include")  # fmt: skip
        except ValueError as exc:
            raise CommandError(f"--since/--until: {exc}") from exc
        except GitError as exc:
            raise CommandError(f"repo: {exc}") from exc
        if o["bases"] == "mapped" and o["mode"] == "hook":
            raise CommandError("--bases: 'mapped' needs --mode session")
        branches = o["branches"] or ("published" if o["mode"] == "session" else "local")
        if branches == "published" and o["mode"] == "hook":
            raise CommandError(
                "--branches: 'published' needs --mode session (the replay keeps work uncommitted)"
            )
        policies = list(POLICIES) if o["policy"] == "all" else [o["policy"]]
        report = replay_window(
            history, policies=policies, out=Path(o["out"]),
            work=Path(o["work"]) if o["work"] else None, order=o["order"], recency=o["recency"],
            mode=o["mode"], resamples=o["resamples"], seed=o["seed"], keep=o["keep"],
            bases=o["bases"], max_wait_s=None if wait is None else max(1, round(wait * 3600)),
            build_breaks=o["build_breaks"], pulls=o["branch_merges"] == "replay",
            closing=o["closed_at"], parked_after_hours=parked, branches=branches,
        )  # fmt: skip
        self.stdout.write(format_report(report))
        self.stderr.write(f"events and summary.json in {o['out']}")
