"""``manage.py setup_roles``: create or repair the adjudicators group's permissions."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from proximity.services.adjudications import adjudicators_group_setup


class Command(BaseCommand):
    help = "Create the 'adjudicators' group with exactly the permissions the desk needs."

    def handle(self, *args: Any, **options: Any) -> None:
        group = adjudicators_group_setup()
        perms = sorted(group.permissions.values_list("codename", flat=True))
        self.stdout.write(f"group {group.name}: {', '.join(perms)}")
