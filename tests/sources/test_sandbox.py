"""Issue 30, point 4: a repository's tests run in a sandbox. A hostile test suite, committed to
a real repository and run the way a merge check runs it, tries each escape: the worker's
secrets (its environment, /proc of other processes), writing outside its scratch folder, the
host's network, and a ``setsid`` child left running. Each escape is asserted from inside (the
hostile test passes only when it failed) and from outside (nothing written, no connection
accepted, no process left). Tests run as root, so a root worker's path (the command runs as
``nobody``) is the one exercised end to end; a worker that is not root (a user namespace) is
run as ``nobody`` below.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from proximity.sources.limits import Limits
from proximity.sources.sandbox import INSIDE, STAGE, Bind, Sandbox
from proximity.sources.testenv import choose_python, system_python
from proximity.sources.testruns import materialise, run_pytest
from tests.sources.gitrepo import ScriptedRepo
from tests.sources.test_testruns import running

LIMITS = Limits(cpu_seconds=60)
PLAIN = choose_python(configured="", worktrees=(), plain=system_python())

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the root worker's path needs root")

HOSTILE = """\
import os, socket, subprocess, sys
from pathlib import Path

SECRETS = {secrets!r}
WORKER = {worker}
TARGETS = {targets!r}


def readable(path):
    try:
        return Path(path).read_bytes()
    except OSError:
        return b""


def test_the_worker_environment_cannot_be_read():
    assert not set(SECRETS) & set(os.environ)
    seen = [p for p in Path("/proc").iterdir() if p.name.isdigit()]
    assert len(seen) <= 3, seen  # its own PID namespace: init, pytest, nothing else
    for proc in [*seen, Path(f"/proc/{{os.getppid()}}"), Path(f"/proc/{{WORKER}}")]:
        text = readable(proc / "environ") + readable(proc / "cmdline")
        for value in SECRETS.values():
            assert value.encode() not in text, proc


def test_nothing_outside_the_scratch_folder_can_be_written():
    for target in TARGETS:
        try:
            Path(target).write_text("escaped")
        except OSError:
            continue
        private = ("/tmp/", "/dev/shm/", "/var/tmp/")  # private tmpfs, gone with the run
        assert target.startswith(private), f"wrote {{target}}"
    Path(os.environ["TMPDIR"], "mine").write_text("the scratch folder is writable")


def test_the_hosts_network_cannot_be_reached():
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    except OSError:
        pass
    else:
        raise AssertionError("connected to the worker's loopback")
    with socket.socket(socket.AF_UNIX) as unix:  # a service's socket in the host's /run
        try:
            unix.connect({unix!r})
        except OSError:
            return
    raise AssertionError("connected to a socket in /run")


def test_a_setsid_child_is_left_running():
    code = "import time; time.sleep(120)"
    subprocess.Popen([sys.executable, "-c", code, {marker!r}], start_new_session=True)
