"""The compare and holes use cases on real run files: a ``settled`` verdict is
never contradicted by any assignment of grades to the holes (every run
re-scored from scratch by the reference engine with the holes judged), both
engines give the same comparison on random runs, and the holes come in the
orders the product describes."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import ContractError
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run
from judgepool.services.runs.sources import file_source
from judgepool.services.verdicts import compare_runs, list_holes
from tests.core.fast_run_domain import SETTINGS as _SETTINGS

Judged = dict[str, dict[str, int]]


def write_run(path: Path, lists: dict[str, list[str]]) -> Path:
    path.write_text(
        "".join(
            f"{q} Q0 {d} {r + 1} {len(docs) - r} t\n"
            for q, docs in lists.items()
            for r, d in enumerate(docs)
        )
    )
    return path


@st.composite
def small_cases(draw: st.DrawFn) -> tuple[list[dict[str, list[str]]], Judged, Contract]:
    """Two or three runs over 1-3 queries with at most 4 holes in all."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    scale = draw(st.sampled_from([Scale(0, 1), Scale(0, 2), Scale(0, 3)]))
    contract = Contract(
        k=draw(st.integers(1, 4)),
        scale=scale,
        unjudged="zero",
        gain=draw(st.sampled_from(["linear", "exponential"])),
        zero_idcg=draw(st.sampled_from(["zero", "one"])),
    )
    queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    docs = [f"d{i}" for i in range(6)]
    judgments: Judged = {}
    holes = 0
    for q in queries:
        judged = {d: rng.randint(scale.minimum, scale.maximum) for d in docs if rng.random() < 0.6}
        unjudged = [d for d in docs if d not in judged]
        # keep the brute force small: at most 4 holes over all queries
        while len(unjudged) > max(0, 4 - holes) and unjudged:
            judged[unjudged.pop()] = rng.randint(scale.minimum, scale.maximum)
        holes += len(unjudged)
        judgments[q] = judged
    runs = [
        {q: rng.sample(docs, rng.randint(1, 5)) for q in queries}
        for _ in range(draw(st.integers(2, 3)))
    ]
    return runs, judgments, contract


def mean_ndcg(path: Path, judgments: Judged, contract: Contract) -> float:
    scored = score_run(
        file_source(path), JudgmentsSource(judgments, "x"), contract, engine="reference"
    )
    values = [r.ndcg for r in scored.evaluation.per_query]
    assert all(v is not None for v in values)
    return sum(v for v in values if v is not None) / len(values)


@settings(_SETTINGS, max_examples=150)
@given(case=small_cases())
@pytest.mark.slow
def test_a_settled_verdict_is_never_contradicted(
    tmp_path: Path, case: tuple[list[dict[str, list[str]]], Judged, Contract]
) -> None:
    runs, judgments, contract = case
    paths = [write_run(tmp_path / f"run{i}", lists) for i, lists in enumerate(runs)]
    compared = compare_runs(
        [file_source(p) for p in paths],
        JudgmentsSource(judgments, "x"),
        contract,
        permutations=10,
        bootstrap=10,
    )
    names = {str(p): i for i, p in enumerate(paths)}

    def holes_of(*indices: int) -> list[tuple[str, str]]:
        return sorted(
            {(q, d) for i in indices for q, docs in runs[i].items() for d in docs[: contract.k]
             if d not in judgments[q]}
        )  # fmt: skip

    def means_under(holes: list[tuple[str, str]], grades: tuple[int, ...]) -> dict[str, float]:
        full = {q: dict(j) for q, j in judgments.items()}
        for (q, d), grade in zip(holes, grades, strict=True):
            full[q][d] = grade
        return {str(p): mean_ndcg(p, full, contract) for p in paths}

    scale = contract.scale.grades
    everything = holes_of(*range(len(runs)))
    for grades in itertools.product(scale, repeat=len(everything)):
        # every hole of every run judged: each run's bounds hold its mean, each
        # pair's difference stays within its bounds (a third run's holes
        # included: judged, they rescale the pair's per-query differences), a
        # settled pair keeps its sign, a tied one 0
        means = means_under(everything, grades)
        for run in compared.report.runs:
            low, high = run.bounds or (0.0, 0.0)
            assert low - 1e-9 <= means[run.run] <= high + 1e-9
        for pair in compared.report.pairs:
            assert pair.diff_bounds is not None
            low, high = pair.diff_bounds
            diff = means[pair.a] - means[pair.b]
            assert low - 1e-9 <= diff <= high + 1e-9
            if pair.verdict == "settled":
                assert diff != 0 and (diff > 0) == (low > 0), (pair, grades)
            if pair.verdict == "tied":
                assert abs(diff) <= 1e-12
    for pair in compared.report.pairs:
        assert pair.holes == len(holes_of(names[pair.a], names[pair.b]))


@settings(_SETTINGS, max_examples=60)
@given(case=small_cases(), seed=st.integers(0, 5))
def test_both_engines_give_the_same_comparison_on_random_runs(
    tmp_path: Path, case: tuple[list[dict[str, list[str]]], Judged, Contract], seed: int
) -> None:
    runs, judgments, contract = case
    sources = [file_source(write_run(tmp_path / f"run{i}", r)) for i, r in enumerate(runs)]
    results = [
        compare_runs(sources, JudgmentsSource(judgments, "x"), contract, permutations=200,
                     bootstrap=200, seed=seed, engine=engine).to_dict()
        for engine in ("fast", "reference")
    ]  # fmt: skip
    assert results[0] == results[1]


