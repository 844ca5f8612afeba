"""``manage.py evaluate_overlap --gitbugs FOLDER [--json]``: recall-rate@k on real duplicates.

Each bug report stands for a declared task; each duplicate query retrieves only among reports
created before it. Tuning (``--tune``) is allowed on development folders only; a holdout folder is
evaluated only with ``--holdout`` and every such run is written to the holdout ledger.
"""

from __future__ import annotations

import dataclasses
import getpass
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.evaluation.calibration import PlattMap
from proximity.engine.overlap import SHIPPED_POLICY, OverlapPolicy, TaskRecord
from proximity.engine.overlap.evidence_fit import (
    background_rows,
    population_calibration,
    queue_figures,
    training_rows,
)
from proximity.engine.overlap.policy import INDEXABLE_FIELDS
from proximity.engine.overlap.retrieval_eval import (
    CONVEX_ALPHA,
    as_json_methods,
    evaluate_retrieval,
    tune_on_development,
)
from proximity.engine.overlap.retrieval_variants import Variant, evaluate_variant
from proximity.lab.gitbugs import (
    GitBugsFormatError,
    duplicate_task_set,
    pipeline_records,
)
from proximity.services.holdouts import holdout_evaluation_record
from proximity.services.overlap_evidence import evidence_model, review_budget
from proximity.sources.embedding import (
    EmbeddingUnavailableError,
    SentenceEmbedder,
    embed_records_cached,
)

#: Folders that are holdouts: never tuned on, evaluated once per frozen policy, always logged.
HOLDOUT_DATASETS = frozenset({"seamonkey"})
#: Embedding inputs compared by ``--variants``: (fields embedded, characters of the deliverable).
EMBEDDING_INPUTS: Mapping[str, tuple[tuple[str, ...], int | None]] = {
    "full record": (("objective", "deliverable", "acceptance"), None),
    "objective only": (("objective",), None),
    "objective + 300 chars": (("objective", "deliverable"), 300),
    "objective + 600 chars": (("objective", "deliverable"), 600),
}
#: The rows of the variants table (docs/EVALUATION.md); the second is the shipped policy's.
VARIANTS = (
    Variant("words-v1", "full record"),
    Variant("identifiers-v2", "full record"),
    Variant("words, objective twice", "full record"),
    Variant("identifiers in every field", "full record"),
    Variant("identifiers-v2", "objective only"),
    Variant("identifiers-v2", "objective + 300 chars"),
    Variant("identifiers-v2", "objective + 600 chars"),
    Variant("words-v1", "objective + 300 chars"),
    Variant("identifiers-v2", "full record", scope_list=True),
    Variant("identifiers-v2, Snowball stems", "full record"),
    Variant("identifiers-v2 + initialisms of the objective's names", "full record"),
    Variant("identifiers-v2 + initialisms, Snowball stems", "full record"),
)


def record_vectors(
    records: Sequence[TaskRecord], cache_dir: str | None, *, fields: Sequence[str]
) -> Any:
    """The records' vectors for ``fields`` (the bundled model unless settings name another),
    through the on-disk cache (``var/embedding-cache`` unless ``cache_dir``); raises
    ``EmbeddingUnavailableError`` when the model cannot load."""
    embedder = SentenceEmbedder(settings.OVERLAP_EMBEDDING_MODEL_DIR or None, fields=fields)
    folder = Path(cache_dir) if cache_dir else Path(settings.VAR_DIR) / "embedding-cache"
    return embed_records_cached(embedder, records, folder)


def _ledger(dataset: str, policy: OverlapPolicy, who: str) -> str:
    """Log a holdout evaluation in the ledger the evaluation engine replays."""
    status = holdout_evaluation_record(dataset, policy.digest, who)
    return f"holdout run logged: {status.state}, can back claims: " + (
        "yes" if status.can_back_claims else "no (consumed)"
    )


