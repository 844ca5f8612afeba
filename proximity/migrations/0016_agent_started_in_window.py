"""An agent's start is never before 2000: stored starts that are (issue 31, item 1) are cleared.

The repair is one UPDATE that never reads the value back: psycopg cannot read a PostgreSQL
timestamp of year 1 BC, which is what such a start was stored as. A cleared start is read as
"unknown" and set by the agent's next report.
"""

from __future__ import annotations

import datetime

from django.db import migrations, models

EARLIEST = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)


def clear_unreadable_starts(apps, schema_editor):  # noqa: ANN001 - migration signature
    agent = apps.get_model("proximity", "Agent")
    agent.objects.filter(started_at__lt=EARLIEST).update(started_at=None)


class Migration(migrations.Migration):
    # The UPDATE and the ALTER TABLE in separate transactions: PostgreSQL refuses to alter a
    # table with pending trigger events (as 0009/0010 split theirs).
    atomic = False

    dependencies = [
        ("proximity", "0015_taskversion_objective_embedding"),
    ]

    operations = [
        migrations.RunPython(clear_unreadable_starts, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="agent",
            constraint=models.CheckConstraint(
                condition=models.Q(started_at__isnull=True) | models.Q(started_at__gte=EARLIEST),
                name="agent_started_in_window",
            ),
        ),
    ]
