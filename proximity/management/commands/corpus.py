"""``manage.py corpus export|import``: the desk's labels as a labelled corpus (JSONL).

``export [--out FILE] [--scope S ...]`` writes every labelled pair (all its judgements, scores
never included); ``import FILE [--dry-run]`` stores a corpus's judgements on the advisories that
raised its pairs, all or nothing, and re-importing the same corpus changes nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.exceptions import DomainError
from proximity.services.corpus import corpus_export, corpus_import


class Command(BaseCommand):
    help = "Export the adjudication labels as a JSONL corpus, or import one."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        export = actions.add_parser("export", help="write the labelled pairs")
        export.add_argument("--out", default="-", help="file to write (default: standard output)")
        export.add_argument(
            "--scope", action="append", default=None, help="keep pairs within this scope"
        )
        load = actions.add_parser("import", help="store a corpus's judgements")
        load.add_argument("file", help="a corpus written by export (- for standard input)")
        load.add_argument("--dry-run", action="store_true", help="check everything, store nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "export":
            self._export(options["out"], options["scope"])
        else:
            self._import(options["file"], options["dry_run"])

    def _export(self, out: str, scopes: list[str] | None) -> None:
        text = corpus_export(scopes=scopes)
        if out == "-":
            self.stdout.write(text, ending="")
            return
        target = Path(out)
        if not target.parent.is_dir():
            raise CommandError(f"--out: folder {target.parent} does not exist")
        target.write_text(text, encoding="utf-8")
        self.stderr.write(f"wrote {text.count(chr(10))} labelled pairs to {target}")

    def _import(self, name: str, dry_run: bool) -> None:
        if name == "-":
            text = sys.stdin.read()
        else:
            path = Path(name)
            if not path.is_file():
                raise CommandError(f"file: {name} does not exist")
            text = path.read_text(encoding="utf-8")
        try:
            outcome = corpus_import(text, dry_run=dry_run)
        except DomainError as exc:
            raise CommandError(exc.message) from exc
        verb = "would add" if dry_run else "added"
        self.stdout.write(
            f"{outcome.pairs} pairs: {verb} {outcome.added} judgements, "
            f"{outcome.unchanged} already stored"
        )
