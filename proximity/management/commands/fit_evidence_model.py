"""``manage.py fit_evidence_model --gitbugs FOLDER [--labels] [--out FILE]``: fit the queue's model.

Development folders only: a holdout (seamonkey) is refused before a row is read. The training
rows are the shipped pipeline's own advisories on each duplicate query (``evidence_fit``); with
``--labels`` the stored blind adjudications join them. Prints the cross-validated figures; with
``--out`` writes the artefact the service loads (``fixtures/overlap_evidence_model.json``).
``--background N`` (default 300) samples N reports without an earlier duplicate whose candidates
calibrate the probability alongside the duplicates' (``evidence_fit.background_rows``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.overlap import SHIPPED_POLICY
from proximity.engine.overlap.evidence_fit import (
    background_rows,
    fit_evidence_model,
    training_rows,
)
from proximity.engine.overlap.policy import INDEXABLE_FIELDS
from proximity.lab.gitbugs import (
    GitBugsFormatError,
    duplicate_task_set,
    pipeline_records,
)
from proximity.management.commands.evaluate_overlap import HOLDOUT_DATASETS, record_vectors
from proximity.services.overlap_evidence import evidence_model
from proximity.sources.embedding import (
    EmbeddingUnavailableError,
)


class Command(BaseCommand):
    help = "Fit the review queue's evidence model on a development GitBugs folder."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--gitbugs", required=True, help="development folder (*_bugs.csv)")
        parser.add_argument("--model-version", required=True, help="version of the new model")
        parser.add_argument("--labels", action="store_true", help="add stored blind labels")
        parser.add_argument("--budget", type=int, default=3, help="queue budget to select for")
        parser.add_argument("--out", default=None, help="write the artefact to this file")
        parser.add_argument("--cache-dir", default=None, help="embedding cache folder")
        parser.add_argument(
            "--background",
            type=int,
            default=300,
            help="queries without a duplicate sampled to calibrate on (0: duplicates only)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = Path(options["gitbugs"]).resolve().name
        if name.lower() in HOLDOUT_DATASETS:
            raise CommandError(f"{name} is a holdout: no model may be fitted on it")
        if options["budget"] < 1:
            raise CommandError("--budget must be >= 1")
        if options["background"] < 0:
            raise CommandError("--background must be >= 0")
        try:
            loaded = duplicate_task_set(options["gitbugs"])
        except GitBugsFormatError as exc:
            raise CommandError(str(exc)) from exc
        dataset, created, queries = loaded.dataset, loaded.created, loaded.queries
        records = pipeline_records(loaded.records)
        graph: nx.Graph[str] = nx.Graph()
        graph.add_edges_from(dataset.pairs)
        groups = {m: g for g, c in enumerate(nx.connected_components(graph)) for m in c}
        try:
            vectors = record_vectors(records, options["cache_dir"], fields=INDEXABLE_FIELDS)
            objectives = record_vectors(records, options["cache_dir"], fields=("objective",))
        except EmbeddingUnavailableError as exc:
            raise CommandError(f"the dense ranker is needed to fit: {exc}") from exc
        prior = evidence_model()
        rows = training_rows(
            records,
            created,
            queries,
            vectors,
            policy=SHIPPED_POLICY,
            model=prior,
            groups=groups,
            objective_vectors=objectives,
        )
        data = f"GitBugs {dataset.name} ({len(queries)} duplicate queries)"
        background = background_rows(
            records,
            created,
            queries,
            vectors,
            size=options["background"],
            policy=SHIPPED_POLICY,
            model=prior,
            objective_vectors=objectives,
        )
        if options["labels"]:
            from proximity.services.evidence_training import adjudicated_rows

            labelled = adjudicated_rows()
            rows = (*rows, *labelled)
            data += f" and {len(labelled)} blind adjudications"
        try:
            fit = fit_evidence_model(
                rows,
                queries,
                prior=prior,
                version=options["model_version"],
                data=data,
                budget=options["budget"],
                background=background,
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        artefact = {
            **fit.model.as_dict(),
            "policy": SHIPPED_POLICY.digest,
            "fit": fit.report,
        }
        text = json.dumps(artefact, indent=2) + "\n"
        if options["out"]:
            Path(options["out"]).write_text(text, encoding="utf-8")
            self.stderr.write(f"wrote {options['out']} ({fit.model.digest})")
        self.stdout.write(text)
