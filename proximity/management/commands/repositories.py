"""``manage.py repositories add|list|remove``: register the repositories agents report into.

``add NAME --path P [--scope S] [--base main] [--watch] [--webhook URL] [--profile PROFILE]
[--parked-hours H]``,
``list``, ``remove NAME [--yes]``. Bad input is one line naming the flag, and nothing is stored.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.airspace import DEFAULT_PROFILE
from proximity.exceptions import DomainError
from proximity.selectors.repositories import repository_named, repository_rows
from proximity.services.first_run import clone_parked_hours
from proximity.services.repositories import parked_phrase, repository_create, repository_remove
from proximity.sources.git.mainline import default_mainline

# The service names fields as the API's JSON does; people typed these flags.
FLAGS = {
    "name": "NAME",
    "path": "--path",
    "scope": "--scope",
    "baseBranch": "--base",
    "webhookUrl": "--webhook",
    "profile": "--profile",
    "mergeCheckTests": "--merge-check-tests",
    "parkedHours": "--parked-hours",
}


def _problem(exc: DomainError) -> CommandError:
    where = FLAGS.get(exc.field or "", exc.field)
    return CommandError(f"{where}: {exc.message}" if where else exc.message)


class Command(BaseCommand):
    help = "Register a repository for agents to report into, list them, or remove one."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="register a repository")
        add.add_argument("name", help="a slug; agents name it in their reports")
        add.add_argument("--path", default="", help="local clone (required with --watch)")
        add.add_argument("--scope", default="", help="who may see it (default: the name)")
        add.add_argument(
            "--base",
            default="",
            help="the branch agents start from (default: the clone's origin/HEAD, main or master)",
        )
        add.add_argument("--watch", action="store_true", help="read its worktrees periodically")
        add.add_argument("--webhook", default="", help="POST each trigger message here too")
        add.add_argument("--profile", default=DEFAULT_PROFILE)
        add.add_argument(
            "--merge-checks",
            action="store_true",
            help="speculative merge checks of its worktree pairs (needs --path)",
        )
        add.add_argument(
            "--merge-check-tests",
            action="store_true",
            help="the merge checks also run its tests that reach both sides' changes "
            "(runs the repository's code on the merge-check worker)",
        )
        add.add_argument(
            "--parked-hours",
            type=float,
            default=None,
            help="hours idle before a branch yields right of way (0: never; default: the "
            "clone's .radar.toml [radar] parked_hours, else the profile's)",
        )
        sub.add_parser("list", help="every repository, with its agent count")
        remove = sub.add_parser("remove", help="delete a repository and everything reported")
        remove.add_argument("name")
        remove.add_argument("--yes", action="store_true", help="confirm the deletion")

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _add(self, options: dict[str, Any]) -> None:
        if options["watch"] and not settings.OVERLAP_PERIODIC_WORK:
            # A watch nothing would ever run is refused, not stored as a silent no-op.
            raise CommandError(
                "--watch: nothing runs periodic work in-process (REDIS_URL unset); "
                "use `python manage.py up PATH`, or set REDIS_URL and run a worker and beat"
            )
        try:
            parked = options["parked_hours"]
            if parked is None and options["path"]:
                parked = clone_parked_hours(options["path"])
            repo = repository_create(
                principal=None,
                name=options["name"],
                path=options["path"],
                scope=options["scope"],
                base_branch=options["base"] or default_mainline(options["path"]),
                watch=options["watch"],
                webhook_url=options["webhook"],
                profile=options["profile"],
                merge_checks=options["merge_checks"],
                merge_check_tests=options["merge_check_tests"],
                parked_hours=parked,
            )
        except DomainError as exc:
            raise _problem(exc) from None
        watched = f", watching {repo.path}" if repo.watch else ""
        checks = ", merge checks" if repo.merge_checks else ""
        checks += " with tests" if repo.merge_check_tests else ""
        checks += parked_phrase(repo.parked_hours)
        self.stdout.write(
            f"registered {repo.name} (scope {repo.scope}, base {repo.base_branch}{watched}{checks})"
        )

    def _list(self, options: dict[str, Any]) -> None:
        for r in repository_rows():
            watch = "watch" if r.watch else "-"
            if r.archived_at is not None:
                watch = f"removed {r.archived_at:%Y-%m-%d} by {r.archived_by}"
            self.stdout.write(
                f"{r.name:<24} scope {r.scope:<16} base {r.base_branch:<12} {r.profile:<10} "
                f"{watch:<5} {getattr(r, 'agent_count', 0)} agent(s)  {r.path}"
            )

    def _remove(self, options: dict[str, Any]) -> None:
        repo = repository_named(options["name"])
        if repo is None:
            raise CommandError(f"NAME: no repository named {options['name']!r}")
        if not options["yes"]:
            agents = getattr(repo, "agent_count", 0)
            raise CommandError(
                f"removing {repo.name} stops its {agents} agent(s) for good (its records and "
                "trails are kept, read-only); pass --yes to confirm"
            )
        try:
            repository_remove(principal=None, name=repo.name, by="operator (manage.py)")
        except DomainError as exc:
            raise _problem(exc) from None
        self.stdout.write(f"removed {repo.name} (archived: its records and trails are kept)")
