"""``radar daemon run|status|stop``: the warm process behind the hook's fast path (:mod:`.warm`).

One daemon per state folder and install answers every repository's hooks for that user. Each
connection is served on a thread of its own, so one slow repository (or one stalled client)
never delays another caller: a call carries its caller's directory and ``RADAR_*`` settings
explicitly (nothing process-wide is switched), and its deadline binds its git processes
(``proximity.sources.git._run.git_deadline``), which are killed when it passes. A connection
has :data:`_READ_TIMEOUT_S` to send its request, at most :data:`_MAX_REQUEST` bytes; a hook
answer not ready within the budget the caller sent is given up (the caller answers itself).

What it keeps warm: the imported code, every read-only git answer until a file-system event
in its scope (:mod:`proximity.sources.git.readcache`; read again in the background after a
change) and the working sets (:mod:`proximity.sources.git.memo`), so a hook's answer is a
parse, the planned lines and lookups. ``RADAR_DAEMON_WATCH=0`` turns the notifications off:
every call then asks git. When the HTTP hook is installed (:mod:`.http_hook`) it also answers
``POST http://127.0.0.1:PORT/hook/claude``. It leaves on its own after ``RADAR_DAEMON_IDLE``
seconds without a call (default 900), when its socket is removed or replaced, when the code
under it changed (checked every 2 s), or on ``radar daemon stop``. ``radar daemon status``
tells a running daemon from a missing one and from a wedged one (its socket accepts, but no
answer comes).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import parse_qsl, urlsplit

from proximity.agent.http_hook import authorized, http_config
from proximity.agent.ownership import StateDirError, private_folder
from proximity.agent.warm import (
    DAEMON_BUDGET_S,
    FORWARDED_ENV,
    code_fingerprint,
    socket_path,
    state_dir,
)

if TYPE_CHECKING:
    from proximity.sources.git import readcache

__all__ = ["HookAnswer", "daemon_command", "daemon_status", "serve"]


class HookAnswer(Protocol):
    """What ``radar hook ARGV`` prints for a stdin: handed in by the command line (:mod:`.cli`),
    which starts the daemon, so this module does not import it back."""

    def __call__(
        self,
        argv: Sequence[str],
        stdin: str,
        *,
        budget: float | None = None,
        environ: dict[str, str] | None = None,
        cwd: str | None = None,
    ) -> str: ...


# Set once by :func:`serve`: one daemon per process answers with it on every thread.
_ANSWER: list[HookAnswer] = []

_POLL_S = 0.5
_SETTLE_S = 0.05
_MAX_BUDGET_S = 600.0  # what a caller may ask for (RADAR_HOOK_BUDGET)
_CODE_CHECK_S = 2.0
_DEFAULT_IDLE_S = 900.0
_READ_TIMEOUT_S = 2.0  # a whole request, first byte to last
_MAX_REQUEST = 9 * 1024 * 1024  # a hook's stdin is refused above 8 MiB anyway
# status and stop, asked by a person: a loaded machine (a CI run beside a replay) once kept a
# healthy daemon from answering `stop` within 2 s, which then read as wedged. No hook waits on it.
_STATUS_TIMEOUT_S = 5.0
_SLACK_S = 1.2  # a fail-closed denial after the deadline (1 s) and the reply


def _warm_up() -> None:
    """Import what the answers need, so the first call is as fast as the next."""
    import http.client  # noqa: F401

    import proximity.agent.client
    import proximity.agent.hook
    import proximity.agent.local  # noqa: F401
    from proximity.agent.session import remember_working_sets
    from proximity.sources.git import readcache

    remember_working_sets()
    watch = os.environ.get("RADAR_DAEMON_WATCH", "1").strip().lower()
    cache = readcache.install() if watch not in {"0", "off", "false", "no"} else None
    if cache is not None:
        threading.Thread(target=_refresh_loop, args=(cache,), daemon=True).start()


def _refresh_loop(cache: readcache.GitReadCache) -> None:
    """After each burst of changes, read the working sets of the repositories answered for
    lately, so a hook finds them in the cache (answering is then a lookup)."""
    from proximity.agent.session import refresh_recent

    seen = cache.sequence
    while True:
        changed = cache.wait_for_change(seen, timeout=60.0)
        if changed == seen:
            continue
        time.sleep(_SETTLE_S)  # a burst of writes (a checkout, a formatter) settles first
        seen = cache.sequence
        with contextlib.suppress(Exception):  # a bad repository never ends the loop
            refresh_recent()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True  # a call cut off at its deadline never holds the daemon's exit
    block_on_close = False

    def __init__(self, path: str) -> None:
        super().__init__(path, _Handler)
        self.started = time.monotonic()
        self.last_call = self.started
        self.served = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def count_call(self) -> None:
        with self.lock:
            self.served += 1
            self.last_call = time.monotonic()  # status calls do not keep a daemon alive


def _read_request(conn: socket.socket) -> bytes | None:
    """The request's bytes, or ``None`` when it is too large or not sent in time."""
    until = time.monotonic() + _READ_TIMEOUT_S
    chunks: list[bytes] = []
    size = 0
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(65536)
        except OSError:  # the read timeout included
            return None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > _MAX_REQUEST:
            return None
        chunks.append(chunk)


