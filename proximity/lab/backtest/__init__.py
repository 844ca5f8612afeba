"""Mining real conflicts from a repository's merge history (read-only): see BACKTEST-NOTES.

``history`` finds merged pull requests and their branch states, ``sampling`` enumerates and samples
concurrent pairs, ``pairs`` builds each pair's working sets and git's own conflict label, and
``pyimports`` supplies the Python import edges on the merge-base tree.
"""

from __future__ import annotations

from proximity.lab.backtest.history import PullRequest, read_pull_requests
from proximity.lab.backtest.pairs import MiningStats, mine_pairs
from proximity.lab.backtest.sampling import Candidate, concurrent_candidates, sample_candidates

__all__ = [
    "Candidate",
    "MiningStats",
    "PullRequest",
    "concurrent_candidates",
    "mine_pairs",
    "read_pull_requests",
    "sample_candidates",
]
