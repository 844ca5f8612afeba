"""Task ids namespaced per scope, the writer of each version, and the lead role.

Adds the columns (nullable or with a default) and fills them from stored rows: a record's scope
is the scope of its first version, a version's writer is its record's declarer (revisers were
not recorded before this migration). 0010 then makes them required and moves the unique
constraint; the two are separate so PostgreSQL never alters a table with pending trigger events
from the updates here.
"""

from __future__ import annotations

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def fill(apps, schema_editor):
    TaskRecord = apps.get_model("proximity", "TaskRecord")
    TaskVersion = apps.get_model("proximity", "TaskVersion")
    first_scope = (
        TaskVersion.objects.filter(record=OuterRef("pk"))
        .order_by("work_version")
        .values("scope")[:1]
    )
    # A record without versions (none is written so) keeps no scope: nobody sees it.
    TaskRecord.objects.update(scope=Coalesce(Subquery(first_scope), Value("")))
    declarer = TaskRecord.objects.filter(pk=OuterRef("record_id")).values("declared_by_id")[:1]
    TaskVersion.objects.update(declared_by_id=Subquery(declarer))


class Migration(migrations.Migration):
    dependencies = [
        ("proximity", "0008_repository_watch_claim"),
    ]

    operations = [
        migrations.AddField(
            model_name="principal",
            name="lead_scopes",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="taskrecord",
            name="scope",
            field=models.CharField(default="", max_length=120),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="taskversion",
            name="declared_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="proximity.principal",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
