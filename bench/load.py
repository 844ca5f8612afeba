"""Sustained load through the real stack: simulated agents report, board readers poll.

Default run, as issue 9 asks: 200 agents each reporting every 5 s for 5 minutes plus 20 board
readers, through gunicorn (several workers) and Celery (two worker processes) over PostgreSQL
and Redis, loopback only. Every agent has its own token, so the per-token rate limit is the one
shipped. Run it through the throwaway servers:

    .venv/bin/python -m tests.servers .venv/bin/python -m bench.load [--minutes 5]

Reported: report throughput; p50/p95/p99 of report latency (HTTP round trip), of report-to-
advisory (stored snapshot to the end of the first scan that included it, both server
timestamps) and of board reads; Celery queue length sampled every second (``LLEN`` of each
queue in Redis); errors by status. A JSON copy goes to ``var/load-<timestamp>.json``.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests

from bench.stack import ROOT, bench_env, percentile, running_stack, setup_django

QUEUES = ("default", "scans", "overlap")


@dataclass
class Tally:
    report_s: list[float] = field(default_factory=list)
    read_s: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    read_statuses: Counter[int] = field(default_factory=Counter)
    queue: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _seed(agents: int, repos: int) -> tuple[list[str], str]:
    from proximity.models import Principal, Repository
    from proximity.services.tokens import principal_create, token_issue

    Repository.objects.all().delete()
    Principal.objects.filter(name__startswith="load-").delete()
    for r in range(repos):
        Repository.objects.create(name=f"load-{r}", scope="load")
    tokens = []
    for a in range(agents):
        p = principal_create(
            name=f"load-agent-{a:03d}", kind="agent", scopes=["load"], clearances=[]
        )
        tokens.append(token_issue(principal=p)[0])
    reader = principal_create(name="load-reader", scopes=["load"], clearances=[])
    return tokens, token_issue(principal=reader)[0]


def _body(agent: int, round_no: int, repos: int) -> dict[str, Any]:
    """Pairs of agents edit neighbouring lines of one module and drift a little every round."""
    pair, side = divmod(agent, 2)
    start = 1 + side * 6 + (round_no % 5)
    return {
        "repository": f"load-{agent % repos}",
        "agentId": f"agent-{agent:03d}",
        "files": [
            {
                "path": f"pkg{pair % 9}/mod{pair}.py",
                "lines": [[start, start + 9]],
                "baseHunks": [[start, 10]],
            },
            {"path": f"pkg{pair % 9}/own_{agent}.py", "lines": [[1, 5 + round_no % 3]]},
        ],
    }


def _agent(url: str, token: str, n: int, args: argparse.Namespace, stop: float, t: Tally) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    next_at = time.monotonic() + args.interval * n / args.agents  # spread the first reports
    round_no = 0
    while next_at < stop:
        time.sleep(max(0.0, next_at - time.monotonic()))
        began = time.monotonic()
        try:
            code = session.post(
                f"{url}/api/working-sets", json=_body(n, round_no, args.repos), timeout=30
            ).status_code
        except requests.RequestException:
            code = 0
        with t.lock:
            t.report_s.append(time.monotonic() - began)
            t.statuses[code] += 1
        round_no += 1
        next_at += args.interval


def _reader(url: str, token: str, n: int, args: argparse.Namespace, stop: float, t: Tally) -> None:
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    k = n
    while time.monotonic() < stop:
        repo = f"load-{k % args.repos}"
        for path in (f"/api/advisories?repository={repo}", f"/api/repositories/{repo}/scan"):
            began = time.monotonic()
            try:
                code = session.get(f"{url}{path}", timeout=30).status_code
            except requests.RequestException:
                code = 0
            with t.lock:
                t.read_s.append(time.monotonic() - began)
                t.read_statuses[code] += 1
        k += 1
        time.sleep(args.read_interval)


def _sample_queues(redis_url: str, stop: float, t: Tally) -> None:
    client = redis.Redis.from_url(redis_url)
    began = time.monotonic()
    while time.monotonic() < stop:
        t.queue.append((time.monotonic() - began, sum(int(client.llen(q)) for q in QUEUES)))
        time.sleep(1.0)


def _wait_drained(wait_s: float) -> None:
    from proximity.models import Repository

    deadline = time.monotonic() + wait_s
    while Repository.objects.filter(scan_requested_at__isnull=False).exists():
        if time.monotonic() > deadline:
            return
        time.sleep(0.5)


def _report_to_advisory(wait_s: float) -> tuple[list[float], int]:
    """Per report: until the first finished scan that included it or a newer report of the
    same agent (the debounce coalesces a burst, so a superseded report is covered by its
    successor). Returns the latencies and the count of reports no scan ever covered."""
    from proximity.models import ProximityScan, WorkingSetSnapshot

    _wait_drained(wait_s)
    snaps = {
        pk: (agent, version, reported.timestamp())
        for pk, agent, version, reported in WorkingSetSnapshot.objects.values_list(
            "pk", "agent_id", "version", "reported_at"
        )
    }
    scans = sorted(
        (finished.timestamp(), [snaps[i][:2] for i in ids if i in snaps])
        for ids, finished in ProximityScan.objects.filter(
            status="done", finished_at__isnull=False
        ).values_list("snapshot_ids", "finished_at")
        if finished is not None
    )
    lat, uncovered = [], 0
    for agent, version, reported in snaps.values():
        start = bisect.bisect_left(scans, (reported,))
        done = next(
            (
                t
                for t, seen in itertools.islice(scans, start, None)
                if any(a == agent and v >= version for a, v in seen)
            ),
            None,
        )
        if done is None:
            uncovered += 1
        else:
            lat.append(done - reported)
    return lat, uncovered


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": percentile(values, 0.50),
        "p95": percentile(values, 0.95),
        "p99": percentile(values, 0.99),
        "max": max(values) if values else float("nan"),
    }


def _queue_trend(samples: list[tuple[float, int]]) -> dict[str, float]:
    lengths = [n for _, n in samples] or [0]
    half = len(lengths) // 2 or 1
    return {
        "samples": len(samples),
        "max": max(lengths),
        "mean_first_half": statistics.fmean(lengths[:half]),
        "mean_second_half": statistics.fmean(lengths[half:] or lengths),
        "last": lengths[-1],
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    env = bench_env(
        OVERLAP_SCAN_DEBOUNCE_SECONDS=str(args.debounce),
        OVERLAP_REPORT_RATE="120/min",  # the shipped per-token limit: every agent has its own
    )
    setup_django(env)
    tokens, reader_token = _seed(args.agents, args.repos)
    tally = Tally()
    with running_stack(env, web_workers=args.web_workers, celery_procs=2) as stack:
        began = time.monotonic()
        stop = began + args.minutes * 60
        threads = [
            threading.Thread(target=_agent, args=(stack.url, tok, n, args, stop, tally))
            for n, tok in enumerate(tokens)
        ]
        threads += [
            threading.Thread(target=_reader, args=(stack.url, reader_token, n, args, stop, tally))
            for n in range(args.readers)
        ]
        threads.append(
            threading.Thread(target=_sample_queues, args=(env["REDIS_URL"], stop + 30, tally))
        )
        for th in threads:
            th.start()
        for th in threads[:-1]:
            th.join(timeout=args.minutes * 60 + 60)
        elapsed = time.monotonic() - began
        lat, unscanned = _report_to_advisory(wait_s=30.0)
        threads[-1].join(timeout=40)
    reports = sum(tally.statuses.values())
    return {
        "agents": args.agents,
        "readers": args.readers,
        "interval_s": args.interval,
        "minutes": args.minutes,
        "repos": args.repos,
        "web_workers": args.web_workers,
        "reports": reports,
        "reports_per_s": reports / elapsed,
        "report_statuses": dict(tally.statuses),
        "read_statuses": dict(tally.read_statuses),
        "report_latency_s": _summary(tally.report_s),
        "read_latency_s": _summary(tally.read_s),
        "report_to_advisory_s": _summary(lat),
        "unscanned_snapshots": unscanned,
        "queue": _queue_trend(tally.queue),
        "queue_series": tally.queue,
    }


def _print(result: dict[str, Any]) -> None:
    print(
        f"{result['agents']} agents every {result['interval_s']:g} s, {result['readers']} readers, "
        f"{result['minutes']:g} min, {result['repos']} repositories, "
        f"{result['web_workers']} gunicorn workers, 2 Celery processes"
    )
    print(f"reports: {result['reports']} ({result['reports_per_s']:.1f}/s)")
    print(f"report statuses: {result['report_statuses']}  read statuses: {result['read_statuses']}")
    for key in ("report_latency_s", "report_to_advisory_s", "read_latency_s"):
        s = result[key]
        print(
            f"{key:<22} n={s['n']:<6} p50={s['p50']:.3f} p95={s['p95']:.3f} "
            f"p99={s['p99']:.3f} max={s['max']:.3f}"
        )
    q = result["queue"]
    print(
        f"queue length (LLEN, 1 s samples): max={q['max']} first-half mean="
        f"{q['mean_first_half']:.2f} second-half mean={q['mean_second_half']:.2f} last={q['last']}"
    )
    print(f"reports no scan covered after a 30 s drain: {result['unscanned_snapshots']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between reports")
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--read-interval", type=float, default=2.0)
    parser.add_argument("--repos", type=int, default=10)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--debounce", type=float, default=0.3)
    args = parser.parse_args()
    if not (1 <= args.agents <= 1000 and 0 < args.minutes <= 30 and args.readers <= 200):
        parser.error("bounded: 1..1000 agents, up to 30 minutes, up to 200 readers")
    result = run(args)
    _print(result)
    out = ROOT / "var" / f"load-{time.strftime('%Y%m%dT%H%M%S')}.json"
    Path(out).write_text(json.dumps(result, indent=1, default=str))
    print(f"written: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
