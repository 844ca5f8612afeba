"""``radar daemon run|status|stop``: the warm process behind the hook's fast path (:mod:`.warm`).

One daemon per state folder and install answers every repository's hooks for that user. It
serves one call at a time on its main thread: a call sets the caller's working directory and
``RADAR_*`` settings for its duration (and SIGALRM deadlines, which only the main thread gets,
keep working), and calls from ten agents take tens of milliseconds each. It reads worktrees
afresh for every call and keeps no airspace between calls; what it keeps warm is the imported
code. It leaves on its own after ``RADAR_DAEMON_IDLE`` seconds without a call (default 900),
when its socket is removed or replaced, or on ``radar daemon stop``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socketserver
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from proximity.agent.ownership import StateDirError, private_folder
from proximity.agent.warm import FORWARDED_ENV, socket_path, state_dir

__all__ = ["HookAnswer", "daemon_command", "daemon_status", "serve"]

#: What ``radar hook ARGV`` prints for a stdin: handed in by the command line (:mod:`.cli`),
#: which starts the daemon, so this module does not import it back.
HookAnswer = Callable[[list[str], str], str]

_POLL_S = 2.0
_DEFAULT_IDLE_S = 900.0


def _warm_up() -> None:
    """Import what the answers need, so the first call is as fast as the next."""
    import http.client  # noqa: F401

    import proximity.agent.client
    import proximity.agent.hook
    import proximity.agent.local  # noqa: F401
    from proximity.agent.session import remember_working_sets

    remember_working_sets()


@contextlib.contextmanager
def _as_caller(request: dict[str, Any]) -> Iterator[None]:
    """The caller's directory and settings for one call, then the daemon's own again."""
    given = request.get("env")
    env: dict[str, Any] = given if isinstance(given, dict) else {}
    saved = {k: os.environ.get(k) for k in FORWARDED_ENV}
    here = Path.cwd()
    try:
        for k in FORWARDED_ENV:
            value = env.get(k)
            if isinstance(value, str):
                os.environ[k] = value
            else:
                os.environ.pop(k, None)
        cwd = request.get("cwd")
        if isinstance(cwd, str) and Path(cwd).is_dir():
            os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old


class _Server(socketserver.UnixStreamServer):
    def __init__(self, path: str, answer: HookAnswer) -> None:
        super().__init__(path, _Handler)
        self.answer = answer
        self.started = time.monotonic()
        self.last_call = self.started
        self.served = 0
        self.stopping = False


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        try:
            request = json.loads(self.rfile.read())
            reply = self._answer(request) if isinstance(request, dict) else {}
        except ValueError:
            reply = {}
        self.wfile.write(json.dumps(reply).encode())

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        command = request.get("command")
        if command == "status":
            return {
                "pid": os.getpid(),
                "served": self.server.served,
                "uptimeSeconds": round(time.monotonic() - self.server.started, 1),
            }
        if command == "stop":
            self.server.stopping = True
            return {"stopping": True}
        argv, stdin = request.get("argv"), request.get("stdin")
        if not (isinstance(argv, list) and argv[:1] == ["hook"] and isinstance(stdin, str)):
            return {}
        try:
            with _as_caller(request):
                out = self.server.answer([str(a) for a in argv], stdin)
        except SystemExit:
            return {}  # arguments argparse refuses: the caller answers, and says why

        self.server.served += 1
        self.server.last_call = time.monotonic()  # status calls do not keep a daemon alive
        return {"stdout": out}


def _same_socket(path: Path, inode: int) -> bool:
    try:
        return path.stat().st_ino == inode
    except OSError:
        return False


def serve(where: str, *, answer: HookAnswer, idle_seconds: float | None = None) -> int:
    """Listen on ``where`` until idle, replaced or stopped; 0 also when another daemon holds it."""
    if idle_seconds is None:
        idle_seconds = float(os.environ.get("RADAR_DAEMON_IDLE") or _DEFAULT_IDLE_S)
    path = Path(where)
    private_folder(state_dir())
    private_folder(str(path.parent))
    with path.with_name(path.name + ".lock").open("w", encoding="utf-8") as lock:
        try:
            # One daemon per socket: a second one started by a racing hook leaves at once.
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0
        lock.write(str(os.getpid()))
        lock.flush()
        # A dead daemon's socket: nobody holds the lock any more.
        path.unlink(missing_ok=True)
        _warm_up()
        old_umask = os.umask(0o177)
        try:
            server = _Server(str(path), answer)
        finally:
            os.umask(old_umask)
        inode = path.stat().st_ino
        server.timeout = _POLL_S
        with server:
            while not server.stopping:
                server.handle_request()
                idle = time.monotonic() - server.last_call
                if idle > idle_seconds or not _same_socket(path, inode):
                    break
        if _same_socket(path, inode):
            path.unlink()
    return 0


def _call(path: str, command: str) -> dict[str, Any] | None:
    import socket

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(5.0)
    try:
        conn.connect(path)
        conn.sendall(json.dumps({"command": command}).encode())
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        reply = json.loads(data)
        return reply if isinstance(reply, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        conn.close()


def daemon_status() -> dict[str, Any] | None:
    """The running daemon's ``{pid, served, uptimeSeconds}``, or ``None``."""
    path = socket_path()
    return _call(path, "status") if path else None


def daemon_command(action: str, *, answer: HookAnswer, socket_override: str | None = None) -> int:
    path = socket_override or socket_path()
    if path is None:
        print("radar: the state folder's path is too long for a Unix socket", file=sys.stderr)
        return 1
    if action == "run":
        try:
            return serve(path, answer=answer)
        except StateDirError as exc:
            print(f"radar: {exc}", file=sys.stderr)
            return 1
    reply = _call(path, action)
    if reply is None:
        print(f"not running ({path})")
        return 0 if action == "stop" else 1
    if action == "status":
        print(
            f"running: pid {reply.get('pid')}, {reply.get('served')} hook call(s) answered, "
            f"up {reply.get('uptimeSeconds')} s ({path})"
        )
    else:
        print(f"stopped ({path})")
    return 0
