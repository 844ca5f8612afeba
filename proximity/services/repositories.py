"""Register and remove (archive) the repositories agents report into (command line, API, admin).

Errors name fields as the API's JSON does (``baseBranch``, ``webhookUrl``); the command and the
admin translate them to their own flags and form fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator, validate_slug
from django.db import IntegrityError, transaction
from django.utils import timezone

from proximity.engine.airspace import DEFAULT_PROFILE, PROFILES
from proximity.exceptions import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from proximity.models import Principal, Repository
from proximity.selectors.access import can_see, holds_permission
from proximity.sources.git import GitError
from proximity.sources.git.worktrees import repository_root
from proximity.sources.radar_files import MAX_PARKED_HOURS, parked_hours_ok

__all__ = [
    "RepositorySettings",
    "parked_hours_check",
    "parked_phrase",
    "repository_create",
    "repository_remove",
    "repository_settings_clean",
    "repository_writable",
]

_BLANK_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
_WEBHOOK = URLValidator(schemes=["http", "https"])


@dataclass(frozen=True)
class RepositorySettings:
    """What a person chooses when registering a repository; everything else is derived state."""

    name: str
    path: str = ""
    scope: str = ""
    base_branch: str = "main"
    watch: bool = False
    webhook_url: str = ""
    profile: str = DEFAULT_PROFILE
    merge_checks: bool = False
    merge_check_tests: bool = False
    parked_hours: float | None = None
    """The profile's parked time replaced (0: never parked); ``None``: the profile's."""


def parked_hours_check(value: float | None) -> None:
    """InvalidInputError naming ``parkedHours`` unless ``value`` is None or 0 to a year."""
    if value is None:
        return
    if not parked_hours_ok(value):
        raise InvalidInputError(
            f"must be a number of hours from 0 (never parked) to {MAX_PARKED_HOURS:g}",
            field="parkedHours",
        )


def parked_phrase(hours: float | None) -> str:
    """How a command's line names a repository's parked time ("" for the profile's)."""
    if hours is None:
        return ""
    return ", never parked" if hours == 0 else f", parked after {hours:g} h"


def _name(value: str) -> None:
    # The name is a URL segment and the default scope, so it is a slug.
    try:
        validate_slug(value)
    except ValidationError:
        raise InvalidInputError("must be a slug (letters, digits, - and _)", field="name") from None
    if len(value) > 120:
        raise InvalidInputError("at most 120 characters", field="name")


def _token(value: str, field: str, limit: int) -> None:
    """Scopes and branch names are compared and passed to git verbatim: no blanks, no options."""
    if not value or len(value) > limit:
        raise InvalidInputError(f"must be 1 to {limit} characters", field=field)
    if _BLANK_OR_CONTROL.search(value) or value.startswith("-") or ".." in value:
        raise InvalidInputError(
            "must not contain blanks, control characters or '..', nor start with '-'", field=field
        )


def _webhook(value: str) -> None:
    if not value:
        return
    try:
        _WEBHOOK(value)
    except ValidationError:
        raise InvalidInputError("must be an http(s) URL", field="webhookUrl") from None
    if len(value) > 200:
        raise InvalidInputError("at most 200 characters", field="webhookUrl")


def _path(value: str, *, watch: bool) -> str:
    """The path to store: the working tree's top when watched, as given otherwise."""
    if len(value) > 1024:
        raise InvalidInputError("at most 1024 characters", field="path")
    if not watch:
        return value
    if not value:
        raise InvalidInputError(
            "a watched repository needs the path of a local clone", field="path"
        )
    try:
        return str(repository_root(value))
    except GitError as exc:
        raise InvalidInputError(exc.problem, field="path") from None


def repository_settings_clean(settings: RepositorySettings) -> RepositorySettings:
    """The settings as they will be stored, or InvalidInputError naming the first bad field."""
    _name(settings.name)
    scope = settings.scope or settings.name
    _token(scope, "scope", 120)
    _token(settings.base_branch, "baseBranch", 255)
    if settings.profile not in PROFILES:
        choices = ", ".join(sorted(PROFILES))
        raise InvalidInputError(f"must be one of {choices}", field="profile")
    _webhook(settings.webhook_url)
    parked_hours_check(settings.parked_hours)
    path = _path(settings.path, watch=settings.watch)
    if settings.merge_checks and not settings.path:
        raise InvalidInputError("merge checks read the local clone: give its path", field="path")
    if settings.merge_check_tests and not settings.merge_checks:
        raise InvalidInputError(
            "test runs are part of the merge checks: turn those on", field="mergeCheckTests"
        )
    return replace(settings, scope=scope, path=path)


def _require(principal: Principal | None, permission: str, action: str) -> None:
    # principal None is a trusted operator on the server (the command line, the admin's form,
    # which checks the same permission itself).
    if principal is not None and not holds_permission(principal, permission):
        raise ForbiddenError(f"{action} needs the {permission} permission")


def repository_writable(repository: Repository) -> None:
    """A removed (archived) repository takes no more reports: a 409 naming it, nothing stored."""
    if repository.archived_at is not None:
        raise ConflictError(
            f"repository {repository.name} was removed on {repository.archived_at:%Y-%m-%d}",
            field="repository",
        )


def repository_create(
    *,
    principal: Principal | None,
    name: str,
    path: str = "",
    scope: str = "",
    base_branch: str = "main",
    watch: bool = False,
    webhook_url: str = "",
    profile: str = DEFAULT_PROFILE,
    merge_checks: bool = False,
    merge_check_tests: bool = False,
    parked_hours: float | None = None,
) -> Repository:
    """Register a repository; nothing is stored unless every field is valid and the name free.

    Staff may register a repository in any scope, their own or not: onboarding another team is
    the point (docs/DECISIONS.md).
    """
    _require(principal, "proximity.add_repository", "registering a repository")
    wanted = RepositorySettings(
        name,
        path,
        scope,
        base_branch,
        watch,
        webhook_url,
        profile,
        merge_checks,
        merge_check_tests,
        None if parked_hours is None else float(parked_hours),
    )
    clean = repository_settings_clean(wanted)
    # A removed repository keeps its name: its trails and advisories are filed under it.
    taken = ConflictError(
        f"a repository named {clean.name!r} exists or was removed (names are not reused)",
        field="name",
    )
    if Repository.objects.filter(name=clean.name).exists():
        raise taken
    try:
        # The unique name decides a race between two registrations; the loser stores nothing.
        with transaction.atomic():
            return Repository.objects.create(
                name=clean.name,
                path=clean.path,
                scope=clean.scope,
                base_branch=clean.base_branch,
                watch=clean.watch,
                webhook_url=clean.webhook_url,
                profile=clean.profile,
                merge_checks=clean.merge_checks,
                merge_check_tests=clean.merge_check_tests,
                parked_hours=clean.parked_hours,
            )
    except IntegrityError:
        raise taken from None


def repository_remove(*, principal: Principal | None, name: str, by: str = "") -> Repository:
    """Archive a repository: agents stop, nothing is deleted, who removed it and when is kept.

    Its snapshots, scans, advisories, acknowledgements and hash-chained trails stay readable to
    whoever sees its scope (and verifiable); reports, acknowledgements and watch ticks answer
    409 from then on. Deleting rows under concurrent reports raised an IntegrityError (a 503)
    and erased the trails without a trace (issue 31, item 5). ``by`` names a trusted operator
    (``principal`` None). Staff remove only repositories they can see; a hidden one answers
    like a missing one, and one already removed as well.
    """
    _require(principal, "proximity.delete_repository", "removing a repository")
    with transaction.atomic():
        # The row lock orders a removal after the reports already holding it (scan_request
        # updates this row), so a report either lands before the removal or gets the 409.
        repo = Repository.objects.select_for_update().filter(name=name).first()
        visible = repo is not None and (
            principal is None or can_see(principal, repo.scope, repo.disclosure)
        )
        if repo is None or not visible or repo.archived_at is not None:
            raise NotFoundError("repository")
        repo.archived_at = timezone.now()
        repo.archived_by = (principal.name if principal is not None else by or "operator")[:150]
        repo.scan_requested_at = None
        repo.save(update_fields=["archived_at", "archived_by", "scan_requested_at"])
    return repo