"""


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture
def run_socket() -> Iterator[socket.socket]:
    """A Unix socket anyone may connect to, where services keep theirs (/run)."""
    path = Path("/run") / f"radar-probe-{uuid.uuid4().hex}.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    path.chmod(0o777)
    server.listen(1)
    server.setblocking(False)
    yield server
    server.close()
    path.unlink(missing_ok=True)


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A world-writable folder outside /tmp: a user change alone would not protect it."""
    folder = Path.cwd() / f".sandbox-probe-{uuid.uuid4().hex}"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_hostile_test_suite_escapes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    listener: socket.socket,
    run_socket: socket.socket,
    outside: Path,
) -> None:
    secrets = {
        "DATABASE_URL": f"postgres://radar:{uuid.uuid4().hex}@127.0.0.1/radar",
        "DJANGO_SECRET_KEY": f"secret-{uuid.uuid4().hex}",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    marker = f"radar-left-behind-{uuid.uuid4().hex}"
    tree = tmp_path / "tree"
    targets = [
        str(outside / "escaped"),
        str(tree / "escaped"),  # the tree under test: read-only, though world-writable here
        str(Path.home() / "escaped"),
        f"/tmp/escaped-{marker}",  # noqa: S108 - must not appear on the host
        f"/dev/shm/escaped-{marker}",  # noqa: S108
    ]
    repo = ScriptedRepo.create(tmp_path)
    text = HOSTILE.format(
        secrets=secrets,
        worker=os.getpid(),
        targets=targets,
        port=listener.getsockname()[1],
        unix=run_socket.getsockname(),
        marker=marker,
    )
    repo.write("tests/test_hostile.py", text)
    repo.commit("a hostile suite")
    materialise(repo.root, {}, "HEAD^{tree}", tree, LIMITS)
    tree.chmod(0o777)

    run = run_pytest(tree, ["tests/test_hostile.py"], python=PLAIN, timeout=60, limits=LIMITS)

    assert run.status == "ran", run.reason
    outcomes = {k.split("::")[-1]: v.outcome for k, v in run.outcomes.items()}
    assert outcomes == {
        "test_the_worker_environment_cannot_be_read": "passed",
        "test_nothing_outside_the_scratch_folder_can_be_written": "passed",
        "test_the_hosts_network_cannot_be_reached": "passed",
        "test_a_setsid_child_is_left_running": "passed",
        "<collect>": "passed",
    }, {k: v.message for k, v in run.outcomes.items() if v.message}
    for target in targets:
        assert not Path(target).exists(), target
    for server in (listener, run_socket):
        with pytest.raises(BlockingIOError):
            server.accept()
    assert running(marker) == []  # the run ended normally, and took its whole tree with it


def test_the_sandbox_user_is_not_the_worker() -> None:
    out = _run_in(Sandbox(), ["/usr/bin/id", "-u"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(Sandbox().identity()[0]) != "0"  # type: ignore[index]


def _run_in(sandbox: Sandbox, argv: list[str]) -> subprocess.CompletedProcess[str]:
    command = sandbox.command(argv, cwd="/", env={"PATH": "/usr/bin:/bin"})
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


PROBE = """\
import os, socket, sys
from pathlib import Path
seen = [p for p in os.listdir("/proc") if p.isdigit()]
print("pids", len(seen))
for target in sys.argv[1:]:
    try:
        Path(target).write_text("escaped")
        print("wrote", target)
    except OSError as exc:
        print("refused", target, exc.errno)
try:
    socket.create_connection(("127.0.0.1", int(os.environ["PORT"])), timeout=2)
    print("connected")
except OSError:
    print("no network")
"""


def test_a_worker_that_is_not_root_runs_tests_in_a_user_namespace(
    tmp_path: Path, listener: socket.socket
) -> None:
    """The worker here is ``nobody``: it cannot change user, so the sandbox adds a user
    namespace; its own files (a folder it owns outside the scratch one) stay read-only."""
    # the worker (nobody here) reads its stage script where it is installed for it: a copy
    # beside the test, since this checkout may sit in a folder only root may enter
    stage = tmp_path / "sandbox_stage.py"
    shutil.copyfile(STAGE, stage)
    stage.chmod(0o644)
    sandbox = Sandbox(worker_is_root=False, stage_python=system_python(), stage=str(stage))
    mine = tmp_path / "workers-own"
    mine.mkdir()
    os.chown(mine, 65534, 65534)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    os.chown(scratch, 65534, 65534)
    for folder in (tmp_path, tmp_path.parent, tmp_path.parent.parent):
        folder.chmod(folder.stat().st_mode | 0o011)  # nobody may pass through to its folders
    port = str(listener.getsockname()[1])
    inside = f"{INSIDE}/scratch"
    command = [system_python(), "-c", PROBE, str(mine / "x"), f"{inside}/ok"]
    binds = (Bind(str(mine), str(mine)), Bind(str(scratch), inside, True))
    sandbox_env = {"PATH": "/usr/bin:/bin", "PORT": port}
    full = sandbox.command(command, cwd="/", env=sandbox_env, binds=binds)
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    out = subprocess.run([*drop, *full], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] in ("pids 1", "pids 2")  # init and the probe: the worker is not visible
    assert lines[1] == f"refused {mine / 'x'} 30"  # EROFS: owned by the worker, yet read-only
    assert lines[2:] == [f"wrote {inside}/ok", "no network"]
    assert (scratch / "ok").read_text() == "escaped"
    assert not (mine / "x").exists()


def test_a_sandbox_that_cannot_start_refuses_the_run_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n")
    for user, said in (("root", "is root"), ("no-such-user-here", "no user")):
        run = run_pytest(
            tmp_path, ["test_a.py"], python=PLAIN, timeout=30, limits=LIMITS,
            sandbox=Sandbox(user=user),
        )  # fmt: skip
        assert run.status == "error"
        assert run.reason.startswith("could not start: sandbox: ")
        assert said in run.reason
    started = time.monotonic()
    assert Sandbox().unavailable() == ""
    assert time.monotonic() - started < 30


def _reachable_by_others(path: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


RUN_AS_WORKER = """\
import json, sys
from pathlib import Path
from proximity.sources.limits import Limits
from proximity.sources.sandbox import Sandbox
from proximity.sources.testenv import choose_python
from proximity.sources.testruns import run_pytest

tree, plain = sys.argv[1], sys.argv[2]
sandbox = Sandbox(stage_python=plain)
assert sandbox.identity() is None  # not root: a user namespace
python = choose_python(configured="", worktrees=(), plain=plain)
run = run_pytest(Path(tree), ["tests/test_hostile.py"], python=python, timeout=60,
                 limits=Limits(cpu_seconds=60), sandbox=sandbox)
print(json.dumps({"status": run.status, "reason": run.reason,
                  "outcomes": {k: v.outcome for k, v in run.outcomes.items()}}))
"""


def test_the_hostile_suite_escapes_nothing_from_a_worker_that_is_not_root(
    tmp_path: Path,
    listener: socket.socket,
    run_socket: socket.socket,
) -> None:
    """The compose path: the whole runner runs as ``nobody`` (the system's python3 with this
    checkout and its venv's packages on the path), so its runs use a user namespace."""
    import json
    import site
    import sys

    import proximity

    checkout = Path(proximity.__file__).resolve().parents[1]
    packages = [Path(p) for p in site.getsitepackages()]
    if not all(_reachable_by_others(p) for p in (checkout, *packages)):
        pytest.skip("this checkout or its venv is not reachable by nobody")
    if sys.version_info[:2] != tuple(
        int(x) for x in subprocess.check_output([system_python(), "-c", "import sys; "
        "print(sys.version_info[0], sys.version_info[1])"], text=True).split()
    ):  # fmt: skip
        pytest.skip("the system's python3 is not this venv's version")
    worker_home = tmp_path / "worker"
    worker_home.mkdir()
    os.chown(worker_home, 65534, 65534)  # the worker's own files: writable by it, not its tests
    for folder in (tmp_path, tmp_path.parent, tmp_path.parent.parent):
        folder.chmod(folder.stat().st_mode | 0o011)
    marker = f"radar-left-behind-{uuid.uuid4().hex}"
    secrets = {"DATABASE_URL": f"postgres://{uuid.uuid4().hex}", "DJANGO_SECRET_KEY": "k" * 40}
    targets = [str(worker_home / "escaped"), f"/tmp/escaped-{marker}"]  # noqa: S108
    text = HOSTILE.format(
        secrets=secrets, worker=os.getpid(), targets=targets, port=listener.getsockname()[1],
        unix=run_socket.getsockname(), marker=marker,
    )  # fmt: skip
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_hostile.py").write_text(text)
    for path in (tree, *tree.rglob("*")):
        os.chown(path, 65534, 65534)  # the worker materialises the tree: it is the worker's
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": os.pathsep.join([str(checkout), *map(str, packages)]),
        **secrets,
    }
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    command = [*drop, system_python(), "-c", RUN_AS_WORKER, str(tree), system_python()]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "ran", result["reason"]
    assert set(result["outcomes"].values()) == {"passed"}, result["outcomes"]
    assert len(result["outcomes"]) == 5
    assert not (worker_home / "escaped").exists()
    for server in (listener, run_socket):
        with pytest.raises(BlockingIOError):
            server.accept()
    assert running(marker) == []
