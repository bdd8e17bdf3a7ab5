"""The orders of ``judgepool holes``: depth (pooling) and settle (look-ahead on
the exact bounds)."""

from __future__ import annotations

import random

from judgepool.core.bounds import TopK
from judgepool.core.contract import Contract
from judgepool.core.settle import SettleState, depth_order, find_holes

CONTRACT = Contract(k=3, unjudged="zero")


def test_holes_name_their_runs_and_best_rank() -> None:
    tops: dict[str, dict[str, TopK]] = {
        "a": {"q": (("x", None), ("j", 2), ("y", None))},
        "b": {"q": (("y", None), ("x", None))},
    }
    holes = {(h.query_id, h.doc_id): h for h in find_holes(tops, 3)}
    assert holes[("q", "x")].runs == ("a", "b") and holes[("q", "x")].best_rank == 1
    assert holes[("q", "y")].runs == ("a", "b") and holes[("q", "y")].best_rank == 1
    assert ("q", "j") not in holes


def test_depth_is_by_rank_round_robin_over_runs_each_document_once() -> None:
    tops: dict[str, dict[str, TopK]] = {
        "a": {"q1": (("a1", None), ("a2", None)), "q2": (("c1", None),)},
        "b": {"q1": (("b1", None), ("a1", None)), "q2": (("c1", None), ("c2", None))},
    }
    order = [(h.query_id, h.doc_id) for h, _ in depth_order(tops, 3)]
    assert order == [("q1", "a1"), ("q2", "c1"), ("q1", "b1"), ("q1", "a2"), ("q2", "c2")]
    priorities = [p for _, p in depth_order(tops, 3)]
    assert priorities == sorted(priorities, reverse=True)


def state(tops: list[dict[str, TopK]], judged: dict[str, dict[str, int]]) -> SettleState:
    queries = sorted(judged)
    return SettleState(["a", "b"], tops, judged, CONTRACT, queries, [(0, 1)])


def test_a_pair_that_cannot_flip_is_not_open_and_a_close_one_is() -> None:
    judged = {"q": {"r": 3, "n": 0}}
    settled = state([{"q": (("r", 3), ("n", 0))}, {"q": (("n", 0), ("r", 3))}], judged)
    assert settled.open_pairs() == []
    close = state([{"q": (("r", 3), ("u", None))}, {"q": (("u", None), ("r", 3))}], judged)
    assert close.open_pairs() == [0]  # the reference pair: could flip (a tie is possible)


def test_holes_that_can_move_an_open_pair_come_before_those_that_cannot() -> None:
    # pairs: a against b only. c's hole w, on q where a and b differ, can move
    # the pair (judged, it rescales q's difference, and so the mean's); c's hole
    # z, on q2 where a and b return the same list, cannot: q2's difference is 0
    # whatever z's grade
    judged = {"q": {"r": 2}, "q2": {"s": 1}}
    tops = [
        {"q": (("r", 2), ("x", None)), "q2": (("s", 1),)},
        {"q": (("y", None), ("r", 2)), "q2": (("s", 1),)},
        {"q": (("w", None),), "q2": (("z", None),)},
    ]
    settle = SettleState(["a", "b", "c"], tops, judged, CONTRACT, ["q", "q2"], [(0, 1)])
    ranked = settle.priorities()
    assert {h.doc_id for h, score in ranked if score > 0} == {"x", "y", "w"}
    assert ranked[-1][0].doc_id == "z" and ranked[-1][1] == 0.0
    assert [score for _, score in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_bounds_only_narrow_as_holes_are_judged() -> None:
    rng = random.Random(4)
    docs = [f"d{i}" for i in range(8)]
    for _ in range(30):
        grades = {d: rng.randint(0, 3) for d in rng.sample(docs, 3)}
        tops = [{"q": tuple((d, grades.get(d)) for d in rng.sample(docs, 3))} for _ in range(2)]
        settle = state(tops, {"q": grades})
        low, high = settle.pair_bounds(0)
        for hole in settle.holes():
            settle.judge(hole.query_id, hole.doc_id, rng.randint(0, 3))
            new_low, new_high = settle.pair_bounds(0)
            assert new_low >= low - 1e-12 and new_high <= high + 1e-12
            low, high = new_low, new_high
        assert abs(high - low) <= 1e-12  # everything judged: one value
