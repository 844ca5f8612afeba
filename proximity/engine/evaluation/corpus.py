"""Labelled corpora as JSONL: one pair per line, every judgement kept, sorted for stable diffs.

Pure text in, text out; reading and writing files is the caller's business.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from proximity.engine.evaluation.labels import Judgement, Label, LabelledPair, RecordRef

__all__ = ["CORPUS_FORMAT", "corpus_from_jsonl", "corpus_to_jsonl"]

CORPUS_FORMAT = "overlap-radar/labelled-pair@1"


def _ref(data: Any, where: str) -> RecordRef:
    if not isinstance(data, dict) or "taskId" not in data or "workVersion" not in data:
        raise ValueError(f"{where}: needs taskId and workVersion")
    return RecordRef(task_id=str(data["taskId"]), work_version=str(data["workVersion"]))


def _ref_json(ref: RecordRef) -> dict[str, str]:
    return {"taskId": ref.task_id, "workVersion": ref.work_version}


def _judgement_json(j: Judgement) -> dict[str, Any]:
    return {
        "reviewer": j.reviewer,
        "label": j.label.value,
        "rationale": j.rationale,
        "fieldsShown": list(j.fields_shown),
        "recordA": _ref_json(j.record_a),
        "recordB": _ref_json(j.record_b),
        "labelledAt": j.labelled_at,
        "blind": j.blind,
    }


def _judgement(data: Any, where: str) -> Judgement:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: a judgement must be an object")
    for key in ("reviewer", "label", "rationale", "fieldsShown", "labelledAt"):
        if key not in data:
            raise ValueError(f"{where}.{key}: missing")
    try:
        label = Label(data["label"])
    except ValueError as exc:
        raise ValueError(f"{where}.label: {data['label']!r} is not a label") from exc
    return Judgement(
        reviewer=str(data["reviewer"]),
        label=label,
        rationale=str(data["rationale"]),
        fields_shown=tuple(str(f) for f in data["fieldsShown"]),
        record_a=_ref(data.get("recordA"), f"{where}.recordA"),
        record_b=_ref(data.get("recordB"), f"{where}.recordB"),
        labelled_at=str(data["labelledAt"]),
        blind=bool(data.get("blind", True)),
    )


def corpus_to_jsonl(pairs: Iterable[LabelledPair]) -> str:
    """Serialise pairs sorted by pair id; judgements keep their arrival order."""
    lines = []
    for pair in sorted(pairs, key=lambda p: p.pair_id):
        row = {
            "format": CORPUS_FORMAT,
            "pairId": pair.pair_id,
            "purpose": pair.purpose,
            "recordA": _ref_json(pair.record_a),
            "recordB": _ref_json(pair.record_b),
            "judgements": [_judgement_json(j) for j in pair.judgements],
        }
        lines.append(json.dumps(row, sort_keys=True, separators=(",", ":")))
    return "".join(line + "\n" for line in lines)


def corpus_from_jsonl(text: str) -> tuple[LabelledPair, ...]:
    """Parse a corpus; an error names the line and the field. Duplicate pair ids are rejected."""
    pairs: dict[str, LabelledPair] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or row.get("format") != CORPUS_FORMAT:
            raise ValueError(f"{where}.format: expected {CORPUS_FORMAT!r}")
        if "pairId" not in row:
            raise ValueError(f"{where}.pairId: missing")
        pair_id = str(row["pairId"])
        if pair_id in pairs:
            raise ValueError(f"{where}.pairId: duplicate {pair_id!r}")
        judgements = row.get("judgements", [])
        pairs[pair_id] = LabelledPair(
            pair_id=pair_id,
            record_a=_ref(row.get("recordA"), f"{where}.recordA"),
            record_b=_ref(row.get("recordB"), f"{where}.recordB"),
            judgements=tuple(
                _judgement(j, f"{where}.judgements[{i}]") for i, j in enumerate(judgements)
            ),
            purpose=str(row.get("purpose", "evaluation")),
        )
    return tuple(pairs[k] for k in sorted(pairs))
