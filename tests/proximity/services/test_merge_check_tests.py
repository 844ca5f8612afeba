"""Item 4(c): the merge checks run the repository's own tests on the merge and on each side.

Alpha changes what ``price`` returns (cents to euros) and updates the pricing test; beta adds
an invoice line that formats ``price`` in cents, with its test. Each side's tests pass alone,
the clean merge fails beta's new test: a test conflict no static check sees (every name
resolves). A test failing on both sides alone is no conflict; a test that sees only one
side's change is not run. Everything runs in scratch folders: the agents' worktrees, index,
refs and objects are left as they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from proximity.agent.config import Policy
from proximity.agent.decide import decide
from proximity.api.presenters import advisory_out
from proximity.engine.findings import CheckResult
from proximity.engine.merge_notes import tests_note as card_line
from proximity.models import MergeCheck, ProximityAdvisory, Repository
from proximity.selectors.airspace import latest_scan
from proximity.services.merge_checks import (
    EMBEDDED,
    TESTS_SUFFIX,
    check_version,
    current_trees,
    merge_check_run,
    merge_checks_plan,
)
from proximity.services.watch import repository_watch_tick
from proximity.sources.symbols import clear_index_cache
from tests.proximity.services.test_merge_checks import scan_now as _scan
from tests.sources.gitrepo import ScriptedRepo, repo_state

pytestmark = pytest.mark.django_db

PRICING = "def price(amount):\n    return amount * 100\n"
INVOICE = "from app.pricing import price\n\n\ndef line(amount):\n    return f'{price(amount)}'\n"
PRICING_TEST = "from app.pricing import price\n\n\ndef test_price():\n    assert price(2) == 200\n"
KNOWN = "import app.invoice\n\n\ndef test_known_failure():\n    assert False, 'fails everywhere'\n"
LINE_TEST = (
    "from app.invoice import line\n\n\n"
    "def test_line_in_cents():\n    assert line(2) == '200 cents'\n\n\n"
    "def test_line_is_text():\n    assert isinstance(line(2), str)\n"
)


def scripted_shop(tmp_path: Path) -> ScriptedRepo:
    """The repository of the module docstring, with worktrees alpha and beta."""
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    repo.write("app/__init__.py", "")
    repo.write("app/pricing.py", PRICING)
    repo.write("app/invoice.py", INVOICE)
    repo.write("tests/test_pricing.py", PRICING_TEST)
    repo.write("tests/test_known.py", KNOWN)
    repo.commit("base")
    for name in ("alpha", "beta"):
        repo.add_worktree(name)
    repo.write("app/pricing.py", PRICING.replace("amount * 100", "amount"), worktree="alpha")
    repo.write("tests/test_pricing.py", PRICING_TEST.replace("200", "2"), worktree="alpha")
    repo.write(
        "app/invoice.py", INVOICE.replace("f'{price(amount)}'", "f'{price(amount)} cents'"),
        worktree="beta",
    )  # fmt: skip
    repo.write("tests/test_invoice.py", LINE_TEST, worktree="beta")
    return repo


@pytest.fixture
def scripted(tmp_path: Path) -> ScriptedRepo:
    return scripted_shop(tmp_path)


def _repository(scripted: ScriptedRepo) -> Repository:
    repo = Repository.objects.create(
        name="shop",
        scope="team-a",
        path=str(scripted.root),
        watch=True,
        profile="radar-v1-symbols",
        merge_checks=True,
        merge_check_tests=True,
    )
    repository_watch_tick(repository_id=repo.pk)
    return repo


def _checked(repo: Repository) -> MergeCheck:
    _scan(repo)
    check = MergeCheck.objects.get(repository=repo)
    row = merge_check_run(check_id=check.pk)
    assert row is not None
    assert row.status == "done", row.error
    return row


def test_a_test_broken_only_by_the_merge_is_a_test_conflict(scripted: ScriptedRepo) -> None:
    repo = _repository(scripted)
    before = repo_state(scripted)
    row = _checked(repo)
    assert row.version.endswith(TESTS_SUFFIX)
    assert row.outcome == "problems"
    assert [(p["kind"], p["path"], p["name"]) for p in row.problems] == [
        ("test-conflict", "tests/test_invoice.py", "tests/test_invoice.py::test_line_in_cents")
    ]  # not the known failure, not the test that still passes, no static problem
    message = row.problems[0]["message"]
    assert message.startswith("test_line_in_cents passes on its side and failed on the merge")
    assert "2 cents" in message  # pytest's own assertion output, trimmed
    tests = row.counts["tests"]
    assert tests["state"] == "conflicts"
    # test_pricing.py sees alpha's change only: it cannot be broken by the two meeting
    assert tests["selected"] == ["tests/test_invoice.py", "tests/test_known.py"]
    assert set(tests["seconds"]) == {"merged", "a", "b", "total"}
    assert tests["flaky"] == 0
    assert repo_state(scripted) == before  # nothing of the agents' written

    _scan(repo)
    advisory = ProximityAdvisory.objects.get(repository=repo)
    assert advisory.channels["merge-check"] == 1.0
    assert advisory.band == ProximityAdvisory.Band.RESOLUTION
    shown = advisory_out(advisory).merge_check
    assert shown.state == "checked"
    assert shown.problems[0]["kind"] == "test-conflict"
    assert shown.tests is not None
    assert shown.tests["state"] == "conflicts"
    assert advisory.detail["mergeCheck"]["tests"]["state"] == "conflicts"
    reason = _hook_reason(advisory.detail["mergeCheck"], advisory.risk, advisory.channels)
    assert "Merge check: merging the two changes breaks what neither breaks alone:" in reason
    assert '"tests/test_invoice.py": "test_line_in_cents passes on its side and failed' in reason
    assert "Merge check, repository tests: 1 test conflict(s)." in reason


def _hook_reason(check: dict[str, Any], risk: float, channels: dict[str, float]) -> str:
    """What the pre-edit hook would say to beta about a finding with this merge check."""
    finding = {
        "other": "alpha", "level": "resolution", "risk": risk,
        "channels": channels, "paths": ["app/pricing.py"], "mergeCheck": check,
    }  # fmt: skip
    result = CheckResult.from_json({"agent": "beta", "repository": "shop", "findings": [finding]})
    return decide(result, Policy()).text


def test_when_the_merge_passes_the_sides_are_not_run(scripted: ScriptedRepo) -> None:
    fixed = LINE_TEST.replace("'200 cents'", "'2 cents'")
    scripted.write("tests/test_invoice.py", fixed, worktree="beta")
    scripted.write("tests/test_known.py", KNOWN.replace("False", "True"), worktree="beta")
    row = _checked(_repository(scripted))
    assert (row.outcome, row.problems) == ("clean", [])
    tests = row.counts["tests"]
    assert tests["state"] == "clean"
    assert set(tests["seconds"]) == {"merged", "total"}


def test_a_static_only_check_is_stored_apart_from_a_tested_one(scripted: ScriptedRepo) -> None:
    repo = _repository(scripted)
    Repository.objects.filter(pk=repo.pk).update(merge_check_tests=False)
    repo.refresh_from_db()
    row = _checked(repo)
    assert not row.version.endswith(TESTS_SUFFIX)
    assert (row.outcome, "tests" in row.counts) == ("clean", False)
    Repository.objects.filter(pk=repo.pk).update(merge_check_tests=True)
    repo.refresh_from_db()
    plan = merge_checks_plan(repository=repo)  # the static result answers another question
    assert (len(plan.queued), plan.reused) == (1, 0)
    assert MergeCheck.objects.filter(repository=repo).count() == 2


@override_settings(OVERLAP_MERGE_CHECK_TEST_TIMEOUT=2)
def test_a_run_over_its_time_is_unknown_never_clean(scripted: ScriptedRepo) -> None:
    slow = "import time\nimport app.invoice\nimport app.pricing\n\n\ndef test_slow():\n"
    slow += "    time.sleep(30)\n"
    scripted.write("tests/test_slow.py", slow, worktree="beta")
    repo = _repository(scripted)
    row = _checked(repo)
    tests = row.counts["tests"]
    assert tests["state"] == "timeout"
    assert tests["reason"] == "merge: over 2 s"
    assert tests["seconds"]["merged"] == 2
    _scan(repo)
    scan = latest_scan(repo)
    assert scan is not None
    [link] = [x for x in scan.result["links"] if {x["a"], x["b"]} == {"alpha", "beta"}]
    assert link["mergeCheck"]["tests"]["state"] == "timeout"
    said = _hook_reason(link["mergeCheck"], link["risk"], link["channels"])
    assert "repository tests not run to the end (timeout: merge: over 2 s)" in said


@override_settings(CELERY_TASK_ALWAYS_EAGER=True)
def test_embedded_mode_never_runs_tests_and_says_so(scripted: ScriptedRepo) -> None:
    """Issue 30, point 4: with eager tasks (no REDIS_URL) a check would run inside whatever
    enqueued it, a web request included: the check is static, and says the tests did not run."""
    repo = _repository(scripted)
    row = _checked(repo)
    assert not row.version.endswith(TESTS_SUFFIX)
    assert "tests" not in row.counts
    _scan(repo)
    scan = latest_scan(repo)
    assert scan is not None
    [link] = [x for x in scan.result["links"] if {x["a"], x["b"]} == {"alpha", "beta"}]
    assert link["mergeCheck"]["tests"] == {"state": "not run", "reason": EMBEDDED}
    said = _hook_reason(link["mergeCheck"], link["risk"], link["channels"])
    assert f"repository tests did not run ({EMBEDDED})" in said


def _check_current(repo: Repository) -> MergeCheck:
    """Store the check of alpha's and beta's current trees and run it here."""
    trees = current_trees(repo)
    a, b = sorted(("alpha", "beta"), key=lambda x: trees[x])
    check = MergeCheck.objects.create(
        repository=repo, tree_a=trees[a], tree_b=trees[b], version=check_version(repo),
        agent_a=a, agent_b=b, requested_at="2026-12-01T00:00:00Z",
    )  # fmt: skip
    row = merge_check_run(check_id=check.pk)
    assert row is not None
    assert row.status == "done", row.error
    return row


def test_a_dependency_the_environment_lacks_says_could_not_start_on_card_and_hook(
    scripted: ScriptedRepo,
) -> None:
    """Issue 30, point 3: beta's new test needs a package no environment of the repository
    has; the check's test part is "could not start", which the card and the hook both say."""
    needs = "import yaml_probe_for_radar\n" + LINE_TEST
    scripted.write("tests/test_invoice.py", needs, worktree="beta")
    repo = _repository(scripted)
    row = _check_current(repo)
    tests = row.counts["tests"]
    assert tests["state"] == "error"
    assert tests["reason"].startswith(
        "merge: could not start: tests/test_invoice.py needs 'yaml_probe_for_radar', not "
        "installed in a plain "
    )
    _scan(repo)
    scan = latest_scan(repo)
    assert scan is not None
    [link] = [x for x in scan.result["links"] if {x["a"], x["b"]} == {"alpha", "beta"}]
    shown = link["mergeCheck"]["tests"]
    card = card_line(shown)  # the kanban card's line
    assert card.startswith("repository tests did not run (merge: could not start: ")
    said = _hook_reason(link["mergeCheck"], link["risk"], link["channels"])
    assert card in said
    assert "clean" not in card


