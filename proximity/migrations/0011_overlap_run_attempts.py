"""Overlap runs count their attempts (bounded retries) and are found by status (the sweep)."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("proximity", "0010_task_scope_constraints"),
    ]

    operations = [
        migrations.AddField(
            model_name="overlaprun",
            name="attempts",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name="overlaprun",
            index=models.Index(fields=["status"], name="overlap_run_status"),
        ),
    ]
