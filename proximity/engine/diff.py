"""Parse ``git diff --raw -p -U0`` output into per-file hunks on both sides.

Kept pure so the parser is tested on literal text; the git call lives in ``proximity.sources.git``.
Why both sides: new-side line numbers of two branches live in unrelated coordinate systems, while
base-side ranges against a common merge base are comparable (ECC-PROXIMITY.md, weakness W1).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "DiffParseError",
    "FileDiff",
    "Hunk",
    "hunk_digest",
    "parse_raw_patch",
    "unquote_c_path",
]

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_RAW = re.compile(r"^:(\d{6}) (\d{6}) ([0-9a-f]+)\.* ([0-9a-f]+)\.* ([A-Z])(\d*)\t(.*)$")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class DiffParseError(ValueError):
    """The text is not the ``--raw -p`` output this parser expects."""


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@ -base_start,base_count +new_start,new_count @@`` header, counts defaulted to 1.

    ``base_count == 0`` is an insertion after base line ``base_start``; ``new_count == 0`` a
    pure deletion after new line ``new_start``. This is git's own convention, kept verbatim.
    """

    base_start: int
    base_count: int
    new_start: int
    new_count: int
    digest: str = field(default="", compare=False)
    """A digest of the hunk's removed and added text (:func:`hunk_digest`): two branches'
    hunks at one base position with one digest are the same change, which git merges
    cleanly. Empty when the text was not read (a hunk built from line numbers alone)."""


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One changed path: git's status letter, the old path of a rename or copy, and its hunks."""

    path: str
    status: str
    old_path: str | None = None
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    worktree_dirty: bool = False
    """The raw new-side id is all zeros: when diffing against the working tree, git could not
    vouch that the file matches the index, i.e. it has unstaged edits (or is a deletion)."""

    @property
    def lines(self) -> tuple[tuple[int, int], ...]:
        """New-side inclusive ranges; a pure deletion marks the single line where it happened.

        The deletion point is kept (rather than dropped, as the reference does) so a file whose
        only change is a deletion is not mistaken for a whole-file edit (weakness W2).
        """
        out = []
        for h in self.hunks:
            if h.new_count > 0:
                out.append((h.new_start, h.new_start + h.new_count - 1))
            else:
                out.append((max(h.new_start, 1), max(h.new_start, 1)))
        return tuple(out)

    @property
    def base_hunks(self) -> tuple[tuple[int, int], ...]:
        """Base-side ``(start, count)`` pairs exactly as in git's ``-start,count`` header."""
        return tuple((h.base_start, h.base_count) for h in self.hunks)

    @property
    def hunk_ids(self) -> tuple[str, ...] | None:
        """Each base hunk's digest, in order; ``None`` unless every hunk's text was read."""
        ids = tuple(h.digest for h in self.hunks)
        return ids if ids and all(ids) else None


def hunk_digest(body: list[str]) -> str:
    """16 hex digits naming a hunk's text: its ``-``/``+`` lines and git's no-newline marks."""
    return hashlib.blake2b(
        "\n".join(body).encode("utf-8", "surrogateescape"), digest_size=8
    ).hexdigest()


def unquote_c_path(text: str) -> str:
    r"""Decode a path as git prints it: bare, or in double quotes with C escapes.

    Git quotes paths holding control characters, ``"``, ``\`` or (with ``core.quotePath``, the
    default) bytes >= 0x80, the latter as octal escapes of the UTF-8 bytes. Undecodable bytes
    are kept as surrogate escapes so the path round-trips to the file system.
    """
    if len(text) < 2 or not (text.startswith('"') and text.endswith('"')):
        return text
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1 : i + 2] in _ESCAPES:
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        elif re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise DiffParseError(f"bad escape in quoted path {text!r}")
    return out.decode("utf-8", "surrogateescape")


@dataclass(slots=True)
class _Raw:
    status: str
    path: str
    old_path: str | None
    dirty: bool = False


