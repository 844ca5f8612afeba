"""Inspection admins: list filters, search, read-only scores; actions that call services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from pydantic.alias_generators import to_snake

from proximity.engine.airspace import PROFILES
from proximity.exceptions import InvalidInputError, NotFoundError
from proximity.models import (
    Adjudication,
    Agent,
    HoldoutEvaluation,
    OverlapRun,
    Principal,
    ProximityAdvisory,
    ProximityScan,
    Repository,
    TaskVersion,
    UnknownEmission,
)
from proximity.selectors.access import visible_labels_q
from proximity.selectors.adjudications import principal_for_user, visible_overlap_advisories
from proximity.selectors.advisories import repository_list
from proximity.selectors.board import board_card
from proximity.selectors.board_records import BAND_LABELS
from proximity.selectors.wording import channel_sentences
from proximity.services.advisories import advisory_acknowledge
from proximity.services.people import parse_scopes
from proximity.services.repositories import (
    RepositorySettings,
    repository_remove,
    repository_settings_clean,
)

__all__ = ["ModelAdminBase", "ReadOnlyAdmin", "repo_ids", "visible_version_ids"]

if TYPE_CHECKING:  # django-stubs makes these generic; at run time they are not subscriptable
    ModelAdminBase = admin.ModelAdmin[Any]
    RepositoryFormBase = forms.ModelForm[Repository]
else:
    ModelAdminBase = admin.ModelAdmin
    RepositoryFormBase = forms.ModelForm


def repo_ids(request: HttpRequest) -> list[int]:
    return [r.pk for r in repository_list(principal_for_user(request.user))]


def visible_version_ids(request: HttpRequest) -> QuerySet[TaskVersion]:
    """The visible versions as a subquery: a change list page never loads every version."""
    labels = visible_labels_q(principal_for_user(request.user), TaskVersion)
    return TaskVersion.objects.filter(labels)


class ReadOnlyAdmin(ModelAdminBase):
    """Stored results are written by services only; the admin inspects them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ListField(forms.CharField):
    """Scopes and labels typed as a list (comma- or line-separated), stored as a JSON list."""

    widget = forms.Textarea(attrs={"rows": 2, "cols": 40})

    def __init__(self, *, required: bool = False, field: str = "scope", **kwargs: Any) -> None:
        self.field = field
        super().__init__(required=required, **kwargs)

    def prepare_value(self, value: Any) -> Any:
        return ", ".join(value) if isinstance(value, list) else value

    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        text = ", ".join(value) if isinstance(value, list) else str(value or "")
        if not text.strip():
            return []
        try:
            return parse_scopes(text)
        except InvalidInputError as exc:
            raise forms.ValidationError(exc.message) from None


if TYPE_CHECKING:
    PrincipalFormBase = forms.ModelForm[Principal]
else:
    PrincipalFormBase = forms.ModelForm


class PrincipalForm(PrincipalFormBase):
    scopes = ListField(help_text="who it may see: e.g. invkit-team, payments (comma or line)")
    clearances = ListField(help_text="disclosure labels it may read, e.g. internal")
    lead_scopes = ListField(help_text="scopes in which it may revise any task (the lead role)")

    class Meta:
        model = Principal
        fields = ("name", "kind", "user", "scopes", "clearances", "lead_scopes", "is_active")


@admin.register(Principal)
class PrincipalAdmin(ModelAdminBase):
    form = PrincipalForm
    list_display = ("name", "kind", "user", "creates_agents", "is_active")
    list_filter = ("kind", "creates_agents", "is_active")
    search_fields = ("name", "user__username")
    autocomplete_fields = ("user",)


class RepositoryForm(RepositoryFormBase):
    """The model's own checks, then the service's (path a git clone when watched, ...)."""

    scope = forms.CharField(required=False, max_length=120, help_text="default: the name")
    profile = forms.ChoiceField(choices=[(p, p) for p in sorted(PROFILES)])
    webhook_url = forms.URLField(required=False, max_length=200, assume_scheme="https")

    class Meta:
        model = Repository
        fields = (
            "name",
            "scope",
            "disclosure",
            "path",
            "base_branch",
            "watch",
            "profile",
            "webhook_url",
            "merge_checks",
            "merge_check_tests",
            "parked_hours",
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:  # the field checks already named a problem; one at a time
            return data
        names = (
            "name", "path", "scope", "base_branch", "watch", "webhook_url", "profile",
            "merge_checks", "merge_check_tests", "parked_hours",
        )  # fmt: skip
        try:
            settings = repository_settings_clean(RepositorySettings(**{n: data[n] for n in names}))
        except InvalidInputError as exc:
            field = to_snake(exc.field or "")  # the service names fields as the API does
            self.add_error(field if field in self.fields else None, exc.message)
            return data
        data.update(scope=settings.scope, path=settings.path)
        return data


@admin.register(Repository)
class RepositoryAdmin(ModelAdminBase):
    """Staff with the model's permissions register repositories here, as with the command."""

    form = RepositoryForm
    list_display = ("name", "scope", "profile", "watch", "merge_checks", "archived_at")
    list_filter = ("scope", "profile", "watch", "merge_checks", "archived_at")
    search_fields = ("name",)
    readonly_fields = (
        "watch_conflicts", "scan_requested_at", "created_at", "archived_at", "archived_by",
    )  # fmt: skip

    def get_queryset(self, request: HttpRequest) -> QuerySet[Repository]:
        return super().get_queryset(request).filter(pk__in=repo_ids(request))

    # Deleting archives (services/repositories.py): the admin's delete permission is the right,
    # and nothing reported into the repository is erased, so the confirmation lists no rows
    # "to be deleted" and needs no delete permission on them.
    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        return [str(o) for o in objs], {}, set(), []

    def delete_model(self, request: HttpRequest, obj: Repository) -> None:
        if obj.archived_at is None:
            repository_remove(principal=None, name=obj.name, by=request.user.get_username())

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Repository]) -> None:
        for repo in queryset.filter(archived_at__isnull=True):
            self.delete_model(request, repo)


