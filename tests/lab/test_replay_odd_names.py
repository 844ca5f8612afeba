"""``replay_history`` on a file whose name is not UTF-8 (issue 31, item 8): two pull requests
edit the same line of ``caf\\xe9.py``; the replay runs, the denial is logged, the name kept."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from proximity.lab.replay_history import read_window
from proximity.lab.replay_report import replay_window
from tests.lab.replay_scenario import T0, git, numbered

ODD = os.fsdecode(b"caf\xe9.py")


def _git_bytes(repo: Path, *args: str, at: int) -> int:
    """git without decoding its output as text (it names the odd file)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x", GIT_AUTHOR_DATE=f"@{T0 + at} +0000",
               GIT_COMMITTER_DATE=f"@{T0 + at} +0000", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    return subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                          check=False).returncode  # fmt: skip


def _edit_line(repo: Path, line: int, text: str) -> None:
    lines = (repo / ODD).read_text().splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    (repo / ODD).write_text("".join(lines))


def _history(repo: Path) -> Path:
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ODD).write_text(numbered())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base", at=0)
    base = git(repo, "rev-parse", "HEAD")
    for pr, at, text in ((1, 1000, "one"), (2, 1200, "two")):
        git(repo, "checkout", "-q", "-b", f"topic{pr}", base)
        _edit_line(repo, 10, text)
        git(repo, "commit", "-qam", f"pr{pr}", at=at)
    git(repo, "checkout", "-q", "main")
    for pr, at in ((1, 2000), (2, 2100)):
        message = f"Merge pull request #{pr} from s/topic{pr}"
        if _git_bytes(repo, "merge", "-q", "--no-ff", "-m", message, f"topic{pr}", at=at):
            _edit_line(repo, 10, "two")  # history's resolution
            git(repo, "add", "-A")
            assert _git_bytes(repo, "commit", "-q", "--no-edit", at=at) == 0
    return repo


def test_a_file_name_that_is_not_utf8_is_replayed_and_logged(tmp_path: Path) -> None:
    repo = _history(tmp_path / "source")
    (tmp_path / "work").mkdir()
    history = read_window(repo, max_prs=5)
    assert {f.path for pr in history.prs for c in pr.commits for f in c.files} == {ODD}
    report = replay_window(history, policies=["obey"], out=tmp_path / "out",
                           work=tmp_path / "work", resamples=5)  # fmt: skip
    assert report.figures["obey"].denials >= 1
    lines = (tmp_path / "out" / "events-obey.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]  # every line is valid JSON
    assert events
    assert any("caf\\udce9.py" in line for line in lines)  # the name, escaped, not lost
