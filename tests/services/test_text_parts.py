"""Long texts read in bounded parts from a real workspace file: the parts,
forwards or backwards, put together give back the text exactly (so no
character is split, dropped or doubled, multi-byte and NUL characters
included), each part is bounded, and the counts say where a part is."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from judgepool.services import app_queries
from judgepool.services.imports import import_documents, import_queries, import_run
from judgepool.services.pools import pool
from judgepool.services.text_parts import (
    PREVIEW_CHARACTERS,
    TextPart,
    text_part,
)
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store import corpus

LIMIT = 50  # small parts, so a short text has many part boundaries to get wrong


def _text(seed: int, alphabet: str, size: int, break_every: float) -> str:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < size:
        out.append(rng.choice(alphabet))
        if rng.random() < break_every:
            out.append(rng.choice(" \n"))
    return "".join(out[:size])


TEXTS = {
    "ascii words": _text(1, "abcdefgh", 3_000, 0.15),
    "one word, no break": "x" * 2_345,
    "regular words": "word " * 600,  # a space in every 5 characters
    # 2-, 3- and 4-byte characters, a combining accent, emoji with a joiner
    "multi-byte": _text(2, "é漢𝄞e\u0301😀\u200d👍ß", 3_000, 0.1),
    "multi-byte, no break": _text(3, "漢𝄞é", 1_999, 0),
    "NUL and controls": _text(4, "a\x00b\x1b[\x85é", 3_000, 0.1),
    "lines only": "\n" * 777,
    "short": "a short passage",
    "empty": "",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    folder = tmp_path_factory.mktemp("parts")
    docs = folder / "docs.jsonl"
    docs.write_text(
        "".join(
            json.dumps({"id": f"d{index}", "text": text}) + "\n"
            for index, text in enumerate(TEXTS.values())
        ),
        encoding="utf-8",
    )
    with init_workspace(folder / "w.sqlite") as workspace:
        import_documents(workspace, docs)
        yield workspace


def _forward(ws: Workspace, doc_id: str, limit: int = LIMIT) -> list[TextPart]:
    part = text_part(ws, "document text", doc_id, limit=limit)
    assert part is not None
    parts = [part]
    while not part.is_last:
        part = text_part(ws, "document text", doc_id, "next", part, limit)
        assert part is not None
        parts.append(part)
        assert len(parts) < 10_000
    return parts


def _backward(ws: Workspace, doc_id: str, limit: int = LIMIT) -> list[TextPart]:
    part = text_part(ws, "document text", doc_id, "last", limit=limit)
    assert part is not None
    parts = [part]
    while not part.is_first:
        part = text_part(ws, "document text", doc_id, "previous", part, limit)
        assert part is not None
        parts.append(part)
        assert len(parts) < 10_000
    return parts[::-1]


@pytest.mark.parametrize("name", list(TEXTS))
def test_parts_forwards_and_backwards_give_back_the_text(ws: Workspace, name: str) -> None:
    text = TEXTS[name]
    doc_id = f"d{list(TEXTS).index(name)}"
    for parts in (_forward(ws, doc_id), _backward(ws, doc_id)):
        assert "".join(part.text for part in parts) == text
        at = 0
        for part in parts:
            assert part.length == len(text)
            assert part.start == at
            assert part.text == text[part.start : part.end]
            assert len(part.text) <= LIMIT
            assert part.byte_start == len(text[: part.start].encode())
            assert part.byte_end == len(text[: part.end].encode())
            at = part.end
        assert at == len(text)
        # Each part is most of a part: a cut at a break gives up a tenth at most.
        assert all(len(part.text) >= LIMIT - LIMIT // 10 for part in parts[1:-1])


def test_a_part_ends_after_a_break_when_one_is_near(ws: Workspace) -> None:
    words = _forward(ws, f"d{list(TEXTS).index('regular words')}")
    assert all(part.text.endswith(" ") for part in words)
    backwards = _backward(ws, f"d{list(TEXTS).index('regular words')}")
    assert all(part.text.startswith("word") for part in backwards)
    # Without a break, a part is cut at the limit exactly.
    unbroken = _forward(ws, f"d{list(TEXTS).index('one word, no break')}")
    assert {len(part.text) for part in unbroken[:-1]} == {LIMIT}


def test_previous_of_the_first_and_next_of_the_last_are_the_same_part(ws: Workspace) -> None:
    doc_id = f"d{list(TEXTS).index('multi-byte')}"
    first = text_part(ws, "document text", doc_id, limit=LIMIT)
    last = text_part(ws, "document text", doc_id, "last", limit=LIMIT)
    assert first is not None and last is not None
    assert text_part(ws, "document text", doc_id, "previous", first, LIMIT) == first
    assert text_part(ws, "document text", doc_id, "next", last, LIMIT) == last
    assert text_part(ws, "document text", doc_id, "again", last, LIMIT) == last


def test_a_text_with_nul_characters_is_counted_and_read_whole(ws: Workspace) -> None:
    # SQLite's length() and substr() on text stop at the first NUL.
    text = TEXTS["NUL and controls"]
    doc_id = f"d{list(TEXTS).index('NUL and controls')}"
    sqlite_length = ws.conn.execute(
        "SELECT length(text) FROM documents WHERE id = ?", (doc_id,)
    ).fetchone()[0]
    assert sqlite_length < len(text)
    part = text_part(ws, "document text", doc_id)
    assert part is not None and part.is_whole and part.text == text
    assert corpus.text_characters(ws, "document text", doc_id) == len(text)


def test_no_row_or_no_text_is_none(ws: Workspace) -> None:
    assert text_part(ws, "document text", "nobody") is None
    assert text_part(ws, "document title", "d0") is None  # imported without a title
    assert app_queries.document_part(ws, "nobody") is None


def test_bytes_that_are_not_utf8_show_as_replacement_characters(tmp_path: Path) -> None:
    # Only another program could store these; the app must show them, not fail.
    with init_workspace(tmp_path / "w.sqlite") as ws:
        with ws.write() as conn:
            conn.execute(
                "INSERT INTO documents (id, text) VALUES ('bad', CAST(X'61FF62C3' AS TEXT))"
            )
        part = text_part(ws, "document text", "bad")
        assert part is not None
        assert part.text == "a\ufffdb\ufffd"
        assert part.is_last


def test_the_same_part_again_after_the_text_changed(tmp_path: Path) -> None:
    """A part's byte offsets are stale once the text is replaced: reading "again"
    from inside a character begins at the next one, and counts afresh."""
    with init_workspace(tmp_path / "w.sqlite") as ws:
        docs = tmp_path / "docs.jsonl"
        docs.write_text(json.dumps({"id": "d", "text": "abcdef" * 100}) + "\n")
        import_documents(ws, docs)
        first = text_part(ws, "document text", "d", limit=LIMIT)
        assert first is not None
        second = text_part(ws, "document text", "d", "next", first, LIMIT)
        assert second is not None and second.byte_start == LIMIT
        docs.write_text(json.dumps({"id": "d", "text": "漢" * 300}) + "\n", encoding="utf-8")
        import_documents(ws, docs)
        again = text_part(ws, "document text", "d", "again", second, LIMIT)
        assert again is not None
        assert again.length == 300
        assert set(again.text) == {"漢"}
        assert again.byte_start % 3 == 0  # moved on to a character's first byte
        docs.write_text(json.dumps({"id": "d", "text": "short now"}) + "\n")
        import_documents(ws, docs)
        shorter = text_part(ws, "document text", "d", "again", again, LIMIT)
        assert shorter is not None and shorter.is_whole and shorter.text == "short now"


def test_query_text_and_narrative_are_cut_in_the_plan(tmp_path: Path) -> None:
    long_text = "brew tea " * 200_000  # 1.8 MB
    narrative = "é" * 3_000
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"q\t{long_text}\t{narrative}\nshort\tgreen tea\n", encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("q Q0 d 1 1 r\nshort Q0 d 1 1 r\n")
    docs = tmp_path / "docs.tsv"
    docs.write_text("d\ta document\n")
    with init_workspace(tmp_path / "w.sqlite") as ws:
        import_queries(ws, queries)
        import_documents(ws, docs)
        import_run(ws, run)
        pool(ws, depth=1)
        plan = {query.id: query for query in app_queries.grading_plan(ws, "alice").queries}
        for query in (plan["q"], app_queries.plan_query(ws, "q")):
            assert len(query.text.text) <= PREVIEW_CHARACTERS
            assert long_text.startswith(query.text.text)
            assert query.text.length == len(long_text)
            assert query.narrative is not None
            assert query.narrative.text == narrative[:PREVIEW_CHARACTERS]
            assert query.narrative.length == len(narrative)
        for query in (plan["short"], app_queries.plan_query(ws, "short")):
            assert query.text.is_whole and query.text.text == "green tea"
            assert query.narrative is None
