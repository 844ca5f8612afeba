"""Repositories: everyone lists those in their scopes; staff holding the admin's model
permissions register (``add_repository``) and remove (``delete_repository``) them.

The list lives here, beside the writes, because ninja answers 405 when two routers declare the
same path: the router that is mounted first owns every method of it.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from proximity.api.auth import PermissionTokenAuth, TokenAuth, principal_of
from proximity.api.presenters import repository_out
from proximity.api.schemas import ERRORS, RepositoryIn, RepositoryOut
from proximity.selectors.advisories import repository_list
from proximity.services.repositories import repository_create, repository_remove

router = Router(tags=["repositories"], auth=TokenAuth())


@router.get("/repositories", response={200: list[RepositoryOut], **ERRORS}, by_alias=True)
def list_repositories(request: HttpRequest) -> list[RepositoryOut]:
    return [repository_out(r) for r in repository_list(principal_of(request))]


@router.post(
    "/repositories",
    response={201: RepositoryOut, **ERRORS},
    by_alias=True,
    auth=PermissionTokenAuth("proximity.add_repository", "registering a repository"),
    summary="Register a repository for agents to report into (proximity.add_repository)",
)
def create_repository(request: HttpRequest, body: RepositoryIn) -> Status[RepositoryOut]:
    repo = repository_create(principal=principal_of(request), **body.model_dump())
    return Status(201, repository_out(repo))


@router.delete(
    "/repositories/{name}",
    response={204: None, **ERRORS},
    auth=PermissionTokenAuth("proximity.delete_repository", "removing a repository"),
    summary="Remove (archive) a repository: agents stop, its records stay (delete_repository)",
)
def remove_repository(request: HttpRequest, name: str) -> Status[None]:
    repository_remove(principal=principal_of(request), name=name)
    return Status(204, None)