def _caller_env(request: dict[str, Any]) -> dict[str, str]:
    given = request.get("env")
    env = given if isinstance(given, dict) else {}
    return {k: v for k, v in env.items() if k in FORWARDED_ENV and isinstance(v, str)}


def _hook_reply(request: dict[str, Any]) -> dict[str, Any]:
    """``{"stdout": ...}`` for a hook call, ``{}`` for what the caller must answer itself."""
    argv, stdin, cwd = request.get("argv"), request.get("stdin"), request.get("cwd")
    if not (isinstance(argv, list) and argv[:1] == ["hook"] and isinstance(stdin, str)):
        return {}
    if not (isinstance(cwd, str) and Path(cwd).is_absolute()):
        return {}
    budget = request.get("budget")
    if isinstance(budget, bool) or not isinstance(budget, int | float) or budget <= 0:
        budget = DAEMON_BUDGET_S
    budget = min(float(budget), _MAX_BUDGET_S)
    [hook_answer] = _ANSWER
    box: dict[str, Any] = {}

    def answer() -> None:
        # SystemExit: arguments argparse refuses; the caller answers, and says why.
        with contextlib.suppress(SystemExit):
            box["stdout"] = hook_answer(
                [str(a) for a in argv], stdin, budget=budget, environ=_caller_env(request),
                cwd=cwd,
            )  # fmt: skip

    # The answer runs on a thread of its own so that this one can give up on it: git is
    # killed at the deadline, but nothing else could interrupt a call on a thread.
    worker = threading.Thread(target=answer, daemon=True)
    worker.start()
    worker.join(budget + _SLACK_S)
    return {"stdout": box["stdout"]} if "stdout" in box else {}


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        data = _read_request(self.request)
        if data is None:
            return  # too slow or too large: closed without an answer
        try:
            request = json.loads(data)
        except ValueError:
            request = None
        reply = self._answer(request) if isinstance(request, dict) else {}
        with contextlib.suppress(OSError):
            self.request.settimeout(_READ_TIMEOUT_S)
            self.request.sendall(json.dumps(reply).encode())

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        command = request.get("command")
        if command == "status":
            from proximity.sources.git import readcache

            cache = readcache.current()
            watched, unwatched = cache.coverage() if cache is not None else (0, 0)
            return {
                "pid": os.getpid(),
                "served": self.server.served,
                "uptimeSeconds": round(time.monotonic() - self.server.started, 1),
                "notifications": cache is not None,
                "watched": watched,
                "unwatched": unwatched,
            }
        if command == "stop":
            self.server.stopping.set()
            return {"stopping": True}
        reply = _hook_reply(request)
        if "stdout" in reply:
            self.server.count_call()
        return reply


class _HttpHandler(BaseHTTPRequestHandler):
    """``POST /hook/claude[?flags]`` with the hook's JSON as the body (:mod:`.http_hook`)."""

    timeout = _READ_TIMEOUT_S  # each read of a connection; the body has one budget in all
    server: _HttpServer

    def do_POST(self) -> None:
        if not authorized(self.headers.get("Authorization"), self.server.token):
            return self._send(401, b"")
        url = urlsplit(self.path)
        if url.path != "/hook/claude":
            return self._send(404, b"")
        try:
            length = int(self.headers.get("Content-Length") or "-1")
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_REQUEST:
            return self._send(413 if length > _MAX_REQUEST else 411, b"")
        body = _read_exactly(self.connection, self.rfile, length)
        if body is None:
            return self._send(408, b"")
        stdin = body.decode("utf-8", "replace")
        flags = [w for k, v in parse_qsl(url.query) if k in _HTTP_FLAGS for w in (f"--{k}", v)]
        request = {"argv": ["hook", "claude", *flags], "stdin": stdin, "cwd": _payload_cwd(stdin),
                   "env": {}, "budget": DAEMON_BUDGET_S}  # fmt: skip
        reply = _hook_reply(request)
        if "stdout" not in reply:
            return self._send(503, b"")  # Claude Code: a non-blocking error, the edit goes on
        self.server.daemon_server.count_call()
        out = reply["stdout"]
        return self._send(200, out.encode(), "application/json" if out else "text/plain")

    def _send(self, status: int, body: bytes, kind: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per edit on a closed stderr is no use


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, port: int, token: str, daemon_server: _Server) -> None:
        super().__init__(("127.0.0.1", port), _HttpHandler)
        self.token = token
        self.daemon_server = daemon_server


