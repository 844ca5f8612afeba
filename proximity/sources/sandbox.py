"""Run a repository's code (its tests) in a sandbox: another user, its own namespaces.

Repository code is untrusted (an agent or anyone with a branch wrote it), and a test run is
code execution. Every run goes through ``unshare`` (util-linux) into new mount, PID, network,
IPC and UTS namespaces, whose first process (:mod:`proximity.sources.sandbox_stage`) makes
every mount read-only, gives /tmp, /var/tmp, /dev/shm and /run a fresh tmpfs, binds the run's
folders under ``/tmp/radar`` (only the scratch folder writable), and starts the command with
no capabilities and ``no_new_privs``. What follows:

- **another user**: a root worker runs the command as :attr:`Sandbox.user` (``nobody`` by
  default, ``OVERLAP_SANDBOX_USER``); a worker that is not root cannot change user, so it adds
  a user namespace (unprivileged user namespaces must be allowed: see docs/OPERATIONS.md),
  inside which the command is a capability-less root mapped to the worker's uid outside. Where
  neither is possible the run is refused with the reason (:meth:`Sandbox.unavailable`).
- **no view of the worker**: its own PID namespace and /proc, so no other process (and no
  ``/proc/<pid>/environ``) is visible; the environment is the caller's, built from nothing.
- **no network**: a network namespace with only its own loopback.
- **writes only in its scratch folder**: everything else is mounted read-only, and what it
  writes in /tmp goes to a tmpfs that ends with the run. /run is a private tmpfs too, so the
  host's service sockets there (PostgreSQL, Redis, Docker) are out of reach; a Unix socket
  elsewhere whose permissions let the sandbox's uid connect is not (keep none such).
- **nothing outlives the run**: the stage is the PID namespace's init; when the command ends,
  or ``unshare`` is killed (``--kill-child``), the kernel kills every process left in it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["INSIDE", "PRIVATE", "Bind", "Sandbox"]

INSIDE = "/tmp/radar"  # noqa: S108 - the sandbox's own tmpfs, not the host's /tmp
"""Where a run's folders appear inside the sandbox (on its private /tmp)."""

STAGE = str(Path(__file__).with_name("sandbox_stage.py"))
PRIVATE = ("/tmp/", "/var/tmp/", "/dev/shm/", "/run/")  # noqa: S108 - each a private tmpfs
"""Folders the sandbox replaces with a tmpfs of its own: nothing of the host's there is seen."""


@dataclass(frozen=True, slots=True)
class Bind:
    """A folder (or file) of the worker's, seen at ``inside`` in the sandbox."""

    outside: str
    inside: str
    writable: bool = False


@dataclass(frozen=True)
class Sandbox:
    """How test runs are isolated. ``user``: who runs them when the worker is root;
    ``stage_python``: the interpreter of the setup stage (the worker's, run before any
    privilege is dropped); ``stage``: its script, which the worker must be able to read (a
    standalone file run with ``-I -S``); ``tmpfs_mb``: the size of each private temporary folder."""

    user: str = "nobody"
    stage_python: str = sys.executable
    stage: str = STAGE
    tmpfs_mb: int = 512
    worker_is_root: bool | None = None  # None: as this process is

    def _root(self) -> bool:
        return os.geteuid() == 0 if self.worker_is_root is None else self.worker_is_root

    def identity(self) -> tuple[int, int] | None:
        """``(uid, gid)`` the command runs as (a root worker), or None (a user namespace)."""
        if not self._root():
            return None
        entry = pwd.getpwnam(self.user)
        return entry.pw_uid, entry.pw_gid

    def unavailable(self) -> str:
        """Why no test can run in this sandbox here ("" when it can)."""
        return _probe(self)

    def give(self, folder: Path) -> None:
        """Make ``folder`` (the scratch folder) the sandbox user's, so it can write there."""
        ids = self.identity()
        if ids is not None:
            os.chown(folder, *ids)
            for sub in folder.rglob("*"):
                os.chown(sub, *ids, follow_symlinks=False)

    def command(
        self,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        binds: Sequence[Bind] = (),
    ) -> list[str]:
        """The command line that runs ``argv`` in the sandbox (``cwd`` and the ``binds``'
        ``inside`` paths as the sandbox sees them)."""
        import json

        ids = self.identity()
        spec = {
            "argv": list(argv),
            "cwd": cwd,
            "env": dict(env),
            "binds": [[b.outside, b.inside, b.writable] for b in binds],
            "tmpfs": [p.rstrip("/") for p in PRIVATE],
            "tmpfs_options": f"mode=1777,size={self.tmpfs_mb}m",
            "uid": ids[0] if ids else None,
            "gid": ids[1] if ids else None,
        }
        unshare = shutil.which("unshare") or "unshare"
        namespaces = ["--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--net"]
        namespaces += ["--ipc", "--uts"]
        if ids is None:
            namespaces = ["--user", "--map-root-user", *namespaces]
        stage = [self.stage_python, "-I", "-S", "-B", self.stage, json.dumps(spec)]
        return [unshare, *namespaces, "--", *stage]


@lru_cache(maxsize=8)
def _probe(sandbox: Sandbox) -> str:
    """Start ``true`` in the sandbox once per process; the first line of what failed."""
    if shutil.which("unshare") is None:
        return "sandbox: unshare (util-linux) is not installed"
    try:
        ids = sandbox.identity()
    except KeyError:
        return f"sandbox: no user {sandbox.user!r} (OVERLAP_SANDBOX_USER)"
    if ids is not None and ids[0] == 0:
        return f"sandbox: {sandbox.user!r} is root; test runs need an unprivileged user"
    args = sandbox.command(["true"], cwd="/", env={"PATH": os.defpath})
    try:
        done = subprocess.run(args, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"sandbox: {exc}"
    if done.returncode == 0:
        return ""
    said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    how = "as root" if ids is not None else "in a user namespace"
    return f"sandbox cannot start {how}: {said[-1] if said else f'exit {done.returncode}'}"