@admin.register(Agent)
class AgentAdmin(ReadOnlyAdmin):
    list_display = ("agent_id", "repository", "label", "last_report_at")
    list_select_related = ("repository",)
    # RelatedOnly: the filter lists only repositories in the scoped queryset, never every name.
    list_filter = (("repository", admin.RelatedOnlyFieldListFilter),)
    search_fields = ("agent_id", "label")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Agent]:
        return super().get_queryset(request).filter(repository_id__in=repo_ids(request))


@admin.register(ProximityAdvisory)
class ProximityAdvisoryAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "repository", "band", "state", "risk", "trend", "conflict")
    list_filter = (
        "band",
        "state",
        "trend",
        "conflict",
        ("repository", admin.RelatedOnlyFieldListFilter),
    )
    search_fields = ("agent_a__agent_id", "agent_b__agent_id")
    list_select_related = ("repository", "agent_a", "agent_b")
    actions = ("acknowledge",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ProximityAdvisory]:
        return super().get_queryset(request).filter(repository_id__in=repo_ids(request))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        pair = path("<int:pk>/pair/", view(self.pair_view), name="proximity_proximityadvisory_pair")
        return [pair, *super().get_urls()]

    def pair_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """The board card's "Open pair": both agents side by side, the channels in sentences."""
        card = board_card(principal_for_user(request.user), pk)
        if card is None:
            raise PermissionDenied  # absent and out of scope look the same
        context = {
            **self.admin_site.each_context(request),
            "title": f"{BAND_LABELS[card.band]}: {card.agent_a} and {card.agent_b}",
            "opts": self.opts,
            "card": card,
            "channels": channel_sentences(card.channels),
            "named_a": card.task_a if card.task_a and card.task_a != card.agent_a else "",
            "named_b": card.task_b if card.task_b and card.task_b != card.agent_b else "",
        }
        return TemplateResponse(request, "admin/proximity/proximity_pair.html", context)

    @admin.action(description="Acknowledge the selected advisories", permissions=["view"])
    def acknowledge(self, request: HttpRequest, queryset: QuerySet[ProximityAdvisory]) -> None:
        principal = principal_for_user(request.user)
        if principal is None:
            self.message_user(request, "Your login has no principal.", messages.ERROR)
            return
        done = 0
        for advisory in queryset:
            try:
                advisory_acknowledge(advisory_id=advisory.pk, principal=principal, note="admin")
                done += 1
            except NotFoundError:
                continue
        self.message_user(request, f"{done} advisory(ies) acknowledged.")


@admin.register(ProximityScan)
class ProximityScanAdmin(ReadOnlyAdmin):
    list_display = ("repository", "status", "agent_count", "advisory_count", "finished_at")
    list_select_related = ("repository",)
    list_filter = ("status", "profile", ("repository", admin.RelatedOnlyFieldListFilter))
    exclude = ("result",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ProximityScan]:
        return super().get_queryset(request).filter(repository_id__in=repo_ids(request))


@admin.register(TaskVersion)
class TaskVersionAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "scope", "owner", "created_at", "superseded_at")
    list_filter = ("scope",)
    search_fields = ("record__task_id", "objective", "deliverable")
    exclude = ("embedding",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[TaskVersion]:
        qs = super().get_queryset(request).select_related("record")
        return qs.filter(pk__in=visible_version_ids(request))


@admin.register(OverlapRun)
class OverlapRunAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "status", "coverage", "pool_size", "finished_at")
    list_select_related = ("query__record",)
    list_filter = ("status", "coverage")

    def get_queryset(self, request: HttpRequest) -> QuerySet[OverlapRun]:
        return super().get_queryset(request).filter(query_id__in=visible_version_ids(request))


@admin.register(UnknownEmission)
class UnknownEmissionAdmin(ReadOnlyAdmin):
    list_display = ("version", "reason", "created_at")
    list_select_related = ("version__record",)
    list_filter = ("reason",)
    search_fields = ("version__record__task_id", "detail")

    def get_queryset(self, request: HttpRequest) -> QuerySet[UnknownEmission]:
        return super().get_queryset(request).filter(version_id__in=visible_version_ids(request))


@admin.register(Adjudication)
class AdjudicationAdmin(ReadOnlyAdmin):
    list_display = ("advisory", "reviewer", "label", "version_a", "version_b", "created_at")
    list_select_related = ("advisory__version_a__record", "advisory__version_b__record", "reviewer")
    list_filter = ("label", "blind")
    search_fields = ("rationale", "reviewer__username")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Adjudication]:
        visible = visible_overlap_advisories(principal_for_user(request.user))
        return super().get_queryset(request).filter(advisory__in=visible)


@admin.register(HoldoutEvaluation)
class HoldoutEvaluationAdmin(ReadOnlyAdmin):
    """The holdout ledger, to read: who evaluated which holdout under which frozen policy."""

    list_display = ("dataset", "policy_digest", "who", "at")
    list_filter = ("dataset",)
    search_fields = ("dataset", "policy_digest", "who")
