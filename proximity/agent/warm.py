"""The hook's fast path: hand the call to the warm ``radar daemon`` when one is running.

A hook process lives for one answer, and most of that life went on importing numpy, the engine
and the HTTP client (bench/hooks.py). A daemon per state folder keeps them imported; the hook
process then only forwards its arguments, its ``RADAR_*`` settings and stdin over a Unix socket
and prints the answer. The daemon's answer is byte for byte the one the hook would have
computed itself (tests/agent/test_daemon.py).

This module is the only code a forwarded hook runs, so it imports the standard library's
smallest modules and nothing of ours. It also runs as a script, ``python -I -S
.../proximity/agent/warm.py hook HARNESS``: the interpreter's minimum start (no site-packages
scan, no ``.pth`` files); when the daemon does not answer, the script becomes ``radar`` (exec,
with ``-P``: a repository's folders never shadow our package). Every
failure here means "answer in this process": the daemon is an accelerator, never a
dependency. ``RADAR_DAEMON=0`` turns it off.

Time: a harness kills a hook after 10 s (the installed timeout). The whole hook keeps within
:data:`HOOK_BUDGET_S`: it waits for the daemon that budget less :data:`_FALLBACK_S` (the daemon
answers within the budget it is sent), and answers in this process with what is left when the
daemon does not. A daemon that let a caller down that way is skipped by every hook for
:data:`_WEDGED_PAUSE_S`, so a stopped daemon costs one slow hook, not one per edit.
"""

from __future__ import annotations

import _socket  # the C module: socket.py imports enum and selectors
import os
import sys

__all__ = [
    "FORWARDED_ENV",
    "HOOK_BUDGET_S",
    "ask",
    "enabled",
    "hook_budget",
    "read_stdin",
    "socket_path",
    "spawn",
    "state_dir",
    "write",
]

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
#: Seconds a hook may take, start to answer: below the 10 s the installed harness waits, with
#: room for a fail-closed denial (1 s) and the interpreter's start. ``RADAR_HOOK_BUDGET``
#: changes it (with the harness's timeout raised to match), e.g. for a policy
#: ``timeout_seconds`` above it, which it otherwise caps.
HOOK_BUDGET_S = 8.0
#: The daemon is waited for the budget less this; then this process answers in what is left...
_FALLBACK_S = 2.0
#: ... and asked to answer within its wait less this (a fail-closed denial, the reply).
_REPLY_S = 1.5
#: What an HTTP hook's call may take in the daemon (Claude Code waits 10 s).
DAEMON_BUDGET_S = HOOK_BUDGET_S - _FALLBACK_S - _REPLY_S
_WEDGED_PAUSE_S = 30.0
_MAX_STDIN = 8 * 1024 * 1024
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


