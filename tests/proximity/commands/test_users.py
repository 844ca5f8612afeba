"""``manage.py users add``: a person's login, principal and scopes in one step; bad input is one
line, a nonzero exit and nothing stored (issue 27, point 2)."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from proximity.models import Principal
from proximity.selectors.adjudications import principal_for_user
from proximity.selectors.board import board_repositories
from tests.factories import make_repository

pytestmark = pytest.mark.django_db

BASE_DIR = Path(__file__).resolve().parents[3]


def _users(*args: str) -> str:
    out = StringIO()
    call_command("users", *args, stdout=out)
    return out.getvalue()


def _stored() -> list[Any]:
    users = get_user_model().objects.order_by("pk").values_list("pk", "username")
    return [*users, *Principal.objects.order_by("pk").values_list("pk", "name", "user_id")]


def test_add_lead_creates_login_principal_and_scopes_and_prints_the_password_once() -> None:
    out = _users("add", "dana", "--role", "lead", "--scope", "invkit-team")
    user = get_user_model().objects.get(username="dana")
    principal = principal_for_user(user)
    assert principal is not None
    assert (principal.scopes, principal.lead_scopes) == (["invkit-team"], ["invkit-team"])
    assert user.is_staff
    assert not user.is_superuser
    password = out.split("password of dana: ")[1].strip()
    assert user.check_password(password)
    assert out.splitlines()[0] == "created login dana (lead; scopes invkit-team)"


def test_add_adjudicator_joins_the_adjudicators_group_with_comma_separated_scopes() -> None:
    _users("add", "rev", "--role", "adjudicator", "--scope", "a-team,b-team", "--scope", "c")
    user = get_user_model().objects.get(username="rev")
    assert list(user.groups.values_list("name", flat=True)) == ["adjudicators"]
    assert Principal.objects.get(name="rev").scopes == ["a-team", "b-team", "c"]
    assert Principal.objects.get(name="rev").lead_scopes == []


def test_a_new_password_file_receives_the_generated_password_mode_0600(tmp_path: Path) -> None:
    target = tmp_path / "dana.password"
    out = _users("add", "dana", "--role", "lead", "--scope", "t", "--password-file", str(target))
    assert target.stat().st_mode & 0o777 == 0o600
    assert get_user_model().objects.get(username="dana").check_password(target.read_text().strip())
    assert target.read_text().strip() not in out


def test_an_existing_password_file_gives_the_password(tmp_path: Path) -> None:
    source = tmp_path / "pw"
    source.write_text("correct-horse-battery\n")
    _users("add", "dana", "--role", "lead", "--scope", "t", "--password-file", str(source))
    assert get_user_model().objects.get(username="dana").check_password("correct-horse-battery")


def test_the_new_login_signs_in_and_sees_the_repositories_of_its_scope(client: Client) -> None:
    make_repository("invkit", scope="invkit-team")
    make_repository("other", scope="other-team")
    out = _users("add", "dana", "--role", "lead", "--scope", "invkit-team")
    password = out.split("password of dana: ")[1].strip()
    assert client.login(username="dana", password=password)
    user = get_user_model().objects.get(username="dana")
    assert board_repositories(principal_for_user(user)) == ["invkit"]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["add", "dana", "--role", "boss", "--scope", "t"],
            "--role: must be one of lead, adjudicator",
        ),
        (["add", "dana", "--role", "lead"], "--scope: at least one scope is needed"),
        (["add", "dana", "--role", "lead", "--scope", "a b"], "--scope: 'a b' is not a scope"),
        (["add", "da na", "--role", "lead", "--scope", "t"], "NAME: must be a slug"),
        (["add", "dana", "--role", "lead", "--scope", "t,", "--scope=-x"], "--scope: '-x'"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag_and_stores_nothing(
    args: list[str], line: str
) -> None:
    with pytest.raises(CommandError) as raised:
        _users(*args)
    assert str(raised.value).startswith(line)
    assert "\n" not in str(raised.value)
    assert _stored() == []


def test_a_short_password_from_a_file_is_refused_and_nothing_stored(tmp_path: Path) -> None:
    source = tmp_path / "pw"
    source.write_text("abc\n")
    with pytest.raises(CommandError, match=r"^--password-file: This password is too short"):
        _users("add", "dana", "--role", "lead", "--scope", "t", "--password-file", str(source))
    assert _stored() == []


def test_an_existing_login_is_refused_and_left_as_it_was() -> None:
    get_user_model().objects.create_user("dana", password="before-123456")
    before = _stored()
    with pytest.raises(CommandError, match=r"^NAME: a login named 'dana' exists$"):
        _users("add", "dana", "--role", "lead", "--scope", "t")
    assert _stored() == before


def test_from_the_shell_bad_input_exits_nonzero_with_one_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "manage.py", "users", "add", "dana", "--role", "boss", "--scope", "t"],
        cwd=BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines() == [
        "CommandError: --role: must be one of lead, adjudicator"
    ]


def test_link_gives_an_existing_login_its_principal_and_keeps_its_password() -> None:
    get_user_model().objects.create_superuser("root", password="before-123456")
    out = _users("link", "root", "--role", "lead", "--scope", "invkit-team")
    user = get_user_model().objects.get(username="root")
    assert user.check_password("before-123456")
    assert principal_for_user(user).scopes == ["invkit-team"]
    assert "password of root: unchanged" in out


def test_link_of_a_login_that_does_not_exist_is_one_line() -> None:
    with pytest.raises(CommandError, match=r"^NAME: no login named 'nobody' \(use users add\)$"):
        _users("link", "nobody", "--role", "lead", "--scope", "t")
    assert _stored() == []
