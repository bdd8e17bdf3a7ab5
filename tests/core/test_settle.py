"""The orders of ``judgepool holes``: depth (pooling) and settle (look-ahead on
the exact bounds)."""

from __future__ import annotations

import random

from judgepool.core.comparing.bounds import TopK
from judgepool.core.holes.settle import SettleState, depth_order, find_holes
from judgepool.core.terms.contract import Contract

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


# -- the settle priority for probable verdicts ------------------------------------

REFERENCE_TOPS: list[dict[str, TopK]] = [
    {"q": (("A", 3), ("U", None))},  # the contract's reference: [A, U] against [U, A]
    {"q": (("U", None), ("A", 3))},
]
REFERENCE_JUDGED = {"q": {"A": 3, "B": 0}}


def test_a_hole_that_can_decide_a_pair_ranks_above_one_that_cannot() -> None:
    # q: the contract's reference pair, open while U is unjudged (P(A ahead)
    # 5/6 under the rank prior here: grades 1 and 3 seen at rank 1); q2: both
    # runs return [s, z], so their difference there is 0 whatever z's grade
    tops = [
        {**REFERENCE_TOPS[0], "q2": (("s", 1), ("z", None))},
        {**REFERENCE_TOPS[1], "q2": (("s", 1), ("z", None))},
    ]
    judged = {**REFERENCE_JUDGED, "q2": {"s": 1}}
    settle = SettleState(["a", "b"], tops, judged, CONTRACT, ["q", "q2"], [(0, 1)])
    assert settle.undecided_pairs() == [0]
    assert abs(settle.p_a_ahead(0) - 5 / 6) < 0.04  # 2,000 draws
    ranked = settle.priorities()
    assert [h.doc_id for h, _ in ranked] == ["U", "z"]
    assert ranked[0][1] > 0 and ranked[1][1] == 0.0
    # and indeed: judged, U decides the pair whatever its grade; z cannot
    for grade in range(4):
        after = SettleState(["a", "b"], tops, judged, CONTRACT, ["q", "q2"], [(0, 1)])
        after.judge("q", "U", grade)
        assert after.verdict(0) in ("settled", "tied")
        after = SettleState(["a", "b"], tops, judged, CONTRACT, ["q", "q2"], [(0, 1)])
        after.judge("q2", "z", grade)
        assert after.verdict(0) == "could flip"


def test_a_decided_pairs_holes_get_nothing() -> None:
    # settled: a's judged 3 at rank 1 beats b's 0 there whatever u and w are
    judged = {"q": {"r": 3, "n": 0}}
    tops = [{"q": (("r", 3), ("u", None))}, {"q": (("n", 0), ("w", None))}]
    settled = state(tops, judged)
    assert settled.verdict(0) == "settled" and settled.undecided_pairs() == []
    assert [score for _, score in settled.priorities()] == [0.0, 0.0]
    # probable: the reference pair, P(A ahead) = 0.8 under the rank prior
    # (contract, "Probable verdicts"), decided at confidence 0.75, not at 0.95
    names, queries, pairs = ["a", "b"], ["q"], [(0, 1)]
    sure = SettleState(names, REFERENCE_TOPS, REFERENCE_JUDGED, CONTRACT, queries, pairs,
                       confidence=0.75, aim=0.75)  # fmt: skip
    assert abs(sure.p_a_ahead(0) - 0.8) < 0.04
    assert sure.verdict(0) == "probable" and sure.working_pairs() == []
    assert sure.priorities()[0][1] == 0.0
    unsure = SettleState(names, REFERENCE_TOPS, REFERENCE_JUDGED, CONTRACT, queries, pairs)
    assert unsure.verdict(0) == "could flip" and unsure.priorities()[0][1] > 0


def test_a_probable_pair_short_of_the_aim_is_still_worked_on() -> None:
    # confidence 0.75: the reference pair (P 0.8) is probable, but the order
    # aims at (1 + 0.75) / 2 = 0.875 by default, so its hole still counts
    names, queries, pairs = ["a", "b"], ["q"], [(0, 1)]
    margin = SettleState(names, REFERENCE_TOPS, REFERENCE_JUDGED, CONTRACT, queries, pairs,
                         confidence=0.75)  # fmt: skip
    assert margin.aim == 0.875 and margin.verdict(0) == "probable"
    assert margin.undecided_pairs() == [] and margin.working_pairs() == [0]
    assert margin.priorities()[0][1] > 0


