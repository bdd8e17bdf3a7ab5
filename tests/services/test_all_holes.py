"""Every run's holes with a snippet (`judgepool.services.all_holes`) on a real
workspace file: the holes of the judged queries are `find_holes` over the
runs' top k, a query nobody judged yet has its whole top k listed (as the
audit lists it), the consensus rule decides what is judged, and a snippet is
the start of the text as stored (None without text): the app shows it repaired
for reading on one line, through `judgepool.display.one_line` like every
other text it shows."""

from __future__ import annotations

from pathlib import Path

from judgepool.core.holes.settle import find_holes
from judgepool.core.terms.contract import Contract
from judgepool.display import one_line
from judgepool.services.all_holes import SNIPPET_CHARACTERS, all_runs_holes
from judgepool.services.consensus import workspace_judgments
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.judging import judge
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.scoring import score_run_with_tops
from judgepool.services.runs.sources import run_names, stored_source
from judgepool.services.workspace import Workspace, init_workspace, open_workspace

DOCS = "a\tline one   two\t\nb\tThe companyâ\x80\x99s plan\nc\t" + "long " * 100 + "\n"


def _workspace(tmp_path: Path) -> Path:
    files = {
        "queries.tsv": "q1\tfirst\nq2\tsecond\n",
        "docs.tsv": DOCS,
        "one.trec": "q1 Q0 a 1 3 one\nq1 Q0 b 2 2 one\nq1 Q0 nodoc 3 1 one\nq2 Q0 c 1 1 one\n",
        "two.trec": "q1 Q0 b 1 3 two\nq1 Q0 a 2 2 two\nq2 Q0 a 1 1 two\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / "w.sqlite"
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
        import_run(ws, tmp_path / "one.trec", name="one")
        import_run(ws, tmp_path / "two.trec", name="two")
    return path


def _holes(ws: Workspace, contract: Contract) -> dict[tuple[str, str], tuple[tuple[str, ...], int]]:
    listed = all_runs_holes(ws, contract).listed
    return {(h.hole.query_id, h.hole.doc_id): (h.hole.runs, h.hole.best_rank) for h in listed}


def test_nothing_judged_lists_every_top_k(tmp_path: Path) -> None:
    with open_workspace(_workspace(tmp_path)) as ws:
        holes = all_runs_holes(ws, Contract())
        assert [(h.hole.query_id, h.hole.doc_id) for h in holes.listed] == [
            ("q1", "a"),  # rank 1 in one run, 2 in the other: two runs
            ("q1", "b"),  # the same, the other way round: by document ID
            ("q2", "a"),
            ("q2", "c"),
            ("q1", "nodoc"),
        ]
        assert holes.order == tuple((h.hole.query_id, h.hole.doc_id) for h in holes.listed)
        assert (holes.counts.holes, holes.counts.queries, holes.counts.runs, holes.runs) == (
            5,
            2,
            2,
            2,
        )
        snippets = {h.hole.doc_id: h.snippet for h in holes.listed}
        assert snippets["b"] == "The companyâ\x80\x99s plan"  # as stored: repaired when shown
        assert one_line(snippets["b"]) == "The company’s plan"
        assert snippets["nodoc"] is None
        assert snippets["c"] is not None and len(snippets["c"]) <= SNIPPET_CHARACTERS
        assert snippets["a"] is not None and one_line(snippets["a"]) == "line one two"


def test_judged_queries_are_find_holes_and_grades_take_holes_off(tmp_path: Path) -> None:
    with open_workspace(_workspace(tmp_path)) as ws:
        judge(ws, "q1", "a", 2, annotator="alice")
        judge(ws, "q2", "c", 0, annotator="alice")
        judgments, digest = workspace_judgments(ws)
        contract = Contract()
        tops = {
            run: score_run_with_tops(
                stored_source(ws, run),
                JudgmentsSource(judgments, digest),
                contract.with_changes(unjudged="zero"),
            )[1]
            for run in run_names(ws)
        }
        expected = {
            (h.query_id, h.doc_id): (h.runs, h.best_rank) for h in find_holes(tops, contract.k)
        }
        assert expected == {
            ("q1", "b"): (("one", "two"), 1),
            ("q1", "nodoc"): (("one",), 3),
            ("q2", "a"): (("two",), 1),
        }
        assert _holes(ws, contract) == expected
        # a smaller k: only the top 1 of each run
        assert _holes(ws, contract.with_changes(k=1)) == {
            ("q1", "b"): (("two",), 1),
            ("q2", "a"): (("two",), 1),
        }


def test_the_consensus_rule_decides_what_is_judged(tmp_path: Path) -> None:
    """Two annotators disagree on q1's b: judged under latest, a hole under
    adjudicated until an adjudicator settles it."""
    with open_workspace(_workspace(tmp_path)) as ws:
        judge(ws, "q1", "b", 3, annotator="alice")
        judge(ws, "q1", "b", 0, annotator="bob")
        latest = all_runs_holes(ws, Contract(), rule="latest")
        adjudicated = all_runs_holes(ws, Contract(), rule="adjudicated")
        assert ("q1", "b") not in latest.order
        assert ("q1", "b") in adjudicated.order
