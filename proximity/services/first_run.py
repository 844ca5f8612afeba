"""A team's own repository on the radar in one step (``manage.py up``): register it watched,
give the lead a login that sees it, read its worktrees once.

Idempotent: run again, the repository and the login are reused (the login keeps its password).
"""

from __future__ import annotations

import contextlib
import getpass
import re
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from proximity.engine.airspace import DEFAULT_PROFILE
from proximity.exceptions import ConflictError, InvalidInputError
from proximity.models import Repository
from proximity.services.people import Person, person_ensure
from proximity.services.repositories import parked_hours_check, repository_create
from proximity.sources.git import GitError
from proximity.sources.git._run import git_text
from proximity.sources.git.mainline import default_mainline
from proximity.sources.git.worktrees import repository_root
from proximity.sources.radar_files import read_parked_hours

__all__ = ["FirstRun", "clone_parked_hours", "default_lead", "main_checkout", "repository_up"]


@dataclass(frozen=True)
class FirstRun:
    repository: Repository
    created: bool
    lead: Person


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9_-]+", "-", text.lower()).strip("-")
    return slug[:120] or "repository"


def default_lead() -> str:
    """The person running the command: their login name, as a slug."""
    try:
        return _slug(getpass.getuser())
    except (KeyError, OSError):  # no passwd entry (a container's numeric user)
        return "lead"


def main_checkout(path: str | Path) -> tuple[Path, str]:
    """The main worktree of the repository holding ``path`` and the branch it has checked out
    (agents fork from it); InvalidInputError naming ``PATH`` when it is not a git repository."""
    try:
        listing = git_text(path, ["worktree", "list", "--porcelain"])
    except GitError as exc:
        raise InvalidInputError(f"not a git repository ({exc.problem})", field="path") from None
    first = listing.split("\n\n", 1)[0].splitlines()
    top = next((line[9:] for line in first if line.startswith("worktree ")), "")
    if not top or "bare" in first:
        raise InvalidInputError("a bare repository has no main worktree to read", field="path")
    branch = next((line[7:] for line in first if line.startswith("branch ")), "")
    # a detached main checkout: the mainline as an agent's hook reads it (origin/HEAD, main, master)
    return Path(top), branch.removeprefix("refs/heads/") or default_mainline(top)


def clone_parked_hours(top: str | Path) -> float | None:
    """The parked time the clone's own ``.radar.toml`` sets for its agents' hooks (``None``:
    the profile's), so the server's checks and scans name the same holder as the hooks; a
    malformed one is InvalidInputError naming ``parkedHours``.

    ``top`` may be a folder inside the clone (``repositories add --path``): the file read is
    the one at the working tree's top, where the hooks read it."""
    # not a local clone (an unwatched registration's path): read it as given
    with contextlib.suppress(GitError):
        top = repository_root(top)
    try:
        return read_parked_hours(str(top))
    except ValueError as exc:
        raise InvalidInputError(str(exc), field="parkedHours") from None


def repository_up(
    *,
    path: str | Path,
    name: str = "",
    lead: str = "",
    base: str = "",
    profile: str = DEFAULT_PROFILE,
    parked_hours: float | None = None,
) -> FirstRun:
    """Register (or reuse) the repository at ``path`` watched, and link the lead to its scope.

    ``parked_hours`` (else the clone's ``[radar] parked_hours``, else the profile's) is set on
    a reused registration too: running ``up`` again after the file changed brings it along."""
    top, branch = main_checkout(path)
    name = name or _slug(top.name)
    if parked_hours is None:
        parked_hours = clone_parked_hours(top)
    with transaction.atomic():
        repo = Repository.objects.filter(name=name).first()
        created = repo is None
        if repo is None:
            repo = repository_create(
                principal=None,
                name=name,
                path=str(top),
                base_branch=base or branch,
                watch=True,
                profile=profile,
                parked_hours=parked_hours,
            )
        elif Path(repo.path or "/nonexistent").resolve() != top.resolve():
            raise ConflictError(
                f"a repository named {name!r} already watches {repo.path or 'nothing'}; "
                "choose another --name",
                field="name",
            )
        else:
            _keep_up(repo, parked_hours)
        try:
            person = person_ensure(
                username=lead or default_lead(), role="lead", scopes=[repo.scope]
            )
        except (ConflictError, InvalidInputError) as exc:  # about the lead, not the repository
            raise type(exc)(exc.message, field="lead") from None
    return FirstRun(repo, created, person)


def _keep_up(repo: Repository, parked_hours: float | None) -> None:
    """A reused registration watches again and takes the parked time now wanted."""
    changed = []
    if not repo.watch:
        repo.watch = True
        changed.append("watch")
    if repo.parked_hours != parked_hours:
        parked_hours_check(parked_hours)
        repo.parked_hours = parked_hours
        changed.append("parked_hours")
    if changed:
        repo.save(update_fields=changed)
