"""The beat enqueues no second watch tick of a repository while one is queued or running."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from proximity.models import Repository
from proximity.services.watch import watch_claim, watch_release
from proximity.tasks import watch_repositories
from tests.sources.gitrepo import build_scenario

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def watched(tmp_path) -> Repository:
    scripted = build_scenario(tmp_path)
    return Repository.objects.create(
        name="scene", scope="team-a", path=str(scripted.root), base_branch="main", watch=True
    )


def test_a_claimed_repository_is_not_enqueued_again_until_released(watched) -> None:
    now = timezone.now()
    assert watch_claim(repository_id=watched.pk, now=now) is True
    assert watch_claim(repository_id=watched.pk, now=now) is False
    assert watch_repositories.apply().get() == 0  # the beat skips it: a tick is in flight
    watch_release(repository_id=watched.pk)
    assert watch_claim(repository_id=watched.pk, now=now) is True


def test_a_dead_workers_claim_expires_after_the_visibility_timeout(watched) -> None:
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    then = timezone.now() - timedelta(seconds=timeout + 1)
    assert watch_claim(repository_id=watched.pk, now=then) is True
    assert watch_claim(repository_id=watched.pk, now=timezone.now()) is True


def test_a_tick_run_in_process_releases_its_claim(watched, in_process_tasks) -> None:
    assert watch_repositories.apply().get() == 1
    watched.refresh_from_db()
    assert watched.watch_claimed_at is None
    assert watched.agents.exists()  # the tick really read the worktrees
