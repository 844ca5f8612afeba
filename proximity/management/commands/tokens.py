"""``manage.py tokens``: issue, revoke and list API tokens (only digests are stored)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.models import ApiToken, Principal
from proximity.services.tokens import principal_create, token_issue, token_revoke


class Command(BaseCommand):
    help = "Issue a token (printed once), revoke one by its prefix, or list a principal's tokens."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        issue = sub.add_parser("issue", help="issue a token for a principal (created if new)")
        issue.add_argument("principal")
        issue.add_argument("--label", default="")
        issue.add_argument("--kind", choices=[k.value for k in Principal.Kind], default="agent")
        issue.add_argument("--scope", action="append", default=[], dest="scopes")
        issue.add_argument("--clearance", action="append", default=[], dest="clearances")
        revoke = sub.add_parser("revoke", help="revoke a token by the prefix `list` shows")
        revoke.add_argument("prefix")
        listing = sub.add_parser("list", help="list tokens (prefix, principal, state)")
        listing.add_argument("principal", nargs="?")

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _issue(self, options: dict[str, Any]) -> None:
        principal = Principal.objects.filter(name=options["principal"]).first()
        if principal is None:
            if not options["scopes"]:
                raise CommandError("a new principal needs at least one --scope")
            principal = principal_create(
                name=options["principal"],
                kind=options["kind"],
                scopes=options["scopes"],
                clearances=options["clearances"],
            )
        raw, token = token_issue(principal=principal, label=options["label"])
        self.stderr.write(f"token {token.prefix}… for {principal.name} (shown once):")
        self.stdout.write(raw)

    def _revoke(self, options: dict[str, Any]) -> None:
        matches = list(ApiToken.objects.filter(prefix=options["prefix"], revoked_at__isnull=True))
        if len(matches) != 1:
            raise CommandError(f"{len(matches)} live tokens have prefix {options['prefix']!r}")
        token_revoke(token=matches[0])
        self.stdout.write(f"revoked {matches[0].prefix}… of {matches[0].principal.name}")

    def _list(self, options: dict[str, Any]) -> None:
        rows = ApiToken.objects.select_related("principal").order_by("principal__name", "pk")
        if options["principal"]:
            rows = rows.filter(principal__name=options["principal"])
        for t in rows:
            state = f"revoked {t.revoked_at:%Y-%m-%d}" if t.revoked_at else "live"
            used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
            self.stdout.write(
                f"{t.prefix}  {t.principal.name:<24} {state:<18} used {used}  {t.label}"
            )
