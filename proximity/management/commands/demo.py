"""``manage.py demo``: the live demo. Builds a real repository with agent worktrees, replays
scripted edits and task declarations in the background, and serves the board meanwhile."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection

from proximity.models import Principal
from proximity.services.demo import DEMO_SCOPE
from proximity.services.demo_replay import demo_replay, demo_replay_prepare

FIXTURE_SCOPE, FIXTURE_CLEARANCE = "payments", "internal"


class Command(BaseCommand):
    help = "Replay a scripted multi-agent session on a real git repository and serve the board."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--step-seconds", type=float, default=12.0)
        parser.add_argument("--no-server", action="store_true", help="replay only, then exit")

    def handle(self, *args: Any, **options: Any) -> None:
        call_command("load_demo", stdout=self.stdout)
        lead = self._widen_demo_principals()
        root = Path(settings.VAR_DIR) / "demo-repo"
        repo, demo = demo_replay_prepare(root=root, scope=DEMO_SCOPE)
        self.stdout.write(f"live demo repository: {demo.main} (worktrees beside it)")

        def replay() -> None:
            try:
                demo_replay(
                    repo=repo,
                    demo=demo,
                    principal=lead,
                    step_seconds=options["step_seconds"],
                    say=self.stdout.write,
                )
                self.stdout.write("demo replay finished; the board keeps refreshing")
            finally:
                connection.close()

        if options["no_server"]:
            replay()
            return
        threading.Thread(target=replay, name="demo-replay", daemon=True).start()
        call_command("runserver", options["addr"], use_reloader=False)

    def _widen_demo_principals(self) -> Principal:
        # The task fixtures live in the "payments" scope with the "internal" label.
        for principal in Principal.objects.filter(name__in=["demo-lead", "demo-reviewer"]):
            principal.scopes = sorted({*principal.scopes, FIXTURE_SCOPE})
            principal.clearances = sorted({*principal.clearances, FIXTURE_CLEARANCE})
            principal.save(update_fields=["scopes", "clearances"])
        return Principal.objects.get(name="demo-lead")