def test_refusals(tmp_path: Path) -> None:
    path = write_run(tmp_path / "run", {"q": ["a"]})
    judgments = {"q": {"a": 1}}
    with pytest.raises(ContractError, match="compare needs at least 2 runs; 1 given"):
        compare_runs([file_source(path)], JudgmentsSource(judgments, "x"), Contract())
    with pytest.raises(ContractError, match="named twice"):
        compare_runs(
            [file_source(path), file_source(path)], JudgmentsSource(judgments, "x"), Contract()
        )
    with pytest.raises(ContractError, match="holes needs at least 1 run; none given"):
        list_holes([], JudgmentsSource(judgments, "x"), Contract())


# ----------------------------------------------------------------------- holes

# Two runs over two queries; u* are unjudged. Depth order: rank 1 of run A
# (q1, q2), then rank 1 of run B, then rank 2 of A, … each hole where it first
# comes; a hole both runs hold is listed once, at its best rank.
DEPTH_RUNS = {
    "A": {"q1": ["u1", "j1", "u2"], "q2": ["j2", "u3", "u4"]},
    "B": {"q1": ["j1", "u5", "u1"], "q2": ["u6", "j2", "u3"]},
}
DEPTH_JUDGMENTS = {"q1": {"j1": 2}, "q2": {"j2": 1}}


def test_depth_order_is_round_robin_by_rank(tmp_path: Path) -> None:
    sources = [file_source(write_run(tmp_path / n, r)) for n, r in DEPTH_RUNS.items()]
    contract = Contract(k=3, unjudged="zero")
    listing = list_holes(sources, JudgmentsSource(DEPTH_JUDGMENTS, "x"), contract, order="depth")
    order = [(h.hole.query_id, h.hole.doc_id) for h in listing.holes]
    assert order == [
        ("q1", "u1"),  # rank 1: A's q1 (A's q2 holds a judged document)
        ("q2", "u6"),  # rank 1: B's q2
        ("q2", "u3"),  # rank 2: A's q2
        ("q1", "u5"),  # rank 2: B's q1
        ("q1", "u2"),  # rank 3: A's q1
        ("q2", "u4"),  # rank 3: A's q2 (B's rank-3 holes came before)
    ]
    first = listing.holes[0].hole
    assert first.runs == (str(tmp_path / "A"), str(tmp_path / "B")) and first.best_rank == 1
    assert [h.priority for h in listing.holes] == [1 / n for n in range(1, 7)]
    assert listing.total == 6 and listing.queries == 2
    limited = list_holes(
        sources, JudgmentsSource(DEPTH_JUDGMENTS, "x"), contract, order="depth", limit=2
    )
    assert limited.holes == listing.holes[:2] and limited.total == 6


def test_a_query_chosen_for_judging_without_a_grade_counts_as_a_judged_one_would(
    tmp_path: Path,
) -> None:
    # q3 is pooled but not judged yet: its whole top k is holes. Returned by A
    # only, it counts under missing=zero (B scores 0 there) and not under skip,
    # as a judged query absent from a run would; a query nobody chose is not listed.
    runs = {"A": {**DEPTH_RUNS["A"], "q3": ["n1", "n2"], "q9": ["z"]}, "B": DEPTH_RUNS["B"]}
    sources = [file_source(write_run(tmp_path / n, r)) for n, r in runs.items()]
    listed = {}
    for missing in ("zero", "skip"):
        contract = Contract(k=3, missing=missing, zero_idcg="exclude")
        for order in ("depth", "settle"):
            listing = list_holes(sources, JudgmentsSource(DEPTH_JUDGMENTS, "x"), contract,
                                 order=order, unjudged_queries=["q3", "q1"])  # fmt: skip
            listed[missing, order] = {(h.hole.query_id, h.hole.doc_id) for h in listing.holes}
            assert listing.queries == (3 if missing == "zero" else 2)
    without = list_holes(
        sources, JudgmentsSource(DEPTH_JUDGMENTS, "x"), Contract(k=3), order="depth"
    )
    before = {(h.hole.query_id, h.hole.doc_id) for h in without.holes}
    fresh = {("q3", "n1"), ("q3", "n2")}
    assert listed["zero", "depth"] == listed["zero", "settle"] == before | fresh
    assert listed["skip", "depth"] == listed["skip", "settle"] == before


def test_a_third_runs_holes_cannot_flip_a_settled_pair(tmp_path: Path) -> None:
    # A beats B on q1 by 1.0 and loses on q2 by 0.613: A ahead, no hole in either
    # run. C's two holes on q1, both judged 3, shrink q1's difference to 0.204.
    judgments = {"q1": {"a": 1, "x0": 0}, "q2": {"c": 1, "e": 1, "x": 0}}
    lists = {"A": {"q1": ["a"], "q2": ["x"]}, "B": {"q1": ["x0"], "q2": ["c"]},
             "C": {"q1": ["u1", "u2"], "q2": ["c"]}}  # fmt: skip
    paths = {name: write_run(tmp_path / name, runs) for name, runs in lists.items()}
    contract = Contract(k=2, unjudged="zero")
    compared = compare_runs([file_source(p) for p in paths.values()],
                            JudgmentsSource(judgments, "x"), contract,
                            permutations=10, bootstrap=10)  # fmt: skip
    pair = compared.report.pairs[0]
    judged = {**judgments, "q1": {**judgments["q1"], "u1": 3, "u2": 3}}
    after = mean_ndcg(paths["A"], judged, contract) - mean_ndcg(paths["B"], judged, contract)
    assert after < 0  # the holes judged, B is ahead
    assert pair.verdict == "could flip" and pair.holes == 0  # none of A's or B's own
    assert pair.diff_bounds is not None and pair.diff_bounds[0] <= after
