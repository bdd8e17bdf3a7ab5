"""The demo's story on a small workspace built from files: three DL19 runs on
four queries, where one pair of runs could flip until a few holes are judged.

`build_story_workspace` imports ``sample_data/dl19`` (queries, documents, the
three runs) with the qrels of `STORY_QUERIES` only, and pools every run's top
10. The sample qrels leave 13 documents of the runs' top 10 on those queries
unjudged (the holes); repllama and SPLADE++ differ by less than those holes
could change, so their pair could flip, while BM25 is settled below both.
A hole's true grade is its grade in the qrels, and a document the qrels never
judged counts as grade 0, as in the replay benchmark (`true_grade`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from judgepool.core.contract import Scale
from judgepool.formats.trec import read_qrels
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.pools import pool
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace
from tests.tui.conftest import SAMPLE_DATA

DL19: Final = SAMPLE_DATA / "dl19"
STORY_QUERIES: Final = ("1124210", "183378", "19335", "451602")
RUNS: Final = ("bm25", "repllama", "splade-pp-ed")
# the pair that could flip at the start
FLIPPING: Final = ("repllama", "splade-pp-ed")


def build_story_workspace(path: Path) -> Path:
    """The story's workspace at ``path`` (scale 0..3)."""
    kept = [
        line
        for line in (DL19 / "qrels.txt").read_text(encoding="utf-8").splitlines()
        if line.split()[0] in STORY_QUERIES
    ]
    qrels = path.with_name("story-qrels.txt")
    qrels.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, DL19 / "queries.tsv")
        import_documents(ws, DL19 / "docs.tsv.gz")
        import_qrels(ws, qrels, annotator="qrels:dl19")
        for run in RUNS:
            import_run(ws, DL19 / f"{run}.top20.trec", name=run)
        pool(ws, depth=10)
    return path


def true_grade(query_id: str, doc_id: str) -> int:
    """The hole's grade in DL19's qrels; 0 when they never judged it."""
    judgments = read_qrels(DL19 / "qrels.txt", Scale.parse("0..3")).judgments
    return judgments.get(query_id, {}).get(doc_id, 0)
