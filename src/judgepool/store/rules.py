"""The consensus rules' names, importable without loading SQLite or sqlite-utils
(the command line builds its options from them at start-up)."""

from typing import Final

# How one grade per (query, doc) is chosen when annotators disagree; see
# `judgepool.store.ledger.consensus`.
CONSENSUS_RULES: Final = ("latest", "median", "adjudicated")
