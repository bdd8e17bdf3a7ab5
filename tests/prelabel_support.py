"""A workspace with holes for the prelabel tests, and the judge's table of
true grades for its items (keyed as the judge reads them: query text,
document text)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.workspace import init_workspace


@dataclass(frozen=True)
class HoledWorkspace:
    path: Path
    items: list[tuple[str, str]]
    grades: dict[tuple[str, str], int]  # the judge's: (query text, document text)
    truth: dict[tuple[str, str], int]  # the same by (query ID, document ID)


def holed_workspace(
    tmp_path: Path, queries: int = 2, depth: int = 5, *, narrative: bool = True, runs: int = 1
) -> HoledWorkspace:
    """``queries`` queries, a run returning ``depth`` documents for each (at
    the default k of 10, every one a hole), a true grade for each; with
    ``runs=2`` a second run, ``rev``, returning them in reverse order."""
    query_lines, doc_lines, run_lines, reversed_lines = [], [], [], []
    items: list[tuple[str, str]] = []
    grades: dict[tuple[str, str], int] = {}
    truth: dict[tuple[str, str], int] = {}
    for q in range(queries):
        query_id, text = f"q{q}", f"query number {q} about topic {q}"
        extra = f"\tA relevant document talks of topic {q}." if narrative else ""
        query_lines.append(f"{query_id}\t{text}{extra}")
        for rank in range(1, depth + 1):
            doc_id = f"d{q}-{rank}"
            doc_text = f"document {doc_id} on topic {q}, passage {rank}"
            doc_lines.append(f"{doc_id}\t{doc_text}")
            run_lines.append(f"{query_id} Q0 {doc_id} {rank} {100 - rank} sys")
            reversed_lines.append(f"{query_id} Q0 {doc_id} {depth + 1 - rank} {rank} rev")
            grade = (q + rank) % 4
            items.append((query_id, doc_id))
            grades[(text, doc_text)] = grade
            truth[(query_id, doc_id)] = grade
    for name, lines in (("queries.tsv", query_lines), ("docs.tsv", doc_lines),
                        ("run.trec", run_lines), ("rev.trec", reversed_lines)):  # fmt: skip
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = tmp_path / "ws.sqlite"
    with init_workspace(path, scale="0..3") as ws:
        import_queries(ws, tmp_path / "queries.tsv")
        import_documents(ws, tmp_path / "docs.tsv")
        import_run(ws, tmp_path / "run.trec", name="sys")
        if runs > 1:
            import_run(ws, tmp_path / "rev.trec", name="rev")
    return HoledWorkspace(path, items, grades, truth)