JS_PRICING = "export function price(amount) {\n  return amount * 100;\n}\n"
JS_INVOICE = (
    "import { price } from './pricing.mjs';\n\n"
    "export function line(amount) {\n  return `${price(amount)}`;\n}\n"
)
JS_LINE_TEST = (
    "import test from 'node:test';\nimport assert from 'node:assert';\n"
    "import { line } from '../lib/invoice.mjs';\n\n"
    "test('line in cents', () => {\n  assert.strictEqual(line(2), '200 cents');\n});\n"
)


def test_a_javascript_test_broken_only_by_the_merge_is_a_test_conflict(tmp_path: Path) -> None:
    """The shop of the module docstring in JavaScript, with node's own test runner."""
    repo = ScriptedRepo.create(tmp_path)
    repo.write("package.json", '{"type": "module", "scripts": {"test": "node --test"}}\n')
    repo.write("lib/pricing.mjs", JS_PRICING)
    repo.write("lib/invoice.mjs", JS_INVOICE)
    repo.commit("base")
    for name in ("alpha", "beta"):
        repo.add_worktree(name)
    repo.write("lib/pricing.mjs", JS_PRICING.replace("amount * 100", "amount"), worktree="alpha")
    invoice = JS_INVOICE.replace("`${price(amount)}`", "`${price(amount)} cents`")
    repo.write("lib/invoice.mjs", invoice, worktree="beta")
    repo.write("test/invoice.test.mjs", JS_LINE_TEST, worktree="beta")
    row = _check_current(
        Repository.objects.create(
            name="jsshop", scope="team-a", path=str(repo.root), merge_checks=True,
            merge_check_tests=True,
        )
    )  # fmt: skip
    tests = row.counts["tests"]
    assert tests["selected"] == ["test/invoice.test.mjs"]
    assert tests["state"] == "conflicts", tests
    assert [(p["kind"], p["name"]) for p in row.problems] == [
        ("test-conflict", "test/invoice.test.mjs::line in cents")
    ]
    assert "+ '2 cents'" in row.problems[0]["message"]  # node's own assertion output
