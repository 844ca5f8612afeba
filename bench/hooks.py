"""Latency of a pre-edit hook, process start to answer, with 10 agents on one repository.

Run: ``.venv/bin/python -m tests.servers .venv/bin/python -m bench.hooks --agent-venv`` (the
server figure needs PostgreSQL and Redis; without them only the local figures are printed).
``--agent-venv`` measures ``radar`` as an agent's machine has it: a fresh virtual environment
(``var/bench-agent-venv``) with ``pip install .``, the light core only (numpy, scipy; no
Django), compiled at install; without it, this environment's editable install is used. Targets from
issue 13: p95 <= 150 ms against a running server, <= 300 ms reading local worktrees. The
baseline is ``manage.py radar check FILE``, the only pre-edit answer before, measured in the
same run on the same repository. Every figure spawns a fresh process, as a harness does, and
each is measured twice: with the warm ``radar daemon`` the hook forwards to (the default: the
first call starts it) and with ``RADAR_DAEMON=0`` (each process answers by itself).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stack import percentile  # noqa: E402
from tests.sources.gitrepo import ScriptedRepo, numbered  # noqa: E402

BIN = Path(sys.executable).parent
AGENTS = 10
AGENT_VENV = ROOT / "var" / "bench-agent-venv"


def agent_install() -> Path:
    """``radar`` from a plain ``pip install .`` in its own environment (built once)."""
    radar = AGENT_VENV / "bin" / "radar"
    if not radar.exists():
        subprocess.run([sys.executable, "-m", "venv", str(AGENT_VENV)], check=True)
        pip = [str(AGENT_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, str(ROOT)], check=True)
    server_side = ("django", "celery", "torch", "sentence_transformers")
    probe = f"import importlib.util as u; print([m for m in {server_side!r} if u.find_spec(m)])"
    found = subprocess.run(
        [str(AGENT_VENV / "bin" / "python"), "-c", probe],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found == "[]", f"the agent install pulled in server packages: {found}"
    return radar


def build(tmp: Path) -> ScriptedRepo:
    """A 200-file repository; agent k edits core.py lines 10k+1..10k+3 and two files of its own."""
    repo = ScriptedRepo.create(tmp)
    repo.write("app/core.py", numbered(200))
    for k in range(200):
        repo.write(f"app/pkg{k % 10}/mod{k}.py", numbered(40, prefix=f"m{k}"))
    repo.commit("base")
    for k in range(AGENTS):
        name = f"agent{k}"
        repo.add_worktree(name)
        repo.replace_lines("app/core.py", 10 * k + 1, 10 * k + 3, worktree=name)
        for j in (k, k + 100):
            repo.replace_lines(f"app/pkg{j % 10}/mod{j}.py", 5, 8, worktree=name)
    return repo


def payload(worktree: Path, old: str) -> str:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/dev/null",
            "cwd": str(worktree),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_use_id": "toolu_bench",
            "tool_input": {
                "file_path": str(worktree / "app/core.py"),
                "old_string": old,
                "new_string": "changed\n",
                "replace_all": False,
            },
        }
    )


def timed(
    cmd: list[str], *, stdin: str = "", cwd: Path, env: dict[str, str], n: int
) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run(
            cmd,
            input=stdin,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        out.append((time.perf_counter() - start) * 1000)
    return out


def warm_daemon(radar: Path, env: dict[str, str], cwd: Path, stdin: str) -> None:
    """Start the daemon through a first hook call, as a harness would, and wait until it answers."""
    subprocess.run([str(radar), "hook", "claude"], input=stdin, cwd=cwd, env=env,
                   capture_output=True, text=True, check=False)  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = [str(radar), "daemon", "status"]
        if subprocess.run(status, env=env, capture_output=True, check=False).returncode == 0:
            return
        time.sleep(0.2)
    raise RuntimeError("the radar daemon did not start")


def stop_daemon(radar: Path, env: dict[str, str]) -> None:
    subprocess.run([str(radar), "daemon", "stop"], env=env, capture_output=True, check=False)


def both_ways(
    name: str, hook: list[str], stdin: str, *, radar: Path, cwd: Path, env: dict[str, str],
    n: int, baseline: float
) -> None:  # fmt: skip
    """The same call answered by the warm daemon and by a process of its own."""
    warm_daemon(radar, env, cwd, stdin)
    timed(hook, stdin=stdin, cwd=cwd, env=env, n=2)
    line(f"{name}, daemon", timed(hook, stdin=stdin, cwd=cwd, env=env, n=n), baseline)
    stop_daemon(radar, env)
    cold = {**env, "RADAR_DAEMON": "0"}
    line(f"{name}, no daemon", timed(hook, stdin=stdin, cwd=cwd, env=cold, n=n), baseline)


def line(name: str, ms: list[float], baseline: float | None = None) -> None:
    p50, p95 = percentile(ms, 0.5), percentile(ms, 0.95)
    ratio = f"   {baseline / p95:5.1f}x faster than the baseline p95" if baseline else ""
    print(f"{name:<52} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms{ratio}")


def server_figures(
    repo: ScriptedRepo, env: dict[str, str], n: int, baseline: float, radar: Path
) -> None:
    from bench.stack import bench_env, running_stack, setup_django

    stack_env = bench_env()
    setup_django(stack_env)
    from proximity.models import Repository
    from proximity.services.tokens import principal_create, token_issue

    Repository.objects.filter(name="bench-hooks").delete()
    Repository.objects.create(name="bench-hooks", scope="bench-hooks")
    tokens = {}
    for k in range(AGENTS):
        principal = principal_create(
            name=f"bench-hook-{k}-{time.time_ns()}",
            kind="agent",
            scopes=["bench-hooks"],
            clearances=[],
        )
        tokens[k] = token_issue(principal=principal)[0]
    with running_stack(stack_env, web_workers=2, celery_procs=1) as stack:
        flags = ["--server", stack.url, "--repository", "bench-hooks"]
        for k in range(AGENTS):
            token_file = repo.root.parent / f"token{k}"
            token_file.write_text(tokens[k])
            report = [str(radar), "report", *flags, "--token-file", str(token_file)]
            subprocess.run(
                report, cwd=repo.path(f"agent{k}"), env=env, check=True, capture_output=True
            )
        hook = [
            str(radar),
            "hook",
            "claude",
            *flags,
            "--token-file",
            str(repo.root.parent / "token0"),
        ]
        me = repo.path("agent0")
        deny = payload(me, "line 12\n")  # agent1 edits lines 11-13
        timed(hook, stdin=deny, cwd=me, env=env, n=2)  # warm the server's first request
        for name, stdin in (("denied", deny), ("clear", payload(me, "line 150\n"))):
            both_ways(f"radar hook, server, {name} edit", hook, stdin, radar=radar, cwd=me,
                      env=env, n=n, baseline=baseline)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--agent-venv", action="store_true", help="measure a plain pip install")
    args = parser.parse_args()
    radar = agent_install() if args.agent_venv else BIN / "radar"
    print(f"radar: {radar}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        env["RADAR_STATE_DIR"] = str(Path(tmp) / "state")
        env["RADAR_DAEMON_IDLE"] = "300"
        repo = build(Path(tmp))
        me = repo.path("agent0")
        hook = [str(radar), "hook", "claude"]
        deny, clear = payload(me, "line 12\n"), payload(me, "line 150\n")
        cold = {**env, "RADAR_DAEMON": "0"}
        timed(hook, stdin=deny, cwd=me, env=cold, n=2)  # compile bytecode once, as an install does
        check = [
            sys.executable,
            str(ROOT / "manage.py"),
            "radar",
            "check",
            "app/core.py",
            "--repo",
            str(me),
            "--no-graph",
        ]
        baseline_ms = timed(
            check, cwd=me, env={**env, "HF_HUB_OFFLINE": "1"}, n=max(5, args.runs // 4)
        )
        files = len(list(repo.root.rglob("*.py")))
        print(f"{AGENTS} agents, {files} files; each figure spawns a process")
        line("baseline: manage.py radar check FILE", baseline_ms)
        base = percentile(baseline_ms, 0.95)
        for name, stdin in (("denied", deny), ("clear", clear)):
            both_ways(f"radar hook, local worktrees, {name} edit", hook, stdin, radar=radar,
                      cwd=me, env=env, n=args.runs, baseline=base)  # fmt: skip
        if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
            server_figures(repo, env, args.runs, base, radar)
        else:
            print("server figures skipped: run through `python -m tests.servers`")


if __name__ == "__main__":
    main()
