"""``manage.py prune``: apply the retention settings now (the beat task does it daily)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from proximity.services.retention import retention_prune


class Command(BaseCommand):
    help = "Delete snapshots, scans and messages older than the retention settings, in batches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=None, help="rows per delete batch")
        parser.add_argument("--pause", type=float, default=0.0, help="seconds between batches")

    def handle(self, *args: Any, **options: Any) -> None:
        outcome = retention_prune(batch=options["batch"], pause_s=options["pause"])
        self.stdout.write(
            f"pruned {outcome.snapshots} snapshots, {outcome.scans} scans, "
            f"{outcome.messages} messages in {outcome.batches} batches"
        )
