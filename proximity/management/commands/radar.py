"""``manage.py radar``: read every worktree of a repository and report advisories. Read-only.

``radar scan --repo PATH [--base main] [--profile radar-v1-symbols] [--json]`` prints the
advisories as a table (or the engine's JSON). ``radar check FILE [--agent ID]`` answers an agent
hook's "may I edit FILE?": exit 0 when clear, 2 with one line per other agent when there is an
advisory. With a profile that has the symbol channel, symbols are read as the agent's own check
reads them (:mod:`proximity.sources.symbols.local`), so both give one answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from proximity.engine.airspace import DEFAULT_PROFILE, PROFILES, AirspaceInputError, scan
from proximity.sources.git import GitError
from proximity.sources.git.airspace import RepoAirspace, read_repository_airspace
from proximity.sources.radar_files import repository_ignore_globs

if TYPE_CHECKING:
    from proximity.engine.symbols import SymbolData

EXIT_ADVISORY = 2


def _ranges(lines: list[list[int]] | None) -> str:
    if not lines:
        return "the whole file"
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in lines]
    return "lines " + ", ".join(parts)


def _channels(channels: dict[str, float]) -> str:
    top = sorted(((v, k) for k, v in channels.items() if v > 0), reverse=True)[:3]
    return ", ".join(f"{k} {v:.2f}" for v, k in top) or "-"


class Command(BaseCommand):
    help = "Read all worktrees of a repository and report collision advisories (read-only)."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False
    _symbols: SymbolData | None = None

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        for name in ("scan", "check"):
            p = sub.add_parser(name)
            p.add_argument("--repo", default=".", help="any folder of the repository (default .)")
            p.add_argument("--base", default="main", help="base branch (default main)")
            p.add_argument("--profile", default=DEFAULT_PROFILE, choices=sorted(PROFILES))
            p.add_argument("--no-graph", action="store_true", help="skip the import graph")
            p.add_argument("--now", help="ISO-8601 instant to score at (default: the clock)")
        sub.choices["scan"].add_argument("--json", action="store_true", help="engine JSON")
        sub.choices["scan"].add_argument(
            "--no-conflicts", action="store_true", help="skip the dry-run merges"
        )
        sub.choices["check"].add_argument("file", help="the file the agent wants to edit")
        sub.choices["check"].add_argument("--agent", help="asking agent (default: from the path)")

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            read = read_repository_airspace(
                o["repo"],
                base=o["base"],
                graph=not o["no_graph"],
                conflicts=o["action"] == "scan" and not o["no_conflicts"],
                ignore=repository_ignore_globs(o["repo"], base=o["base"]),
            )
        except GitError as exc:
            raise CommandError(str(exc)) from exc
        for problem in read.problems:
            self.stderr.write(f"problem: {problem}")
        self._symbols = self._read_symbols(read, o)
        if o["action"] == "scan":
            self._scan(read, o)
        else:
            self._check(read, o)

    def _read_symbols(self, read: RepoAirspace, o: dict[str, Any]) -> SymbolData | None:
        """The symbol channel's input, read as the agent's hook reads it (one answer)."""
        if "symbol" not in PROFILES[o["profile"]].channels:
            return None
        from proximity.sources.symbols.local import local_symbols

        try:
            symbols = local_symbols(o["repo"], read.working_sets)
        except GitError as exc:
            self.stderr.write(f"problem: symbols not read ({exc})")
            return None
        for problem in symbols.problems:
            if problem not in read.problems:
                self.stderr.write(f"problem: {problem}")
        return symbols.data

    def _run(self, airspace: dict[str, Any], profile: str) -> dict[str, Any]:
        try:
            return scan(airspace, profile=profile, symbols=self._symbols)
        except AirspaceInputError as exc:
            raise CommandError(f"engine refused the airspace: {exc}") from exc

    def _options(self, o: dict[str, Any]) -> dict[str, Any]:
        return {"now": o["now"]} if o["now"] else {}

    def _scan(self, read: RepoAirspace, o: dict[str, Any]) -> None:
        result = self._run(read.to_airspace(**self._options(o)), o["profile"])
        if o["json"]:
            self.stdout.write(json.dumps(result, indent=2, ensure_ascii=False))
            return
        conflicts = {
            frozenset((c.a, c.b)): c.files for c in (read.dry_run.conflicts if read.dry_run else ())
        }
        self.stdout.write(
            f"{'LEVEL':<11} {'RISK':>5}  {'A':<20} {'B':<20} {'CHANNELS':<40} CONFLICT"
        )
        for adv in result["advisories"]:
            files = ", ".join(conflicts.get(frozenset((adv["a"], adv["b"])), ()))
            self.stdout.write(
                f"{adv['level']:<11} {adv['risk']:>5.2f}  {adv['a']:<20} {adv['b']:<20} "
                f"{_channels(adv['channels']):<40} {files or '-'}"
            )
        counts = result["counts"]
        self.stdout.write(
            f"{counts['agents']} agents, {counts['advisories']} advisories, "
            f"{counts['resolutions']} resolutions"
        )

    def _asker(self, read: RepoAirspace, o: dict[str, Any]) -> tuple[str, str]:
        """(agent id, repository-relative path) of the hook's question."""
        target = (Path.cwd() / o["file"]).resolve()  # an absolute FILE replaces the cwd
        by_id = {ws.agent_id: ws for ws in read.working_sets}
        if o["agent"]:
            if o["agent"] not in by_id:
                raise CommandError(f"--agent {o['agent']!r}: no such worktree agent")
            owner = by_id[o["agent"]]
        else:
            owners = [
                ws for ws in read.working_sets if target.is_relative_to(Path(ws.path).resolve())
            ]
            if not owners:
                raise CommandError(f"{o['file']}: not inside any worktree; pass --agent")
            owner = max(owners, key=lambda ws: len(ws.path))
        root = Path(owner.path).resolve()
        rel = target.relative_to(root) if target.is_relative_to(root) else Path(o["file"])
        return owner.agent_id, rel.as_posix()

    def _check(self, read: RepoAirspace, o: dict[str, Any]) -> None:
        me, path = self._asker(read, o)
        others = [a for a in read.agents() if a["agentId"] != me]
        asking = {"agentId": me, "label": me, "files": [{"path": path}], "intent": [path]}
        airspace = read.to_airspace(**self._options(o))
        airspace["agents"] = [asking, *others]
        result = self._run(airspace, o["profile"])
        by_id = {a["agentId"]: a for a in others}
        lines = []
        for adv in result["advisories"]:
            if me not in (adv["a"], adv["b"]):
                continue
            other = by_id[adv["b"] if adv["a"] == me else adv["a"]]
            entry = next((f for f in other["files"] if f["path"] == path), None)
            where = f"edits {_ranges(entry.get('lines'))}" if entry else "is coupled by imports"
            intent = ", ".join(str(i) for i in other.get("intent", [])) or other["label"]
            lines.append(
                f"{path}: {adv['level']} with {other['agentId']} (intent: {intent}), which "
                f"{where} of {path} [risk {adv['risk']:.2f}; {_channels(adv['channels'])}]"
            )
        for line in lines:
            self.stdout.write(line)
        if lines:
            sys.exit(EXIT_ADVISORY)
        self.stdout.write(f"{path}: clear")
