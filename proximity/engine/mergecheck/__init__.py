"""Speculative merge checks: what breaks when two clean-merging changes meet.

Pure: trees as ``{path: source text}`` in, problems out. A static build check for Python
(byte-compile, in-tree imports and names, module attributes, global names) and Django's
migration-leaf rule, run on each side and on the merge; :func:`merge_only` keeps what only
the merge has. Building the merged tree (``git merge-tree``) lives in
``proximity.sources.git.mergecheck``.
"""

from __future__ import annotations

from proximity.engine.mergecheck.build import compile_error, static_problems
from proximity.engine.mergecheck.merge import (
    MergeCheckResult,
    merge_check,
    merge_only,
    tree_problems,
)
from proximity.engine.mergecheck.migrations import migration_problems
from proximity.engine.mergecheck.model import (
    KINDS,
    MERGECHECK_VERSION,
    Problem,
    problems_json,
    trim,
)
from proximity.engine.mergecheck.names import ModuleFacts, module_facts

__all__ = [
    "KINDS",
    "MERGECHECK_VERSION",
    "MergeCheckResult",
    "ModuleFacts",
    "Problem",
    "compile_error",
    "merge_check",
    "merge_only",
    "migration_problems",
    "module_facts",
    "problems_json",
    "static_problems",
    "tree_problems",
    "trim",
]
