"""``manage.py users add|link|list``: people (leads, adjudicators) with logins and scopes.

``add NAME --role lead|adjudicator --scope S [--scope S2 | --scope S1,S2] [--password-file F]``
creates the login, its principal and its scopes in one step. Without ``--password-file`` a
password is generated and printed once; with one that exists, its first line is the password;
with one that does not exist yet, the generated password is written there (mode 0600) and not
printed. ``link NAME --role R --scope S`` gives an existing login (``createsuperuser``'s, say)
its principal and scopes and keeps its password. Bad input is one line naming the flag, exit 1,
and nothing is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.exceptions import DomainError
from proximity.models import Principal
from proximity.services.people import ROLES, Person, person_add, person_ensure
from proximity.sources.secret_files import write_secret

FLAGS = {"name": "NAME", "role": "--role", "scope": "--scope", "password": "--password-file"}


def _problem(exc: DomainError) -> CommandError:
    where = FLAGS.get(exc.field or "", exc.field)
    return CommandError(f"{where}: {exc.message}" if where else exc.message)


def read_password(path: Path) -> str | None:
    """The first line of an existing file; ``None`` when the file does not exist yet."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"--password-file: cannot read {path} ({type(exc).__name__})") from None
    line = text.splitlines()[0].strip() if text.strip() else ""
    if not line:
        raise CommandError(f"--password-file: {path} is empty")
    return line


def announce(person: Person, path: Path | None, write: Any) -> None:
    """One line for the login; the password once, on stdout or into ``path`` (0600)."""
    scopes = ", ".join(person.principal.scopes)
    made = "created" if person.created else "linked existing"
    write(f"{made} login {person.username} ({person.role}; scopes {scopes})")
    if person.password is None:
        write(f"password of {person.username}: unchanged")
    elif path is not None and not path.exists():
        write_secret(path, person.password)
        write(f"password of {person.username}: in {path} (mode 0600)")
    elif path is None:
        write(f"password of {person.username}: {person.password}")


class Command(BaseCommand):
    help = "Add a person (lead or adjudicator) with login, principal and scopes; list them."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        add = sub.add_parser("add", help="create a login with its principal and scopes")
        add.add_argument("name", help="the login name (also the principal's name)")
        add.add_argument("--role", required=True, help=" or ".join(ROLES))
        add.add_argument(
            "--scope", action="append", default=[], dest="scopes", help="repeatable; or S1,S2"
        )
        add.add_argument("--password-file", default=None, help="read it, or write a new one")
        link = sub.add_parser("link", help="give an existing login its principal and scopes")
        link.add_argument("name")
        link.add_argument("--role", required=True, help=" or ".join(ROLES))
        link.add_argument("--scope", action="append", default=[], dest="scopes")
        sub.add_parser("list", help="every login linked to a principal, with its scopes")

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _add(self, options: dict[str, Any]) -> None:
        path = Path(options["password_file"]) if options["password_file"] else None
        if path is not None and not path.exists() and not path.parent.is_dir():
            raise CommandError(f"--password-file: folder {path.parent} does not exist")
        password = read_password(path) if path is not None else None
        try:
            person = person_add(
                username=options["name"],
                role=options["role"],
                scopes=options["scopes"],
                password=password,
            )
        except DomainError as exc:
            raise _problem(exc) from None
        announce(person, path, self.stdout.write)

    def _link(self, options: dict[str, Any]) -> None:
        from django.contrib.auth import get_user_model

        if not get_user_model().objects.filter(username=options["name"]).exists():
            raise CommandError(f"NAME: no login named {options['name']!r} (use users add)")
        try:
            person = person_ensure(
                username=options["name"], role=options["role"], scopes=options["scopes"]
            )
        except DomainError as exc:
            raise _problem(exc) from None
        announce(person, None, self.stdout.write)

    def _list(self, options: dict[str, Any]) -> None:
        rows = Principal.objects.filter(user__isnull=False).select_related("user")
        for p in rows.order_by("name"):
            role = "lead" if p.lead_scopes else "person"
            if p.user is not None and p.user.groups.filter(name="adjudicators").exists():
                role = "adjudicator"
            name = p.user.username if p.user else ""
            self.stdout.write(f"{name:<24} {role:<12} {', '.join(p.scopes)}")
