"""Adjudication labels in and out of the database as a labelled corpus (JSONL).

Export is how the desk's labels reach the evaluation (splits, metrics, holdout reports); import
moves a corpus between deployments or restores one. The format and its validation belong to the
engine (:mod:`proximity.engine.evaluation.corpus`); this module maps it onto stored rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q

from proximity.engine.evaluation.corpus import corpus_from_jsonl, corpus_to_jsonl
from proximity.engine.evaluation.labels import Judgement, Label, LabelledPair, RecordRef
from proximity.exceptions import ConflictError, InvalidInputError
from proximity.models import Adjudication, OverlapAdvisory, TaskVersion
from proximity.services.adjudications import validated_label

__all__ = ["CorpusImport", "corpus_export", "corpus_import", "pair_id_of"]


def pair_id_of(a: RecordRef, b: RecordRef) -> str:
    """One id per unordered pair of record versions, whichever run raised it."""
    first, second = sorted((_order(a), _order(b)))
    return f"{first}~{second}"


def _order(ref: RecordRef) -> str:
    return f"{ref.task_id}@{ref.work_version}"


def _ref(version: TaskVersion) -> RecordRef:
    return RecordRef(task_id=version.record.task_id, work_version=str(version.work_version))


def corpus_export(*, scopes: Sequence[str] | None = None) -> str:
    """Every labelled pair, judgements in the order they were given; ``scopes`` keeps the pairs
    whose two records both lie in those scopes (None: all)."""
    labels = Adjudication.objects.select_related(
        "reviewer", "advisory__version_a__record", "advisory__version_b__record"
    ).order_by("created_at", "pk")
    if scopes is not None:
        labels = labels.filter(
            advisory__version_a__scope__in=scopes, advisory__version_b__scope__in=scopes
        )
    refs: dict[str, tuple[RecordRef, RecordRef]] = {}
    judgements: dict[str, list[Judgement]] = {}
    for row in labels:
        a, b = _ref(row.advisory.version_a), _ref(row.advisory.version_b)
        key = pair_id_of(a, b)
        judgement = Judgement(
            reviewer=row.reviewer.get_username(),
            label=Label(row.label),
            rationale=row.rationale,
            fields_shown=tuple(row.fields_shown),
            record_a=a,
            record_b=b,
            labelled_at=row.created_at.isoformat(),
            blind=row.blind,
        )
        first, second = sorted((a, b), key=_order)
        refs.setdefault(key, (first, second))
        judgements.setdefault(key, []).append(judgement)
    return corpus_to_jsonl(
        LabelledPair(key, *refs[key], tuple(judgements[key])) for key in judgements
    )


@dataclass(frozen=True, slots=True)
class CorpusImport:
    pairs: int
    added: int
    unchanged: int


def corpus_import(text: str, *, dry_run: bool = False) -> CorpusImport:
    """Store every judgement of a corpus on the advisory that raised its pair; all or nothing.

    A judgement already stored (same reviewer, pair, label and rationale) is left as it is, so a
    corpus imports twice without change. A pair no advisory raised, an unknown reviewer or a
    reviewer who labelled the pair differently is an error naming the pair, and nothing is stored.
    """
    try:
        pairs = corpus_from_jsonl(text)
    except ValueError as exc:
        raise InvalidInputError(str(exc), field="corpus") from exc
    added = unchanged = 0
    with transaction.atomic():
        for pair in pairs:
            advisory = _advisory(pair)
            for judgement in pair.judgements:
                if _store(advisory, judgement, pair.pair_id):
                    added += 1
                else:
                    unchanged += 1
        if dry_run:
            transaction.set_rollback(True)
    return CorpusImport(pairs=len(pairs), added=added, unchanged=unchanged)


def _version(ref: RecordRef, where: str) -> TaskVersion:
    try:
        number = int(ref.work_version)
    except ValueError:
        raise InvalidInputError(
            f"{where}: workVersion must be an integer", field="corpus"
        ) from None
    # The corpus format names tasks without their scope; ids are unique only per scope, so an id
    # held in two scopes cannot be placed and is refused rather than guessed.
    found = list(
        TaskVersion.objects.filter(record__task_id=ref.task_id, work_version=number)
        .select_related("record")
        .order_by("record__scope")[:2]
    )
    if not found:
        raise InvalidInputError(f"{where}: no stored record {_order(ref)}", field="corpus")
    if len(found) > 1:
        scopes = ", ".join(v.record.scope for v in found)
        raise InvalidInputError(
            f"{where}: {_order(ref)} is stored in more than one scope ({scopes})", field="corpus"
        )
    return found[0]


def _advisory(pair: LabelledPair) -> OverlapAdvisory:
    a = _version(pair.record_a, f"pair {pair.pair_id}")
    b = _version(pair.record_b, f"pair {pair.pair_id}")
    advisory = (
        OverlapAdvisory.objects.filter(Q(version_a=a, version_b=b) | Q(version_a=b, version_b=a))
        .order_by("created_at", "pk")
        .first()
    )
    if advisory is None:
        raise InvalidInputError(
            f"pair {pair.pair_id}: no advisory raised this pair", field="corpus"
        )
    return advisory


def _store(advisory: OverlapAdvisory, judgement: Judgement, pair_id: str) -> bool:
    where = f"pair {pair_id}, reviewer {judgement.reviewer}"
    _same_records(advisory, (judgement.record_a, judgement.record_b), where)
    reviewer = get_user_model().objects.filter(username=judgement.reviewer).first()
    if reviewer is None:
        raise InvalidInputError(f"{where}: no such user", field="corpus")
    try:
        text, shown = validated_label(
            judgement.label.value, judgement.rationale, judgement.fields_shown
        )
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}: {exc.field}: {exc}", field="corpus") from None
    existing = Adjudication.objects.filter(advisory=advisory, reviewer=reviewer).first()
    if existing is not None:
        if existing.label == judgement.label.value and existing.rationale == text:
            return False
        raise ConflictError(f"{where}: already labelled this pair differently", field="corpus")
    Adjudication.objects.create(
        advisory=advisory,
        reviewer=reviewer,
        label=judgement.label.value,
        rationale=text,
        fields_shown=shown,
        version_a=advisory.version_a.work_version,
        version_b=advisory.version_b.work_version,
        blind=judgement.blind,
        created_at=datetime.fromisoformat(judgement.labelled_at),
    )
    return True


def _same_records(advisory: OverlapAdvisory, refs: Iterable[RecordRef], where: str) -> None:
    stored = {_order(_ref(advisory.version_a)), _order(_ref(advisory.version_b))}
    if {_order(r) for r in refs} != stored:
        raise InvalidInputError(f"{where}: judged other records than the pair's", field="corpus")
