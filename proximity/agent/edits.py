"""What an edit is about to change, computed before it happens.

Each harness describes an edit differently (a string to replace, a whole new file, a patch
envelope, a shell command); this module turns each into :class:`PlannedEdit` values: an
absolute path and the current-file lines about to change (``None`` for the whole file).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proximity.sources.limits import MAX_READ_BYTES, read_bounded

__all__ = [
    "PatchFile",
    "PlannedEdit",
    "lines_of_replacement",
    "parse_apply_patch",
    "planned_replacement",
    "shell_writes",
    "unchanged_ends",
]

Range = tuple[int, int]
_EXCERPT = 240


@dataclass(frozen=True, slots=True)
class PlannedEdit:
    """One file an edit is about to change.

    ``lines`` are 1-based inclusive ranges of the file as it is now; ``None`` means the whole
    file (a new file, a rewrite, a deletion, or text that could not be located). An empty range
    ``(k + 1, k)`` is an insertion point: text goes in after line ``k`` and no line changes
    (git's ``-k,0``), which is how git's merge will see it.
    """

    path: str
    lines: tuple[Range, ...] | None = None
    kind: str = "edit"
    excerpt: str = ""
    content: str | None = field(default=None, repr=False)
    """The file's whole text after the edit, when it is known: a ``Write``'s content, or an
    ``Edit`` whose strings were all located and given (applied in order, as the harness does).
    The mainline drift check clears an edit that leaves the file as the mainline has it."""


def _read(path: str) -> tuple[bool, str | None]:
    """``(exists, text)``; the text is ``None`` for a file not read: too large, unreadable, or
    no regular file (a FIFO or a device would block or never end), so the edit is whole-file."""
    try:
        # A file above the bound is not read to locate an edit: the whole file is the region.
        data = read_bounded(path, MAX_READ_BYTES, follow=True)
    except FileNotFoundError:
        return False, None
    except OSError:
        return True, None
    return True, None if data is None else data.decode("utf-8", "surrogateescape")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def lines_of_replacement(text: str, old: str, *, replace_all: bool = False) -> list[Range] | None:
    """Line ranges ``old`` occupies in ``text`` (every occurrence with ``replace_all``).

    ``None`` when ``old`` is empty or absent: the caller then treats the edit as whole-file,
    never as "nothing to check".
    """
    if not old:
        return None
    out: list[Range] = []
    start = text.find(old)
    while start >= 0:
        first = _line_of(text, start)
        last = first + old.count("\n") - (1 if old.endswith("\n") else 0)
        out.append((first, max(first, last)))
        if not replace_all:
            break
        start = text.find(old, start + len(old))
    return out or None


def unchanged_ends(old: str, new: str, *, starts_line: bool = False) -> tuple[int, int]:
    """Whole lines ``old`` and ``new`` share at their start and at their end.

    A harness's replacement carries context so the old text is unique; those lines do not
    change, and counting them would meet neighbours git merges cleanly. A leading piece counts
    only when it ends a line; a trailing one only when a line starts with it (not the first
    piece, unless ``old`` starts a line of the file), so a line ``old`` covers in part is kept
    as changed unless it is the same in both.
    """
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    first = 0 if starts_line else 1
    lead = 0
    while lead < min(len(a), len(b)) and a[lead] == b[lead] and a[lead].endswith("\n"):
        lead += 1
    trail = 0
    while (
        trail < min(len(a), len(b)) - lead
        and a[-1 - trail] == b[-1 - trail]
        and len(a) - 1 - trail >= first
        and len(b) - 1 - trail >= first
    ):
        trail += 1
    return lead, trail


def _changed(found: Range, lead: int, trail: int) -> Range:
    first, last = found
    if first + lead > last - trail:  # nothing of old changes: an insertion point
        return (first + lead, first + lead - 1)
    return (first + lead, last - trail)


def planned_replacement(path: str, pairs: Iterable[tuple[Any, ...]]) -> PlannedEdit:
    """An edit replacing each ``(old_string, replace_all[, new_string])`` in the file at ``path``.

    The union of every located range, narrowed to the lines the new string changes when it is
    given; one string that cannot be located makes the whole file the planned region (the
    harness will apply it somewhere we cannot see).
    """
    listed = [tuple(p) for p in pairs]
    exists, text = _read(path)
    if text is None:
        return PlannedEdit(path, None, "edit" if exists else "create", _excerpt(listed))
    ranges: list[Range] = []
    after: str | None = text
    for old, replace_all, *rest in listed:
        found = lines_of_replacement(text, old, replace_all=bool(replace_all))
        if found is None:
            return PlannedEdit(path, None, "edit", _excerpt(listed))
        new = rest[0] if rest and isinstance(rest[0], str) else None
        after = _applied(after, old, new, bool(replace_all))
        if new is None or new == old:
            ranges.extend(found)
            continue
        at = text.find(old)
        lead, trail = unchanged_ends(old, new, starts_line=at == 0 or text[at - 1] == "\n")
        ranges.extend(_changed(r, lead, trail) for r in found)
    lines = tuple(sorted(set(ranges))) or None
    return PlannedEdit(path, lines, "edit", _excerpt(listed), content=after)


def _applied(text: str | None, old: object, new: str | None, replace_all: bool) -> str | None:
    """``text`` after one replacement, or ``None`` once it cannot be told."""
    if text is None or new is None or not isinstance(old, str) or not old or old not in text:
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def _excerpt(pairs: Sequence[tuple[Any, ...]]) -> str:
    return str(pairs[0][0])[:_EXCERPT] if pairs else ""


@dataclass(frozen=True, slots=True)
class PatchFile:
    """One file of a Codex ``apply_patch`` envelope and the old-side lines of its hunks."""

    action: str  # "update" | "add" | "delete"
    path: str
    move_to: str | None = None
    old_chunks: tuple[tuple[str | None, tuple[str, ...]], ...] = field(default_factory=tuple)


_HEADER = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+)$")
_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")


def parse_apply_patch(patch: str) -> list[PatchFile]:
    """Parse the ``*** Begin Patch`` envelope Codex's ``apply_patch`` tool sends.

    For an update, each ``@@`` chunk keeps its optional context header and the lines that
    exist before the patch (context `` `` and removed ``-`` lines), which is what must be found
    in the current file to know where the chunk lands.
    """
    files: list[PatchFile] = []
    action = path = move = None
    chunks: list[tuple[str | None, list[str]]] = []

    def flush() -> None:
        if action is not None and path is not None:
            kept = tuple((h, tuple(lines)) for h, lines in chunks if lines or h)
            files.append(PatchFile(action.lower(), path.strip(), move, kept))

    for line in patch.splitlines():
        header = _HEADER.match(line)
        if header:
            flush()
            action, path, move, chunks = header.group(1), header.group(2), None, []
            continue
        moved = _MOVE.match(line)
        if moved and action == "Update":
            move = moved.group(1).strip()
        elif line.startswith("@@") and action == "Update":
            chunks.append((line[2:].strip() or None, []))
        elif action == "Update" and line[:1] in {" ", "-"}:
            if not chunks:
                chunks.append((None, []))
            chunks[-1][1].append(line[1:])
        elif action == "Update" and line == "" and chunks:
            chunks[-1][1].append("")
    flush()
    return files


def patch_edit(root: str, item: PatchFile) -> list[PlannedEdit]:
    """The planned edits of one patch file (a move plans both the old and the new path)."""
    path = str(Path(root, item.path))
    if item.action == "add":
        return [PlannedEdit(path, None, "create")]
    if item.action == "delete":
        return [PlannedEdit(path, None, "delete")]
    _, text = _read(path)
    ranges = _chunk_ranges(text, item.old_chunks) if text is not None else None
    excerpt = "\n".join(item.old_chunks[0][1])[:_EXCERPT] if item.old_chunks else ""
    edits = [PlannedEdit(path, ranges, "edit", excerpt)]
    if item.move_to:
        edits = [
            PlannedEdit(path, None, "move", excerpt),
            PlannedEdit(str(Path(root, item.move_to)), None, "create"),
        ]
    return edits


def _chunk_ranges(
    text: str, chunks: Sequence[tuple[str | None, tuple[str, ...]]]
) -> tuple[Range, ...] | None:
    """Where each chunk's old lines sit, searched in order like ``apply_patch`` does."""
    lines = text.split("\n")
    cursor, out = 0, []
    for context, old in chunks:
        if context:
            at = next((k for k in range(cursor, len(lines)) if context in lines[k]), None)
            if at is None:
                return None
            cursor = at + 1
        if not old:
            out.append((cursor + 1, cursor + 1))
            continue
        at = _find_block(lines, list(old), cursor)
        if at is None:
            return None
        out.append((at + 1, at + len(old)))
        cursor = at + len(old)
    return tuple(out) or None


def _find_block(lines: list[str], block: list[str], start: int) -> int | None:
    stripped = [b.rstrip() for b in block]
    for k in range(start, len(lines) - len(block) + 1):
        if all(lines[k + n].rstrip() == stripped[n] for n in range(len(block))):
            return k
    return None


# Shell commands that write files: best effort, and what is not recognised is said so.
_REDIRECT = re.compile(r"^(\d?>>?|&>>?|>\|)(.*)$")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})


