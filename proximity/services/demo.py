"""A scripted demo airspace, built through the real services so the board fills as in use.

Agents report working sets (with diff excerpts) through ``working_set_report``; one scan then runs
with a dry-run merge conflict between two of them. The git-replay demo (real worktrees) will feed
the same services later; this is its static seed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from proximity.models import DependencyGraphSnapshot, Principal, ProximityScan, Repository
from proximity.services.scans import scan_run
from proximity.services.working_sets import WorkingSetReport, working_set_report

__all__ = ["DEMO_REPOSITORY", "DEMO_SCOPE", "DemoAgent", "demo_agents", "demo_airspace_seed"]

DEMO_REPOSITORY = "demo-shop"
DEMO_SCOPE = "demo"


@dataclass(frozen=True)
class DemoAgent:
    agent_id: str
    label: str
    files: list[dict[str, Any]]
    intent: list[str]


def _f(path: str, start: int, end: int, excerpt: str, **extra: Any) -> dict[str, Any]:
    return {
        "path": path,
        "lines": [[start, end]],
        "baseHunks": [[start, end - start + 1]],
        "excerpt": excerpt,
        **extra,
    }


def demo_agents() -> list[DemoAgent]:
    """Nine agents: an edit overlap, an import across folders, a rename, a conflict, clear ones."""
    charge = "src/payments/charge.py"
    return [
        DemoAgent(
            "checkout-rework",
            "Rework checkout totals and rounding",
            [
                _f(
                    charge,
                    40,
                    88,
                    "-    total = round(sub * rate, 2)\n+    total = money(sub).times(rate)",
                ),
                _f("src/payments/money.py", 1, 60, "+class Money:\n+    def times(self, r): ..."),
            ],
            [charge],
        ),
        DemoAgent(
            "refund-fix",
            "Fix partial refunds rounding",
            [_f(charge, 70, 95, "-    refund = total - paid\n+    refund = max(total - paid, 0)")],
            [charge, "src/payments/refunds.py"],
        ),
        DemoAgent(
            "search-api",
            "Add fuzzy matching to search API",
            [
                _f(
                    "src/search/index.py",
                    10,
                    48,
                    "+from src.payments.money import Money\n+def rank(q): ...",
                )
            ],
            ["src/search/index.py"],
        ),
        DemoAgent(
            "search-ranking",
            "Tune search ranking weights",
            [_f("src/search/ranking.py", 1, 40, "-W_TITLE = 2.0\n+W_TITLE = 3.5")],
            ["src/search/ranking.py", "src/search/index.py"],
        ),
        DemoAgent(
            "money-rename",
            "Rename money helpers module",
            [
                _f(
                    "src/payments/currency.py",
                    1,
                    60,
                    "rename money.py -> currency.py",
                    status="R",
                    oldPath="src/payments/money.py",
                )
            ],
            ["src/payments/currency.py"],
        ),
        DemoAgent(
            "cart-ui",
            "Cart page redesign",
            [
                _f(
                    "web/cart/Cart.tsx",
                    1,
                    120,
                    "-<Total value={t} />\n+<Total value={t} currency />",
                ),
                _f("web/cart/cart.css", 1, 30, "+.total { font-weight: 600 }"),
            ],
            ["web/cart/Cart.tsx"],
        ),
        DemoAgent(
            "cart-promo",
            "Promo banner on the cart page",
            [_f("web/cart/Cart.tsx", 100, 140, "+<PromoBanner code={promo} />")],
            ["web/cart/Cart.tsx"],
        ),
        DemoAgent(
            "docs-writer",
            "Document the deployment",
            [_f("docs/deploy.md", 1, 80, "+## Deploying with compose")],
            ["docs/deploy.md"],
        ),
        DemoAgent(
            "ci-tuning",
            "Speed up CI caching",
            [_f(".ci/cache.yml", 1, 20, "+cache: pip")],
            [".ci/cache.yml"],
        ),
    ]


# The import graph the watcher would read: search and the cart page import payments code.
DEMO_GRAPH = {
    "src/search/index.py": ["src/payments/money.py"],
    "web/cart/Cart.tsx": ["src/payments/charge.py"],
}


def _store_graph(repo: Repository) -> None:
    digest = hashlib.sha256(json.dumps(DEMO_GRAPH, sort_keys=True).encode()).hexdigest()
    DependencyGraphSnapshot.objects.get_or_create(
        repository=repo,
        content_hash=digest,
        defaults={"adjacency": DEMO_GRAPH, "file_count": len(DEMO_GRAPH), "edge_count": 2},
    )


def _report(principal: Principal, agent: DemoAgent, now: datetime) -> None:
    report = WorkingSetReport(
        DEMO_REPOSITORY,
        agent.agent_id,
        agent.files,
        agent.intent,
        label=agent.label,
        started_at=now - timedelta(minutes=20),
    )
    # Seeded by the operator, in process (principal None), as the watcher reports: the demo's
    # agents are bound to ``principal`` without it holding the right to create agents.
    working_set_report(principal=None, report=report, now=now, owner=principal)


def demo_airspace_seed(
    *, principal: Principal, now: datetime | None = None
) -> ProximityScan | None:
    """Create (or refresh) the demo repository's airspace and scan it once, synchronously."""
    now = now or timezone.now()
    repo, _ = Repository.objects.get_or_create(name=DEMO_REPOSITORY, defaults={"scope": DEMO_SCOPE})
    _store_graph(repo)
    for agent in demo_agents():
        _report(principal, agent, now)
    # The cart pair's branches already fail a dry-run merge: the board shows it as conflicting.
    conflicts = [{"a": "cart-promo", "b": "cart-ui", "files": ["web/cart/Cart.tsx"]}]
    return scan_run(repository_id=repo.pk, now=now, conflicts=conflicts)
