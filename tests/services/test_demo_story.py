"""The demo tells its story: on the demo workspace as built from sample_data/,
a comparison is undecided at the start, and judging holes in settle order
with their true grades decides it, for the run the full judgments put ahead
(issue 9, point 6; with probable verdicts, issue 19, point 4).

The start is read from the built workspace (its runs, its judgments under the
default consensus, its default contract). The true grades of the holes come
from ``sample_data/dl19/hidden.qrels``, which the demo does not import; the
real DL19 qrels (``tests/data``) check that the demo's judgments are real.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from judgepool.core.comparing.bounds import TopK
from judgepool.core.comparing.verdicts import ComparisonReport, RunInput, compare
from judgepool.core.holes.settle import SettleState
from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.scoring.ranking import form_list
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.types import RunEntry
from judgepool.formats.trec import read_qrels
from judgepool.services.consensus import workspace_judgments
from judgepool.services.demo import demo_contract, ensure_demo_workspace
from judgepool.services.workspace import open_workspace
from judgepool.store.runs import list_runs, run_entries

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
DEMO = SAMPLE_DATA / "dl19"
TRUE_QRELS = (
    Path(__file__).resolve().parents[1] / "data" / "dl19-passage" / "qrels.dl19-passage.txt.gz"
)
OLD_RUNS = ("bm25", "bm25-rm3")  # the runs whose top 10 was judged
# the judgments of the story: the closest pair, SPLADE++ ED vs RepLLaMA
# (0.02 apart with every judgment), needs about 35 in settle order
STORY_LENGTH = 40

Judged = dict[str, dict[str, int]]
Runs = dict[str, dict[str, list[RunEntry]]]
Demo = tuple[Runs, Judged, Contract]


def run_input(name: str, grouped: Mapping[str, Sequence[RunEntry]], judged: Judged,
              contract: Contract) -> RunInput:  # fmt: skip
    """What `compare` takes: the run's evaluation and its top k per judged query."""
    top: dict[str, TopK] = {}
    for query_id, entries in grouped.items():
        if query_id in judged:
            formed = form_list(query_id, entries, judged[query_id], contract)
            top[query_id] = tuple((d.entity, d.grade) for d in formed.deduplicated[: contract.k])
    return RunInput(name, evaluate(grouped, judged, contract), top)


def comparison(
    runs: Mapping[str, Mapping[str, Sequence[RunEntry]]], judged: Judged, contract: Contract
) -> ComparisonReport:
    inputs = [run_input(name, grouped, judged, contract) for name, grouped in runs.items()]
    pairs = list(itertools.combinations(range(len(inputs)), 2))
    return compare(inputs, judged, contract, pairs, permutations=1000, bootstrap=1000)


def verdicts(report: ComparisonReport) -> dict[tuple[str, str], str | None]:
    return {(p.a, p.b): p.verdict for p in report.pairs}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """(run -> query -> entries, judgments, contract) of the built demo workspace."""
    path = ensure_demo_workspace(tmp_path_factory.mktemp("demo"), sample_data=SAMPLE_DATA)
    with open_workspace(path) as ws:
        runs = {run.name: group_by_query(run_entries(ws, run.name)) for run in list_runs(ws)}
        judged, _ = workspace_judgments(ws)
        contract = ws.default_contract()
    return runs, {q: dict(d) for q, d in judged.items()}, contract


def test_the_demo_judgments_are_real_and_the_hidden_ones_are_the_rest(
    demo: Demo,
) -> None:
    runs, judged, contract = demo
    assert contract == demo_contract(contract.scale)
    truth = read_qrels(TRUE_QRELS, contract.scale).judgments
    hidden = read_qrels(DEMO / "hidden.qrels", contract.scale).judgments
    assert set(judged) == set(hidden) == {q for q in truth if q in judged}
    for query_id, grades in judged.items():
        assert grades == {d: truth[query_id][d] for d in grades}  # real grades, as NIST gave them
        assert not set(grades) & set(hidden[query_id])  # hidden ones are not in the demo
        assert {**grades, **hidden[query_id]} == dict(truth[query_id])  # and nothing is lost
    # the judged ones are exactly the old runs' top 10: those runs have no hole
    report = comparison(runs, judged, contract)
    holes = {stats.run: stats.unjudged_at_k for stats in report.runs}
    assert holes["bm25"] == holes["bm25-rm3"] == 0
    assert holes["splade-pp-ed"] > 0 and holes["repllama"] > 0


