"""The balanced assignment: K distinct annotators per unit, loads within one,
every pair sharing units, the same result under the same seed, and a cap."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from judgepool.core.assignment import balanced_assignment
from judgepool.core.errors import InputError


@pytest.mark.parametrize(
    ("units", "names", "overlap"),
    [(103, 5, 2), (40, 3, 2), (7, 3, 3), (1, 4, 1), (250, 7, 3), (12, 2, 1)],
)
def test_each_unit_gets_k_distinct_annotators_with_balanced_loads(
    units: int, names: int, overlap: int
) -> None:
    annotators = [f"a{i}" for i in range(names)]
    done = balanced_assignment(list(range(units)), annotators, overlap, seed=7)
    assert sorted(unit for unit, _ in done.units) == list(range(units))
    assert all(len(set(chosen)) == overlap == len(chosen) for _, chosen in done.units)
    loads = Counter(name for _, chosen in done.units for name in chosen)
    counts = [loads.get(name, 0) for name in annotators]
    assert max(counts) - min(counts) <= 1
    assert sum(counts) == units * overlap
    assert done.left_out == ()


def test_every_pair_shares_units_evenly() -> None:
    annotators = ["alice", "bob", "carol", "dan", "erin"]
    done = balanced_assignment(list(range(100)), annotators, 2, seed=1)
    pairs = Counter(tuple(sorted(chosen)) for _, chosen in done.units)
    assert set(pairs) == set(itertools.combinations(sorted(annotators), 2))
    assert max(pairs.values()) - min(pairs.values()) <= 1


def test_the_seed_makes_it_deterministic() -> None:
    units = [f"q{i}" for i in range(60)]
    first = balanced_assignment(units, ["a", "b", "c"], 2, seed=42)
    assert balanced_assignment(units, ["a", "b", "c"], 2, seed=42) == first
    assert balanced_assignment(units, ["a", "b", "c"], 2, seed=43) != first


def test_per_annotator_caps_the_loads_and_counts_what_is_left() -> None:
    done = balanced_assignment(list(range(100)), ["a", "b", "c"], 2, seed=0, per_annotator=10)
    assert done.loads() == {"a": 10, "b": 10, "c": 10}
    assert len(done.units) == 15 and len(done.left_out) == 85


@pytest.mark.parametrize(
    ("names", "overlap", "message"),
    [
        (["a", "b"], 3, "an overlap of 3 needs 3 annotators or more; 2 given (a, b)"),
        (["a", "a"], 1, "an annotator is listed twice"),
        (["a"], 0, "the overlap must be 1 or more"),
    ],
)
def test_impossible_requests_are_refused(names: list[str], overlap: int, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        balanced_assignment([1, 2, 3], names, overlap, seed=0)