def test_judging_one_at_a_time_equals_starting_afresh() -> None:
    # the app and the replay judge one hole at a time: after each judgment the
    # state must be the one built from scratch on the judgments as they are
    # (refresh 0: every query whose holes' prior moved is redrawn)
    rng = random.Random(11)
    docs = [f"d{i}" for i in range(9)]
    queries = ["q1", "q2", "q3"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    names = ["a", "b", "c"]
    for _ in range(4):
        judged = {q: {d: rng.randint(0, 3) for d in rng.sample(docs, 4)} for q in queries}
        tops = [
            {q: tuple((d, judged[q].get(d)) for d in rng.sample(docs, 3)) for q in queries}
            for _ in names
        ]
        options = {"draws": 400, "conditioned": 64, "refresh": 0.0}
        settle = SettleState(names, tops, judged, CONTRACT, queries, pairs, **options)
        now = {q: dict(d) for q, d in judged.items()}
        while settle.holes():
            hole = settle.priorities()[0][0]
            grade = rng.randint(0, 3)
            settle.judge(hole.query_id, hole.doc_id, grade)
            now[hole.query_id][hole.doc_id] = grade
            fresh = SettleState(names, tops, now, CONTRACT, queries, pairs, **options)
            assert settle.priorities() == fresh.priorities()
            for index in range(len(pairs)):
                assert settle.pair_bounds(index) == fresh.pair_bounds(index)
                assert settle.p_a_ahead(index) == fresh.p_a_ahead(index)


def _random_states(seed: int, count: int) -> list[SettleState]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(12)]
    queries = ["q1", "q2", "q3", "q4"]
    names = ["a", "b", "c", "d"]
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    found = []
    for _ in range(count):
        judged = {q: {d: rng.randint(0, 3) for d in rng.sample(docs, 4)} for q in queries}
        tops = [
            {q: tuple((d, judged[q].get(d)) for d in rng.sample(docs, 3)) for q in queries}
            for _ in names
        ]
        found.append(SettleState(names, tops, judged, CONTRACT, queries, pairs, draws=400))
    return found


def test_a_batch_is_chosen_as_if_the_holes_before_it_were_judged() -> None:
    # a plain recomputation of each choice: a hole covers of a pair's way R_p
    # what is left of it once the holes chosen before are judged (R_p less
    # their v_hp, at least 0); best share first, then best rank
    worked_on = 0
    for settle in _random_states(5, 6):
        holes = settle.holes()
        working = settle.working_pairs()
        worked_on += len(working)
        explained = {p: settle.explained_variance(p).tolist() for p in working}
        way = {p: max(settle.remaining_variance(p), 1e-24) for p in working}
        left = dict(way)
        batch = settle.batch(len(holes) + 3)
        assert len(batch) == len(holes) and len({h for h, _ in batch}) == len(holes)
        chosen: set[int] = set()
        for hole, priority in batch:
            scores = {
                i: sum(min(explained[p][i], max(left[p], 0.0)) / way[p] for p in working)
                for i in range(len(holes))
                if i not in chosen
            }
            best = max(scores.values())
            assert abs(priority - best) <= 1e-9
            picked = holes.index(hole)
            assert abs(scores[picked] - best) <= 1e-9
            # among the holes as good, the best rank
            assert hole.best_rank == min(
                holes[i].best_rank for i, s in scores.items() if abs(s - best) <= 1e-9
            )
            chosen.add(picked)
            for p in working:
                left[p] -= explained[p][picked]
    assert worked_on > 0  # the draws left pairs to work on: the choices were not all by rank


def test_a_batch_begins_with_the_first_hole_and_grows_by_its_end() -> None:
    for settle in _random_states(8, 6):
        first = settle.priorities()[0]
        batch = settle.batch(4)
        assert batch[0][0] == first[0] or abs(batch[0][1] - first[1]) <= 1e-12
        assert settle.batch(5)[:4] == batch and settle.batch(0) == []
        priorities = [priority for _, priority in settle.batch(len(settle.holes()))]
        assert priorities == sorted(priorities, reverse=True)
        # the rest after a batch: by what each adds to it, falling on from it
        whole = settle.batch(3, then_the_rest=True)
        assert whole[:3] == settle.batch(3) and len(whole) == len(settle.holes())
        tail = [priority for _, priority in whole]
        assert tail == sorted(tail, reverse=True)


def test_past_its_size_a_batch_is_the_order_of_priority() -> None:
    # the batch keeps every hole's v_hp for every pair worked on: past
    # max_cells of them it falls back to priorities, whole or its head
    for settle in _random_states(13, 3):
        cells = len(settle.holes()) * len(settle.working_pairs())
        assert cells > 0
        assert settle.batch(4, max_cells=cells - 1) == settle.priorities()[:4]
        whole = settle.batch(4, then_the_rest=True, max_cells=cells - 1)
        assert whole == settle.priorities()
        assert settle.batch(4, max_cells=cells) != [] and len(settle.batch(4, max_cells=cells)) == 4


def test_past_its_work_a_batch_takes_its_later_holes_at_once() -> None:
    # one choice at a time (max_work = one weighing of every hole against
    # every pair), then the rest by their share beyond that first hole
    for settle in _random_states(17, 3):
        cells = len(settle.holes()) * len(settle.working_pairs())
        quick = settle.batch(4, max_work=cells)
        assert len(quick) == 4 and quick[0] == settle.batch(1)[0]
        whole = settle.batch(1, then_the_rest=True)
        assert quick == whole[:4]
        assert settle.batch(4, max_work=cells, then_the_rest=True) == whole
