"""Which trec_eval: scores that differ only past single precision.

trec_eval up to 9.0.8 reads each score with ``atof`` into a C ``float``, so
two scores that round to one 32-bit float are a tie, broken by document ID
descending; 10.0 reads a double. ``--preset trec_eval9`` (and ``trec_eval``)
must give 9.0.8's numbers, ``--preset trec_eval10`` 10.0's.

The real runs of ``tests/data`` never meet the difference: their scores were
computed in 32-bit floats, so no two of a query round to one float unless
they are equal (the v9.0.8 and v10.0 outputs of the shared data agree on
every line). The runs here are those runs, rewritten: in each query, groups
of neighbouring documents (about one document in seven starts one) get
distinct doubles that all round to one float, in an order unrelated to their
IDs, as real submissions whose scores print 14 decimals have
(68.41769638061524 and 68.41769618988037 are one float). Some groups also
get the awkward doubles: the exact midpoints between two floats (the C
conversion rounds them to the even one) and the doubles just beyond them.

The oracles, per query, for nDCG@5, 10, 20 and 100:

- 9.0.8: pytrec_eval, which is trec_eval 9's code (its ``float`` scores),
  given the run's scores as the doubles the text denotes;
- 10.0: no trec_eval 10 binary is available here, and its outputs in the
  shared data are for runs without such scores (`test_trec_eval` holds both
  presets to them). Its rule is trec_eval's sort with scores compared as
  doubles; pytrec_eval computes exactly that when each query's scores are
  replaced by their dense ranks (small integers, exact in a float, in the
  order of the doubles, equal doubles equal).

Every engine path must match both; a value matches within 1e-9 (pytrec_eval
adds in its own order). The hypothesis test at the end does the same on
random near-equal scores.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Contract, Scale, preset
from judgepool.core.terms.types import Evaluation, Judgments, RunEntry
from judgepool.formats.fast_run import parse_run_bytes, read_run_columns
from judgepool.formats.trec import read_qrels, read_run
from judgepool.services.runs.streaming import score_in_chunks
from tests.conformance.trec_eval_cases import DATA, read_text

CUTOFFS = (5, 10, 20, 100)
TOLERANCE = 1e-9
MEASURES = {"ndcg_cut." + ",".join(str(k) for k in CUTOFFS)}

# (dataset, qrels, run) under tests/data
RUNS = [
    (dataset, qrels, f"{dataset}/runs/{run}.trec.gz")
    for dataset, qrels in (
        ("dl19-passage", "dl19-passage/qrels.dl19-passage.txt.gz"),
        ("dl20-passage", "dl20-passage/qrels.dl20-passage.txt.gz"),
    )
    for run in (
        "bm25.top100",
        "bm25-rm3.top100",
        "tasb.top100",
        "openai-ada2.top100",
        "splade-pp-ed.top100",
        "repllama.top1000",
    )
] + [
    ("dl-hard", "dl-hard/dl_hard-passage.qrels.gz", f"dl-hard/runs/{run}.trec.gz")
    for run in ("bm25", "bm25+t5zs")
]

# Scores per query: doc -> score (the run has no duplicate documents)
Scores = dict[str, dict[str, float]]


# ---- the rewritten runs ----------------------------------------------------


def float32_neighbours(value: float) -> tuple[float, float, float]:
    """The float nearest ``value`` and the floats below and above it, as doubles."""
    with np.errstate(over="ignore"):  # beyond the largest float: an infinity
        single = np.float32(value)
    down = np.nextafter(single, np.float32(-np.inf))
    up = np.nextafter(single, np.float32(np.inf))
    return float(single), float(down), float(up)


def collapsing(value: float, count: int, rng: random.Random) -> list[float]:
    """``count`` distinct doubles that round to the float nearest ``value``
    (strictly between the midpoints to its neighbours), in random order; with
    some chance one of them is replaced by an awkward double: a midpoint (the
    conversion rounds it to the even float of the two) or the double just
    beyond one (the neighbour)."""
    single, down, up = float32_neighbours(value)
    # a float's sum with its neighbour is exact in a double, and so is half of it
    low, high = (single + down) / 2, (single + up) / 2
    chosen: set[float] = set()
    while len(chosen) < count:
        candidate = rng.uniform(low, high)
        if low < candidate < high:
            chosen.add(candidate)
    values = list(chosen)
    rng.shuffle(values)
    if rng.random() < 0.3:
        awkward = [low, high, float(np.nextafter(low, -np.inf)), float(np.nextafter(high, np.inf))]
        values[rng.randrange(count)] = rng.choice(awkward)
    return values


def rewritten(text: str, seed: int) -> str:
    """The run with groups of 2-4 neighbouring lines of a query given scores
    that differ only past single precision (printed in full, as `repr`)."""
    rng = random.Random(seed)
    lines = [line.split() for line in text.splitlines()]
    i = 0
    while i < len(lines):
        size = rng.randint(2, 4)
        group = lines[i : i + size]
        same_query = all(columns[0] == group[0][0] for columns in group)
        if len(group) < 2 or not same_query or rng.random() >= 0.15:
            i += 1
            continue
        scores = collapsing(float(group[0][4]), len(group), rng)
        for columns, score in zip(group, scores, strict=True):
            columns[4] = repr(score)
        i += size
    return "".join(" ".join(columns) + "\n" for columns in lines)


@cache
def judgments_of(qrels: str) -> Judgments:
    return read_qrels(DATA / qrels, Scale()).judgments


@cache
def rewritten_run(run: str) -> str:
    return rewritten(read_text(DATA / run), zlib.crc32(run.encode()))


def scores_of(text: str) -> Scores:
    scores: Scores = {}
    for line in text.splitlines():
        query, _, doc, _, score, *_ = line.split()
        assert doc not in scores.setdefault(query, {}), "a duplicate document"
        scores[query][doc] = float(score)
    return scores


# ---- the oracles -------------------------------------------------------------


def pytrec_ndcg(judgments: Judgments, scores: Scores) -> dict[str, dict[int, float]]:
    """pytrec_eval's nDCG at every cutoff, per query it evaluates."""
    results = pytrec_eval.RelevanceEvaluator(judgments, MEASURES).evaluate(scores)
    return {
        query: {k: values[f"ndcg_cut_{k}"] for k in CUTOFFS} for query, values in results.items()
    }


