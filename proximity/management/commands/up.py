"""``manage.py up [PATH] [--name N] [--lead USER] [--addr HOST:PORT]``: your own repository on
the radar in one command.

Migrates, registers the repository at PATH (default: here) watched, creates or links the lead's
login with its scope, reads the worktrees once, prints the board's address and the login, then
serves: the web server and a Celery worker whose beat reads the worktrees every
``OVERLAP_WATCH_INTERVAL_SECONDS``. On the embedded default (no REDIS_URL) the worker runs with an
embedded beat (``-B``) on kombu's filesystem transport in ``var/queue``: no server to install.
With REDIS_URL (and DATABASE_URL) set it starts a worker and a separate beat on Redis instead.
Ctrl-C stops all of them.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.airspace import DEFAULT_PROFILE, PROFILES
from proximity.exceptions import DomainError
from proximity.management.commands.users import announce
from proximity.services.first_run import repository_up
from proximity.services.repositories import parked_phrase
from proximity.services.watch import repository_watch_tick

FLAGS = {
    "path": "PATH",
    "name": "--name",
    "scope": "--name",
    "baseBranch": "--base",
    "lead": "--lead",
    "profile": "--profile",
    "parkedHours": "--parked-hours",
}
QUEUES = "default,scans,overlap"


def _problem(exc: DomainError) -> CommandError:
    where = FLAGS.get(exc.field or "", exc.field)
    return CommandError(f"{where}: {exc.message}" if where else exc.message)


def worker_commands(var_dir: Path) -> tuple[dict[str, str], list[list[str]]]:
    """The environment and the Celery processes for this storage: one worker with an embedded
    beat on the filesystem queue, or a worker and a beat on Redis."""
    env = dict(os.environ)
    celery = [sys.executable, "-m", "celery", "-A", "celery_app", "--quiet"]
    schedule = str(var_dir / "celerybeat-schedule")
    worker = [*celery, "worker", "-Q", QUEUES, "-c", "1", "-n", "radar-up@%h", "-l", "WARNING"]
    if settings.REDIS_URL:
        return env, [worker, [*celery, "beat", "-s", schedule, "-l", "WARNING"]]
    env["OVERLAP_QUEUE_DIR"] = settings.OVERLAP_QUEUE_DIR or str(var_dir / "queue")
    return env, [[*worker, "-B", "-s", schedule]]


class Command(BaseCommand):
    help = "Put your repository on the radar: migrate, register it watched, log the lead in, serve."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=".", help="the repository (default: .)")
        parser.add_argument("--name", default="", help="its name on the radar (default: folder)")
        parser.add_argument("--lead", default="", help="the lead's login (default: your user)")
        parser.add_argument("--base", default="", help="the branch agents fork from")
        parser.add_argument("--addr", default="127.0.0.1:8000", help="where the board is served")
        parser.add_argument(
            "--profile",
            default=DEFAULT_PROFILE,
            choices=sorted(PROFILES),
            help=f"scoring profile of a new registration (default {DEFAULT_PROFILE})",
        )
        parser.add_argument(
            "--parked-hours",
            type=float,
            default=None,
            help="hours idle before a branch yields right of way (0: never; default: the "
            "clone's .radar.toml [radar] parked_hours, else the profile's)",
        )
        parser.add_argument(
            "--password-file", default=None, help="write a new lead's password here (0600)"
        )
        parser.add_argument("--no-serve", action="store_true", help="set up, then exit")

    def handle(self, *args: Any, **options: Any) -> None:
        # Each scan of the first read would log a line: the summary below says it once.
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        password_file = Path(options["password_file"]) if options["password_file"] else None
        if password_file is not None and password_file.exists():
            raise CommandError(f"--password-file: {password_file} exists")
        call_command("migrate", interactive=False, verbosity=0)
        try:
            up = repository_up(
                path=Path(options["path"]).absolute(),
                name=options["name"],
                lead=options["lead"],
                base=options["base"],
                profile=options["profile"],
                parked_hours=options["parked_hours"],
            )
        except DomainError as exc:
            raise _problem(exc) from None
        repo = up.repository
        verb = "registered" if up.created else "already registered"
        self.stdout.write(
            f"{verb} {repo.name} (scope {repo.scope}, base {repo.base_branch}, "
            f"profile {repo.profile}{parked_phrase(repo.parked_hours)})"
        )
        self.stdout.write(f"watching every worktree of {repo.path}")
        outcome = repository_watch_tick(repository_id=repo.pk)
        self.stdout.write(f"first read: {outcome.agents} worktree(s)")
        announce(up.lead, password_file, self.stdout.write)
        self.stdout.write(f"board: http://{options['addr']}/board/  (log in as {up.lead.username})")
        if not options["no_serve"]:
            self._serve(options["addr"])

    def _serve(self, addr: str) -> None:
        var_dir = Path(settings.VAR_DIR)
        var_dir.mkdir(parents=True, exist_ok=True)
        env, workers = worker_commands(var_dir)
        web = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "runserver"]
        commands = [*workers, [*web, "--noreload", addr]]
        every = settings.OVERLAP_WATCH_INTERVAL_SECONDS
        self.stdout.write(f"worktrees re-read every {every} s by Celery beat; Ctrl-C stops")
        self.stdout.flush()
        children = [subprocess.Popen(c, env=env, cwd=settings.BASE_DIR) for c in commands]
        signal.signal(signal.SIGTERM, _stopped)  # a service manager's stop: take them along
        try:
            os.wait()  # the first child to end ends the rest: a half-running radar misleads
        except (KeyboardInterrupt, _StopError):
            pass
        finally:
            _stop(children)
        codes = [c.returncode for c in children]
        if any(code not in (0, -signal.SIGTERM, -signal.SIGINT) for code in codes):
            raise CommandError(f"stopped: a process ended with {codes}")


class _StopError(Exception):
    """SIGTERM reached ``up``."""


def _stopped(signum: int, frame: Any) -> None:
    raise _StopError


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
