"""A constructed pull-request history whose replay outcome is known by construction.

Times are seconds after ``T0``. Every file starts as 30 numbered lines.

| PR | edit (one hunk) | at | merged | against whom |
|---|---|---|---|---|
| #1 | a.py line 5 -> "pr1" | 100 | 1000 | |
| #2 | a.py line 5 -> "pr2" | 200 | 2000 | overlaps #1, 100 s later: Resolution Advisory |
| #3 | b.py line 10 -> "pr3" | 300 | 5000 | |
| #4 | c.py line 10 -> "same" | 400 | 1200 | |
| #5 | c.py line 10 -> "same" | 600 | 2500 | #4's identical edit: RA, yet git merges cleanly |
| #6 | b.py line 11 -> "pr6" | 2300 | 6000 | abuts #3's 2,000-s-old edit: Resolution |

A direct push on main at 1500 adds d.py. Baseline (ignore): #2 and #6 conflict at their merges
(2 of 6). Obey: #2 is denied at 200 and waits for #1 (merged 1000: delay 800 s), then re-applies
over #1's line (a conflict the agent resolves itself); #5's edit overlaps #4's, a Resolution, but
the hook asks git (``git merge-file`` on the file as the edit leaves it) and identical changes
merge cleanly, so #5 is only told (Traffic, with the evidence; issue 28); #6 is denied at 2300
(abutting lines keep their weight however old, as overlapping ones do: git conflicts on both) and
waits for #3 (merged 5000: delay 2700 s), then re-applies beside #3's line. So obey has no merge
conflict (avoided 100 %), 2 of 6 hunks delayed, 2 denials, none unnecessary, 1 Traffic Advisory,
and 2 re-application conflicts. Acknowledge: the same denials, acknowledged, and the baseline's 2
conflicts.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

T0 = 1_700_000_000
SCENARIO = (
    # pr, path, line, text, edit at, merged at
    (1, "a.py", 5, "pr1", 100, 1000),
    (2, "a.py", 5, "pr2", 200, 2000),
    (3, "b.py", 10, "pr3", 300, 5000),
    (4, "c.py", 10, "same", 400, 1200),
    (5, "c.py", 10, "same", 600, 2500),
    (6, "b.py", 11, "pr6", 2300, 6000),
)
PUSH_AT = 1500
DAY = 86_400
SLOW = (
    # human-paced: the unmerged lines are days old when the other agent edits beside or on them
    (1, "a.py", 5, "pr1", 100, 5 * DAY),
    (2, "a.py", 5, "pr2", 2 * DAY, 6 * DAY),  # overlaps #1's 2-day-old line: still denied
    (3, "b.py", 10, "pr3", 200, 4 * DAY),
    (4, "b.py", 11, "pr4", DAY, 7 * DAY),  # abuts #3's 1-day-old line: still denied
)
"""Baseline: #2 and #4 conflict (2 of 4). Obey: #4 is denied at 1 day and waits for #3 (3 days),
#2 at 2 days for #1 (3 days; #1, idle since 100 s, would park only after 168 h, and merges
first): both conflicts avoided, 2 of 4 hunks delayed, no unnecessary denial. Before
airspace-2026.12.1 #4's adjacency decayed to the floor (clear) and it still conflicted."""

PARKED = (
    # the holder waits on review past the parked time: the steerer asks again when told
    (1, "a.py", 5, "pr1", 100, 10 * DAY),
    (2, "a.py", 5, "pr2", 2 * DAY, 11 * DAY),
)
"""Baseline: #2 conflicts at its merge (1 of 2). Obey: #2 is denied at 2 days; the denial says
#1, idle since 100 s, counts as parked 168 h after it; #2 asks again then, holds course over the
parked #1 and meets #1's line at its own merge (the parked rule's trade): 1 of 2, one hunk
delayed five days and 100 s, no unnecessary denial."""

