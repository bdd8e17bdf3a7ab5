"""Scoring from a workspace: the same numbers as from its exported files, and
stored evaluations that say whether their judged universe is still current."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.core.scoring.aggregate import evaluate, group_by_query
from judgepool.core.terms.contract import Scale, preset
from judgepool.core.terms.errors import InputError
from judgepool.formats.trec import read_qrels, read_run
from judgepool.services.consensus import workspace_judgments
from judgepool.services.evaluations import list_evaluations, load_evaluation, save_evaluation
from judgepool.services.imports import import_run
from judgepool.services.judging import judge, set_adjudicators, undo
from judgepool.services.qrels import export_qrels, import_qrels
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store.runs import get_run, run_columns, run_entries
from tests.compare import assert_same_evaluation


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    with init_workspace(tmp_path / "w.sqlite") as workspace:
        yield workspace


def _random_run(path: Path, seed: int, queries: int = 6, depth: int = 30) -> None:
    rng = random.Random(seed)
    with open(path, "w") as out:
        for q in range(queries):
            docs = rng.sample(range(60), depth)
            for rank, doc in enumerate(docs, start=1):
                # rounded scores: ties that the trec_eval order must break
                out.write(f"q{q} Q0 doc{doc} {rank} {round(rng.uniform(0, 3), 1)} sys\n")


def _grade_several(ws: Workspace, seed: int) -> None:
    rng = random.Random(seed)
    for q in range(7):  # q6 is judged but absent from every run
        for doc in rng.sample(range(60), 25):
            for annotator in ("alice", "bob", "carol"):
                if rng.random() < 0.6:
                    grade = rng.randint(0, 3)
                    judge(ws, f"q{q}", f"doc{doc}", grade, annotator=annotator, allow_new=True)


@pytest.mark.parametrize("rule", ["latest", "median", "adjudicated"])
def test_workspace_scores_equal_scores_of_its_exported_files(
    ws: Workspace, tmp_path: Path, rule: str
) -> None:
    run_path = tmp_path / "sys.run"
    _random_run(run_path, seed=11)
    import_run(ws, run_path)
    _grade_several(ws, seed=5)
    set_adjudicators(ws, grant=["carol"])
    contract = preset("trec_eval", k=10, scale=Scale(0, 3))

    judgments, digest = workspace_judgments(ws, rule)
    entries, stored = run_entries(ws, "sys"), get_run(ws, "sys")
    from_workspace = evaluate(group_by_query(entries), judgments, contract)

    qrels_path = tmp_path / "exported.qrels"
    with open(qrels_path, "w") as handle:
        export_qrels(ws, handle, rule=rule)
    qrels = read_qrels(qrels_path, Scale(0, 3))
    run = read_run(run_path)
    from_files = evaluate(group_by_query(run.entries), qrels.judgments, contract)

    assert from_workspace == from_files
    assert (digest, stored.digest) == (qrels.digest, run.digest)
    assert from_workspace.summary.queries >= 6


def test_saved_evaluations_record_rule_and_turn_stale_when_judgments_change(
    ws: Workspace, tmp_path: Path
) -> None:
    run_path = tmp_path / "bm25.run"
    _random_run(run_path, seed=3)
    import_run(ws, run_path)
    _grade_several(ws, seed=8)
    contract = preset("trec_eval", k=5)
    entries, stored_run = run_entries(ws, "bm25"), get_run(ws, "bm25")
    saved = []
    computed = {}
    for rule in ("latest", "median"):
        judgments, digest = workspace_judgments(ws, rule)
        evaluation = evaluate(group_by_query(entries), judgments, contract)
        computed[rule] = evaluation
        saved.append(
            save_evaluation(
                ws,
                evaluation,
                qrels_digest=digest,
                run_digest=stored_run.digest,
                consensus=rule,
                run_name="bm25",
            )
        )
    assert [s.current for s in saved] == [True, True]
    assert saved[0].fingerprint == contract.fingerprint(saved[0].qrels_digest, stored_run.digest)
    listed = list_evaluations(ws)
    assert [(e.id, e.consensus, e.current, e.run_name) for e in listed] == [
        (saved[0].id, "latest", True, "bm25"),
        (saved[1].id, "median", True, "bm25"),
    ]
    assert listed[0].contract == contract
    stored, records = load_evaluation(ws, saved[0].id)
    assert stored.summary == computed["latest"].summary.to_dict()
    assert records == [r.to_dict() for r in computed["latest"].per_query]

    # a new grade by a new annotator on a new item changes both universes
    event = judge(ws, "q0", "brand-new-doc", 2, annotator="dave", allow_new=True)
    assert [e.current for e in list_evaluations(ws)] == [False, False]
    # taking it back restores the same universe, so the same digest: current again
    undo(ws, event.id, annotator="dave")
    assert [e.current for e in list_evaluations(ws)] == [True, True]


def test_save_evaluation_refuses_an_unknown_rule(ws: Workspace, tmp_path: Path) -> None:
    _random_run(tmp_path / "r.run", seed=1)
    import_run(ws, tmp_path / "r.run")
    import_qrels(ws, _qrels(tmp_path))
    judgments, digest = workspace_judgments(ws)
    entries, run = run_entries(ws, "r"), get_run(ws, "r")
    evaluation = evaluate(group_by_query(entries), judgments, preset("trec_eval"))
    with pytest.raises(InputError, match="unknown consensus rule"):
        save_evaluation(
            ws, evaluation, qrels_digest=digest, run_digest=run.digest, consensus="vote"
        )
    assert list_evaluations(ws) == []


def _qrels(tmp_path: Path) -> Path:
    path = tmp_path / "q.qrels"
    path.write_text("".join(f"q{q} 0 doc{d} {(q + d) % 4}\n" for q in range(6) for d in range(20)))
    return path


def test_stored_run_columns_match_the_fast_reader_and_score_alike(
    ws: Workspace, tmp_path: Path
) -> None:
    from judgepool.formats.fast_run import read_run_columns

    run_path = tmp_path / "sys.run"
    _random_run(run_path, seed=21)
    import_run(ws, run_path)
    stored = run_columns(ws, "sys")
    read = read_run_columns(run_path)
    assert stored.query_ids.to_pylist() == read.query_ids.to_pylist()
    assert stored.doc_ids.to_pylist() == read.doc_ids.to_pylist()
    assert stored.scores.tolist() == read.scores.tolist()
    assert stored.ranks.tolist() == read.ranks.tolist()
    assert stored.lines is not None
    assert stored.lines.tolist() == read.line_numbers().tolist()
    assert stored.digest == read.digest

    from judgepool.core.fast import engine as fast

    _grade_several(ws, seed=4)
    judgments, _ = workspace_judgments(ws)
    contract = preset("trec_eval", k=10)
    entries = run_entries(ws, "sys")
    assert_same_evaluation(
        evaluate(group_by_query(entries), judgments, contract),
        fast.evaluate_columns(stored, judgments, contract),
    )