def _segments(command: str) -> list[list[str]]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    out: list[list[str]] = [[]]
    for token in lexer:
        if token in _SEPARATORS or set(token) <= set(";&|"):
            out.append([])
        else:
            out[-1].append(token)
    return [s for s in out if s]


def _redirect_targets(words: list[str]) -> tuple[list[str], list[str]]:
    """(targets of ``>``/``>>`` redirections, the words that are not redirections)."""
    targets, rest = [], []
    k = 0
    while k < len(words):
        word = words[k]
        found = _REDIRECT.match(word)
        if found and not word.startswith(">&") and "&" not in found.group(2)[:1]:
            target = found.group(2) or (words[k + 1] if k + 1 < len(words) else "")
            k += 1 if found.group(2) else 2
            if target and target != "/dev/null":
                targets.append(target)
            continue
        rest.append(word)
        k += 1
    return targets, rest


def _operands(words: list[str]) -> list[str]:
    return [w for w in words[1:] if not w.startswith("-")]


def _sed_files(words: list[str]) -> list[str]:
    if not any(
        w == "-i" or (w.startswith("-i") and not w.startswith("--")) or w.startswith("--in-place")
        for w in words[1:]
    ):
        return []
    out, skip_script = [], True
    k = 1
    while k < len(words):
        w = words[k]
        if w in {"-e", "-f", "--expression", "--file"}:
            skip_script = False
            k += 2
            continue
        if w.startswith("-"):
            k += 1
            continue
        if skip_script:
            skip_script = False
        else:
            out.append(w)
        k += 1
    return out


