"""``manage.py repositories``: onboarding a team without the demo, one line per problem."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proximity.models import Agent, Repository
from tests.factories import make_repository
from tests.sources.gitrepo import ScriptedRepo, numbered

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = StringIO()
    call_command("repositories", *args, stdout=out)
    return out.getvalue()


def _stored() -> list[dict[str, Any]]:
    return list(Repository.objects.order_by("pk").values())


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/core.py", numbered(10))
    repo.commit("base")
    return repo.path()


def test_add_registers_a_watched_repository_with_every_setting(clone: Path) -> None:
    hook = "https://hooks.example/radar"
    settings = ["--scope", "team-a", "--base", "trunk", "--webhook", hook, "--profile", "ecc-v0"]
    out = _run("add", "web", "--path", str(clone), "--watch", *settings)
    assert out.startswith("registered web (scope team-a")
    repo = Repository.objects.get()
    assert (repo.scope, repo.base_branch, repo.profile, repo.webhook_url) == (
        "team-a",
        "trunk",
        "ecc-v0",
        hook,
    )
    assert repo.watch
    assert Path(repo.path) == clone.resolve()


@pytest.mark.parametrize(("mainline", "expected"), [("main", "main"), ("master", "master")])
def test_add_without_a_base_takes_the_clone_s_own_mainline(
    tmp_path: Path, mainline: str, expected: str
) -> None:
    """As the agents' hooks read it: a repository on master is not registered against a main it
    lacks (its watcher would read no worktree); without a clone, main."""
    repo = ScriptedRepo.create(tmp_path, base=mainline)
    repo.write("a.py", "a\n")
    repo.commit("base")
    out = _run("add", "web", "--path", str(repo.path()))
    assert f"base {expected}" in out
    assert Repository.objects.get(name="web").base_branch == expected
    _run("add", "api")
    assert Repository.objects.get(name="api").base_branch == "main"


def test_add_takes_the_parked_time_from_the_flag_else_from_the_clone_s_radar_toml(
    clone: Path,
) -> None:
    """So the server's checks and scans name the holder the agents' hooks name; a malformed
    file is one line naming the setting, and nothing is stored."""
    (clone / ".radar.toml").write_text("[radar]\nparked_hours = 0\n")
    assert _run("add", "web", "--path", str(clone)).strip().endswith("never parked)")
    out = _run("add", "api", "--path", str(clone), "--parked-hours", "36")
    assert out.strip().endswith("parked after 36 h)")
    (clone / ".radar.toml").write_text("[radar]\nparked_hours = true\n")
    with pytest.raises(
        CommandError, match=r"^--parked-hours: \S+/\.radar\.toml: radar\.parked_hours"
    ):
        _run("add", "cli", "--path", str(clone))
    stored = dict(Repository.objects.values_list("name", "parked_hours"))
    assert stored == {"web": 0.0, "api": 36.0}


def test_add_from_a_folder_inside_the_clone_reads_the_radar_toml_at_its_top(clone: Path) -> None:
    """The hooks read ``.radar.toml`` at the worktree's top; a path given inside the clone must
    not read a different file (or none) there."""
    (clone / ".radar.toml").write_text("[radar]\nparked_hours = 12\n")
    (clone / "app" / ".radar.toml").write_text("[radar]\nparked_hours = 0\n")
    out = _run("add", "web", "--path", str(clone / "app"), "--watch")
    assert out.strip().endswith("parked after 12 h)")
    assert Repository.objects.get(name="web").parked_hours == 12.0


def test_add_can_opt_in_to_merge_checks_and_their_test_runs(clone: Path) -> None:
    out = _run("add", "web", "--path", str(clone), "--merge-checks", "--merge-check-tests")
    assert out.strip().endswith("merge checks with tests)")
    repo = Repository.objects.get()
    assert (repo.merge_checks, repo.merge_check_tests) == (True, True)
    _run("add", "api", "--path", str(clone))
    assert not Repository.objects.filter(merge_checks=True, name="api").exists()


def test_add_without_a_scope_uses_the_name_and_needs_no_clone() -> None:
    _run("add", "web", "--path", "/srv/not-here-yet")
    repo = Repository.objects.get()
    assert (repo.scope, repo.path, repo.watch) == ("web", "/srv/not-here-yet", False)


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["add", "Not A Slug"], "NAME"),
        (["add", "web", "--watch"], "--path"),
        (["add", "web", "--watch", "--path", "/nonexistent"], "--path"),
        (["add", "web", "--webhook", "hooks.example"], "--webhook"),
        (["add", "web", "--profile", "fast"], "--profile"),
        (["add", "web", "--base=-x"], "--base"),
        (["add", "web", "--base", "a b"], "--base"),
        (["add", "existing"], "NAME"),
        (["add", "web", "--merge-checks"], "--path"),
        (["add", "web", "--path", "/srv/x", "--merge-check-tests"], "--merge-check-tests"),
        (["add", "web", "--parked-hours", "-1"], "--parked-hours"),
        (["add", "web", "--parked-hours", "nan"], "--parked-hours"),
        (["add", "web", "--parked-hours", "9000"], "--parked-hours"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag_and_stores_nothing(args: list[str], flag: str):
    make_repository("existing", scope="team-a")
    before = _stored()
    with pytest.raises(CommandError) as caught:
        _run(*args)
    message = str(caught.value)
    assert message.startswith(f"{flag}: ")
    assert "\n" not in message
    assert _stored() == before


def test_a_watched_path_outside_git_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"--path: not a git repository"):
        _run("add", "web", "--watch", "--path", str(tmp_path))
    assert not Repository.objects.exists()


def test_list_shows_every_repository_with_its_agent_count() -> None:
    web = make_repository("web", scope="team-a", watch=True, path="/srv/web")
    make_repository("vault", scope="team-b")
    Agent.objects.create(repository=web, agent_id="feature/login")
    lines = _run("list").splitlines()
    assert [line.split()[0] for line in lines] == ["vault", "web"]
    assert "1 agent(s)" in lines[1]
    assert "watch" in lines[1]
    assert lines[1].endswith("/srv/web")


def test_remove_needs_yes_and_then_archives_keeping_the_agents() -> None:
    web = make_repository("web", scope="team-a")
    Agent.objects.create(repository=web, agent_id="a1")
    with pytest.raises(CommandError, match="stops its 1 agent"):
        _run("remove", "web")
    assert Repository.objects.get(name="web").archived_at is None
    out = _run("remove", "web", "--yes").strip()
    assert out == "removed web (archived: its records and trails are kept)"
    web.refresh_from_db()
    assert (web.archived_by, Agent.objects.count()) == ("operator (manage.py)", 1)
    assert "removed " in _run("list").splitlines()[0]


def test_removing_an_unknown_repository_is_one_line() -> None:
    with pytest.raises(CommandError, match=r"^NAME: no repository named 'nope'$"):
        _run("remove", "nope", "--yes")
