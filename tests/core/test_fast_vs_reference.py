"""The fast engine gives the reference's evaluation, for every contract parameter.

Each case writes a run to a real file, then compares
``evaluate_columns(read_run_columns(path))`` with
``aggregate.evaluate(read_run(path))``: every per-query field and the summary to
1e-12 (in practice they agree bit for bit), the unknown and missing queries, or
the same refusal (`DuplicatesRejected` / `UnjudgedRejected`) with the same
entries and message. Hypothesis draws 4,900 runs here (and
test_fast_hashing.py more): duplicates, ties, unjudged documents, unknown and
missing queries, zero-IDCG queries, negative grades, entity patterns, runs not
grouped by query or not in score order; and IDs over the whole domain: 1 to
300 bytes, mixed lengths in one file, every word boundary of the hasher
(7/8/9 … 63/64/65 … 255/256/257 bytes), multi-byte UTF-8 straddling those
boundaries, MS MARCO v2 and URL shapes, long IDs differing in one middle byte,
chunk IDs (``doc#3``) with and without ``--entity``, and judged IDs that the
run never returns (so the two sides' IDs differ in length). The runs come
from `fast_run_domain`, the check from `fast_equivalence`; hand-written and
real runs are in test_fast_vs_reference_examples.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judgepool.core.fast.keys as fast_keys
from judgepool.core.terms.contract import Contract
from tests.core.fast_equivalence import check_same_as_reference
from tests.core.fast_equivalence import write_run as _write
from tests.core.fast_run_domain import (
    NEAR_SCORES,
    Judged,
    Row,
    cases,
)
from tests.core.fast_run_domain import SETTINGS as _SETTINGS


@contextmanager
def _patched(**values: Any) -> Iterator[None]:
    """Replace attributes of the fast engine's `keys` module (its hashing and
    parallelism), which read them at call time."""
    saved = {name: getattr(fast_keys, name) for name in values}
    for name, value in values.items():
        setattr(fast_keys, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(fast_keys, name, value)


# ----------------------------------------------------------------------- properties


@settings(_SETTINGS, max_examples=1500)
@given(case=cases())
@pytest.mark.slow
def test_every_contract_on_random_runs(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=900)
@given(case=cases(entity=True, max_docs=5, max_rows=16))
@pytest.mark.slow
def test_entity_patterns_with_many_duplicate_chunks(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=800)
@given(case=cases(max_rows=20, scores=[1.0, 2.0, 0.0, -0.0]))
@pytest.mark.slow
def test_heavy_ties_under_every_tie_policy(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=300)
@given(case=cases(max_rows=20, scores=[1.0, 0.0, *NEAR_SCORES]))
def test_near_equal_scores_under_both_precisions(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    """Scores that only single precision ties: the order, the tie range and
    the refusals under every tie policy, compared as doubles or as floats."""
    rows, judgments, contract = case
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


@settings(_SETTINGS, max_examples=700)
@given(case=cases(max_docs=4, max_rows=10))
def test_refusals_list_the_same_entries(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    strict = contract.with_changes(duplicates="reject", unjudged="reject")
    check_same_as_reference(_write(tmp_path / "run", rows), judgments, strict)


@settings(_SETTINGS, max_examples=600)
@given(case=cases(), workers=st.sampled_from([1, 3]), chunk=st.sampled_from([1, 2, 5]))
@pytest.mark.slow
def test_chunked_and_parallel_hashing_changes_nothing(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract], workers: int, chunk: int
) -> None:
    rows, judgments, contract = case
    with _patched(workers=lambda: workers, CHUNK_ROWS=chunk, PARALLEL_ROWS=0):
        check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)


def _colliding_hash(self: Any, low: int, high: int, salt: Any) -> Any:
    return salt & 0  # every ID of every query hashes alike


@settings(_SETTINGS, max_examples=400)
@given(case=cases(max_docs=6))
@pytest.mark.slow
def test_hash_collisions_cost_time_not_correctness(
    tmp_path: Path, case: tuple[list[Row], Judged, Contract]
) -> None:
    rows, judgments, contract = case
    with _patched(code_hash=lambda codes, salt: salt & 0):
        saved = fast_keys.StringHasher.hash
        fast_keys.StringHasher.hash = _colliding_hash  # type: ignore[method-assign]
        try:
            check_same_as_reference(_write(tmp_path / "run", rows), judgments, contract)
        finally:
            fast_keys.StringHasher.hash = saved  # type: ignore[method-assign]
