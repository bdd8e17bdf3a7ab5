"""The check that the fast engine gives the reference's evaluation on one run
file: `check_same_as_reference` (every field to 1e-12, or the same refusal
with the same entries and message), `outcome_of` for either side, and
`write_run`, which writes rows as a TREC run file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicatesRejected, UnjudgedRejected
from judgepool.formats.fast_run import read_run_columns
from judgepool.formats.trec import read_run
from tests.compare import assert_same_evaluation
from tests.core.fast_run_domain import Row


def outcome_of(compute: Any) -> tuple[str, Any]:
    try:
        return ("ok", compute())
    except (DuplicatesRejected, UnjudgedRejected) as exc:
        return (type(exc).__name__, (exc.entries, str(exc)))


def check_same_as_reference(
    path: Path, judgments: Mapping[str, Mapping[str, int]], contract: Contract
) -> tuple[str, Any]:
    """Assert the fast path equals the reference on the run file ``path``."""
    expected = outcome_of(
        lambda: evaluate(group_by_query(read_run(path).entries), judgments, contract, "run")
    )
    got = outcome_of(lambda: evaluate_columns(read_run_columns(path), judgments, contract, "run"))
    assert got[0] == expected[0], (expected, got)
    if expected[0] == "ok":
        assert_same_evaluation(expected[1], got[1])
    else:
        assert got[1] == expected[1]
    return expected


def write_run(path: Path, rows: list[Row]) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, d, r, s in rows), "utf-8")
    return path
