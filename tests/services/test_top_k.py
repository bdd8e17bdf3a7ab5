"""Each run's top k per judged query, as ``compare`` and ``holes`` read it: the
fast engine's (from its columns) equals the reference's (query by query,
`ranking.form_list`), on random runs under every contract parameter and on
the shared DL19 runs; and both hold what the contract says a top k is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import DuplicatesRejected, UnjudgedRejected
from judgepool.formats.trec import read_qrels
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run_with_tops
from judgepool.services.runs.sources import file_source
from tests.core.fast_equivalence import write_run as _write
from tests.core.fast_run_domain import SETTINGS as _SETTINGS
from tests.core.fast_run_domain import Judged, Row, cases

DL19 = Path(__file__).resolve().parents[1] / "data" / "dl19-passage"
DL19_RUNS = sorted((DL19 / "runs").glob("*.trec.gz"))


def _tops(path: Path, judgments: Judged, contract: Contract, engine: str) -> tuple[str, Any]:
    try:
        scored, tops = score_run_with_tops(
            file_source(path), JudgmentsSource(judgments, "qrels"), contract, engine=engine
        )
    except (DuplicatesRejected, UnjudgedRejected) as exc:
        return type(exc).__name__, exc.entries
    return "ok", (tops, scored.evaluation.summary)


def test_a_top_k_is_the_formed_list_cut_to_k(tmp_path: Path) -> None:
    # ties by docid descending (trec_eval), the second copy of d dropped, and
    # the unjudged u keeping its place under condense
    run = tmp_path / "run"
    run.write_text(
        "q Q0 d 1 5 t\nq Q0 a 2 4 t\nq Q0 b 3 4 t\nq Q0 d 4 3 t\nq Q0 u 5 2 t\nq Q0 c 6 1 t\n"
        "z Q0 a 1 1 t\n"
    )
    judgments = {"q": {"a": 1, "b": 2, "c": 3, "d": 0}}
    contract = Contract(k=4, unjudged="condense", duplicates="first")
    for engine in ("fast", "reference"):
        _, tops = score_run_with_tops(
            file_source(run), JudgmentsSource(judgments, "x"), contract, engine=engine
        )
        assert tops == {"q": (("d", 0), ("b", 2), ("a", 1), ("u", None))}  # z is not judged


@settings(_SETTINGS, max_examples=600)
@given(case=cases())
def test_both_engines_give_the_same_top_k_on_random_runs(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    path = _write(tmp_path / "run", rows)
    assert _tops(path, judgments, contract, "fast") == _tops(path, judgments, contract, "reference")


@pytest.mark.parametrize(
    "contract",
    [
        Contract(k=10, unjudged="zero"),
        Contract(k=20, unjudged="condense", ties="rank"),
        Contract(k=5, unjudged="zero", duplicates="first", entity=r"^(\d\d\d)"),
    ],
    ids=["k10", "k20-condense-rank", "entity"],
)
def test_both_engines_give_the_same_top_k_on_the_dl19_runs(contract: Contract) -> None:
    judgments = read_qrels(DL19 / "qrels.dl19-passage.txt.gz", contract.scale).judgments
    assert len(DL19_RUNS) == 6
    for path in DL19_RUNS:
        fast = _tops(path, judgments, contract, "fast")
        assert fast[0] == "ok" and len(fast[1][0]) == 43
        assert fast == _tops(path, judgments, contract, "reference"), path.name