def code_fingerprint() -> str:
    """Sizes and modification times of the code a daemon runs: a changed install changes it.

    Walking the package costs milliseconds, so only the daemon computes it (at start, then now
    and then: it leaves when the code under it changed); a forwarded hook names the socket by
    :func:`_install_stamp` alone."""
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [_install_stamp()]
    for sub in ("agent", "engine", "sources"):
        for folder, dirs, files in os.walk(os.path.join(package, sub)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    parts.append(f"{folder}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return f"{zlib.crc32(chr(0).join(parts).encode()):08x}"


def _install_stamp() -> str:
    """Which install this is: its package folder, its interpreter's folder and version (not
    sys.prefix: under -S a virtual environment's prefix is not set, and the `radar` script and
    `python -S warm.py` must find the same daemon)."""
    import zlib

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [package, os.path.dirname(os.path.abspath(sys.executable)), sys.version]
    return f"{zlib.crc32(chr(0).join(parts).encode()):08x}"


def socket_path() -> str | None:
    """Where the daemon of this state folder and this install listens (``None``: too long)."""
    folder = os.path.abspath(state_dir())
    path = os.path.join(folder, "daemon", f"radar-{_install_stamp()}.sock")
    return path if len(path.encode()) <= _MAX_SOCKET_PATH else None


def hook_budget() -> float:
    """:data:`HOOK_BUDGET_S`, or ``RADAR_HOOK_BUDGET`` when it is a positive number."""
    try:
        value = float(os.environ.get("RADAR_HOOK_BUDGET") or HOOK_BUDGET_S)
    except ValueError:
        return HOOK_BUDGET_S
    return value if value > 0 else HOOK_BUDGET_S


def _wedged(path: str) -> bool:
    """Did a hook find this daemon unanswering within the last pause?"""
    try:
        import time

        return time.time() - os.stat(path + ".wedged").st_mtime < _WEDGED_PAUSE_S
    except OSError:
        return False


def _receive(conn: _socket.socket, until: float) -> bytes:
    import time

    chunks: list[bytes] = []
    while True:
        left = until - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer in time")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _request(argv: list[str], stdin: str, budget: float) -> bytes:
    """The request as JSON, written with the C encoder alone (the json package would import
    re, and socket enum and selectors: most of a forwarded hook's start)."""
    from _json import encode_basestring_ascii as quote

    env = ",".join(f"{quote(k)}:{quote(os.environ[k])}" for k in FORWARDED_ENV if k in os.environ)
    words = ",".join(quote(str(a)) for a in argv)
    cwd = quote(os.getcwd())
    return (
        f'{{"argv":[{words}],"stdin":{quote(stdin)},"cwd":{cwd},"env":{{{env}}},'
        f'"budget":{budget!r}}}'
    ).encode()


def _stdout(reply: bytes) -> str | None:
    """``stdout`` of the daemon's ``{"stdout": "..."}`` (``json.dumps``'s own layout); ``None``
    for anything else (``{}``: answer here)."""
    from _json import scanstring

    text = reply.decode("ascii")
    head = '{"stdout": "'
    if not text.startswith(head):
        return None
    value, end = scanstring(text, len(head), True)
    return value if text[end:] == "}" else None


def _ours_alone(path: str, *, folder: bool) -> bool:
    """A folder of ours nobody else may write in, or a socket of ours nobody else may open."""
    import stat

    try:
        info = os.lstat(path)
    except OSError:
        return folder  # no state folder yet: the daemon, started below, makes it private
    mode = stat.S_IMODE(info.st_mode)
    if folder:
        return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not mode & 0o022
    return stat.S_ISSOCK(info.st_mode) and info.st_uid == os.getuid() and not mode & 0o077


def ask(argv: list[str], stdin: str) -> str | None:
    """The daemon's stdout for ``radar ARGV`` with ``stdin``; ``None``: answer here instead."""
    path = socket_path() if enabled() else None
    if path is None or _wedged(path):
        return None
    # Never a daemon someone else could answer as (proximity.agent.ownership's rules, inlined:
    # this path imports nothing of ours); the hook then answers here, and says why in its log.
    if not _ours_alone(state_dir(), folder=True) or (
        os.path.lexists(path) and not _ours_alone(path, folder=False)
    ):
        return None
    import time

    wait = max(hook_budget() - _FALLBACK_S, 1.0)
    until = time.monotonic() + wait
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(_CONNECT_TIMEOUT_S)
        try:
            conn.connect(path)
        except OSError:
            spawn(path)
            return None
        conn.settimeout(wait)
        conn.sendall(_request(argv, stdin, max(wait - _REPLY_S, 0.5)))
        conn.shutdown(_socket.SHUT_WR)
        return _stdout(_receive(conn, until))
    except TimeoutError:
        _mark_wedged(path)
        return None  # a daemon that stalls: this process answers, the next ones skip it
    except (OSError, ValueError):
        return None  # a daemon that dies mid-call: this process answers
    finally:
        conn.close()


def _mark_wedged(path: str) -> None:
    try:
        with open(path + ".wedged", "w", encoding="utf-8"):
            pass
    except OSError:
        pass


def read_stdin() -> str:
    try:
        return sys.stdin.read(_MAX_STDIN + 1)  # more is refused (hook.py) anyway
    except (OSError, UnicodeDecodeError):
        return ""


def write(out: str) -> int:
    """Print a hook's answer; always 0 (decisions travel on stdout)."""
    if out:
        sys.stdout.write(out + "\n")
    sys.stdout.flush()
    return 0


def _main(argv: list[str]) -> int:
    """``python -I -S warm.py hook HARNESS [flags]``: forward, else hand the call to ``radar``."""
    import time

    started = time.monotonic()
    stdin = read_stdin()
    out = ask(argv, stdin)
    if out is not None:
        return write(out)
    _answer_in_radar(argv, stdin, hook_budget() - (time.monotonic() - started))
    return 0  # not reached: the process became ``radar``


def _answer_in_radar(argv: list[str], stdin: str, left: float) -> None:
    """Become ``python -m proximity.agent.cli ARGV`` (exec: no second process), with the payload
    back on standard input and what is left of the budget, the daemon off (it did not answer).
    This module is imported by the agent side's foundations (state, daemon), so it never imports
    the command above them; the exec is how a forwarder falls back without an arrow back up."""
    import tempfile

    env = dict(os.environ)
    env.update({"RADAR_DAEMON": "0", "RADAR_HOOK_BUDGET": f"{max(left, 0.5):.3f}"})
    with tempfile.TemporaryFile() as held:  # unlinked: nothing left behind
        held.write(stdin.encode("utf-8", "surrogateescape"))
        held.seek(0)
        os.dup2(held.fileno(), 0)
    python = sys.executable or "python3"
    # -P: the working directory (the agent's repository) is not put on the import path
    os.execve(python, [python, "-P", "-m", "proximity.agent.cli", *argv], env)  # noqa: S606


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


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
