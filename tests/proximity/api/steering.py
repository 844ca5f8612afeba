"""Steer part of the positive fuzz onto the task success path: held scopes and stored ids.

Schemathesis draws a ``scope`` at random, which the caller never holds, so a declaration is
always refused before anything is stored. A ``flatmap_case`` hook (local to one positive run of
one operation, so negative inputs stay as generated) rewrites three in four cases: a held scope
and granted labels for declarations, the current version of one of the caller's tasks for
revisions, a stored task or advisory for reads. Every other field stays generated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st
from schemathesis.hooks import HookContext, HookDispatcher, HookScope

from proximity.models import OverlapAdvisory, Principal, TaskRecord, TaskVersion

__all__ = ["DECLARE", "REVISE", "steering"]

DECLARE = "POST /api/tasks"
REVISE = "POST /api/tasks/{task_id}/versions"

Hook = Callable[[HookContext, Any], st.SearchStrategy[Any]]
Change = Callable[[Any, Any], Any]
#: Three in four cases steered; the rest go out as generated, so the refusals stay fuzzed.
_STEER = st.sampled_from((True, True, True, False))


def _steered(case: Any, targets: st.SearchStrategy[Any] | None, change: Change) -> Any:
    """``case``, with three in four draws changed by ``change(case, target)``."""
    if targets is None:
        return st.just(case)
    return st.tuples(_STEER, targets).map(lambda d: change(case, d[1]) if d[0] else case)


def _one_of(rows: Iterable[Any]) -> st.SearchStrategy[Any] | None:
    listed = list(rows)  # a query, evaluated now, in its stated order
    return st.sampled_from(listed) if listed else None


def _disclosure(principal: Principal) -> st.SearchStrategy[list[str]]:
    granted = principal.clearances
    return st.lists(st.sampled_from(granted), unique=True) if granted else st.just([])


def _declaring(principal: Principal) -> Hook:
    def flatmap_case(context: HookContext, case: Any) -> Any:
        if not isinstance(case.body, dict):
            return st.just(case)
        labels = st.tuples(st.sampled_from(principal.scopes), _disclosure(principal))
        return _steered(
            case, labels, lambda c, t: _with(c, body={"scope": t[0], "disclosure": t[1]})
        )

    return flatmap_case


def _revising(principal: Principal) -> Hook:
    def flatmap_case(context: HookContext, case: Any) -> Any:
        if not isinstance(case.body, dict):
            return st.just(case)
        # Read at each draw: the declarations and revisions before this one moved the versions.
        rows = TaskVersion.objects.filter(record__declared_by=principal, superseded_at=None)
        current = _one_of(
            rows.order_by("pk").values_list("record__task_id", "record__scope", "work_version")
        )
        targets = None if current is None else st.tuples(current, _disclosure(principal))
        return _steered(case, targets, _revision)

    return flatmap_case


def _revision(case: Any, target: tuple[tuple[str, str, int], list[str]]) -> Any:
    (task_id, scope, version), disclosure = target
    body = {"scope": scope, "previousVersion": version, "disclosure": disclosure}
    return _with(case, body=body, path={"task_id": quote(task_id, safe="")})


def _reading_tasks(principal: Principal) -> Hook:
    def flatmap_case(context: HookContext, case: Any) -> Any:
        records = TaskRecord.objects.filter(scope__in=principal.scopes).order_by("pk")
        return _steered(
            case,
            _one_of(records.values_list("task_id", "scope")),
            lambda c, t: _with(c, path={"task_id": quote(t[0], safe="")}, query={"scope": t[1]}),
        )

    return flatmap_case


def _reading_advisories(principal: Principal) -> Hook:
    def flatmap_case(context: HookContext, case: Any) -> Any:
        ids = _one_of(OverlapAdvisory.objects.order_by("pk").values_list("pk", flat=True))
        return _steered(case, ids, lambda c, pk: _with(c, path={"advisory_id": pk}))

    return flatmap_case


def _with(
    case: Any,
    *,
    body: dict[str, Any] | None = None,
    path: dict[str, Any] | None = None,
    query: dict[str, Any] | None = None,
) -> Any:
    # New containers, not edits in place: schemathesis tracks which parts a hook reassigned.
    if body:
        case.body = {**case.body, **body}
    if path:
        case.path_parameters = {**case.path_parameters, **path}
    if query:
        case.query = {**(case.query or {}), **query}
    return case


_HOOKS: dict[str, Callable[[Principal], Hook]] = {
    DECLARE: _declaring,
    REVISE: _revising,
    "GET /api/tasks/{task_id}": _reading_tasks,
    "GET /api/tasks/{task_id}/run": _reading_tasks,
    "GET /api/overlap-advisories/{advisory_id}": _reading_advisories,
}


def steering(operation: Any, principal: Principal) -> HookDispatcher | None:
    """The hooks for one positive run of ``operation`` by ``principal``; None: unsteered."""
    make = _HOOKS.get(operation.label)
    if make is None:
        return None
    hooks = HookDispatcher(scope=HookScope.TEST)
    hooks.register_hook_with_name(make(principal), "flatmap_case")
    return hooks