DRIFT = (
    # the other side has already merged when the agent edits beside its line: no live agent
    (1, "a.py", 5, "pr1", 100, 1000),
    (2, "a.py", 6, "pr2", 1300, 2000),  # forked before #1 merged; abuts #1's line on main
    (3, "b.py", 10, "pr3", 300, 3000),
    (4, "b.py", 20, "pr4", 3500, 4000),  # #3's line on main is ten lines away: clean
)
"""Baseline: #2 conflicts at its merge (git conflicts on abutting lines; 1 of 4). Obey: #2 is
denied at 1300 for the lines the mainline changed since its base, brings the mainline in at
once and re-applies: no merge conflict (avoided 100 %), no hunk delayed, one mainline denial,
necessary (its baseline merge conflicted on a.py). Acknowledge: #2 acknowledges the mainline
and proceeds: the baseline's conflict."""


RESYNC = (
    # the holder edits a line the steerer had already changed: the steerer's own work meets it
    (1, "a.py", 5, "pr1", 100, 1000),
    (2, "a.py", 20, "pr2", 200, 2000),
    (1, "a.py", 20, "pr1b", 300, 1000),  # #1 holds (the earlier start): allowed, with context
    (2, "a.py", 5, "pr2b", 400, 2000),  # #2 steers: denied, waits for #1
    (3, "b.py", 10, "pr3", 300, 3000),
)
"""Baseline: #2 conflicts at its merge (a.py lines 5 and 20; 1 of 3). Obey: #2 is denied at 400
and waits for #1 (merged 1000); bringing the mainline in then conflicts on line 20, which #2 had
changed before #1 did (a resynchronisation merge: the agent's real work), and its deferred line 5
no longer fits (a re-application); its own merge is clean. So obey avoids the merge conflict
(100 %) but none of the conflict work (incl. resync, either count: 0 %)."""


def git(repo: Path, *args: str, at: int = 0) -> str:
    stamp = f"@{T0 + at} +0000"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@x", GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp,
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
    out = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True,
                         text=True, check=False)  # fmt: skip
    if out.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {out.stderr}")
    return out.stdout.strip()


def numbered(n: int = 30) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def _set_line(repo: Path, path: str, line: int, text: str) -> None:
    lines = (repo / path).read_text().splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    (repo / path).write_text("".join(lines))


