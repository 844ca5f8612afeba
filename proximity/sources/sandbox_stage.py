"""The first process inside a test run's namespaces: set the sandbox up, drop every privilege,
run the repository's command, and stay as the namespace's init until that command ends.

Run by :mod:`proximity.sources.sandbox` as ``python -I -S sandbox_stage.py SPEC`` under
``unshare`` (new mount, PID, network, IPC and UTS namespaces, plus a user namespace when the
worker is not root). Standard library only, and never imported by the server: it is a script.
As (namespace) root it makes every mount read-only, puts a fresh tmpfs on /tmp, /var/tmp, /dev/shm
and /run, binds the run's folders into /tmp (only the scratch folder writable), brings the
namespace's own loopback up, then forks the command with no capabilities, ``no_new_privs``
and the sandbox user's ids. When the command exits this process exits with its status, and
the kernel kills whatever else is left in the PID namespace: nothing the tests started
(``setsid`` or not) outlives the run.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import socket
import struct
import sys
import warnings  # noqa: F401 - os.execvpe imports it lazily, once the stdlib may be out of reach
from pathlib import Path
from typing import Any

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

MS_NOSUID, MS_NODEV, MS_BIND, MS_REC = 0x2, 0x4, 0x1000, 0x4000
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY = 0x1
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (new-style syscall table)
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_DUMPABLE = 38, 24, 4
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _check(result: int, what: str) -> None:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    enc = [x.encode() if x is not None else None for x in (source, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def _read_only(target: str, on: bool) -> None:
    attr = _MountAttr(MOUNT_ATTR_RDONLY if on else 0, 0 if on else MOUNT_ATTR_RDONLY, 0, 0)
    _check(
        _libc.syscall(
            ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), target.encode(),
            ctypes.c_uint(AT_RECURSIVE), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
        ),
        f"mount_setattr {target}",
    )  # fmt: skip


def _loopback_up() -> None:
    """The namespace's own ``lo`` (it starts down): the tests' local servers work, and reach
    nothing of the host."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def _setup(spec: dict[str, Any]) -> None:
    held = [(os.open(src, os.O_PATH), dst, rw) for src, dst, rw in spec["binds"]]
    _read_only("/", True)
    for folder in spec["tmpfs"]:
        if Path(folder).is_dir():
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, spec["tmpfs_options"])
    for fd, dst, rw in held:
        if Path(f"/proc/self/fd/{fd}").is_dir():
            Path(dst).mkdir(mode=0o755, parents=True, exist_ok=True)
        else:  # a file's mount point
            Path(dst).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            Path(dst).touch()
        _mount(f"/proc/self/fd/{fd}", dst, None, MS_BIND | MS_REC, None)
        _read_only(dst, not rw)
        os.close(fd)
    _loopback_up()


def _drop(spec: dict[str, Any]) -> None:
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    cap = 0
    while _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1  # until EINVAL: past the last capability this kernel knows
    if spec.get("uid") is not None:
        os.setgroups([])
        os.setresgid(spec["gid"], spec["gid"], spec["gid"])
        os.setresuid(spec["uid"], spec["uid"], spec["uid"])


def main() -> int:
    spec = json.loads(sys.argv[1])
    try:
        _setup(spec)
    except OSError as exc:
        print(f"sandbox: {exc.strerror or exc}", file=sys.stderr)
        return 125
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # this init's memory and /proc stay closed
    child = os.fork()
    if child == 0:
        where = spec["cwd"]
        try:
            _drop(spec)
            os.chdir(where)
            where = spec["argv"][0]
            os.execvpe(where, spec["argv"], spec["env"])  # noqa: S606 - no shell wanted
        except OSError as exc:
            print(f"sandbox: {where}: {exc.strerror or exc}", file=sys.stderr)
        os._exit(127)
    while True:  # reap orphans until the command itself ends
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code  # killed by a signal: 128 + its number


if __name__ == "__main__":
    sys.exit(main())
