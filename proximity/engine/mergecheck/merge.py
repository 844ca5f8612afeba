"""Problems of a merge that neither side has alone, and one whole check of a pair of trees."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from proximity.engine.mergecheck.build import Cache, static_problems
from proximity.engine.mergecheck.migrations import migration_problems
from proximity.engine.mergecheck.model import Problem

__all__ = ["MergeCheckResult", "merge_check", "merge_only", "tree_problems"]


def merge_only(
    problems_merged: Iterable[Problem],
    problems_a: Iterable[Problem],
    problems_b: Iterable[Problem],
) -> list[Problem]:
    """The merged tree's problems whose key ``(kind, path, name)`` neither side has.

    Keyed without the line, so a problem one side already had, moved by the other side's
    insertions above it, is not new; sorted by key.
    """
    known = {p.key for p in problems_a} | {p.key for p in problems_b}
    seen: set[tuple[str, str, str]] = set()
    out = []
    for p in sorted(problems_merged, key=lambda p: (p.key, p.line or 0)):
        if p.key not in known and p.key not in seen:
            seen.add(p.key)
            out.append(p)
    return out


def tree_problems(
    files: Mapping[str, str],
    *,
    cache: Cache | None = None,
    compile_paths: Iterable[str] | None = None,
    others: Iterable[str] = (),
    conditional_imports_open: bool = True,
) -> list[Problem]:
    """Every check on one tree: the static build check and Django migration leaves."""
    found = static_problems(
        files,
        cache=cache,
        compile_paths=compile_paths,
        others=others,
        conditional_imports_open=conditional_imports_open,
    )
    return found + migration_problems(files)


@dataclass(frozen=True, slots=True)
class MergeCheckResult:
    """The merge-only problems, and how many each tree had (for the record)."""

    problems: tuple[Problem, ...]
    counts: Mapping[str, int]

    def joined(self, problems: Iterable[Problem], counts: Mapping[str, int]) -> MergeCheckResult:
        """This result with another language's merge-only problems (counts prefixed ``js:``)."""
        found = sorted((*self.problems, *problems), key=lambda p: (p.key, p.line or 0))
        extra = {f"js:{k}": v for k, v in counts.items()}
        return MergeCheckResult(tuple(found), {**self.counts, **extra})


def merge_check(
    side_a: Mapping[str, str],
    side_b: Mapping[str, str],
    merged: Mapping[str, str],
    *,
    others: Mapping[str, Iterable[str]] | None = None,
    cache: Cache | None = None,
    conditional_imports_open: bool = True,
) -> MergeCheckResult:
    """Check three trees (``{path: text}`` each) and keep the merge's own problems.

    Only files whose merged text differs from both sides' are byte-compiled, in all three
    trees: a file equal to one side's compiles exactly as it does there. ``others`` maps
    ``"a"``, ``"b"``, ``"merged"`` to each tree's non-Python paths (compiled modules).
    """
    cache = {} if cache is None else cache
    fresh = [p for p, t in merged.items() if side_a.get(p) != t and side_b.get(p) != t]
    trees = {"a": side_a, "b": side_b, "merged": merged}
    found = {
        name: tree_problems(
            files,
            cache=cache,
            compile_paths=fresh,
            others=(others or {}).get(name, ()),
            conditional_imports_open=conditional_imports_open,
        )
        for name, files in trees.items()
    }
    only = merge_only(found["merged"], found["a"], found["b"])
    return MergeCheckResult(tuple(only), {k: len(v) for k, v in found.items()})