def _parse_raw_line(line: str) -> _Raw:
    m = _RAW.match(line)
    if m is None:
        raise DiffParseError(f"not a --raw line: {line!r}")
    parts = m.group(7).split("\t")
    status = m.group(5)
    dirty = not m.group(4).strip("0")
    if status in "RC":
        if len(parts) != 2:
            raise DiffParseError(f"rename/copy without two paths: {line!r}")
        return _Raw(status, unquote_c_path(parts[1]), unquote_c_path(parts[0]), dirty)
    return _Raw(status, unquote_c_path(parts[0]), None, dirty)


def _sections(lines: list[str], start: int) -> Iterator[list[str]]:
    """Yield each ``diff --git`` section of the patch part."""
    current: list[str] | None = None
    for line in lines[start:]:
        if line.startswith("diff --git "):
            if current is not None:
                yield current
            current = [line]
        elif current is not None:
            current.append(line)
    if current is not None:
        yield current


def _header_path(header: str) -> str:
    """The path of ``diff --git a/X b/X`` when both sides are equal (no rename)."""
    rest = header[len("diff --git ") :]
    if rest.startswith('"'):
        first_end = rest.index('" ', 1) + 1
        return unquote_c_path(rest[:first_end])[2:]
    return rest[2 : 2 + (len(rest) - 5) // 2]


def _section_path(section: list[str]) -> str:
    """New path of a section (old path for a deletion), from its least ambiguous line."""
    minus = plus = None
    for line in section[1:]:
        if line.startswith(("rename to ", "copy to ")):
            return unquote_c_path(line.split(" to ", 1)[1])
        # git ends a ---/+++ name holding a space with a tab (for GNU patch); a real tab in a
        # name is always quoted, so stripping one is safe
        if line.startswith("--- ") and minus is None:
            minus = unquote_c_path(line[4:].removesuffix("\t"))
        elif line.startswith("+++ ") and plus is None:
            plus = unquote_c_path(line[4:].removesuffix("\t"))
        elif line.startswith("@@"):
            break
    if plus is not None and plus != "/dev/null":
        return plus[2:]
    if minus is not None and minus != "/dev/null":
        return minus[2:]
    return _header_path(section[0])


def _section_hunks(section: list[str]) -> tuple[list[Hunk], bool]:
    heads: list[tuple[int, int, int, int]] = []
    bodies: list[list[str]] = []
    binary = False
    for line in section[1:]:
        m = _HUNK.match(line)
        if m is not None:
            b_start, b_count, n_start, n_count = m.groups()
            heads.append(
                (
                    int(b_start),
                    1 if b_count is None else int(b_count),
                    int(n_start),
                    1 if n_count is None else int(n_count),
                )
            )
            bodies.append([])
        elif heads and line[:1] in ("-", "+", "\\"):
            bodies[-1].append(line)
        elif not heads and line.startswith(("Binary files ", "GIT binary patch")):
            binary = True
    hunks = [
        Hunk(*head, digest=hunk_digest(body)) for head, body in zip(heads, bodies, strict=True)
    ]
    return hunks, binary


def parse_raw_patch(text: str) -> tuple[FileDiff, ...]:
    """Parse ``git diff --raw -p -U0 -M --src-prefix=a/ --dst-prefix=b/`` output.

    The raw part gives exact statuses (including ``T``, ``U`` and rename scores) and both paths;
    the patch part gives the hunks, matched to raw entries by path. A type change is printed as
    two sections (deletion, then creation) of one path, and both are folded into its entry.
    """
    lines = text.split("\n")
    raws = []
    i = 0
    while i < len(lines) and lines[i].startswith(":"):
        raws.append(_parse_raw_line(lines[i]))
        i += 1
    by_path: dict[str, tuple[list[Hunk], bool]] = {}
    for section in _sections(lines, i):
        hunks, binary = _section_hunks(section)
        old = by_path.get(_section_path(section), ([], False))
        by_path[_section_path(section)] = (old[0] + hunks, old[1] or binary)
    out = []
    for raw in raws:
        hunks, binary = by_path.get(raw.path, ([], False))
        out.append(FileDiff(raw.path, raw.status, raw.old_path, tuple(hunks), binary, raw.dirty))
    return tuple(out)
