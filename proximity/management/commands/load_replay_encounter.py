"""``manage.py load_replay_encounter EVENTS``: put one denial of a history replay on the board.

EVENTS is an ``events-<policy>.jsonl`` written by ``replay_history`` (session mode); the first
denial is loaded unless ``--seq`` names one. See proximity/services/replay_encounter.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.exceptions import InvalidInputError, NotFoundError
from proximity.services.replay_encounter import read_replay_events, replay_encounter_load


class Command(BaseCommand):
    help = "Report the agents of one replayed denial into a repository, so the board shows it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("events", help="events-<policy>.jsonl of a replay_history run")
        parser.add_argument("--seq", type=int, help="the denial's seq (default: the first)")
        parser.add_argument("--repository", default="replay", help="repository name (created)")
        parser.add_argument("--scope", default="demo", help="scope of a repository it creates")
        parser.add_argument("--source", default="", help="shown in the agents' labels")

    def handle(self, *args: Any, **o: Any) -> None:
        path = Path(o["events"])
        if not path.is_file():
            raise CommandError(f"events: {path} is not a file")
        try:
            repo, denial = replay_encounter_load(
                read_replay_events(path), repository=o["repository"], scope=o["scope"],
                seq=o["seq"], source=o["source"],
            )  # fmt: skip
        except (InvalidInputError, NotFoundError) as exc:
            raise CommandError(str(exc)) from None
        names = ", ".join([denial["agent"], *denial.get("others", [])])
        self.stdout.write(
            f"loaded denial {denial.get('seq')} ({denial.get('at')}: {names} on "
            f"{denial.get('path')}) into repository {repo.name}"
        )
