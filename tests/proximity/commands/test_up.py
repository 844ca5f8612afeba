"""``manage.py up`` and what keeps a watch honest: one command registers the repository watched
and links the lead; a watch nothing would run is refused; doctor names a repository nobody reads
(issue 27, point 1). The served form runs for real in tests/e2e/test_first_hour.py."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from proximity.models import Principal, Repository, WorkingSetSnapshot
from proximity.selectors.health import run_checks
from proximity.selectors.watch_health import NO_BEAT_FIX, check_watchers
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db


@pytest.fixture
def invkit(tmp_path: Path) -> ScriptedRepo:
    repo = ScriptedRepo.create(tmp_path, name="InvKit")
    repo.write("invkit/core.py", numbered(20))
    repo.commit("base")
    repo.add_worktree("agent-1")
    repo.replace_lines("invkit/core.py", 3, 4, worktree="agent-1")
    return repo


def _up(*args: str) -> str:
    out = StringIO()
    call_command("up", *args, "--no-serve", stdout=out)
    return out.getvalue()


def test_up_registers_the_folder_watched_links_the_lead_and_reads_it_once(
    invkit: ScriptedRepo,
) -> None:
    out = _up(str(invkit.path("agent-1")), "--lead", "dana")  # from inside a worktree
    repo = Repository.objects.get()
    assert (repo.name, repo.scope, repo.base_branch, repo.watch) == (
        "invkit",
        "invkit",
        "main",
        True,
    )
    assert Path(repo.path) == invkit.root.resolve()
    assert repo.profile == "radar-v1-symbols"  # semantic collisions on (the default profile)
    assert repo.watched_at is not None
    lead = Principal.objects.get(name="dana")
    assert (lead.scopes, lead.lead_scopes, lead.user.is_staff) == (["invkit"], ["invkit"], True)
    password = out.split("password of dana: ")[1].split()[0]
    assert lead.user.check_password(password)
    assert "board: http://127.0.0.1:8000/board/  (log in as dana)" in out
    files = WorkingSetSnapshot.objects.get(agent__agent_id="agent-1").files
    assert [f["path"] for f in files] == ["invkit/core.py"]


def test_up_again_reuses_the_repository_and_keeps_the_password(invkit: ScriptedRepo) -> None:
    first = _up(str(invkit.root), "--lead", "dana", "--name", "inv")
    again = _up(str(invkit.root), "--lead", "dana", "--name", "inv")
    assert "registered inv" in first
    assert "already registered inv" in again
    assert "password of dana: unchanged" in again
    assert Repository.objects.count() == 1


def test_up_takes_the_clone_s_parked_time_and_brings_a_change_along(invkit: ScriptedRepo) -> None:
    """The hooks read ``[radar] parked_hours`` from the worktree; the registration takes the
    main checkout's, and running up again after the file changed (or with the flag) updates it."""
    toml = invkit.root / ".radar.toml"
    toml.write_text("[radar]\nparked_hours = 0\n")
    assert "never parked" in _up(str(invkit.root), "--lead", "dana")
    assert Repository.objects.get().parked_hours == 0
    toml.write_text("[radar]\nparked_hours = 48\n")
    assert "parked after 48 h" in _up(str(invkit.root), "--lead", "dana")
    assert Repository.objects.get().parked_hours == 48
    _up(str(invkit.root), "--lead", "dana", "--parked-hours", "12")
    assert Repository.objects.get().parked_hours == 12
    toml.unlink()
    _up(str(invkit.root), "--lead", "dana")
    assert Repository.objects.get().parked_hours is None
    with pytest.raises(CommandError, match=r"^--parked-hours: must be a number of hours"):
        _up(str(invkit.root), "--lead", "dana", "--parked-hours", "-2")
    assert Repository.objects.get().parked_hours is None


def test_up_writes_a_new_leads_password_to_a_0600_file(invkit: ScriptedRepo, tmp_path) -> None:
    target = tmp_path / "dana.password"
    out = _up(str(invkit.root), "--lead", "dana", "--password-file", str(target))
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.read_text().strip() not in out


def test_up_on_a_folder_that_is_not_a_repository_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"^PATH: not a git repository"):
        _up(str(tmp_path))
    assert not Repository.objects.exists()


def test_up_refuses_a_name_another_path_holds(invkit: ScriptedRepo, tmp_path: Path) -> None:
    Repository.objects.create(name="invkit", scope="x", path="/srv/elsewhere", watch=True)
    with pytest.raises(CommandError, match=r"^--name: a repository named 'invkit' already"):
        _up(str(invkit.root), "--lead", "dana")
    assert not Principal.objects.filter(name="dana").exists()


def test_repositories_add_watch_without_any_beat_is_refused_with_one_line(
    invkit: ScriptedRepo, settings
) -> None:
    settings.OVERLAP_PERIODIC_WORK = False
    with pytest.raises(CommandError) as raised:
        call_command("repositories", "add", "web", "--path", str(invkit.root), "--watch")
    assert str(raised.value).startswith("--watch: nothing runs periodic work in-process")
    assert "manage.py up PATH" in str(raised.value)
    assert not Repository.objects.exists()


def test_doctor_names_a_watched_repository_no_watcher_read_within_twice_its_interval(
    settings,
) -> None:
    settings.OVERLAP_WATCH_INTERVAL_SECONDS = 30
    now = timezone.now()
    Repository.objects.create(name="fresh", scope="s", path="/srv/fresh", watch=True)
    assert check_watchers(now=now).status == "ok"  # registered just now: its first read is due
    Repository.objects.filter(name="fresh").update(created_at=now - timedelta(seconds=61))
    late = check_watchers(now=now)
    assert late.status == "critical"
    assert late.detail == "no watcher read fresh (never read) in the last 60 s"
    Repository.objects.filter(name="fresh").update(watched_at=now - timedelta(seconds=59))
    assert check_watchers(now=now).status == "ok"
    Repository.objects.filter(name="fresh").update(watched_at=now - timedelta(seconds=90))
    assert "last read" in check_watchers(now=now).detail
    settings.OVERLAP_PERIODIC_WORK = False
    assert check_watchers(now=now).fix == NO_BEAT_FIX
    assert "manage.py up PATH" in NO_BEAT_FIX


def test_doctor_lists_the_watchers_check_among_its_checks() -> None:
    names = [c.name for c in run_checks(load_model=False)]
    assert "watchers" in names


def test_up_with_a_lead_name_that_is_not_a_slug_is_one_line_and_stores_nothing(
    invkit: ScriptedRepo,
) -> None:
    with pytest.raises(CommandError, match=r"^--lead: must be a slug"):
        _up(str(invkit.root), "--lead", "da na")
    assert not Repository.objects.exists()
    assert not Principal.objects.exists()
