"""The hook's fast path: hand the call to the warm ``radar daemon`` when one is running.

A hook process lives for one answer, and most of that life went on importing numpy, the engine
and the HTTP client (bench/hooks.py). A daemon per state folder keeps them imported; the hook
process then only forwards its arguments, its ``RADAR_*`` settings and stdin over a Unix socket
and prints the answer. The daemon reads the worktrees afresh for every call (nothing about the
airspace is cached), so its answer is the one the hook would have computed itself.

This module is the only code a forwarded hook runs, so it imports the standard library's
smallest modules and nothing of ours. Every failure here means "answer in this process": the
daemon is an accelerator, never a dependency. ``RADAR_DAEMON=0`` turns it off.
"""

from __future__ import annotations

import json
import os
import socket
import sys

__all__ = ["FORWARDED_ENV", "ask", "enabled", "socket_path", "spawn", "state_dir"]

#: The settings a hook reads from its environment, sent with each call (the daemon's own
#: environment is the first caller's, so each call brings its own).
FORWARDED_ENV = (
    "RADAR_SERVER",
    "RADAR_TOKEN",
    "RADAR_TOKEN_FILE",
    "RADAR_REPOSITORY",
    "XDG_CONFIG_HOME",  # where the user's own config is (proximity.agent.config)
)
_CONNECT_TIMEOUT_S = 0.25
# Past the daemon's own deadlines (10 s to read the policy, then the policy's timeout), so a
# slow answer is the daemon's fail-open or fail-closed one, not ours.
_ANSWER_TIMEOUT_S = 15.0
_SPAWN_PAUSE_S = 10.0  # one start attempt per pause, so a daemon that cannot start costs little
_MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux


def enabled() -> bool:
    return os.environ.get("RADAR_DAEMON", "1").strip().lower() not in {"0", "off", "false", "no"}


def state_dir() -> str:
    """``$RADAR_STATE_DIR``, else ``$XDG_STATE_HOME/overlap-radar`` (see :mod:`.state`)."""
    explicit = os.environ.get("RADAR_STATE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "overlap-radar")


def _code_stamp() -> str:
    """Sizes and modification times of the code a daemon runs: a changed install gets a new one."""
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [sys.prefix, sys.version]
    for sub in ("agent", "engine", "sources"):
        for folder, dirs, files in os.walk(os.path.join(package, sub)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    parts.append(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return f"{zlib.crc32(chr(0).join(parts).encode()):08x}"


def socket_path() -> str | None:
    """Where the daemon of this state folder and this install listens (``None``: too long)."""
    folder = os.path.abspath(state_dir())
    path = os.path.join(folder, "daemon", f"radar-{_code_stamp()}.sock")
    return path if len(path.encode()) <= _MAX_SOCKET_PATH else None


def ask(argv: list[str], stdin: str) -> str | None:
    """The daemon's stdout for ``radar ARGV`` with ``stdin``; ``None``: answer here instead."""
    path = socket_path() if enabled() else None
    if path is None:
        return None
    from proximity.agent.ownership import StateDirError, private_folder, private_socket

    try:
        private_folder(state_dir())
    except StateDirError:
        return None  # answered (and the refusal logged) in this process
    if os.path.lexists(path) and not private_socket(path):
        return None  # a socket someone else could answer on: never asked
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(_CONNECT_TIMEOUT_S)
        try:
            conn.connect(path)
        except OSError:
            spawn(path)
            return None
        request = {
            "argv": argv,
            "stdin": stdin,
            "cwd": os.getcwd(),
            "env": {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ},
        }
        conn.settimeout(_ANSWER_TIMEOUT_S)
        conn.sendall(json.dumps(request).encode())
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        reply = json.loads(b"".join(chunks))
        out = reply.get("stdout") if isinstance(reply, dict) else None
        return out if isinstance(out, str) else None
    except (OSError, ValueError):
        return None  # a daemon that dies or stalls mid-call: this process answers
    finally:
        conn.close()


def spawn(path: str) -> None:
    """Start a daemon for next time, detached; at most one attempt per pause."""
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        marker = path + ".started"
        try:
            import time

            if time.time() - os.stat(marker).st_mtime < _SPAWN_PAUSE_S:
                return
        except FileNotFoundError:
            pass
        with open(marker, "w", encoding="utf-8"):
            pass
        import subprocess

        subprocess.Popen(
            [sys.executable, "-m", "proximity.agent.cli", "daemon", "run", "--socket", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass
