"""``manage.py load_demo``: the demo's login and data; safe to run again."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USER = "lead"
DEMO_PASSWORD = "radar-demo"  # noqa: S105  (printed by `make demo`; local embedded demo only)


class Command(BaseCommand):
    help = "Create the demo login (lead / radar-demo) and demo data."

    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(
            username=DEMO_USER, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        self.stdout.write(f"demo login: {DEMO_USER} / {DEMO_PASSWORD}")
