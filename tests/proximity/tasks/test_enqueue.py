"""Services enqueue by task name; the name resolves to the registered task in any process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_services_do_not_import_the_tasks_module() -> None:
    for path in (ROOT / "proximity" / "services").glob("*.py"):
        assert "proximity.tasks" not in path.read_text(), path.name


def test_a_web_process_enqueue_runs_eagerly_in_the_embedded_default(tmp_path: Path) -> None:
    # A fresh Django process (as gunicorn has), tasks in-process: the scan must really run.
    probe = (
        "import django, os\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'overlap_site.settings.test')\n"
        "os.environ.pop('REDIS_URL', None)\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0)\n"
        "from proximity.models import ProximityScan, Repository\n"
        "from proximity.services.enqueue import SCAN, enqueue\n"
        "repo = Repository.objects.create(name='web', scope='team-a')\n"
        "Repository.objects.filter(pk=repo.pk).update(scan_requested_at=django.utils.timezone.now())\n"
        "enqueue(SCAN, repo.pk)\n"
        "print(ProximityScan.objects.filter(repository=repo).count())\n"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "HF_HUB_OFFLINE": "1",
    }
    run = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "1"
