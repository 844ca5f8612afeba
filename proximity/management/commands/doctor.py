"""``manage.py doctor``: health checks with a fix for each finding (the repair route)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from proximity.selectors.health import run_checks, worst_status

_MARK = {"ok": "OK  ", "warn": "WARN", "critical": "CRIT"}


class Command(BaseCommand):
    help = (
        "Check database, broker, workers, embedding model and git; exit 1 if anything is critical."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the checks as JSON")
        parser.add_argument(
            "--quick", action="store_true", help="check model files without loading the model"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        checks = run_checks(load_model=not options["quick"])
        status = worst_status(checks)
        if options["json"]:
            payload = {"status": status, "checks": [c.as_dict() for c in checks]}
            self.stdout.write(json.dumps(payload, indent=2))
        else:
            for check in checks:
                line = f"{_MARK[check.status]} {check.name:<16} {check.detail}"
                self.stdout.write(line + (f"\n     fix: {check.fix}" if check.fix else ""))
            self.stdout.write(f"overall: {status}")
        if status == "critical":
            raise SystemExit(1)
