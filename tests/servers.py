"""Run a command with throwaway PostgreSQL and Redis when DATABASE_URL / REDIS_URL are unset.

``python -m tests.servers pytest ...`` is what ``make test`` runs: the suite always talks to real
servers, started here from the installed binaries on free loopback ports and removed afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = ["main", "throwaway_postgres", "throwaway_redis"]


class MissingServerError(Exception):
    pass


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _postgres_bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), reverse=True)
    if not candidates:
        raise MissingServerError(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: "
            "install the Debian package 'postgresql'"
        )
    return candidates[0].parent


def _as_postgres_user() -> list[str]:
    # initdb refuses to run as root; CI runs as root, so drop to the packaged postgres user.
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise MissingServerError("running as root needs the 'postgres' system user") from None
    return ["runuser", "-u", "postgres", "--"]


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    bindir = _postgres_bindir()
    prefix = _as_postgres_user()
    root = Path(tempfile.mkdtemp(prefix="radar-pg-"))
    if prefix:
        shutil.chown(root, user="postgres")
    data, port = root / "data", _free_port()
    # cwd=root: the postgres user cannot enter the caller's folder (a root-only temp dir in CI).
    run = functools.partial(subprocess.run, check=True, stdout=subprocess.DEVNULL, cwd=root)
    run(
        [
            *prefix,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        ],
    )
    options = (
        f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    )
    run(
        [
            *prefix,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        ],
    )
    try:
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False,
            stdout=subprocess.DEVNULL,
            cwd=root,
        )
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def throwaway_redis() -> Iterator[str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise MissingServerError(
            "redis-server not found: install the Debian package 'redis-server'"
        )
    port = _free_port()
    proc = subprocess.Popen(  # fixed argument list, no shell
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, proc)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _wait_for_port(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise MissingServerError(f"redis-server exited with status {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise MissingServerError("redis-server did not start within 20 s")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m tests.servers COMMAND [ARGS...]", file=sys.stderr)
        return 2
    env = os.environ.copy()
    try:
        with contextlib.ExitStack() as stack:
            if not env.get("DATABASE_URL"):
                env["DATABASE_URL"] = stack.enter_context(throwaway_postgres())
                print(f"test servers: throwaway PostgreSQL at {env['DATABASE_URL']}", flush=True)
            if not env.get("REDIS_URL"):
                env["REDIS_URL"] = stack.enter_context(throwaway_redis())
                print(f"test servers: throwaway Redis at {env['REDIS_URL']}", flush=True)
            return subprocess.call(argv, env=env)  # the caller's own command
    except MissingServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except subprocess.CalledProcessError as exc:
        print(f"error: could not start a test server: {exc}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
