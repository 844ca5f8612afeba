"""Is the state folder (and the daemon's socket in it) this user's own, and closed to others?

Acknowledgements, the hook log and the warm daemon's socket live in the state folder. In a
folder another user owns or may write to, that user could plant acknowledgements, or listen on
the socket and answer every hook in the daemon's place; such a folder is refused. A folder of
ours that others may only read (a 0755 left by an older release) is closed to 0700 on the spot.

Standard library only, and no more than a ``stat`` or two: a forwarded hook
(:mod:`proximity.agent.warm`) runs this before it connects.
"""

from __future__ import annotations

import os
import stat

__all__ = ["StateDirError", "private_folder", "private_socket"]


class StateDirError(OSError):
    """The state folder or the socket is not this user's own; the message says why, in a line."""


def private_folder(path: str) -> str:
    """``path``, created 0700 if missing; raises :class:`StateDirError` unless it is ours alone."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        info = os.stat(path)
    except OSError as exc:
        raise StateDirError(f"state folder {path}: {exc.strerror or exc}") from None
    uid = os.getuid()
    if not stat.S_ISDIR(info.st_mode):
        raise StateDirError(f"state folder {path} is not a folder; refused")
    if info.st_uid != uid:
        raise StateDirError(
            f"state folder {path} belongs to uid {info.st_uid}, not to you (uid {uid}); refused: "
            "set RADAR_STATE_DIR to a folder of your own"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022:
        raise StateDirError(
            f"state folder {path} may be written by others (mode {mode:o}); refused: "
            f"chmod 700 {path}, or set RADAR_STATE_DIR to a new folder"
        )
    if mode & 0o077:
        os.chmod(path, 0o700)  # ours and readable by others only: nobody else wrote in it
    return path


def private_socket(path: str) -> bool:
    """Is the socket at ``path`` ours, and connectable by nobody else (no group/other bits)?"""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISSOCK(info.st_mode)
        and info.st_uid == os.getuid()
        and not stat.S_IMODE(info.st_mode) & 0o077
    )
