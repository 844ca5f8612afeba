"""Read a whole repository into the airspace engine's input: agents, graph and conflicts.

The one place that puts the readers together, for the ``radar`` command and the service layer:
working sets of every worktree, the union of the worktrees' import graphs, and the dry-run
merge conflicts as ``options.conflicts``.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proximity.engine.imports import ImportGraph, ParsedImports
from proximity.sources.git.dryrun import DryRun, dry_run_conflicts
from proximity.sources.git.workingset import WorkingSet, read_working_sets
from proximity.sources.imports.graph import build_import_graph, merge_graphs

__all__ = ["RepoAirspace", "read_repository_airspace"]


@dataclass(frozen=True)
class RepoAirspace:
    """Everything read from one repository; ``problems`` lists each reader's complaints."""

    working_sets: tuple[WorkingSet, ...]
    graph: ImportGraph | None
    dry_run: DryRun | None

    @property
    def problems(self) -> tuple[str, ...]:
        out = [e for ws in self.working_sets for e in ws.errors]
        if self.dry_run is not None:
            out += [e for e in self.dry_run.errors if e not in out]
        return tuple(out)

    @property
    def warnings(self) -> tuple[str, ...]:
        graph_errors = self.graph.errors if self.graph is not None else ()
        return tuple(w for ws in self.working_sets for w in ws.warnings) + tuple(graph_errors)

    def agents(self) -> list[dict[str, Any]]:
        """Readable worktrees as engine agents (a worktree that could not be read is left out)."""
        return [ws.to_agent_json() for ws in self.working_sets if ws.merge_base is not None]

    def to_airspace(self, **options: Any) -> dict[str, Any]:
        """The engine's input ``{"agents", "graph", "options"}``; ``options`` are passed on."""
        opts = dict(options)
        if self.dry_run is not None:
            opts["conflicts"] = self.dry_run.to_options()
        graph = self.graph.to_json() if self.graph is not None else {"adjacency": {}}
        return {"agents": self.agents(), "graph": graph, "options": opts}


def _graph(
    sets: tuple[WorkingSet, ...], cache: MutableMapping[str, ParsedImports] | None
) -> ImportGraph:
    """Union of every readable worktree's graph; the shared cache makes repeats cheap."""
    shared: MutableMapping[str, ParsedImports] = {} if cache is None else cache
    roots = [ws.path for ws in sets if ws.merge_base is not None and Path(ws.path).is_dir()]
    # Sequential on purpose: the cache mapping may not be thread-safe. Each build gets the
    # previous worktree's graph: with the same paths and configs, its resolver and the edges
    # of identical blobs are valid here too (resolution depends on nothing else).
    graphs: list[ImportGraph] = []
    for root in roots:
        graphs.append(
            build_import_graph(root, cache=shared, previous=graphs[-1] if graphs else None)
        )
    return merge_graphs(graphs)


def read_repository_airspace(
    repo: str | Path,
    *,
    base: str = "main",
    graph: bool = True,
    conflicts: bool = True,
    cache: MutableMapping[str, ParsedImports] | None = None,
    ignore: Sequence[str] = (),
) -> RepoAirspace:
    """Read every worktree of ``repo``; ``graph``/``conflicts`` switch the slower readers off.

    Raises :class:`~proximity.sources.git.GitError` only if ``repo`` is not a git repository.
    """
    sets = read_working_sets(repo, base=base, ignore=ignore)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # the dry run (git processes) overlaps with graph parsing (Python)
        dry = pool.submit(dry_run_conflicts, sets) if conflicts else None
        built = _graph(sets, cache) if graph else None
        return RepoAirspace(sets, built, dry.result() if dry is not None else None)
