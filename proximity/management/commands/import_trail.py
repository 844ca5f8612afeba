"""``manage.py import_trail FILE --repository NAME``: verify and store a shadow receipt trail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.exceptions import DomainError
from proximity.models import Repository
from proximity.services.trails import trail_record


class Command(BaseCommand):
    help = "Verify a shadow trail JSON file and store it (read-only afterwards, except appends)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--repository", required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        repo = Repository.objects.filter(name=options["repository"]).first()
        if repo is None:
            raise CommandError(f"repository {options['repository']!r} not found")
        try:
            document = json.loads(options["file"].read_text(encoding="utf-8"))
            trail = trail_record(repository=repo, document=document)
        except (OSError, ValueError) as exc:
            raise CommandError(f"{options['file']}: {exc}") from None
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"stored trail {trail.trail_id}: {trail.receipt_count} receipts")
