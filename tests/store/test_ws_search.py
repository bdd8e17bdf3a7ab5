"""Full-text search over documents: found by title or text, kept in step with
every import and correction, safe on any text a person may type, and usable
on a workspace that cannot be written."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgepool.core.terms.errors import InputError
from judgepool.services.imports import import_documents, import_queries
from judgepool.services.workspace import Workspace, init_workspace, open_workspace
from judgepool.store.search import search_documents
from tests.read_only import read_only_folder, require_truly_read_only, snapshot, unprivileged

DOCUMENTS = (
    "d1\tPooling gathers the top documents of every run for judging\tPooling\n"
    "d2\tA run ranks documents; nDCG weighs the ranking by graded relevance\tRanking\n"
    "d3\tThe judged universe is fixed before any run is scored\t\n"
    "d4\tpool pool pool: the word, again and again\tPool notes\n"
)


def in_sync(ws: Workspace) -> None:
    """Fails unless the index holds exactly the documents' current title and text."""
    with ws.write() as conn:
        conn.execute("INSERT INTO documents_fts(documents_fts, rank) VALUES ('integrity-check', 1)")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = init_workspace(tmp_path / "w.sqlite")
    docs = tmp_path / "docs.tsv"
    docs.write_text(DOCUMENTS, encoding="utf-8")
    import_documents(workspace, docs)
    return workspace


def test_words_of_the_title_or_the_text_find_the_documents_best_first(ws: Workspace) -> None:
    assert set(search_documents(ws, "run")) == {"d1", "d2", "d3"}
    assert search_documents(ws, "ranking") == ["d2"]  # in the title and the text
    assert search_documents(ws, "Pooling")[0] == "d1"
    # every word must be there; case does not matter
    assert search_documents(ws, "JUDGED universe") == ["d3"]
    assert search_documents(ws, "judged pooling") == []
    # whole words, no stemming: "pool" is not "Pooling"
    assert search_documents(ws, "pool") == ["d4"]
    # the most occurrences of the words first
    assert search_documents(ws, "documents")[0] == "d1"
    assert search_documents(ws, '"graded relevance"') == ["d2"]
    assert search_documents(ws, '"relevance graded"') == []
    assert search_documents(ws, "documents", limit=1) in (["d1"], ["d2"])
    in_sync(ws)


def test_a_corrected_document_is_found_by_its_new_words_only(ws: Workspace, tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.tsv"
    fixed.write_text("d3\tThe qrels are frozen before scoring\tFrozen\n", encoding="utf-8")
    counts = import_documents(ws, fixed).counts
    assert (counts.added, counts.updated) == (0, 1)
    assert search_documents(ws, "universe") == []
    assert search_documents(ws, "frozen") == ["d3"]
    in_sync(ws)


def test_a_refused_import_leaves_the_index_as_it_was(ws: Workspace, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("d5\tbrand new words\n\tno id on this line\n", encoding="utf-8")
    with pytest.raises(InputError):
        import_documents(ws, bad)
    assert search_documents(ws, "brand") == []
    in_sync(ws)


def test_queries_are_not_documents(ws: Workspace, tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\twhat is a zebra\n", encoding="utf-8")
    import_queries(ws, queries)
    assert search_documents(ws, "zebra") == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        '"',
        '""',
        "OR",
        "NOT pool",
        "pool*",
        "(",
        "title:pool",
        "NEAR(pool)",
        "a\x00b",
        '"\n:',
        '":',
        'pool "open',
    ],
)
def test_search_syntax_is_never_interpreted(ws: Workspace, text: str) -> None:
    found = search_documents(ws, text)
    assert set(found) <= {"d1", "d2", "d3", "d4"}
    if text in ("NOT pool", "title:pool", "NEAR(pool)"):
        assert found == []  # NOT, title and NEAR are words here, and no document has them


def test_a_phrase_may_span_lines_and_an_open_quote_runs_to_the_end(ws: Workspace) -> None:
    """Found by the random test below: sqlite-utils' quoting read a quote and a
    newline as FTS5's syntax (``"`` newline ``:`` was a column name)."""
    assert search_documents(ws, '"top\ndocuments"') == ["d1"]
    assert search_documents(ws, 'judging "top documents') == ["d1"]
    assert search_documents(ws, '"documents top"') == []


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_text_is_a_search_that_answers(ws: Workspace, text: str) -> None:
    assert set(search_documents(ws, text)) <= {"d1", "d2", "d3", "d4"}


def test_text_that_is_not_utf8_is_refused_with_a_message(ws: Workspace) -> None:
    with pytest.raises(InputError, match="not UTF-8"):
        search_documents(ws, "pool\udcff")
    with pytest.raises(ValueError, match="limit must be positive"):
        search_documents(ws, "pool", limit=0)


SEARCH = """
import sys
from judgepool.services.workspace import open_workspace
from judgepool.store.search import search_documents
with open_workspace(sys.argv[1]) as ws:
    print(ws.read_only, search_documents(ws, sys.argv[2]))
"""


def test_a_workspace_in_a_read_only_folder_can_be_searched(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    require_truly_read_only(folder)
    with init_workspace(folder / "w.sqlite") as ws:
        docs = tmp_path / "docs.tsv"
        docs.write_text(DOCUMENTS, encoding="utf-8")
        import_documents(ws, docs)
    before = snapshot(folder)
    with read_only_folder(folder):
        done = subprocess.run(
            unprivileged([sys.executable, "-c", SEARCH, str(folder / "w.sqlite"), "ranking"]),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "['d2']"]
    assert snapshot(folder) == before


def test_the_index_lives_in_the_workspace_file(tmp_path: Path) -> None:
    path = tmp_path / "w.sqlite"
    with init_workspace(path) as ws:
        docs = tmp_path / "docs.tsv"
        docs.write_text(DOCUMENTS, encoding="utf-8")
        import_documents(ws, docs)
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT d.id FROM documents_fts f JOIN documents d ON d.rowid = f.rowid "
            "WHERE documents_fts MATCH 'universe'"
        ).fetchall()
    finally:
        conn.close()
    assert rows == [("d3",)]
    with open_workspace(path) as ws:
        assert search_documents(ws, "universe") == ["d3"]