def dense_ranks(scores: Scores) -> Scores:
    """Each query's scores replaced by their dense ranks: the order of the
    doubles (equal doubles equal), in numbers a float holds exactly."""
    ranked: Scores = {}
    for query, docs in scores.items():
        distinct = sorted(set(docs.values()))
        assert len(distinct) < 2**24
        place = {value: float(number) for number, value in enumerate(distinct)}
        ranked[query] = {doc: place[score] for doc, score in docs.items()}
    return ranked


def oracles(judgments: Judgments, scores: Scores) -> dict[str, dict[str, dict[int, float]]]:
    """Per preset, per query, per cutoff: what that trec_eval prints."""
    return {
        "trec_eval9": pytrec_ndcg(judgments, scores),
        "trec_eval10": pytrec_ndcg(judgments, dense_ranks(scores)),
    }


# ---- the comparison ------------------------------------------------------------


@dataclass
class Tally:
    compared: int = 0
    equal: int = 0
    mismatches: list[str] | None = None

    def add(self, label: str, ours: float | None, expected: float) -> None:
        self.compared += 1
        if ours is not None and abs(ours - expected) <= TOLERANCE:
            self.equal += 1
        else:
            if self.mismatches is None:
                self.mismatches = []
            self.mismatches.append(f"{label}: ours {ours!r}, oracle {expected!r}")


Evaluator = Callable[[Contract], Evaluation]


def compare(
    evaluator: Evaluator,
    expected: Mapping[str, Mapping[str, Mapping[int, float]]],
    judged: Iterable[str],
) -> Tally:
    """Every per-query nDCG@k under each preset against its oracle."""
    tally = Tally()
    for name, per_query in expected.items():
        for k in CUTOFFS:
            evaluation = evaluator(preset(name, k=k))
            results = {r.query_id: r for r in evaluation.per_query}
            # pytrec_eval evaluates the judged queries the run returned; the
            # preset also scores the judged queries it did not (-c), with 0
            assert set(per_query) <= set(results)
            assert all(results[q].missing for q in set(results) - set(per_query))
            assert set(results) == set(judged)
            for query, values in per_query.items():
                tally.add(f"{name} ndcg@{k} {query}", results[query].ndcg, values[k])
    return tally


def path_evaluators(run_file: Path, text: str, judgments: Judgments) -> dict[str, Evaluator]:
    entries = group_by_query(read_run(run_file).entries)
    columns = read_run_columns(run_file)

    def streamed(contract: Contract) -> Evaluation:
        merged, _ = score_in_chunks(run_file, "run", judgments, contract, chunk_bytes=64 << 10)
        return merged.evaluation()

    return {
        "reference": lambda contract: evaluate(entries, judgments, contract),
        "fast": lambda contract: evaluate_columns(columns, judgments, contract),
        "fast-streamed": streamed,
        "fast-in-memory": lambda contract: evaluate_columns(
            parse_run_bytes(text.encode(), str(run_file)), judgments, contract
        ),
    }


PATHS = ("reference", "fast", "fast-streamed", "fast-in-memory")


def _params() -> list[object]:
    params = []
    for dataset, qrels, run in RUNS:
        for path in PATHS:
            large = dataset == "dl-hard" or "top1000" in run
            marks = [pytest.mark.slow] if large and path == "reference" else []
            params.append(pytest.param(qrels, run, path, id=f"{run}/{path}", marks=marks))
    return params


