"""Latency of a pre-edit hook, process start to answer, as a harness sees it (issue 29).

Run: ``.venv/bin/python -m bench.hooks --runs 100`` (add ``--agent-venv`` to measure ``radar``
as an agent's machine has it: a fresh virtual environment ``var/bench-agent-venv`` with
``pip install .``, the light core only). One run prints, for 10 agents / 200 files and for 50
agents / 2,000 files (each agent with uncommitted edits of a shared file and two of its own),
p50/p95/p99 of:

- the bare interpreter start (``python -c pass``, and ``python -I -S -c pass``, the floor);
- the baseline: today's code path, i.e. the merge base with ``main`` of this branch (or
  ``--baseline REV``) taken out with ``git archive`` and run the same way (``radar hook
  claude`` forwarded to its warm daemon, the default), on the same repository in the same run;
- the command hook (``radar hook claude``, warm daemon) and its minimal-start forwarder
  (``python -I -S proximity/agent/warm.py hook claude``);
- the HTTP hook (Claude Code's ``type: "http"``: a POST on a new connection, no process);
- cold start (``RADAR_DAEMON=0``: each process answers by itself), and the baseline's cold start
  (through ``python -c``, as its warm figure), so a slower machine is not read as a slower hook.

Targets (issue 29): command hook p50 <= 20 ms above the interpreter's own start and p99 <= 50
ms at 10 agents; HTTP hook p99 <= 15 ms; 50 agents / 2,000 files within 1.5x of 10 / 200;
cold start p95 <= 300 ms (at 10 agents; the 50-agent cold start is printed, not judged: docs/
DECISIONS.md, "Issue 29's targets, as read"). Every process figure spawns a fresh process, as a
harness does. With ``--agent-venv`` every figure is a plain ``pip install``'s, as on an agent's
machine (no editable-install finder in ``site``); the baseline runs through ``python -c`` with
its tree on ``PYTHONPATH``, so it skips the ``import re`` of pip's console-script wrapper that
``radar`` pays (about 6 ms): compare it with the minimal forwarder too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tarfile
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


def build(tmp: Path, agents: int = AGENTS, files: int = 200) -> ScriptedRepo:
    """``files`` files; agent k edits core.py lines 10k+1..10k+3 (mod the file) and two files of
    its own, uncommitted."""
    repo = ScriptedRepo.create(tmp)
    core = max(200, 10 * agents + 10)
    repo.write("app/core.py", numbered(core))
    for k in range(files - 1):
        repo.write(f"app/pkg{k % 10}/mod{k}.py", numbered(40, prefix=f"m{k}"))
    repo.commit("base")
    for k in range(agents):
        name = f"agent{k}"
        repo.add_worktree(name)
        repo.replace_lines("app/core.py", 10 * k + 1, 10 * k + 3, worktree=name)
        for j in (k, k + files // 2):
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


def line(name: str, ms: list[float], *, floor: float | None = None) -> dict[str, float]:
    p50, p95, p99 = (percentile(ms, q) for q in (0.5, 0.95, 0.99))
    above = f"   p50 {p50 - floor:+6.1f} ms vs interpreter" if floor is not None else ""
    print(f"  {name:<50} p50 {p50:6.1f}  p95 {p95:6.1f}  p99 {p99:6.1f} ms{above}")
    return {"p50": p50, "p95": p95, "p99": p99}


def baseline_tree(tmp: Path, rev: str | None = None) -> Path:
    """Today's code path: ``rev``, else this branch's merge base with main, as files
    (``git archive``)."""
    ask = ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"]
    base = rev or subprocess.run(ask, capture_output=True, text=True, check=True).stdout.strip()
    folder = tmp / "baseline"
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", base, "proximity"],
                             capture_output=True, check=True).stdout  # fmt: skip
    tar = tmp / "baseline.tar"
    tar.write_bytes(archive)
    with tarfile.open(tar) as handle:
        handle.extractall(folder, filter="data")
    return folder


def http_hook(port: int, token: str, body: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/hook/claude", body=body.encode(),
                     headers={"Authorization": f"Bearer {token}",
                              "Content-Type": "application/json"})  # fmt: skip
        answer = conn.getresponse()
        answer.read()
        conn.close()
        out.append((time.perf_counter() - start) * 1000)
    return out


def warm_script(python: str, cwd: Path) -> str:
    """The forwarder of the install measured (the checkout's own under ``--agent-venv`` would
    name another install's daemon, start it on its first call and answer cold meanwhile)."""
    probe = "import proximity.agent.warm as w; print(w.__file__)"
    found = subprocess.run([python, "-c", probe], cwd=cwd, capture_output=True, text=True,
                           check=True)  # fmt: skip
    return found.stdout.strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def scale(
    agents: int, files: int, *, radar: Path, tmp: Path, env: dict[str, str], n: int,
    old: Path, floor: dict[str, float]
) -> dict[str, dict[str, float]]:  # fmt: skip
    """Every figure for one size of repository."""
    repo = build(tmp / f"r{agents}", agents, files)
    me = repo.path("agent0")
    deny = payload(me, "line 12\n")
    python = str(radar.parent / "python")
    hook = [str(radar), "hook", "claude"]
    script = [python, "-I", "-S", warm_script(python, tmp), "hook", "claude"]
    state = tmp / f"s{agents}"
    port = free_port()
    run_env = {**env, "RADAR_STATE_DIR": str(state)}
    install = [str(radar), "hooks", "install", "--harness", "claude", "--scope", "local",
               "--http", "--http-port", str(port), "--path", str(me)]  # fmt: skip
    subprocess.run(install, env=run_env, capture_output=True, check=True)
    token = (state / "http-token").read_text().strip()
    print(f"{agents} agents, {files} files (each figure: {n} calls)")
    got: dict[str, dict[str, float]] = {}
    old_env = {**run_env, "PYTHONPATH": str(old), "RADAR_STATE_DIR": str(tmp / f"o{agents}")}
    old_hook = [python, "-c", "import sys; from proximity.agent.cli import main; "
                "sys.exit(main())", "hook", "claude"]  # fmt: skip
    warm_daemon(old_hook, old_env, me, deny)
    timed(old_hook, stdin=deny, cwd=me, env=old_env, n=3)
    few = max(20, n // 4)  # today's path takes seconds a call at 50 agents
    got["baseline"] = line(f"baseline: today's code path, warm daemon ({few} calls)", timed(
        old_hook, stdin=deny, cwd=me, env=old_env, n=few), floor=floor["site"])  # fmt: skip
    stop_daemon(old_hook, old_env, me)
    warm_daemon(hook, run_env, me, deny)
    timed(hook, stdin=deny, cwd=me, env=run_env, n=3)
    time.sleep(1.5)  # the background refresh after the build settles
    got["command"] = line(
        "command hook: radar hook claude, warm daemon",
        timed(hook, stdin=deny, cwd=me, env=run_env, n=n),
        floor=floor["site"],
    )
    got["minimal"] = line("command hook: python -I -S warm.py, warm daemon",
                          timed(script, stdin=deny, cwd=me, env=run_env, n=n),
                          floor=floor["bare"])  # fmt: skip
    http_hook(port, token, deny, 3)
    got["http"] = line("HTTP hook (type: http), warm daemon", http_hook(port, token, deny, n))
    stop_daemon(hook, run_env, me)
    cold = {**run_env, "RADAR_DAEMON": "0"}
    got["cold"] = line("cold start: RADAR_DAEMON=0", timed(hook, stdin=deny, cwd=me, env=cold,
                                                          n=max(10, n // 4)))  # fmt: skip
    old_cold = {**old_env, "RADAR_DAEMON": "0"}
    got["baseline_cold"] = line("baseline: today's code path, cold start", timed(
        old_hook, stdin=deny, cwd=me, env=old_cold, n=max(10, n // 4)))  # fmt: skip
    ratio = got["baseline"]["p50"] / got["command"]["p50"]
    print(f"  command hook p50 {ratio:.1f}x faster than the baseline's")
    cold_ratio = got["cold"]["p95"] / got["baseline_cold"]["p95"]
    print(f"  cold start p95 {cold_ratio:.2f}x the baseline's")
    return got


def warm_daemon(hook: list[str], env: dict[str, str], cwd: Path, stdin: str) -> None:
    """Start the daemon through a first hook call, as a harness would, and wait until it answers."""
    subprocess.run(hook, input=stdin, cwd=cwd, env=env, capture_output=True, text=True,
                   check=False)  # fmt: skip
    status = [*hook[:-2], "daemon", "status"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        # cwd: `python -c` puts its folder first on sys.path, which must not hold a `proximity`
        done = subprocess.run(status, env=env, cwd=cwd, capture_output=True, check=False)
        if done.returncode == 0:
            return
        time.sleep(0.2)
    raise RuntimeError("the radar daemon did not start")


def stop_daemon(hook: list[str], env: dict[str, str], cwd: Path) -> None:
    subprocess.run([*hook[:-2], "daemon", "stop"], env=env, cwd=cwd, capture_output=True,
                   check=False)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--agent-venv", action="store_true", help="measure a plain pip install")
    parser.add_argument("--baseline", metavar="REV", help="the code path to compare with "
                        "(default: the merge base of HEAD and main)")  # fmt: skip
    args = parser.parse_args()
    radar = agent_install() if args.agent_venv else BIN / "radar"
    python = str(radar.parent / "python")
    print(f"radar: {radar}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONDONTWRITEBYTECODE",
                                                            "RADAR_DAEMON"}}  # fmt: skip
    env["RADAR_DAEMON_IDLE"] = "600"
    with tempfile.TemporaryDirectory(prefix="bh-") as tmp_name:
        tmp = Path(tmp_name)
        old = baseline_tree(tmp, args.baseline)
        print(f"baseline: {args.baseline or 'merge base of HEAD and main'}")
        print("interpreter start, nothing else")
        site = timed([python, "-c", "pass"], cwd=tmp, env=env, n=args.runs)
        bare = timed([python, "-I", "-S", "-c", "pass"], cwd=tmp, env=env, n=args.runs)
        floor = {
            "site": line("python -c pass", site)["p50"],
            "bare": line("python -I -S -c pass", bare)["p50"],
        }
        small = scale(10, 200, radar=radar, tmp=tmp, env=env, n=args.runs, old=old, floor=floor)
        large = scale(50, 2000, radar=radar, tmp=tmp, env=env, n=args.runs, old=old, floor=floor)
        print("targets (issue 29)")
        checks = [
            ("command hook p50 - interpreter p50 <= 20 ms",
             small["command"]["p50"] - floor["site"], 20.0),
            ("command hook p99 <= 50 ms", small["command"]["p99"], 50.0),
            ("minimal forwarder p99 <= 50 ms", small["minimal"]["p99"], 50.0),
            ("HTTP hook p99 <= 15 ms", small["http"]["p99"], 15.0),
            ("50 agents / 10 agents, command p99 <= 1.5x",
             large["command"]["p99"] / small["command"]["p99"], 1.5),
            ("50 agents / 10 agents, HTTP p99 <= 1.5x",
             large["http"]["p99"] / small["http"]["p99"], 1.5),
            ("cold start p95 <= 300 ms (10 agents)", small["cold"]["p95"], 300.0),
        ]  # fmt: skip
        for name, value, bound in checks:
            print(f"  {name:<50} {value:8.2f}   {'met' if value <= bound else 'MISSED'}")
        # The "the same at 50 agents within 1.5x" follows the hook figures; the cold
        # start is stated once (docs/DECISIONS.md, "Issue 29's targets, as read").
        cold = large["cold"]["p95"]
        print(
            f"  (cold start p95 at 50 agents, not a target: {cold:.0f} ms, "
            f"{cold / small['cold']['p95']:.2f}x the 10 agents')"
        )


if __name__ == "__main__":
    main()
