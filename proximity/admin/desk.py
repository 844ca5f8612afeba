"""The adjudication desk: a blind queue, a labelling form, a disagreement view.

Blind means the desk never renders ``ranks``, ``fused_rank`` or ``features``: the views pass only
``QueueItem``/``Disagreement`` records, which do not carry them. Superusers may inspect the scores
on the ordinary change page; reviewers (non-superusers) never see them anywhere. Nor does it show
other reviewers' labels or rationales of a pair before one's own label: the disagreement view
lists only pairs the viewer has labelled.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from proximity.admin.inspect import ReadOnlyAdmin
from proximity.exceptions import DomainError
from proximity.models import Adjudication, OverlapAdvisory
from proximity.selectors.adjudications import (
    AUTHORIZED_FIELDS,
    adjudication_queue,
    disagreement_list,
    pair_fields,
    principal_for_user,
    visible_overlap_advisories,
)
from proximity.selectors.pair_pages import overlap_pair_page
from proximity.services.adjudications import adjudication_record

__all__ = ["LabelForm", "OverlapAdvisoryAdmin"]

SCORE_FIELDS = ("ranks", "fused_rank", "features", "evidence")


class LabelForm(forms.Form):
    label = forms.ChoiceField(choices=Adjudication.Label.choices, widget=forms.RadioSelect)
    rationale = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5, "cols": 80}),
        help_text="Required: why this label (deliverable, acceptance, purpose, scope).",
    )


@admin.register(OverlapAdvisory)
class OverlapAdvisoryAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "coverage", "created_at", "label_count")
    list_select_related = ("version_a__record", "version_b__record")
    list_filter = ("coverage", "created_at")
    search_fields = ("version_a__record__task_id", "version_b__record__task_id")
    change_list_template = "admin/proximity/overlapadvisory/change_list.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[OverlapAdvisory]:
        visible = visible_overlap_advisories(principal_for_user(request.user))
        qs = super().get_queryset(request).filter(pk__in=visible.values("pk"))
        annotated: QuerySet[OverlapAdvisory] = qs.annotate(label_total=Count("adjudications"))
        return annotated

    @admin.display(description="labels")
    def label_count(self, obj: OverlapAdvisory) -> int:
        return getattr(obj, "label_total", 0)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        base = ["version_a", "version_b", "status", "coverage", "created_at"]
        return base + list(SCORE_FIELDS) if request.user.is_superuser else base

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.get_fields(request, obj)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view
        return [
            path("desk/", view(self.queue_view), name="proximity_overlapadvisory_desk"),
            path(
                "desk/disagreements/",
                view(self.disagreements_view),
                name="proximity_overlapadvisory_disagreements",
            ),
            path("<int:pk>/label/", view(self.label_view), name="proximity_overlapadvisory_label"),
            path("<int:pk>/pair/", view(self.pair_view), name="proximity_overlapadvisory_pair"),
            *super().get_urls(),
        ]

    def _context(self, request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
        return {**self.admin_site.each_context(request), "title": title, "opts": self.opts, **extra}

    def queue_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        query = request.GET.get("q", "").strip()
        stale = {"yes": True, "no": False}.get(request.GET.get("stale", ""))
        run = request.GET.get("run", "")
        held = request.GET.get("held", "") == "yes"
        items = adjudication_queue(
            request.user,
            query=query,
            stale=stale,
            run=int(run) if run.isdigit() else None,
            held=held,
        )
        title = "More candidates for this task (blind)" if held else "Adjudication queue (blind)"
        context = self._context(
            request, title, items=items, q=query, stale=request.GET.get("stale", ""), held=held
        )
        context["run"] = run if run.isdigit() else ""
        return TemplateResponse(request, "admin/proximity/desk_queue.html", context)

    def disagreements_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        rows = disagreement_list(request.user)
        context = self._context(request, "Disagreements", rows=rows)
        return TemplateResponse(request, "admin/proximity/desk_disagreements.html", context)

    def pair_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """The pair as a lead reads it, for any board user (staff) whose principal sees both
        records, as the board's card. Scores follow the desk's rule: a reviewer (may label, not
        a superuser) sees the records only, so a later label stays blind."""
        user = request.user
        can_label = user.has_perm("proximity.add_adjudication")
        scores = bool(user.is_superuser or not can_label)
        page = overlap_pair_page(principal_for_user(user), pk, scores=scores)
        if page is None:
            raise PermissionDenied  # absent and out of scope look the same
        title = f"Task pair {page.task_a} and {page.task_b}"
        context = self._context(request, title, page=page, can_label=can_label)
        return TemplateResponse(request, "admin/proximity/overlap_pair.html", context)

    def label_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not request.user.has_perm("proximity.add_adjudication"):
            raise PermissionDenied
        advisory = (
            visible_overlap_advisories(principal_for_user(request.user)).filter(pk=pk).first()
        )
        if advisory is None:
            raise PermissionDenied  # absent and out of scope look the same
        form = LabelForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                adjudication_record(
                    advisory=advisory,
                    reviewer=request.user,
                    label=form.cleaned_data["label"],
                    rationale=form.cleaned_data["rationale"],
                    fields_shown=AUTHORIZED_FIELDS,
                )
            except DomainError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            else:
                self.message_user(request, f"Label recorded for pair {pk}.", messages.SUCCESS)
                return redirect("admin:proximity_overlapadvisory_desk")
        a, b = pair_fields(advisory.version_a), pair_fields(advisory.version_b)
        rows = [(name, a[name], b[name]) for name in AUTHORIZED_FIELDS]
        stale = not (advisory.version_a.is_current and advisory.version_b.is_current)
        context = self._context(
            request, f"Label pair {pk}", form=form, rows=rows, stale=stale, advisory_id=pk
        )
        return TemplateResponse(request, "admin/proximity/desk_label.html", context)
