"""Report-to-advisory latency through the real stack: 50 agents report over HTTP to gunicorn,
Celery workers scan over Redis, advisories land in PostgreSQL.

Run: ``.venv/bin/python -m tests.servers .venv/bin/python -m bench.pipeline [--agents 50]
[--rounds 6] [--interval 2]``. The latency of a report is the time from the stored snapshot to
the end of the first scan that included it (both server timestamps); the baseline is the same
load with the debounce at 2 s, measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from bench.stack import bench_env, percentile, running_stack, setup_django


def _seed(agents: int) -> str:
    from proximity.models import Repository
    from proximity.services.tokens import principal_create, token_issue

    Repository.objects.all().delete()
    Repository.objects.create(name="bench", scope="bench")
    from proximity.models import Principal

    Principal.objects.filter(name="bench-agents").delete()
    principal = principal_create(name="bench-agents", kind="agent", scopes=["bench"], clearances=[])
    return token_issue(principal=principal)[0]


def _body(agent: int, round_no: int) -> dict:
    pair = agent // 2
    start = 1 + (agent % 2) * 5 + round_no
    return {
        "repository": "bench",
        "agentId": f"agent-{agent:03d}",
        "files": [
            {
                "path": f"pkg{pair % 7}/mod{pair}.py",
                "lines": [[start, start + 9]],
                "baseHunks": [[start, 10]],
            },
            {"path": f"pkg{pair % 7}/shared_{agent}.py"},
        ],
    }


def _drive(url: str, token: str, agents: int, rounds: int, interval: float) -> tuple[int, float]:
    sessions = [requests.Session() for _ in range(agents)]
    for s in sessions:
        s.headers["Authorization"] = f"Bearer {token}"
    errors = 0
    lock = threading.Lock()

    def report(agent: int, round_no: int) -> None:
        nonlocal errors
        r = sessions[agent].post(f"{url}/api/working-sets", json=_body(agent, round_no), timeout=30)
        if r.status_code != 201:
            with lock:
                errors += 1

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=16) as pool:
        for round_no in range(rounds):
            tick = time.monotonic()
            list(pool.map(lambda a, r=round_no: report(a, r), range(agents)))
            time.sleep(max(0.0, interval - (time.monotonic() - tick)))
    return errors, agents * rounds / (time.monotonic() - started)


def _latencies(wait_s: float = 60.0) -> list[float]:
    """Per report: time until the first finished scan that saw it or a newer version of it."""
    from proximity.models import ProximityScan, Repository, WorkingSetSnapshot

    deadline = time.monotonic() + wait_s
    while Repository.objects.filter(scan_requested_at__isnull=False).exists():
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    snaps = {
        pk: (agent, v, t)
        for pk, agent, v, t in WorkingSetSnapshot.objects.values_list(
            "pk", "agent_id", "version", "reported_at"
        )
    }
    scans = sorted(
        ProximityScan.objects.filter(status="done").values_list("finished_at", "snapshot_ids")
    )
    out = []
    for agent, version, reported in snaps.values():
        for finished, ids in scans:
            seen = [snaps[i] for i in ids if i in snaps and snaps[i][0] == agent]
            if finished >= reported and seen and seen[0][1] >= version:
                out.append((finished - reported).total_seconds())
                break
    return out


def measure(debounce: float, args: argparse.Namespace) -> dict[str, float]:
    env = bench_env(OVERLAP_SCAN_DEBOUNCE_SECONDS=str(debounce))
    setup_django(env)
    token = _seed(args.agents)
    from proximity.models import WorkingSetSnapshot

    with running_stack(env, celery_procs=args.workers) as stack:
        errors, rate = _drive(stack.url, token, args.agents, args.rounds, args.interval)
        lat = _latencies()
    snapshots = WorkingSetSnapshot.objects.count()
    return {
        "debounce": debounce,
        "errors": errors,
        "reports_per_s": rate,
        "snapshots": snapshots,
        "scanned": len(lat),
        "median": statistics.median(lat) if lat else float("nan"),
        "p95": percentile(lat, 0.95),
        "max": max(lat) if lat else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--debounce", type=float, default=0.3)
    args = parser.parse_args()
    rows = [measure(args.debounce, args), measure(2.0, args)]
    print(
        f"{'debounce':>8} {'errors':>6} {'reports/s':>9} {'snapshots':>9} {'scanned':>7} "
        f"{'median s':>8} {'p95 s':>7} {'max s':>7}"
    )
    for r in rows:
        print(
            f"{r['debounce']:>8.1f} {r['errors']:>6d} {r['reports_per_s']:>9.1f} "
            f"{r['snapshots']:>9d} {r['scanned']:>7d} {r['median']:>8.3f} {r['p95']:>7.3f} "
            f"{r['max']:>7.3f}"
        )
    ratio = rows[0]["median"] / rows[1]["median"]
    print(f"median ratio (shipped debounce / 2 s baseline): {ratio:.2f}")


if __name__ == "__main__":
    main()
