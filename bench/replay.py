"""Speed of the replay harness: hunks per second through the radar, per policy.

Run: ``.venv/bin/python -m bench.replay PIP_GIT_DIR --since 2022-01-01T00:00:00+00:00
--max-prs 50`` (any clone of a repository that merges pull requests with merge commits; it is
only read). Prints, per policy, the hunks applied, the radar questions asked, the wall time,
hunks per second, and the time a 1,000-pull-request window would take at that rate (issue 17:
"well under an hour"). ``--mode hook`` measures the hook's whole path per edit (``run_hook``,
every worktree read on every question) instead of the in-process session path; ``--bases
mapped`` adds the renumbering of other agents' lines onto the asker's base.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from proximity.lab.replay_history import read_window  # noqa: E402
from proximity.lab.replay_report import replay_window  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--since")
    parser.add_argument("--until")
    parser.add_argument("--max-prs", type=int, default=50)
    parser.add_argument("--policy", default="obey", choices=["obey", "acknowledge"])
    parser.add_argument("--mode", default="session", choices=["session", "hook"])
    parser.add_argument("--bases", default="as-read", choices=["as-read", "mapped"])
    args = parser.parse_args()
    history = read_window(args.repo, since=args.since, until=args.until, max_prs=args.max_prs)
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as tmp:
        report = replay_window(history, policies=[args.policy], out=Path(tmp) / "out",
                               work=Path(tmp), mode=args.mode, resamples=10,
                               bases=args.bases)  # fmt: skip
    per_pr = {}
    for name, run in report.runs.items():
        rate = report.hunks_per_second[name]
        per_pr[name] = run.seconds / max(1, len(history.prs))
        print(f"{name:12s} hunks {run.hunks:6d}  asked {run.asked:6d}  {run.seconds:7.1f} s  "
              f"{rate:6.1f} hunks/s  ({per_pr[name]:.2f} s per pull request)")  # fmt: skip
    total = sum(per_pr.values()) * 1000 / 60
    print(f"{len(history.prs)} pull requests; a 1,000-PR window at these rates: about "
          f"{total:.0f} min for {' + '.join(report.runs)}")  # fmt: skip


if __name__ == "__main__":
    main()
