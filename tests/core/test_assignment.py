"""The balanced assignment: K distinct annotators per unit, loads within one,
every pair sharing units, the same result under the same seed, a cap, earlier
loads filled up first, the pairs that share nothing counted, and a cost near
linear in units × overlap however many annotators."""

from __future__ import annotations

import itertools
import time
from collections import Counter

import pytest

from judgepool.core.team.assignment import balanced_assignment, units_for_every_pair, unshared_pairs
from judgepool.core.terms.errors import InputError


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


def test_earlier_loads_are_filled_up_first_and_count_against_the_cap() -> None:
    names = ["a", "b", "c"]
    done = balanced_assignment(list(range(12)), names, 1, seed=3, loads={"a": 6})
    assert done.loads() == {"b": 6, "c": 6}  # b and c catch up with a first
    more = balanced_assignment(list(range(16)), names, 1, seed=3, loads={"a": 6}, per_annotator=7)
    assert more.loads() == {"a": 1, "b": 7, "c": 7} and len(more.left_out) == 1


def test_pairs_that_already_share_units_come_last() -> None:
    names = ["a", "b", "c", "d"]
    # a-b, c-d, a-c and b-d already share: a-d and b-c have not met
    earlier = [("a", "b"), ("c", "d"), ("a", "c"), ("b", "d")]
    done = balanced_assignment([1, 2], names, 2, seed=0, together=earlier)
    assert sorted(chosen for _, chosen in done.units) == [("a", "d"), ("b", "c")]


def test_unshared_pairs_and_the_units_every_pair_needs() -> None:
    names = [f"a{i}" for i in range(30)]
    assert unshared_pairs([], names) == 435
    assert unshared_pairs([("a0", "a1"), ("a1", "a0", "a2")], names) == 432
    assert units_for_every_pair(30, 2) == 435  # one unit per pair
    assert units_for_every_pair(7, 3) == 7  # the Fano plane
    assert units_for_every_pair(5, 1) == 0 and units_for_every_pair(1, 2) == 0
    done = balanced_assignment(list(range(200)), names, 2, seed=0)
    unshared = unshared_pairs([chosen for _, chosen in done.units], names)
    pairs = {tuple(sorted(chosen)) for _, chosen in done.units}
    assert unshared == 435 - len(pairs) >= 235  # 200 units hold 200 pairs at most


@pytest.mark.parametrize(
    ("units", "annotators", "overlap"), [(36, 1000, 1000), (10_000, 1000, 3), (20_000, 100, 2)]
)
def test_many_annotators_cost_about_units_times_overlap(
    units: int, annotators: int, overlap: int
) -> None:
    # it was about cubic in annotators at a large overlap: 36 items to 1,000
    # annotators at overlap 1,000 took more than 120 s; now a fraction of one
    names = [f"a{i:04d}" for i in range(annotators)]
    started = time.perf_counter()
    done = balanced_assignment(list(range(units)), names, overlap, seed=0)
    elapsed = time.perf_counter() - started
    loads = Counter(name for _, chosen in done.units for name in chosen)
    assert len(done.units) == units and max(loads.values()) - min(loads.values()) <= 1
    assert elapsed < 8.0, f"{elapsed:.1f} s"
