"""The scan service with the symbol channel: watched worktrees to stored advisories.

A repository on ``radar-v1-symbols`` gets its agents' symbol data read from its worktrees at
scan time, stored with the advisory (``detail.symbols``) and keyed into the scan's input hash;
one on ``radar-v1`` is scanned exactly as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.models import ProximityAdvisory, ProximityScan, Repository
from proximity.services.scans import scan_run
from proximity.services.watch import repository_watch_tick
from proximity.sources.symbols import clear_index_cache
from tests.sources.gitrepo import ScriptedRepo
from tests.sources.test_symbols_worktrees import CART

pytestmark = pytest.mark.django_db


@pytest.fixture
def scripted(tmp_path: Path) -> ScriptedRepo:
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("shop/__init__.py", "")
    repo.write("shop/cart.py", CART)
    repo.commit("base")
    for name in ("alpha", "beta"):
        repo.add_worktree(name)
    repo.write(
        "shop/cart.py",
        CART.replace('{"count": len(self.items)}', "len(self.items), 0"),
        worktree="alpha",
    )
    repo.write(
        "shop/cart.py",
        CART.replace('return "a cart"', 'return self.summary()["count"]'),
        worktree="beta",
    )
    return repo


def _watched(scripted: ScriptedRepo, profile: str) -> Repository:
    return Repository.objects.create(
        name=f"shop-{profile}", scope="team-a", path=str(scripted.root), watch=True, profile=profile
    )


def test_a_symbol_profile_stores_the_advisory_with_its_evidence(scripted: ScriptedRepo) -> None:
    repo = _watched(scripted, "radar-v1-symbols")
    repository_watch_tick(repository_id=repo.pk)
    row = scan_run(repository_id=repo.pk)
    assert row is not None
    assert row.status == ProximityScan.Status.DONE
    advisory = ProximityAdvisory.objects.get(
        repository=repo, agent_a__agent_id="alpha", agent_b__agent_id="beta"
    )
    assert advisory.band == "traffic"
    assert advisory.channels["symbol"] == pytest.approx(0.6)
    (top, *_) = advisory.detail["symbols"]
    assert top["reason"] == "returns"
    assert top["a"]["symbol"] == "shop/cart.py::Cart.summary"
    assert top["b"]["path"] == "shop/cart.py"
    assert top["b"]["lines"] == [6, 6]
    assert advisory.calibrated_probability is None  # no map is fitted to this profile
    # the main checkout is the mainline, not an agent (the watcher reports only the branches)
    assert set(row.result["symbols"]["agents"]) == {"alpha", "beta"}


def test_the_same_worktrees_on_radar_v1_raise_nothing_and_read_no_symbols(
    scripted: ScriptedRepo,
) -> None:
    repo = _watched(scripted, "radar-v1")
    repository_watch_tick(repository_id=repo.pk)
    row = scan_run(repository_id=repo.pk)
    assert row is not None
    assert row.status == ProximityScan.Status.DONE
    assert not ProximityAdvisory.objects.filter(repository=repo).exists()
    assert "symbols" not in row.result


def test_symbol_input_joins_the_scan_key(scripted: ScriptedRepo) -> None:
    repo = _watched(scripted, "radar-v1-symbols")
    repository_watch_tick(repository_id=repo.pk)
    first = scan_run(repository_id=repo.pk)
    # beta reverts in its worktree after the snapshot was stored: the symbol input differs,
    # so the next scan of the same stored snapshots is a new row, not the cached result
    scripted.write("shop/cart.py", CART, worktree="beta")
    Repository.objects.filter(pk=repo.pk).update(scan_requested_at=first.requested_at)  # type: ignore[union-attr]
    second = scan_run(repository_id=repo.pk)
    assert first is not None
    assert second is not None
    assert first.input_hash != second.input_hash