def build_scenario(root: Path, scenario: tuple[tuple[int, str, int, str, int, int], ...] = SCENARIO
                   ) -> Path:  # fmt: skip
    """The history above, in a fresh repository at ``root`` (main checked out)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(numbered())
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    base = git(root, "rev-parse", "HEAD")
    made: set[int] = set()
    for pr, path, line, text, at, _ in scenario:  # a pull request's rows: its commits, in order
        git(root, "checkout", "-q", *([f"topic{pr}"] if pr in made else ["-b", f"topic{pr}", base]))
        made.add(pr)
        _set_line(root, path, line, text)
        git(root, "commit", "-qam", f"pr{pr}: {path}", at=at)
    git(root, "checkout", "-q", "main")
    rows = {pr: (m, pr, path, line, text) for pr, path, line, text, _, m in scenario}
    merges = sorted([*rows.values(), (PUSH_AT, 0, "", 0, "")])
    for at, pr, path, line, text in merges:
        if pr == 0:
            (root / "d.py").write_text(numbered(5))
            git(root, "add", "d.py")
            git(root, "commit", "-qm", "direct push: d.py", at=at)
            continue
        message = f"Merge pull request #{pr} from someone/topic{pr}"
        try:
            git(root, "merge", "-q", "--no-ff", "-m", message, f"topic{pr}", at=at)
        except AssertionError:  # history's resolution: the later pull request's line wins
            _set_line(root, path, line, text)
            git(root, "add", path)
            git(root, "commit", "-q", "--no-edit", at=at)
    return root


def build_rich(root: Path) -> Path:
    """Two pull requests with several commits, hunks, a new file, a deletion and a rename-like
    delete-and-add, and a direct push between them; neither conflicts."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(numbered())
    (root / "dup.txt").write_text("same\nsame\nsame\nend\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "one", base)
    _set_line(root, "a.py", 2, "one-2")
    _set_line(root, "a.py", 20, "one-20")
    (root / "pkg").mkdir()
    (root / "pkg" / "new file.py").write_text("print('hi')\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one: two hunks and a new file", at=100)
    (root / "c.py").unlink()
    (root / "b.py").write_text("top\n" + (root / "b.py").read_text())
    (root / "dup.txt").write_text("same\nsame\nchanged\nend\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one: delete, insert at top, a repeated line", at=200)
    git(root, "checkout", "-q", "-b", "two", base)
    _set_line(root, "a.py", 10, "two-10")
    git(root, "commit", "-qam", "two: a.py line 10", at=150)
    lines = (root / "a.py").read_text().splitlines(keepends=True)
    del lines[25:27]
    (root / "a.py").write_text("".join(lines))
    git(root, "commit", "-qam", "two: delete a.py lines 26-27", at=250)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #11 from x/one", "one", at=300)
    (root / "notes.md").write_text("pushed\n")
    git(root, "add", "notes.md")
    git(root, "commit", "-qm", "direct push", at=350)
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #12 from x/two", "two", at=400)
    return root


def build_bases(root: Path) -> Path:
    """Two agents on different mainline bases: #1 forks at the base commit and changes a.py
    line 20 (at 100); a direct push inserts 10 lines at the top of a.py (300); #3 forks from
    that push and changes line 30, the same base line renumbered (1000). #1 merges at 5000, #3
    conflicts with it at 6000. Compared as one base, line 20 and line 30 never meet."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text(numbered())
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    git(root, "checkout", "-q", "-b", "topic1")
    _set_line(root, "a.py", 20, "pr1")
    git(root, "commit", "-qam", "pr1: a.py line 20", at=100)
    git(root, "checkout", "-q", "main")
    (root / "a.py").write_text("".join(f"top {i}\n" for i in range(10)) + numbered())
    git(root, "commit", "-qam", "direct push: 10 lines on top of a.py", at=300)
    git(root, "checkout", "-q", "-b", "topic3")
    _set_line(root, "a.py", 30, "pr3")
    git(root, "commit", "-qam", "pr3: a.py line 30 (base line 20)", at=1000)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #1 from x/topic1", "topic1",
        at=5000)  # fmt: skip
    try:
        git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #3 from x/topic3",
            "topic3", at=6000)  # fmt: skip
    except AssertionError:  # history's resolution: #3's line wins
        (root / "a.py").write_text("".join(f"top {i}\n" for i in range(10)) + numbered())
        _set_line(root, "a.py", 30, "pr3")
        git(root, "add", "a.py")
        git(root, "commit", "-q", "--no-edit", at=6000)
    return root


def build_break_history(root: Path) -> Path:
    """#1 renames ``a.helper`` to ``a.assist`` (at 100, merged at 1000); #2 starts calling
    ``a.helper`` in b.py (at 200, merged at 2000). Git merges both cleanly; the merged tree
    calls a function no side defines any more: one build break, under every policy (the local
    radar has no symbol channel and the two never touch one file)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text("def helper():\n    return 1\n")
    (root / "b.py").write_text("import a\n\nx = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "topic1", base)
    (root / "a.py").write_text("def assist():\n    return 1\n")
    git(root, "commit", "-qam", "pr1: rename helper", at=100)
    git(root, "checkout", "-q", "-b", "topic2", base)
    (root / "b.py").write_text("import a\n\nx = a.helper()\n")
    git(root, "commit", "-qam", "pr2: call helper", at=200)
    git(root, "checkout", "-q", "main")
    for pr, at in ((1, 1000), (2, 2000)):
        git(root, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{pr} from x/topic{pr}",
            f"topic{pr}", at=at)  # fmt: skip
    return root


def build_cherry_picks(root: Path) -> Path:
    """A release branch copies a merged pull request's commits with ``git cherry-pick``.

    #1 changes a.py line 5 twice (to "v1" at 100, to "v2" at 200) and merges at 1000. #2, a
    release branch forked from the base, cherry-picks both commits at 2000 and 2001 (git keeps
    their authors and author dates) and merges at 3000, cleanly: its file ends as the mainline's.
    #3 changes b.py line 10 at 300 and merges at 4000. #4 changes b.py line 20 at 400 and
    merges at 1500; the release branch copies that merge too (``cherry-pick -m 1``, at 2002).
    Under obey, #2's first copy (line 5 -> "v1") meets the mainline's "v2": a mainline denial,
    of git's copy of the mainline's own commit, not of an agent's edit."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in ("a.py", "b.py"):
        (root / name).write_text(numbered())
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    base = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "-b", "topic1", base)
    firsts = []
    for text, at in (("v1", 100), ("v2", 200)):
        _set_line(root, "a.py", 5, text)
        git(root, "commit", "-qam", f"pr1: a.py {text}", at=at)
        firsts.append(git(root, "rev-parse", "HEAD"))
    git(root, "checkout", "-q", "-b", "topic3", base)
    _set_line(root, "b.py", 10, "pr3")
    git(root, "commit", "-qam", "pr3: b.py", at=300)
    git(root, "checkout", "-q", "-b", "topic4", base)
    _set_line(root, "b.py", 20, "pr4")
    git(root, "commit", "-qam", "pr4: b.py", at=400)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #1 from x/topic1", "topic1",
        at=1000)  # fmt: skip
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #4 from x/topic4", "topic4",
        at=1500)  # fmt: skip
    firsts.append(git(root, "rev-parse", "HEAD"))
    git(root, "checkout", "-q", "-b", "release", base)
    for sha, at in zip(firsts, (2000, 2001, 2002), strict=True):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_COMMITTER_NAME="r", GIT_COMMITTER_EMAIL="r@x",
                   GIT_COMMITTER_DATE=f"@{T0 + at} +0000", GIT_CONFIG_GLOBAL=os.devnull,
                   GIT_CONFIG_NOSYSTEM="1")  # fmt: skip
        merge = ["-m", "1"] if at == 2002 else []
        subprocess.run(["git", "-C", str(root), "cherry-pick", *merge, sha], env=env,
                       check=True, capture_output=True)  # fmt: skip
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #2 from x/release", "release",
        at=3000)  # fmt: skip
    git(root, "merge", "-q", "--no-ff", "-m", "Merge pull request #3 from x/topic3", "topic3",
        at=4000)  # fmt: skip
    return root


def new_source(root: Path, names: tuple[str, ...] = ("a.py", "b.py")) -> str:
    """A fresh repository at ``root`` whose base commit (time 0) holds ``names``, each 30
    numbered lines; returns the base commit."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for name in names:
        (root / name).write_text(numbered())
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base", at=0)
    return git(root, "rev-parse", "HEAD")


def commit_line(root: Path, path: str, line: int, text: str, at: int) -> None:
    """Set one line of ``path`` on the checked-out branch and commit it at ``at``."""
    _set_line(root, path, line, text)
    git(root, "commit", "-qam", f"{text}: {path} line {line}", at=at)


def merge_pr(root: Path, pr: int, branch: str, at: int, wins: tuple[str, int, str]) -> None:
    """Merge ``branch`` into main as pull request ``pr``; on a conflict, history's resolution
    sets ``wins`` (path, line, text)."""
    git(root, "checkout", "-q", "main")
    message = f"Merge pull request #{pr} from x/{branch}"
    try:
        git(root, "merge", "-q", "--no-ff", "-m", message, branch, at=at)
    except AssertionError:
        _set_line(root, *wins)
        git(root, "add", wins[0])
        git(root, "commit", "-q", "--no-edit", at=at)


def build_knock_on(root: Path) -> Path:
    """A wait that keeps a branch open past its historical merge, where a later branch meets it.

    #1 changes a.py line 5 at 100 and merges at 3000. #2 changes b.py line 10 at 200 and a.py
    line 5 at 300, and merges at 1000. #3 forks from the mainline after #2's merge, changes b.py
    line 10 again (over #2's line) at 1500 and merges at 2000. Baseline: only #1 conflicts (a.py,
    against #2). Obey: #2's a.py edit is denied (#1, the earlier start, holds), so #2 waits until
    3000; #3, starting at 1500 where the mainline lacks #2, is denied on b.py naming #2, an agent
    history had merged 500 s earlier: a knock-on denial. The baseline pair #2/#3 merges cleanly
    (#3 forked after #2), so the baseline alone would call it unnecessary."""
    base = new_source(root)
    git(root, "checkout", "-q", "-b", "topic1", base)
    commit_line(root, "a.py", 5, "pr1", at=100)
    git(root, "checkout", "-q", "-b", "topic2", base)
    commit_line(root, "b.py", 10, "pr2", at=200)
    commit_line(root, "a.py", 5, "pr2", at=300)
    merge_pr(root, 2, "topic2", 1000, ("b.py", 10, "pr2"))
    git(root, "checkout", "-q", "-b", "topic3")
    commit_line(root, "b.py", 10, "pr3", at=1500)
    merge_pr(root, 3, "topic3", 2000, ("b.py", 10, "pr3"))
    merge_pr(root, 1, "topic1", 3000, ("a.py", 5, "pr1"))
    return root


def build_closed(root: Path) -> Path:
    """A pull request closed without merging holds lines a merged one wants.

    #9 changes a.py line 5 at 200 and is closed without merging (``refs/pull/9/head``, as a
    GitHub mirror keeps it). #1 changes the same line at 250 and merges at two days; #2 changes
    b.py at 100 and merges at twenty. #7's head is a squash-merged pull request (the mainline
    commit "Fix (#7)" names it), so it is no closed one. Read with ``closed``, #9 is an agent
    that never merges and closes at the window's end (twenty days); under obey #1 is denied
    naming it (the earlier start holds), asks again when #9 parks (168 h after 200 s) and merges
    then: one denial, unnecessary, one hunk delayed."""
    base = new_source(root)
    git(root, "checkout", "-q", "-b", "topic9", base)
    commit_line(root, "a.py", 5, "pr9", at=200)
    git(root, "update-ref", "refs/pull/9/head", "HEAD")
    git(root, "checkout", "-q", "-b", "topic7", base)
    commit_line(root, "b.py", 20, "pr7", at=150)
    git(root, "update-ref", "refs/pull/7/head", "HEAD")
    git(root, "checkout", "-q", "-b", "topic1", base)
    commit_line(root, "a.py", 5, "pr1", at=250)
    git(root, "update-ref", "refs/pull/1/head", "HEAD")
    git(root, "checkout", "-q", "-b", "topic2", base)
    commit_line(root, "b.py", 10, "pr2", at=100)
    merge_pr(root, 1, "topic1", 2 * DAY, ("a.py", 5, "pr1"))
    _set_line(root, "b.py", 20, "pr7")
    git(root, "commit", "-qam", "Fix (#7)", at=3 * DAY)
    merge_pr(root, 2, "topic2", 20 * DAY, ("b.py", 10, "pr2"))
    for branch in ("topic1", "topic2", "topic7", "topic9"):
        git(root, "branch", "-q", "-D", branch)
    return root


def build_closed_at_last_commit(root: Path) -> Path:
    """A closed pull request that holds lines while it works, and is itself denied.

    #9 changes a.py line 5 at 200, c.py line 3 at 1000 and b.py line 25 at 5000 (its last
    commit), and is closed without merging. #1 changes a.py line 5 at 250 and merges at two
    days; #3 changes c.py line 3 at 100 and merges at three. Under obey #1 is denied naming #9
    (the earlier start holds) and #9 is denied on c.py naming #3. Closed at its last commit,
    #9 releases #1 at 5000 and its c.py change, still waiting, is dropped there; closed at the
    window's end (#3's merge, three days), #3's merge frees #9's c.py and #9's close then
    frees #1."""
    base = new_source(root, ("a.py", "b.py", "c.py"))
    git(root, "checkout", "-q", "-b", "topic9", base)
    commit_line(root, "a.py", 5, "pr9", at=200)
    commit_line(root, "c.py", 3, "pr9", at=1000)
    commit_line(root, "b.py", 25, "pr9", at=5000)
    git(root, "update-ref", "refs/pull/9/head", "HEAD")
    git(root, "checkout", "-q", "-b", "topic1", base)
    commit_line(root, "a.py", 5, "pr1", at=250)
    git(root, "checkout", "-q", "-b", "topic3", base)
    commit_line(root, "c.py", 3, "pr3", at=100)
    merge_pr(root, 1, "topic1", 2 * DAY, ("a.py", 5, "pr1"))
    merge_pr(root, 3, "topic3", 3 * DAY, ("c.py", 3, "pr3"))
    for branch in ("topic1", "topic3", "topic9"):
        git(root, "branch", "-q", "-D", branch)
    return root
