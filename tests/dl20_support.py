"""TREC DL 2020 passage data (``tests/data/dl20-passage``) as a team's
workspace, for the tests that replay what a team met grading it: the first
judged queries, their real runs' lines, and the NIST grades of their items.

`dl20_workspace` builds a workspace file of the first ``queries`` judged
queries with the named runs, pooled to ``depth`` (by ``pool_runs``, default
every run). `dl20_grades` are NIST's grades, which a test hands to people or
to a model as it needs.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Final

from judgepool.services.imports import import_run
from judgepool.services.pools import pool
from judgepool.services.workspace import init_workspace

DL20: Final = Path(__file__).resolve().parent / "data" / "dl20-passage"
RUN_FILES: Final = {
    "bm25": "bm25.top100.trec.gz",
    "bm25-rm3": "bm25-rm3.top100.trec.gz",
    "splade": "splade-pp-ed.top100.trec.gz",
    "tasb": "tasb.top100.trec.gz",
}


@cache
def _qrels() -> dict[str, dict[str, int]]:
    judged: dict[str, dict[str, int]] = {}
    with gzip.open(DL20 / "qrels.dl20-passage.txt.gz", "rt", encoding="ascii") as lines:
        for line in lines:
            query_id, _, doc_id, grade = line.split()
            judged.setdefault(query_id, {})[doc_id] = int(grade)
    return judged


def dl20_queries(count: int) -> list[str]:
    """The first ``count`` judged queries, in the qrels' order."""
    return list(_qrels())[:count]


def dl20_grades(query_id: str) -> dict[str, int]:
    """NIST's grade of each judged document of the query."""
    return dict(_qrels()[query_id])


def dl20_run(folder: Path, name: str, queries: Sequence[str]) -> Path:
    """The run ``name``'s lines of ``queries``, as a file in ``folder``."""
    wanted = set(queries)
    with gzip.open(DL20 / "runs" / RUN_FILES[name], "rt", encoding="ascii") as lines:
        kept = [line for line in lines if line.split(maxsplit=1)[0] in wanted]
    path = folder / f"{name}.trec"
    path.write_text("".join(kept), encoding="ascii")
    return path


# MS MARCO passages of DL20 query 1030303 ("who is aziz hashim"), as stored
# (mojibake and all): BM25 ranks 1305520 10th and 6271629 24th; NIST judged
# both 0. The folder holds no passage texts; these are copied from the shared
# data's msmarco-passage.subset.tsv.gz.
HASHIM_QUERY: Final = ("1030303", "who is aziz hashim")
HASHIM_PASSAGES: Final = {
    "1305520": "Hashim (Arabic: \xd9\x87\xd8\xa7\xd8\xb4\xd9 \xe2\x80\x8e) is a common male "
    "Arabic given name, which signifies breaker of bread.The title Hashim was given to 'Amr "
    "al-\xca\xbbUl\xc4\x81 ibn 'Abd Manaf, as he was generous in providing bread to poor people "
    "and travellers.This Hashim was the great-grandfather of the Islamic prophet Muhammad and "
    "the progenitor of the Banu Hashim clan of the distinguished Quraish tribe in Mecca. Hashim "
    "may also refer to:he title Hashim was given to 'Amr al-\xca\xbbUl\xc4\x81 ibn 'Abd Manaf, as "
    "he was generous in providing bread to poor people and travellers.",
    "6271629": "Hashim (Arabic: \xd9\x87\xd8\xa7\xd8\xb4\xd9 \xe2\x80\x8e) is a common male "
    "Arabic given name, which signifies breaker of bread.The title Hashim was given to 'Amr "
    "al-\xca\xbbUl\xc4\x81 ibn 'Abd Manaf, as he was generous in providing bread to poor people "
    "and travellers.ashim (Arabic: \xd9\x87\xd8\xa7\xd8\xb4\xd9 \xe2\x80\x8e) is a common "
    "male Arabic given name, which signifies breaker of bread.",
}


def hashim_files(folder: Path) -> tuple[Path, Path]:
    """The query 1030303 and its two Hashim passages, as a queries and a
    documents TSV in ``folder``."""
    queries, docs = folder / "hashim-queries.tsv", folder / "hashim-docs.tsv"
    queries.write_text("\t".join(HASHIM_QUERY) + "\n", encoding="utf-8")
    docs.write_text(
        "".join(f"{doc}\t{text}\n" for doc, text in HASHIM_PASSAGES.items()), encoding="utf-8"
    )
    return queries, docs


def dl20_workspace(
    path: Path,
    *,
    queries: int | Sequence[str] = 3,
    runs: Sequence[str] = ("bm25",),
    depth: int = 10,
    pool_runs: Sequence[str] | None = None,
) -> Path:
    """A workspace at ``path`` (scale 0..3) with the first ``queries`` judged
    queries' (or these queries') lines of ``runs``, ``pool_runs`` (None: all)
    pooled to ``depth``. No judgment: the team grades it."""
    chosen = dl20_queries(queries) if isinstance(queries, int) else list(queries)
    with init_workspace(path, scale="0..3") as ws:
        for name in runs:
            import_run(ws, dl20_run(path.parent, name, chosen), name=name)
        pool(ws, depth=depth, runs=pool_runs)
    return path