@pytest.mark.parametrize(("qrels", "run", "path"), _params())
def test_rewritten_real_runs_match_both_trec_evals(
    tmp_path: Path,
    qrels: str,
    run: str,
    path: str,
    record_property: Callable[[str, object], None],
) -> None:
    judgments = judgments_of(qrels)
    text = rewritten_run(run)
    run_file = tmp_path / "run.trec"
    run_file.write_text(text)
    expected = oracles(judgments, scores_of(text))
    tally = compare(path_evaluators(run_file, text, judgments)[path], expected, judgments)
    record_property("values_compared", tally.compared)
    record_property("values_equal", tally.equal)
    assert tally.mismatches is None, (
        f"{tally.compared - tally.equal} of {tally.compared} values differ (first 10):\n"
        + "\n".join(tally.mismatches[:10])
    )


def test_the_rewritten_runs_tell_the_versions_apart(
    record_property: Callable[[str, object], None],
) -> None:
    """The rewritten runs would catch a preset reading the other version: on
    every run, some per-query values differ between 9.0.8 and 10.0, and the
    double-precision reading (10.0's) differs from pytrec_eval on the same ones."""
    differing_total = 0
    for _, qrels, run in RUNS:
        judgments = judgments_of(qrels)
        expected = oracles(judgments, scores_of(rewritten_run(run)))
        nine, ten = expected["trec_eval9"], expected["trec_eval10"]
        differing = sum(1 for q in nine for k in CUTOFFS if abs(nine[q][k] - ten[q][k]) > TOLERANCE)
        assert differing > 0, f"{run}: the rewritten run does not tell 9.0.8 from 10.0"
        differing_total += differing
    record_property("values_differing_between_versions", differing_total)


# ---- random near-equal scores ----------------------------------------------------

DOCS = tuple(f"d{i:02d}" for i in range(12))


@st.composite
def near_equal_runs(draw: st.DrawFn) -> tuple[Judgments, Scores]:
    """1-3 queries; each returns 1-12 documents whose scores lie within a few
    32-bit steps of one value: random doubles between, the floats themselves,
    the midpoints between two floats and the doubles next to those. The
    values range over magnitudes (subnormal floats, and doubles beyond the
    largest float, which become infinities)."""
    judgments: Judgments = {}
    scores: Scores = {}
    for number in range(draw(st.integers(1, 3))):
        query = f"q{number}"
        base = draw(
            st.sampled_from([0.0, 1.0, -1.0, 68.4176962, 1e-42, 3.4e38, 1e39])
            | st.floats(-1e6, 1e6, allow_nan=False)
        )
        single, down, up = float32_neighbours(base)
        # half the distance between neighbouring floats (at a power of two,
        # the mean of the step below and the step above)
        step = (up - down) / 4
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, unique=True))
        chosen: dict[str, float] = {}
        for doc in docs:
            kind = draw(st.integers(0, 4))
            if np.isinf(single):  # doubles beyond the largest float: all one infinity
                value = base * (1 + draw(st.integers(0, 8)) / 1000)
            elif kind == 0:
                value = single + draw(st.integers(-4, 4)) * 2 * step  # floats
            elif kind == 1:
                value = single + (2 * draw(st.integers(-4, 3)) + 1) * step  # about the midpoints
            elif kind == 2:
                middle = single + (2 * draw(st.integers(-2, 1)) + 1) * step
                value = float(np.nextafter(middle, draw(st.sampled_from([-np.inf, np.inf]))))
            else:
                value = single + draw(st.floats(-4.0, 4.0)) * step
            chosen[doc] = value if np.isfinite(value) else base
        judgments[query] = {doc: draw(st.integers(0, 3)) for doc in docs if draw(st.booleans())}
        if not judgments[query]:
            judgments[query] = {docs[0]: draw(st.integers(0, 3))}
        scores[query] = chosen
    return judgments, scores


def entries_of(scores: Scores) -> dict[str, list[RunEntry]]:
    grouped: dict[str, list[RunEntry]] = {}
    line = 0
    for query, docs in scores.items():
        for rank, (doc, score) in enumerate(docs.items(), start=1):
            line += 1
            grouped.setdefault(query, []).append(RunEntry(query, doc, rank, score, line))
    return grouped


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=near_equal_runs())
def test_random_near_equal_scores_match_both_trec_evals(case: tuple[Judgments, Scores]) -> None:
    judgments, scores = case
    text = "".join(
        f"{query} Q0 {doc} {rank} {score!r} t\n"
        for query, docs in scores.items()
        for rank, (doc, score) in enumerate(docs.items(), start=1)
    )
    columns = parse_run_bytes(text.encode(), "run")
    evaluators: dict[str, Evaluator] = {
        "reference": lambda contract: evaluate(entries_of(scores), judgments, contract),
        "fast": lambda contract: evaluate_columns(columns, judgments, contract),
    }
    expected = oracles(judgments, scores)
    for name, evaluator in evaluators.items():
        tally = compare(evaluator, expected, judgments)
        assert tally.mismatches is None, f"{name}: " + "\n".join(tally.mismatches)
