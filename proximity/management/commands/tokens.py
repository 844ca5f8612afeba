"""``manage.py tokens``: issue, revoke and list API tokens (only digests are stored).

``issue PRINCIPAL --agent REPOSITORY:AGENT_ID`` also binds that agent id to the principal, so
only this token reports under it and reads its inbox: one token per agent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from proximity.api.schemas import ID_PATTERN
from proximity.exceptions import DomainError
from proximity.models import ApiToken, Principal
from proximity.services.tokens import agent_bind, principal_create, token_issue, token_revoke
from proximity.sources.secret_files import write_secret


def _agent_refs(values: list[str]) -> list[tuple[str, str]]:
    """(repository, agent id) pairs; split on the first ':' since ids may hold ':' and '/'."""
    refs = []
    for value in values:
        repository, sep, agent_id = value.partition(":")
        if not (sep and repository and len(agent_id) <= 120 and re.match(ID_PATTERN, agent_id)):
            raise CommandError(f"--agent: expected REPOSITORY:AGENT_ID, got {value!r}")
        refs.append((repository, agent_id))
    return refs


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
        issue.add_argument(
            "--agent",
            action="append",
            default=[],
            dest="agents",
            metavar="REPOSITORY:AGENT_ID",
            help="bind this agent id to the principal (created if missing; repeatable)",
        )
        issue.add_argument(
            "--create-agents",
            action="store_true",
            help="let the principal report under agent ids nobody was issued (e.g. a harness "
            "that starts agents itself); without it a token reports only its --agent ids",
        )
        issue.add_argument(
            "--out", default=None, metavar="FILE", help="write the token to a new file (mode 0600)"
        )
        revoke = sub.add_parser("revoke", help="revoke a token by the prefix `list` shows")
        revoke.add_argument("prefix")
        listing = sub.add_parser("list", help="list tokens (prefix, principal, state)")
        listing.add_argument("principal", nargs="?")

    def handle(self, *args: Any, **options: Any) -> None:
        getattr(self, f"_{options['action']}")(options)

    def _issue(self, options: dict[str, Any]) -> None:
        refs = _agent_refs(options["agents"])
        out = Path(options["out"]) if options["out"] else None
        if out is not None and (out.exists() or out.is_symlink() or not out.parent.is_dir()):
            why = "exists" if out.exists() or out.is_symlink() else "has no such folder"
            raise CommandError(f"--out: {out} {why}; nothing was issued")
        # One transaction: a refused --agent leaves no principal, binding or token behind.
        with transaction.atomic():
            principal = self._principal(options)
            for repository, agent_id in refs:
                try:
                    agent_bind(principal=principal, repository=repository, agent_id=agent_id)
                except DomainError as exc:
                    raise CommandError(f"--agent {repository}:{agent_id}: {exc.message}") from None
            raw, token = token_issue(principal=principal, label=options["label"])
        for repository, agent_id in refs:
            self.stderr.write(f"agent {agent_id} of {repository} is bound to {principal.name}")
        if out is not None:
            write_secret(out, raw)
            self.stderr.write(f"token {token.prefix}… for {principal.name} written to {out} (0600)")
            return
        self.stderr.write(f"token {token.prefix}… for {principal.name} (shown once):")
        self.stdout.write(raw)

    def _principal(self, options: dict[str, Any]) -> Principal:
        principal = Principal.objects.filter(name=options["principal"]).first()
        if principal is not None:
            if options["create_agents"] and not principal.creates_agents:
                principal.creates_agents = True
                principal.save(update_fields=["creates_agents"])
            return principal
        if not options["scopes"]:
            raise CommandError("a new principal needs at least one --scope")
        return principal_create(
            name=options["principal"],
            kind=options["kind"],
            scopes=options["scopes"],
            clearances=options["clearances"],
            creates_agents=options["create_agents"],
        )

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
