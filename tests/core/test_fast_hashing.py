"""The fast path's ID hashing: a pure function of each ID, and never trusted alone.

An earlier hasher chose how to hash from the longest ID of its array, so the
run's IDs and the judged IDs (two arrays) were hashed differently as soon as
one side held an ID longer than 8 (or 64) bytes and the other did not:
judged documents went unfound and the run scored 0.0 with exit 0. These
tests hold the hasher to the property whose absence caused that, provoke
the failure on purpose to show that the engine's own check refuses to
report a number, and replay the reproductions from the bug report.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judgepool.core.fast.keys as fast_keys
from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.arrow import arrow_strings
from judgepool.core.terms.contract import Contract, preset
from judgepool.core.terms.errors import EngineInconsistency
from judgepool.formats.fast_run import read_run_columns
from tests.core.fast_run_domain import (
    ID_SIZES,
    WORD_BOUNDARY_SIZES,
    doc_pool,
    id_of_size,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def hashes(values: list[str], lo: int = 0, hi: int | None = None) -> list[int]:
    """The hashes of ``values[lo:hi]`` hashed as part of the array ``values``."""
    hi = len(values) if hi is None else hi
    salt = np.full(hi - lo, 7, dtype=np.uint64)
    result: list[int] = fast_keys.StringHasher(arrow_strings(values)).hash(lo, hi, salt).tolist()
    return result


def alone(value: str) -> int:
    return hashes([value])[0]


# ----------------------------------------------------------------------- purity


@settings(deadline=None, max_examples=300)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_an_ids_hash_does_not_depend_on_the_other_ids(seed: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    values = [*doc_pool(rng, rng.randint(1, 40)), rng.choice(["", "x"])]
    rng.shuffle(values)
    lo = data.draw(st.integers(0, len(values) - 1))
    hi = data.draw(st.integers(lo + 1, len(values)))
    got = hashes(values, lo, hi)
    assert got == [alone(v) for v in values[lo:hi]]


@pytest.mark.parametrize("size", ID_SIZES)
def test_every_length_boundary_hashes_alike_beside_short_and_long_ids(size: int) -> None:
    rng = random.Random(size)
    value = id_of_size(rng, size)
    expected = alone(value)
    for neighbours in (["a"], ["é" * 150], [id_of_size(rng, n) for n in WORD_BOUNDARY_SIZES]):
        assert hashes([*neighbours, value])[-1] == expected  # at the data's end
        assert hashes([value, *neighbours])[0] == expected  # at its start
        assert hashes([*neighbours, value, *neighbours])[len(neighbours)] == expected


@pytest.mark.parametrize("size", [s for s in ID_SIZES if s <= 129])
def test_one_changed_byte_anywhere_changes_the_hash(size: int) -> None:
    # each word is multiplied by an odd factor and the result by another: both
    # are bijections, so a change inside one word always reaches the hash
    value = "a" * size
    base = alone(value)
    for at in range(size):
        assert alone(value[:at] + "b" + value[at + 1 :]) != base, at


def test_an_id_and_its_prefixes_differ() -> None:
    value = id_of_size(random.Random(1), 200)
    prefixes = {value[:n] for n in range(1, len(value) + 1)}
    assert len({alone(prefix) for prefix in prefixes}) == len(prefixes)


# ----------------------------------------------------------------------- defence in depth


@contextmanager
def column_dependent_hasher() -> Iterator[None]:
    """The old defect on purpose: a hash that depends on the array's longest ID."""
    original = fast_keys.StringHasher.hash

    def broken(self: Any, low: int, high: int, salt: Any) -> Any:
        longest = int(np.diff(self.offsets).max()) if len(self.offsets) > 1 else 0
        # a high bit: the low bits of a hash make way for the row index
        return original(self, low, high, salt) ^ np.uint64((longest > 8) << 63)

    fast_keys.StringHasher.hash = broken  # type: ignore[method-assign]
    try:
        yield
    finally:
        fast_keys.StringHasher.hash = original  # type: ignore[method-assign]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_judged_document_taken_for_unjudged_is_an_error_not_a_number(
    tmp_path: Path,
) -> None:
    run = read_run_columns(write(tmp_path / "run", "q1 Q0 d1 1 1.0 r\n"))
    judgments = {"q1": {"d1": 1, "d123456789": 0}}
    assert evaluate_columns(run, judgments, Contract()).summary.ndcg == 1.0
    with column_dependent_hasher():
        for contract in (Contract(), preset("trec_eval"), Contract(unjudged="condense")):
            with pytest.raises(EngineInconsistency, match="'d1' for unjudged, but it is judged"):
                evaluate_columns(run, judgments, contract)


def test_the_check_covers_entity_mode(tmp_path: Path) -> None:
    lines = "q1 Q0 d1#0 1 3.0 r\nq1 Q0 d2#5 2 2.0 r\nq1 Q0 d9#1 3 1.0 r\n"
    run = read_run_columns(write(tmp_path / "run", lines))
    judgments = {"q1": {"d1": 2, "d2": 0}}
    contract = Contract(entity=r"([^#]+)#\d+", unjudged="zero")
    fast_result = evaluate_columns(run, judgments, contract)
    assert fast_result.per_query[0].unjudged_at_k == 1

    original = fast_keys.code_hash

    # the judged pairs' codes (the only array of two) hash unlike the run's
    def broken(codes: Any, salt: Any) -> Any:
        return original(codes, salt) ^ np.uint64((codes.size == 2) << 63)

    fast_keys.code_hash = broken
    try:
        with pytest.raises(EngineInconsistency):
            evaluate_columns(run, judgments, contract)
    finally:
        fast_keys.code_hash = original
