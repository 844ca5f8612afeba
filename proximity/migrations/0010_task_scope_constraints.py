"""The columns 0009 filled become required; task ids are unique per scope, not globally."""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("proximity", "0009_task_scope_and_reviser"),
    ]

    operations = [
        migrations.AlterField(
            model_name="taskversion",
            name="declared_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="proximity.principal",
            ),
        ),
        migrations.AlterField(
            model_name="taskrecord",
            name="task_id",
            field=models.CharField(max_length=120),
        ),
        migrations.AddConstraint(
            model_name="taskrecord",
            constraint=models.UniqueConstraint(
                fields=("scope", "task_id"), name="task_id_unique_in_scope"
            ),
        ),
    ]