class Command(BaseCommand):
    help = "Recall-rate@k of lexical, dense, RRF and convex retrieval on a GitBugs folder."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--gitbugs", required=True, help="folder with *_bugs.csv files")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")
        parser.add_argument("--holdout", action="store_true", help="allow a holdout folder")
        parser.add_argument("--tune", action="store_true", help="grid-search k and alpha (dev)")
        parser.add_argument("--cache-dir", default=None, help="embedding cache folder")
        parser.add_argument(
            "--background",
            type=int,
            default=300,
            help="queries without a duplicate sampled for the queue's calibration figures",
        )
        parser.add_argument(
            "--variants", action="store_true", help="compare candidate-stage variants (dev)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = Path(options["gitbugs"]).resolve().name
        holdout = name.lower() in HOLDOUT_DATASETS  # decided before a single row is read
        if holdout and (options["tune"] or options["variants"]):
            raise CommandError(f"{name} is a holdout: no tuning decision may use it")
        if options["background"] < 0:
            raise CommandError("--background must be >= 0")
        if holdout and not options["holdout"]:
            raise CommandError(f"{name} is a holdout: pass --holdout to evaluate and log it")
        try:
            loaded = duplicate_task_set(options["gitbugs"])
        except GitBugsFormatError as exc:
            raise CommandError(str(exc)) from exc
        dataset, records, created, queries = (
            loaded.dataset,
            loaded.records,
            loaded.created,
            loaded.queries,
        )
        vectors, reason = self._vectors(records, options["cache_dir"])
        if options["variants"]:
            if vectors is None:
                raise CommandError(f"variants need the dense ranker: {reason}")
            rows = self._variants(records, created, queries, options["cache_dir"])
            self.stdout.write(json.dumps(rows, indent=2))
            return
        if options["tune"]:
            self.stdout.write(
                json.dumps(
                    tune_on_development(records, created, queries, vectors, policy=SHIPPED_POLICY),
                    indent=2,
                )
            )
            return
        evaluation = evaluate_retrieval(
            records,
            created,
            queries,
            vectors,
            policy=SHIPPED_POLICY,
            alpha=CONVEX_ALPHA,
            dense_reason=reason,
        )
        payload = {
            "dataset": dataset.name,
            "queries": evaluation.queries,
            "policy": SHIPPED_POLICY.digest,
            "default": SHIPPED_POLICY.fusion,
            "methods": as_json_methods(evaluation),
        }
        if vectors is not None:
            payload["queue"] = self._queue(
                records,
                created,
                queries,
                vectors,
                dataset.name,
                options["cache_dir"],
                options["background"],
            )
        if holdout:
            note = _ledger(dataset.name, SHIPPED_POLICY, getpass.getuser())
            self.stderr.write(note)
        self._print(payload, as_json=options["json"])

    def _queue(
        self,
        records: Sequence[TaskRecord],
        created: Sequence[float],
        queries: Any,
        vectors: Any,
        scope: str,
        cache_dir: str | None,
        background_size: int,
    ) -> dict[str, Any]:
        """The shipped two stages: the pipeline's candidates in the shipped evidence order, and
        how well the shipped probabilities are calibrated over the duplicate queries and a
        sample of the other queries (weighted by inverse inclusion probability)."""
        model = evidence_model()
        objectives, _ = self._vectors(records, cache_dir, fields=("objective",))
        prepared = pipeline_records(records)
        rows = training_rows(
            prepared,
            created,
            queries,
            vectors,
            policy=SHIPPED_POLICY,
            model=model,
            objective_vectors=objectives,
        )
        budget = review_budget(scope)
        logits = np.array([r.logit for r in rows], dtype=np.float64)
        figures = queue_figures(rows, logits, queries, budgets=(budget,))
        background = background_rows(
            prepared,
            created,
            queries,
            vectors,
            size=background_size,
            policy=SHIPPED_POLICY,
            model=model,
            objective_vectors=objectives,
        )
        served = PlattMap(model.platt_a, model.platt_b)(
            [r.logit for r in (*rows, *background.rows)]
        )
        return {
            "model": model.digest,
            "modelVersion": model.version,
            "budget": budget,
            **figures,
            "calibration": population_calibration(served, rows, background),
        }

    def _variants(
        self, records: Sequence[TaskRecord], created: Any, queries: Any, cache_dir: str | None
    ) -> list[dict[str, Any]]:
        vectors = {
            name: self._vectors(records, cache_dir, fields=fields, chars=chars)[0]
            for name, (fields, chars) in EMBEDDING_INPUTS.items()
        }
        budget = review_budget("")
        return [
            evaluate_variant(
                v,
                records,
                created,
                queries,
                vectors[v.embedding],
                policy=SHIPPED_POLICY,
                budget=budget,
            )
            for v in VARIANTS
        ]

    def _vectors(
        self,
        records: Any,
        cache_dir: str | None,
        *,
        fields: tuple[str, ...] | None = None,
        chars: int | None = None,
    ) -> tuple[Any, str | None]:
        if chars is not None:
            records = [
                dataclasses.replace(r, deliverable=(r.deliverable or "")[:chars] or None)
                for r in records
            ]
        try:
            return record_vectors(records, cache_dir, fields=fields or INDEXABLE_FIELDS), None
        except EmbeddingUnavailableError as exc:
            return None, f"dense-retrieval-unavailable: {exc}"

    def _print(self, payload: Mapping[str, Any], *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(payload, indent=2, sort_keys=False))
            return
        self.stdout.write(
            f"{payload['dataset']}: {payload['queries']} duplicate queries, "
            f"policy {payload['policy']} (default {payload['default']})"
        )
        for method, figures in payload["methods"].items():
            cells = "  ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in figures.items()
            )
            self.stdout.write(f"  {method:<8} {cells}")
