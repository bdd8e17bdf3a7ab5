"""The app's live scores (`judgepool.services.live.LiveScores`, issue 32 point
3): after each burst of grades only the queries they touched are read and
scored again, and the board is the one a full rescore gives, number for
number, refusal for refusal.

The workspace is a real SQLite file built with the services: runs with ties,
a duplicate, an unknown query and a missing one; then random bursts of
grades by two people, a model's labels (never judgments), undos, an
adjudication and a change of the consensus rule, each followed by the live
board beside `score_workspace_runs` under several contracts.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import JudgepoolError
from judgepool.services.imports import import_run
from judgepool.services.judging import judge, undo
from judgepool.services.judgments_source import workspace_source
from judgepool.services.live import LiveScores
from judgepool.services.qrels import import_qrels
from judgepool.services.review import score_workspace_runs
from judgepool.services.workspace import Workspace, init_workspace, open_workspace

QUERIES = [f"q{n}" for n in range(1, 9)]
DOCS = [f"d{n}" for n in range(1, 13)]
CONTRACTS = [
    Contract(),  # unjudged=reject, duplicates=reject: refusals come and go
    Contract(k=3, unjudged="zero", duplicates="first"),
    Contract(k=5, unjudged="condense", duplicates="first", ties="input"),
    Contract(unjudged="zero", duplicates="first", universe="candidates", relevant_from=2),
]


def _run(rng: random.Random, name: str, *, duplicate: bool = False) -> str:
    lines = []
    for query in QUERIES[:-1]:  # q8 is judged below but never returned: missing
        docs = rng.sample(DOCS, rng.randint(3, 8))
        if duplicate and query == "q2":
            docs.append(docs[0])
        for rank, doc in enumerate(docs, start=1):
            # scores rounded to a few values: ties, some crossing the cutoff
            lines.append(f"{query} Q0 {doc} {rank} {round(10 - rank / 2.5):.1f} {name}")
    lines.append(f"q99 Q0 d1 1 1.0 {name}")  # a query nobody judges: unknown
    return "\n".join(lines) + "\n"


def _workspace(tmp_path: Path, seed: int) -> Path:
    rng = random.Random(seed)
    path = tmp_path / "live.sqlite"
    qrels = tmp_path / "qrels.txt"
    judged = [(q, d) for q in QUERIES for d in DOCS if rng.random() < 0.3]
    qrels.write_text("".join(f"{q} 0 {d} {rng.randint(0, 3)}\n" for q, d in judged))
    with init_workspace(path) as ws:
        import_qrels(ws, qrels)
        for number, name in enumerate(("alpha", "beta", "gamma")):
            run = tmp_path / f"{name}.trec"
            run.write_text(_run(rng, name, duplicate=number == 2))
            import_run(ws, run, name=name)
    return path


def _burst(ws: Workspace, rng: random.Random, events: list[tuple[int, str]]) -> None:
    """One to three changes to the judgments, as a team makes them."""
    for _ in range(rng.randint(1, 3)):
        query, doc = rng.choice(QUERIES), rng.choice(DOCS)
        roll = rng.random()
        if roll < 0.1 and events:
            event_id, who = events.pop(rng.randrange(len(events)))
            # refused when it is not that person's latest event there: skipped
            with contextlib.suppress(JudgepoolError):
                undo(ws, event_id, annotator=who)
            continue
        if roll < 0.2:
            judge(
                ws, query, doc, rng.randint(0, 3), annotator="m", source="model:m", allow_new=True
            )
            continue
        if roll < 0.25:
            judge(
                ws,
                query,
                doc,
                rng.randint(0, 3),
                annotator="lead",
                adjudicates=True,
                allow_new=True,
            )
            continue
        who = rng.choice(("ann1", "ann2"))
        unsure = roll > 0.95
        grade = None if unsure else rng.randint(0, 3)
        event = judge(ws, query, doc, grade, annotator=who, unsure=unsure, allow_new=True)
        events.append((event.id, who))


def _set_rule(ws: Workspace, rule: str) -> None:
    with ws.write() as conn:
        ws.put_setting(conn, "default_consensus", rule)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_after_each_burst_of_grades_the_live_board_is_a_full_rescore(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    path = _workspace(tmp_path, seed)
    # one per contract, each kept from burst to burst (a new contract scores afresh)
    live = {contract: LiveScores() for contract in CONTRACTS}
    events: list[tuple[int, str]] = []
    refused = scored = 0
    with open_workspace(path) as ws:
        for step in range(25):
            if step == 12:
                _set_rule(ws, rng.choice(("median", "adjudicated")))
            for contract, scores in live.items():
                board, judged = scores.board(ws, contract)
                assert board == score_workspace_runs(ws, contract), (step, contract)
                full = workspace_source(ws)
                assert (judged.judgments, judged.digest) == (full.judgments, full.digest)
                assert judged.provenance == full.provenance
                refused += sum(1 for run in board.runs if run.scored is None)
                scored += sum(1 for run in board.runs if run.scored is not None)
            _burst(ws, rng, events)
    assert refused and scored  # both kinds of board were held to the full rescore


def test_one_live_board_follows_contract_changes_back_and_forth(tmp_path: Path) -> None:
    rng = random.Random(7)
    path = _workspace(tmp_path, 7)
    live = LiveScores()
    events: list[tuple[int, str]] = []
    with open_workspace(path) as ws:
        for step in range(12):
            contract = CONTRACTS[step % 2]  # z, and back: each time scored afresh
            assert live.board(ws, contract)[0] == score_workspace_runs(ws, contract)
            _burst(ws, rng, events)


def test_only_the_queries_a_grade_touched_are_read_and_scored_again(tmp_path: Path) -> None:
    path = _workspace(tmp_path, 4)
    live = LiveScores()
    contract = CONTRACTS[1]
    with open_workspace(path) as ws:
        before, _ = live.board(ws, contract)
        assert live.judged.refresh(ws) == set()  # nothing new: nothing read
        judge(ws, "q3", "d5", 3, annotator="ann1", allow_new=True)
        judge(ws, "q5", "d5", 0, annotator="ann2", allow_new=True)
        after, _ = live.board(ws, contract)
        assert after == score_workspace_runs(ws, contract)
        assert live.judged.refresh(ws) == set()
        judge(ws, "q6", "d2", 1, annotator="ann1", allow_new=True)
        assert live.judged.refresh(ws) == {"q6"}
    # the records of the queries nobody graded are the ones kept, not made again
    for name in before.names:
        old, new = before.run(name).evaluation, after.run(name).evaluation
        assert old is not None and new is not None
        for query in ("q1", "q2", "q4"):
            assert new.query(query) is old.query(query)
        for query in ("q3", "q5"):
            assert new.query(query) is not old.query(query)


def test_a_run_imported_while_the_board_is_followed_is_scored(tmp_path: Path) -> None:
    path = _workspace(tmp_path, 5)
    live = LiveScores()
    contract = CONTRACTS[1]
    with open_workspace(path) as ws:
        assert live.board(ws, contract)[0].names == ("alpha", "beta", "gamma")
        run = tmp_path / "delta.trec"
        run.write_text(_run(random.Random(9), "delta"))
        import_run(ws, run, name="aardvark")
        board, _ = live.board(ws, contract)
        assert board.names == ("aardvark", "alpha", "beta", "gamma")
        assert board == score_workspace_runs(ws, contract)
