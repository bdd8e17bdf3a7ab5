"""`core.fast.rescore`: a run's queries scored part by part, each again when
its judgments change, give what scoring the whole run gives against the
latest judgments (`evaluate_columns`), the refusals included, on random
sequences of changes under every reject and tie policy.

The run keeps one query's lines apart (its second half at the end of the
file), repeats a document in a query judged only later, ties scores across the cutoff and
returns a query nobody judges; the changes add, regrade and remove
judgments, judge a query for the first time, take every judgment of one away, and
now and then grade every hole.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from judgepool.core.fast.engine import evaluate_columns
from judgepool.core.fast.rescore import RescoredRun, RunQueries
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import PolicyError
from judgepool.core.terms.types import Evaluation, Judgments
from judgepool.formats.fast_run import read_run_columns

QUERIES = [f"q{n}" for n in range(1, 7)]
DOCS = [f"d{n}" for n in range(1, 11)]
CONTRACTS = [
    Contract(k=k, unjudged=unjudged, duplicates=duplicates, ties=ties)
    for (unjudged, duplicates, ties), k in zip(
        itertools.product(
            ("reject", "zero", "condense"), ("reject", "first"), ("trec_eval", "input")
        ),
        itertools.cycle((3, 5, 10)),
    )
]


def _run_file(path: Path, rng: random.Random) -> Path:
    lines = []
    for query in QUERIES:
        docs = rng.sample(DOCS, rng.randint(4, 9))
        if query == "q5":
            docs.insert(2, docs[0])  # a duplicate, once q5 is judged
        lines += [
            f"{query} Q0 {doc} {rank} {round(9 - rank / 3):.1f} run"
            for rank, doc in enumerate(docs, start=1)
        ]
    # q1's last lines come back after every other query's
    first = [line for line in lines if line.startswith("q1 ")]
    others = [line for line in lines if not line.startswith("q1 ")]
    cut = len(first) // 2
    lines = first[:cut] + others + ["q9 Q0 d1 1 1.0 run"] + first[cut:]
    path.write_text("\n".join(lines) + "\n")
    return path


def _outcome(score: Callable[[], Evaluation]) -> Evaluation | tuple[str, str, object]:
    """The evaluation, or the refusal: its type, message and every entry."""
    try:
        return score()
    except PolicyError as exc:
        return type(exc).__name__, str(exc), getattr(exc, "entries", None)


def _change(judgments: Judgments, rng: random.Random) -> set[str]:
    """One to three changes; the queries they touched."""
    touched = set()
    for _ in range(rng.randint(1, 3)):
        query = rng.choice(QUERIES[1:])  # q1 stays judged: its split lines always count
        roll = rng.random()
        docs = dict(judgments.get(query, {}))
        if roll < 0.15:
            docs = {}  # every judgment of the query taken away
        elif roll < 0.3 and docs:
            docs.pop(rng.choice(sorted(docs)))
        else:
            docs[rng.choice(DOCS)] = rng.randint(0, 3)
        if docs:
            judgments[query] = docs
        else:
            judgments.pop(query, None)
        touched.add(query)
    return touched


@pytest.mark.parametrize(
    "contract", CONTRACTS, ids=lambda c: f"{c.unjudged}-{c.duplicates}-{c.ties}"
)
def test_scoring_again_only_the_changed_queries_gives_the_whole_run(
    tmp_path: Path, contract: Contract
) -> None:
    rng = random.Random(str(contract))
    columns = read_run_columns(_run_file(tmp_path / "run.trec", rng))
    judgments: Judgments = {
        query: {doc: rng.randint(0, 3) for doc in rng.sample(DOCS, 6)} for query in QUERIES[:4]
    }
    rescored = RescoredRun(RunQueries(columns), contract)
    rescored.rescore(judgments)
    outcomes = set()
    for step in range(60):
        expected = _outcome(lambda: evaluate_columns(columns, judgments, contract, "run"))
        assert _outcome(lambda: rescored.evaluation(judgments, "run")) == expected
        outcomes.add(type(expected).__name__ if isinstance(expected, Evaluation) else expected[0])
        if step % 7 == 6:
            # every hole graded (the queries without one untouched): unjudged=reject
            # lets the run be
            touched = {query for query, docs in judgments.items() if len(docs) < len(DOCS)}
            for query in touched:
                judgments[query] = {doc: rng.randint(0, 3) for doc in DOCS} | judgments[query]
        else:
            touched = _change(judgments, rng)
        rescored.rescore(judgments, touched)
    if contract.unjudged == "reject" or contract.duplicates == "reject":
        assert len(outcomes) > 1  # refused and scored, in turn: both were held


def test_a_query_s_lines_apart_are_one_query(tmp_path: Path) -> None:
    columns = read_run_columns(_run_file(tmp_path / "run.trec", random.Random(3)))
    queries = RunQueries(columns)
    assert sorted(queries.rows) == [*QUERIES, "q9"]
    q1 = queries.lines_of(["q1"])
    assert set(q1.query_ids.to_pylist()) == {"q1"}
    # in source order, every line of it, the split included
    lines = q1.lines
    assert lines is not None and list(lines) == sorted(lines)
    assert len(lines) == sum(1 for q in columns.query_ids.to_pylist() if q == "q1")