def test_an_undecided_comparison_is_decided_rightly_by_the_settle_order(
    demo: Demo,
) -> None:
    runs, judged, contract = demo
    truth = read_qrels(DEMO / "hidden.qrels", contract.scale).judgments
    everything = {q: {**judged[q], **truth[q]} for q in judged}
    final = comparison(runs, everything, contract)
    start = comparison(runs, judged, contract)
    at_start = verdicts(start)
    assert at_start[OLD_RUNS] == "settled"  # no holes between the old runs
    # the draws make the old-vs-modern pairs probable at once; the closest is left
    undecided = {pair for pair, verdict in at_start.items() if verdict == "could flip"}
    assert undecided
    probable = {pair for pair, verdict in at_start.items() if verdict == "probable"}

    # the settle queue, judged from the top with each hole's true grade
    names = list(runs)
    queries = list(start.population)
    tops = [run_input(n, runs[n], judged, contract).top for n in names]
    pairs = list(itertools.combinations(range(len(names)), 2))
    state = SettleState(names, tops, judged, contract, queries, pairs)
    now = {q: dict(d) for q, d in judged.items()}
    decided_since: dict[tuple[str, str], int | None] = dict.fromkeys(undecided)
    settled_after: dict[tuple[str, str], int] = {}
    for done in range(1, STORY_LENGTH + 1):
        hole = state.priorities()[0][0]
        grade = truth[hole.query_id][hole.doc_id]  # every hole of the demo has a true grade
        state.judge(hole.query_id, hole.doc_id, grade)
        now[hole.query_id][hole.doc_id] = grade
        report = comparison(runs, now, contract)
        for stats, truly in zip(report.pairs, final.pairs, strict=True):
            pair = (stats.a, stats.b)
            if pair in undecided:
                # decided, and for the run every judgment puts ahead
                right = stats.verdict == "settled" or (
                    stats.verdict == "probable"
                    and (stats.probable_leader == "a") == ((truly.mean_diff or 0) > 0)
                )
                if not right:
                    decided_since[pair] = None
                elif decided_since[pair] is None:
                    decided_since[pair] = done
            if pair in probable and stats.verdict == "settled":
                settled_after.setdefault(pair, done)
        # the queue's bounds are the comparison's bounds
        for index, (a, b) in enumerate(pairs):
            stats = report.pairs[index]
            assert (stats.a, stats.b) == (names[a], names[b])
            assert stats.diff_bounds == pytest.approx(state.pair_bounds(index), abs=1e-9)
    assert all(since is not None for since in decided_since.values()), (
        f"still undecided (or wrong) after {STORY_LENGTH} judgments: {decided_since}"
    )
    # on the way, the holes that decide the close pair settle the probable ones
    assert set(settled_after) == probable

    # once every hidden judgment is in, each pair's difference lies within the
    # bounds of the story's end (they range over every run's holes), and a
    # settled verdict has the sign the bounds promised
    everything = {q: {**judged[q], **truth[q]} for q in judged}
    final = comparison(runs, everything, contract)
    story_end = {(p.a, p.b): p for p in report.pairs}
    for stats in final.pairs:
        end = story_end[(stats.a, stats.b)]
        assert end.diff_bounds is not None and stats.mean_diff is not None
        assert end.diff_bounds[0] - 1e-9 <= stats.mean_diff <= end.diff_bounds[1] + 1e-9
        if end.verdict == "settled":
            assert end.diff_bounds is not None and stats.mean_diff is not None
            low, high = end.diff_bounds
            assert (stats.mean_diff > 0) == (low > 0) and (stats.mean_diff < 0) == (high < 0)