_HTTP_FLAGS = frozenset({"server", "repository", "token-file"})


def _read_exactly(conn: socket.socket, rfile: Any, length: int) -> bytes | None:
    until = time.monotonic() + _READ_TIMEOUT_S
    chunks: list[bytes] = []
    size = 0
    while size < length:
        left = until - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = rfile.read1(length - size)
        except OSError:
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _payload_cwd(stdin: str) -> str:
    """The payload's own ``cwd`` (absolute), else ``/``: an HTTP caller has no folder of its own."""
    try:
        cwd = json.loads(stdin).get("cwd")
    except (ValueError, AttributeError):
        return "/"
    return cwd if isinstance(cwd, str) and Path(cwd).is_absolute() else "/"


def _start_http(server: _Server) -> _HttpServer | None:
    """The HTTP endpoint when the HTTP hook is installed and its port is free (else later)."""
    config = http_config()
    if config is None:
        return None
    try:
        http = _HttpServer(config[0], config[1], server)
    except OSError:
        return None  # an older daemon still holds the port; tried again on the next poll
    threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.5},
                     daemon=True).start()  # fmt: skip
    return http


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
    _ANSWER[:] = [answer]
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
        Path(f"{path}.wedged").unlink(missing_ok=True)
        _warm_up()
        old_umask = os.umask(0o177)
        try:
            server = _Server(str(path))
        finally:
            os.umask(old_umask)
        inode = path.stat().st_ino
        server.timeout = _POLL_S
        http = _start_http(server)
        code, checked = code_fingerprint(), time.monotonic()
        with server:
            while not server.stopping.is_set():
                server.handle_request()
                http = http or _start_http(server)
                idle = time.monotonic() - server.last_call
                if idle > idle_seconds or not _same_socket(path, inode):
                    break
                if time.monotonic() - checked > _CODE_CHECK_S:
                    # New code under the same install (an upgrade, an edit): leave, and the
                    # next hook starts a daemon that runs it.
                    if code_fingerprint() != code:
                        break
                    checked = time.monotonic()
        if http is not None:
            http.shutdown()
            http.server_close()
        if _same_socket(path, inode):
            path.unlink()
    return 0


def _call(path: str, command: str) -> tuple[str, dict[str, Any] | None]:
    """``("running", reply)``, ``("missing", None)`` (no socket, or nobody listening on it) or
    ``("wedged", None)`` (the socket accepts the call, but no answer comes)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(_STATUS_TIMEOUT_S)
    try:
        try:
            conn.connect(path)
        except OSError:
            return "missing", None
        conn.sendall(json.dumps({"command": command}).encode())
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        reply = json.loads(data)
        return ("running", reply) if isinstance(reply, dict) else ("wedged", None)
    except (OSError, ValueError):
        return "wedged", None
    finally:
        conn.close()


def _holder(path: str) -> str:
    """The pid written in the socket's lock file, when a process still holds it."""
    try:
        with Path(f"{path}.lock").open(encoding="utf-8") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return ""  # nobody holds it
            except BlockingIOError:
                return lock.read().strip()
    except OSError:
        return ""


def _watching(reply: dict[str, Any]) -> str:
    if not reply.get("notifications"):
        return "file notifications off: git answers every call"
    text = f"file notifications on {reply.get('watched')} folder(s)"
    if reply.get("unwatched"):
        text += (
            f", {reply.get('unwatched')} not watchable (inotify limits: "
            "fs.inotify.max_user_instances): git answers their calls"
        )
    return text


def daemon_status() -> dict[str, Any] | None:
    """The running daemon's ``{pid, served, uptimeSeconds}``, or ``None``."""
    path = socket_path()
    return _call(path, "status")[1] if path else None


def daemon_command(action: str, *, answer: HookAnswer, socket_override: str | None = None) -> int:
    """Exit 0 running (or stopped), 1 not running, 3 wedged (it holds its socket, no answer)."""
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
    state, reply = _call(path, action)
    if state == "wedged":
        pid = _holder(path)
        print(
            f"wedged: the socket accepts calls but no answer came within {_STATUS_TIMEOUT_S:g} s"
            f" (pid {pid or 'unknown'}; `kill {pid or 'PID'}` ends it, the next hook starts "
            f"another) ({path})"
        )
        return 3
    if reply is None:
        print(f"not running ({path})")
        return 0 if action == "stop" else 1
    if action == "status":
        print(
            f"running: pid {reply.get('pid')}, {reply.get('served')} hook call(s) answered, "
            f"up {reply.get('uptimeSeconds')} s ({path}); {_watching(reply)}"
        )
    else:
        print(f"stopped ({path})")
    return 0
