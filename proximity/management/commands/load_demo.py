"""``manage.py load_demo``: the demo's logins and a scripted airspace; safe to run again."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from proximity.models import Principal
from proximity.services.adjudications import adjudicators_group_setup
from proximity.services.demo import DEMO_SCOPE, demo_airspace_seed
from proximity.services.replay_encounter import demo_encounter_seed

DEMO_USER = "lead"
DEMO_PASSWORD = "radar-demo"  # noqa: S105  (printed by `make demo`; local embedded demo only)
REVIEWER = "reviewer"


def _login(username: str, *, superuser: bool) -> Any:
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=username, defaults={"is_staff": True, "is_superuser": superuser}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
    return user


def _principal(name: str, user: Any) -> Principal:
    principal, _ = Principal.objects.update_or_create(
        name=name, defaults={"user": user, "scopes": [DEMO_SCOPE], "clearances": []}
    )
    return principal


class Command(BaseCommand):
    help = "Create the demo logins (lead and reviewer / radar-demo) and the demo airspace."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            # The password is published in the README: never on a site that is not a local demo.
            raise CommandError("load_demo creates logins with a published password; DEBUG is off")
        lead = _principal("demo-lead", _login(DEMO_USER, superuser=True))
        reviewer = _login(REVIEWER, superuser=False)
        reviewer.groups.add(adjudicators_group_setup())
        _principal("demo-reviewer", reviewer)
        scan = demo_airspace_seed(principal=lead)
        self.stdout.write(f"demo login: {DEMO_USER} / {DEMO_PASSWORD} (board at /board/)")
        self.stdout.write(f"adjudicator login: {REVIEWER} / {DEMO_PASSWORD}")
        if scan is not None:
            self.stdout.write(
                f"demo airspace: {scan.agent_count} agents, {scan.advisory_count} advisories"
            )
        repo, denial = demo_encounter_seed(scope=DEMO_SCOPE)
        self.stdout.write(
            f"replayed encounter ({repo.name}): {denial['agent']} denied for "
            f"{', '.join(denial['others'])}'s lines in {denial['path']} ({denial['at']})"
        )
