"""Shared by the audit and scores screen tests: a small real workspace, and the
app the screens run in.

`build_review_workspace` makes a workspace file with the workspace services (queries,
documents, qrels, two runs). Run ``alpha`` has holes (unjudged documents in
the top k, one of them with an ID that looks like Rich markup), a tie, an
unknown query and a missing one; run ``beta`` is fully judged.

`review_app` builds the real app (`judgepool.tui.app.create_app`); `settle`
waits for the screens' thread workers and their messages.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace
from judgepool.tui.app import JudgepoolApp, create_app

QUERIES = "q1\tcoffee brewing\nq2\ttea\nq3\twater\nq4\tmilk\n"
DOCUMENTS = (
    "".join(
        f"{doc}\tdocument {doc}\n" for doc in ("A", "B", "C", "D", "E", "F", "G", "H", "I", "J")
    )
    + "[bold]X\ta document whose ID looks like markup\nY\tdocument Y\nZ\tdocument Z\n"
)
QRELS = """\
q1 0 A 3
q1 0 B 2
q1 0 C 1
q1 0 D 0
q2 0 E 1
q2 0 F 0
q2 0 G 2
q3 0 H 0
q3 0 I 0
q4 0 J 2
"""
# holes: q1 "[bold]X" at rank 3, q2 Y at rank 3; q3 ties; q5 unknown; q4 missing
ALPHA = """\
q1 Q0 B 1 3.0 alpha
q1 Q0 C 2 2.0 alpha
q1 Q0 [bold]X 3 1.5 alpha
q1 Q0 A 4 1.0 alpha
q2 Q0 F 1 2.0 alpha
q2 Q0 E 2 1.0 alpha
q2 Q0 Y 3 0.5 alpha
q3 Q0 H 1 1.0 alpha
q3 Q0 I 2 1.0 alpha
q5 Q0 Z 1 1.0 alpha
"""
BETA = """\
q1 Q0 A 1 3.0 beta
q1 Q0 B 2 2.0 beta
q1 Q0 C 3 1.0 beta
q1 Q0 D 4 0.5 beta
q2 Q0 G 1 2.0 beta
q2 Q0 E 2 1.0 beta
q2 Q0 F 3 0.5 beta
q3 Q0 I 1 1.0 beta
q3 Q0 H 2 0.5 beta
q4 Q0 J 1 1.0 beta
"""


def build_review_workspace(directory: Path) -> Path:
    """A workspace file with queries, documents, qrels and the runs alpha and beta."""
    files = {
        "queries.tsv": QUERIES,
        "docs.tsv": DOCUMENTS,
        "qrels.txt": QRELS,
        "alpha.trec": ALPHA,
        "beta.trec": BETA,
    }
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    path = directory / "review.sqlite"
    with init_workspace(path) as ws:
        import_queries(ws, directory / "queries.tsv")
        import_documents(ws, directory / "docs.tsv")
        import_qrels(ws, directory / "qrels.txt")
        import_run(ws, directory / "alpha.trec", name="alpha")
        import_run(ws, directory / "beta.trec", name="beta")
    return path


async def settle(pilot: Pilot[Any], rounds: int = 4) -> None:
    """Let thread workers finish and their messages be handled. A worker that a
    newer one of its group cancelled meanwhile is finished too (its outcome is
    dropped): waiting on it says so, and that is not a failure here."""
    for _ in range(rounds):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled):
                await worker.wait()
        await pilot.pause()


def review_app(workspace: Path, annotator: str = "tester") -> JudgepoolApp:
    """The real app on ``workspace``, as the command line builds it."""
    return create_app(workspace, annotator)
