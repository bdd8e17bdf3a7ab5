"""The order the app lists every run's holes in: best rank first, then the
holes more runs returned, then by query and document; the same whatever order
the holes (or the runs) come in."""

from __future__ import annotations

import random

from judgepool.core.holes.hole_order import best_rank_first, count_holes
from judgepool.core.holes.settle import Hole, find_holes

HOLES = [
    Hole("q2", "d9", ("a",), 2),
    Hole("q1", "d3", ("a", "b"), 2),
    Hole("q2", "d1", ("b",), 1),
    Hole("q1", "d7", ("a", "b", "c"), 1),
    Hole("q1", "d2", ("c",), 1),
    Hole("q3", "d4", ("a",), 5),
]


def test_best_rank_then_more_runs_then_ids() -> None:
    assert [(h.query_id, h.doc_id) for h in best_rank_first(HOLES)] == [
        ("q1", "d7"),  # rank 1, three runs
        ("q1", "d2"),  # rank 1, one run: by query, then document
        ("q2", "d1"),
        ("q1", "d3"),  # rank 2, two runs
        ("q2", "d9"),
        ("q3", "d4"),
    ]


def test_the_order_does_not_depend_on_the_input_order() -> None:
    expected = best_rank_first(HOLES)
    shuffled = list(HOLES)
    for seed in range(20):
        random.Random(seed).shuffle(shuffled)
        assert best_rank_first(shuffled) == expected


def test_the_runs_read_in_any_order_give_the_same_list() -> None:
    tops = {
        "a": {"q": (("x", None), ("y", 1), ("z", None))},
        "b": {"q": (("z", None), ("x", None)), "r": (("w", None),)},
    }
    forward = best_rank_first(find_holes(tops, 3))
    backward = best_rank_first(find_holes(dict(reversed(tops.items())), 3))
    assert [(h.query_id, h.doc_id, h.best_rank) for h in forward] == [
        (h.query_id, h.doc_id, h.best_rank) for h in backward
    ]
    assert [(h.query_id, h.doc_id) for h in forward] == [("q", "x"), ("q", "z"), ("r", "w")]


def test_counts_holes_queries_and_the_runs_that_returned_them() -> None:
    counts = count_holes(HOLES)
    assert (counts.holes, counts.queries, counts.runs) == (6, 3, 3)
    assert count_holes([]).holes == 0
