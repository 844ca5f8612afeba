"""Issue 16 (1): a scan of older inputs, stored late, never overwrites a newer result.

Reproduced before the fix: a scan of newer inputs (a2 moved away) stored first and resolved the
Resolution Advisory; a scan of older inputs stored after it reopened it; the follow-up scan, of
the same inputs as the newer one, found its row done and changed nothing.

Two threads with their own connections run the production ``scan_run``. Each is held at a named
point (after reading its inputs, in the engine call; or after taking the repository lock, in the
first call ``_store`` makes) so that the two reads and the two stores happen in a chosen order,
and the second store is seen waiting on the first one's row lock in ``pg_stat_activity``.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from proximity.models import Agent, ProximityAdvisory, ProximityScan, Repository
from proximity.models import WorkingSetSnapshot as Snapshot
from proximity.selectors.airspace import latest_scan
from proximity.services import scans
from proximity.services.scans import scan_run
from tests.factories import file_entry, make_repository
from tests.reliability.locks import a_session_waits_on_a_lock, in_thread

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

LIVE = ("open", "acknowledged")


@pytest.fixture(autouse=True)
def _one_time_bucket(settings: Any) -> None:
    settings.OVERLAP_SCAN_RESCORE_SECONDS = 3600  # the follow-up reads the newer scan's inputs


class Gates:
    """Hold a named thread at a named point until released; the test sees when it got there."""

    def __init__(self) -> None:
        self.reached: dict[tuple[str, str], threading.Event] = {}
        self.release: dict[tuple[str, str], threading.Event] = {}

    def hold(self, thread: str, point: str) -> None:
        self.reached[thread, point] = threading.Event()
        self.release[thread, point] = threading.Event()

    def passing(self, point: str) -> None:
        key = (threading.current_thread().name, point)
        if key in self.reached:
            self.reached[key].set()
            assert self.release[key].wait(15), f"{key} was never released"

    def wait(self, thread: str, point: str) -> None:
        assert self.reached[thread, point].wait(15), f"{thread} never reached {point}"

    def open(self, thread: str, point: str) -> None:
        self.release[thread, point].set()

    def open_all(self) -> None:
        for event in self.release.values():
            event.set()


@pytest.fixture
def gates(monkeypatch: pytest.MonkeyPatch) -> Gates:
    gates = Gates()
    engine, apply = scans.scan, scans.advisories_apply_scan

    def engine_held(*args: Any, **kwargs: Any) -> Any:
        gates.passing("read")  # the inputs are read (and their order taken) before the engine
        return engine(*args, **kwargs)

    def apply_held(**kwargs: Any) -> Any:
        gates.passing("locked")  # _store calls this right after locking the repository row
        return apply(**kwargs)

    monkeypatch.setattr(scans, "scan", engine_held)
    monkeypatch.setattr(scans, "advisories_apply_scan", apply_held)
    return gates


def _report(agent: Agent, lines: list[list[int]]) -> None:
    now = timezone.now()
    version = agent.snapshots.count() + 1
    Snapshot.objects.create(
        agent=agent,
        version=version,
        files=[file_entry("src/app.py", lines)],
        content_hash=f"{agent.agent_id}-{version}",
        reported_at=now,
        expires_at=now + timedelta(hours=1),
    )


@pytest.fixture
def crossing() -> tuple[Repository, Agent]:
    """a1 and a2 on the same lines (a Resolution Advisory); returns the repository and a2."""
    repo = make_repository("web", scope="team-a")
    a1 = Agent.objects.create(repository=repo, agent_id="a1")
    a2 = Agent.objects.create(repository=repo, agent_id="a2")
    _report(a1, [[1, 40]])
    _report(a2, [[10, 20]])
    return repo, a2


def _scan_in_thread(name: str, repo: Repository, out: dict[str, Any]) -> threading.Thread:
    return in_thread(lambda: out.__setitem__(name, scan_run(repository_id=repo.pk)), name=name)


def _join(gates: Gates, *threads: threading.Thread) -> None:
    gates.open_all()
    for thread in threads:
        thread.join(15)
        assert not thread.is_alive()


def _assert_newer_inputs_win(repo: Repository, newer: ProximityScan) -> None:
    assert not ProximityAdvisory.objects.filter(repository=repo, state__in=LIVE).exists()
    assert ProximityAdvisory.objects.get(repository=repo).state == "resolved"
    assert latest_scan(repo) == newer
    # The follow-up scan reads the same inputs as the newer one: its shortcut is right.
    follow_up = scan_run(repository_id=repo.pk)
    assert follow_up is not None
    assert follow_up.pk == newer.pk
    assert not ProximityAdvisory.objects.filter(repository=repo, state__in=LIVE).exists()


@pytest.fixture
def advised(crossing: tuple[Repository, Agent]) -> tuple[Repository, Agent]:
    repo, _ = crossing
    scan_run(repository_id=repo.pk)
    assert ProximityAdvisory.objects.get(repository=repo).band == "resolution"
    return crossing


def test_older_inputs_stored_after_newer_ones_are_superseded(gates: Gates, advised) -> None:
    repo, a2 = advised
    _report(a2, [[1, 30]])  # the older inputs: still crossing a1
    gates.hold("older", "read")
    gates.hold("newer", "locked")
    out: dict[str, Any] = {}
    older = _scan_in_thread("older", repo, out)
    gates.wait("older", "read")
    _report(a2, [[300, 310]])  # a2 moves away: the newer inputs resolve the advisory
    newer = _scan_in_thread("newer", repo, out)
    try:
        gates.wait("newer", "locked")
        gates.open("older", "read")
        assert a_session_waits_on_a_lock(), "the older store never waited on the lock"
    finally:
        _join(gates, older, newer)
    assert out["newer"].status == "done"
    stale = ProximityScan.objects.get(pk=out["older"].pk)
    assert stale.status == "superseded"
    assert "superseded" in stale.error
    assert stale.input_order < out["newer"].input_order
    _assert_newer_inputs_win(repo, out["newer"])


def test_newer_inputs_stored_after_older_ones_are_applied(gates: Gates, advised) -> None:
    repo, a2 = advised
    _report(a2, [[1, 30]])
    gates.hold("older", "read")
    gates.hold("older", "locked")
    gates.hold("newer", "read")
    out: dict[str, Any] = {}
    older = _scan_in_thread("older", repo, out)
    gates.wait("older", "read")
    _report(a2, [[300, 310]])
    newer = _scan_in_thread("newer", repo, out)
    try:
        gates.wait("newer", "read")
        gates.open("older", "read")
        gates.wait("older", "locked")
        gates.open("newer", "read")
        assert a_session_waits_on_a_lock(), "the newer store never waited on the lock"
        gates.open("older", "locked")
    finally:
        _join(gates, older, newer)
    assert [out[n].status for n in ("older", "newer")] == ["done", "done"]
    _assert_newer_inputs_win(repo, ProximityScan.objects.get(pk=out["newer"].pk))