def _git_writes(words: list[str]) -> list[tuple[str, str]] | None:
    args = [w for w in words[1:] if not w.startswith("-C")]
    if not args:
        return None
    verb, rest = args[0], args[1:]
    if verb == "mv":
        ops = _operands(["mv", *rest])
        return [(p, "move") for p in ops[:-1]] + [(ops[-1], "create")] if len(ops) >= 2 else []
    if verb == "rm":
        return [(p, "delete") for p in _operands(["rm", *rest])]
    if verb in {"checkout", "restore"} and "--" in rest:
        return [(p, "edit") for p in rest[rest.index("--") + 1 :]]
    if verb == "restore":
        return [(p, "edit") for p in _operands(["restore", *rest])]
    return None


def _segment_writes(words: list[str]) -> tuple[list[tuple[str, str]], bool]:
    """(paths written with their kind, whether the command itself was understood)."""
    targets, words = _redirect_targets(words)
    writes = [(t, "edit") for t in targets]
    if not words:
        return writes, True
    name = Path(words[0]).name
    if name == "tee":
        writes += [(p, "edit") for p in _operands(words)]
    elif name == "sed":
        writes += [(p, "edit") for p in _sed_files(words)]
    elif name in {"mv", "cp"}:
        ops = _operands(words)
        if len(ops) >= 2:
            kind = "move" if name == "mv" else None
            writes += [(p, kind) for p in ops[:-1] if kind] + [(ops[-1], "create")]
    elif name in {"rm", "unlink"}:
        writes += [(p, "delete") for p in _operands(words)]
    elif name in {"touch", "truncate"}:
        writes += [(p, "edit") for p in _operands(words) if not p[:1].isdigit()]
    elif name == "git":
        found = _git_writes(words)
        if found is None:
            return writes, True  # other git verbs do not write working files we track
        writes += found
    elif name in {"perl", "ruby"} and any(w.startswith("-i") or w == "-pi" for w in words):
        return writes, False
    return writes, True


def shell_writes(command: str, cwd: str) -> tuple[list[PlannedEdit], list[str]]:
    """Files a shell command would write, as whole-file planned edits, and what was not read.

    Recognised: ``>``/``>>`` redirections, ``tee``, ``sed -i``, ``mv``, ``cp``, ``rm``,
    ``touch``, ``git mv``/``rm``/``checkout -- PATH``/``restore``. Not recognised (listed in
    the second value so the caller can log it): interpreters editing in place (``perl -i``),
    scripts, ``xargs``, ``find -exec`` and anything built by substitution.
    """
    try:
        segments = _segments(command)
    except ValueError:
        return [], [command[:120]]
    edits: list[PlannedEdit] = []
    unread: list[str] = []
    for words in segments:
        writes, understood = _segment_writes(words)
        if not understood:
            unread.append(" ".join(words)[:120])
        for target, kind in writes:
            if any(ch in target for ch in "$`*?"):
                unread.append(target)
                continue
            edits.append(PlannedEdit(str(Path(cwd, target)), None, kind))
    return edits, unread
