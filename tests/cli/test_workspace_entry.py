"""What ``judge``, ``import``, ``pool`` and ``annotators`` let into a workspace:
IDs the TREC formats can carry, queries and documents the workspace holds
(or --allow-new), names without control characters, no claimed provenance;
and every refused value named literally in the message."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgepool.cli import main
from judgepool.core.terms.contract import Scale
from judgepool.formats.trec import read_qrels
from judgepool.services.consensus import workspace_judgments
from judgepool.services.workspace import open_workspace
from judgepool.store.runs import find_run


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def dump(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def refused(result: Result, *fragments: str) -> None:
    """Exit 2, each fragment in the message, and nothing raw reaching the terminal."""
    assert result.exit_code == 2, result.output
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert not any(ord(ch) < 0x20 and ch != "\n" for ch in result.stderr)
    assert not any(0x7F <= ord(ch) <= 0x9F for ch in result.stderr)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """Queries and documents imported, a run, and an imported qrels file."""
    path = tmp_path / "w.sqlite"
    assert run("init", str(path)).exit_code == 0
    (tmp_path / "topics.tsv").write_text("1030303\tfirst\n1037033\tsecond\n")
    (tmp_path / "docs.tsv").write_text("d1\tone\nd2\ttwo\n")
    (tmp_path / "bm25.run").write_text("1030303 Q0 run-only 1 2.0 r\nrun-query Q0 d1 1 1.0 r\n")
    (tmp_path / "nist.qrels").write_text("1030303 0 judged-only 1\n")
    for kind, name in (
        ("queries", "topics.tsv"),
        ("docs", "docs.tsv"),
        ("run", "bm25.run"),
        ("qrels", "nist.qrels"),
    ):
        result = run("import", str(path), kind, str(tmp_path / name))
        assert result.exit_code == 0, result.output
    return path


# -- point 3: IDs the export can carry ----------------------------------------------


@pytest.mark.parametrize(
    ("query", "doc", "shown"),
    [
        ("1030303", "zzz 3\n1030303 0 fake1", "'zzz 3\\x0a1030303 0 fake1'"),
        ("1030303", "d 1", "'d 1'"),
        ("1030303", "d\t1", "'d\\x091'"),
        ("#1030303", "d1", "'#1030303'"),
        ("1030303", "", "''"),
        ("q\x1b[2J", "d1", "'q\\x1b[2J'"),
        ("1030303", "d\u202e1", "'d\\u202e1'"),
        ("1030303", "d\u00a01", "U+00A0"),
        ("1030303", "d\udc80", "'d\\udc80'"),
    ],
)
def test_judge_refuses_ids_the_export_cannot_carry(
    ws: Path, query: str, doc: str, shown: str
) -> None:
    before = dump(ws)
    result = run("judge", str(ws), query, doc, "3", "--annotator", "alice", "--allow-new")
    refused(result, shown, "cannot be used")
    assert dump(ws) == before


def test_the_injection_of_the_issue_exports_nothing_extra(ws: Path) -> None:
    run("judge", str(ws), "1030303", "zzz 3\n1030303 0 fake1", "3", "--annotator", "alice")
    exported = run("export", str(ws), "qrels").stdout
    assert exported == "1030303 0 judged-only 1\n"


ROUND_TRIP_IDS = [
    ("1030303", "7067032"),
    ("q1", "d\u00e9j\u00e0-vu"),  # multi-byte UTF-8
    ("\u6587\u66f8", "\U0001f600-emoji"),
    ("2082", "msmarco_passage_00_123456"),
    ("2083", "msmarco_passage_59_987654321"),
    ("msmarco_v2_q_01", "msmarco_doc_00_0"),
    ("1030303", "https://example.org/a/b?c=d&e=f#frag"),
    ("1030303", "https://example.org/" + "p" * 120),  # more than 64 bytes
    ("q#1", "doc#2"),  # '#' only at the start marks a comment
]


def test_export_then_import_gives_the_same_qrels_digest(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite"
    assert run("init", str(source)).exit_code == 0
    for index, (query, doc) in enumerate(ROUND_TRIP_IDS):
        grade = str(index % 4)
        result = run("judge", str(source), query, doc, grade, "--annotator", "a", "--allow-new")
        assert result.exit_code == 0, result.output
    exported = tmp_path / "exported.qrels"
    written = run("export", str(source), "qrels", "-o", str(exported))
    assert written.exit_code == 0, written.output

    copy = tmp_path / "copy.sqlite"
    assert run("init", str(copy)).exit_code == 0
    result = run("import", str(copy), "qrels", str(exported))
    assert result.exit_code == 0, result.output
    with open_workspace(source) as first, open_workspace(copy) as second:
        judgments, digest = workspace_judgments(first)
        assert workspace_judgments(second) == (judgments, digest)
    assert sum(len(docs) for docs in judgments.values()) == len(ROUND_TRIP_IDS)
    assert f"qrels digest {digest}" in written.stdout
    read = read_qrels(exported, Scale(0, 3))
    assert (read.judgments, read.digest) == (judgments, digest)
    again = tmp_path / "again.qrels"
    assert run("export", str(copy), "qrels", "-o", str(again)).exit_code == 0
    assert again.read_bytes() == exported.read_bytes()


# -- point 4: queries and documents the workspace holds ----------------------------


@pytest.mark.parametrize(
    ("query", "doc"),
    [
        ("1030303", "d1"),  # imported query and document
        ("1037033", "run-only"),  # a document only a run has
        ("run-query", "d2"),  # a query only a run has
        ("1030303", "judged-only"),  # a document only a judgment has
    ],
)
def test_judge_accepts_what_the_workspace_holds(ws: Path, query: str, doc: str) -> None:
    result = run("judge", str(ws), query, doc, "2", "--annotator", "alice")
    assert result.exit_code == 0, result.output


def test_judge_accepts_pooled_items(tmp_path: Path) -> None:
    path = tmp_path / "p.sqlite"
    assert run("init", str(path)).exit_code == 0
    (tmp_path / "r.run").write_text("q1 Q0 pooled 1 1.0 r\n")
    assert run("import", str(path), "run", str(tmp_path / "r.run")).exit_code == 0
    assert run("pool", str(path), "--depth", "1").exit_code == 0
    assert run("judge", str(path), "q1", "pooled", "1", "--annotator", "a").exit_code == 0


@pytest.mark.parametrize(
    ("query", "doc", "fragments"),
    [
        ("1030330", "d1", ("holds no query '1030330'", "closest known: '1030303', '1037033'")),
        ("1030303", "d3", ("holds no document 'd3'", "closest known: 'd1', 'd2'")),
        ("1030303", "run-onyl", ("holds no document 'run-onyl'", "closest known: 'run-only'")),
        ("zzz", "d1", ("holds no query 'zzz'",)),
        ("1030303", "d\x1b]0;x\x07", ("cannot be used",)),
    ],
)
def test_judge_refuses_unknown_items_naming_the_closest(
    ws: Path, query: str, doc: str, fragments: tuple[str, ...]
) -> None:
    before = dump(ws)
    result = run("judge", str(ws), query, doc, "2", "--annotator", "alice")
    refused(result, *fragments)
    assert dump(ws) == before


def test_allow_new_judges_an_item_the_workspace_does_not_hold(ws: Path) -> None:
    assert run("judge", str(ws), "1030330", "d1", "2", "--annotator", "alice").exit_code == 2
    result = run("judge", str(ws), "1030330", "d1", "2", "--annotator", "alice", "--allow-new")
    assert result.exit_code == 0, result.output
    # and once judged, the workspace holds it
    assert run("judge", str(ws), "1030330", "d2", "1", "--annotator", "alice").exit_code == 0


def test_an_unknown_adjudicator_is_refused_naming_the_closest(ws: Path) -> None:
    assert run("judge", str(ws), "1030303", "d1", "1", "--annotator", "alice").exit_code == 0
    before = dump(ws)
    result = run("annotators", str(ws), "--adjudicator", "alcie")
    refused(result, "no annotator 'alcie'", "closest known: 'alice'")
    # one unknown name refuses the whole command, before any role changes
    result = run("annotators", str(ws), "--adjudicator", "alice", "--adjudicator", "bob")
    refused(result, "no annotator 'bob'")
    result = run("annotators", str(ws), "--not-adjudicator", "bob")
    refused(result, "no annotator 'bob'")
    assert dump(ws) == before
    result = run("annotators", str(ws), "--adjudicator", "alice")
    assert result.exit_code == 0 and "alice\tadjudicator" in result.stdout


def test_a_newcomer_adjudicator_is_refused_naming_how_to_add_them(ws: Path) -> None:
    # Carol adjudicates before grading anything: the refusal names the command
    # that adds her, and that command makes her an adjudicator at once.
    result = run("annotators", str(ws), "--adjudicator", "carol")
    refused(
        result, "no annotator 'carol'", "judgepool annotators WS add 'carol' --role adjudicator"
    )
    added = run("annotators", str(ws), "add", "carol", "--adjudicator")
    assert added.exit_code == 0, added.output
    listing = run("annotators", str(ws))
    assert "carol\tadjudicator" in listing.stdout


# -- point 7: names are shown literally, and control characters refused at entry ----


@pytest.mark.parametrize(
    "name",
    [
        "eve\x1b]0;pwned\x07",
        "eve\x1b[2J",
        "eve\x7f",
        "eve\x85",
        "eve\u202egro",
        "eve\udc80",
        " eve",
    ],
)
def test_names_with_control_characters_are_refused_at_entry(
    ws: Path, tmp_path: Path, name: str
) -> None:
    qrels = tmp_path / "more.qrels"
    qrels.write_text("1030303 0 d1 1\n")
    before = dump(ws)
    shown = "cannot be used"
    ws_ = str(ws)
    refused(run("judge", ws_, "1030303", "d1", "1", "--annotator", name), shown)
    refused(run("import", ws_, "qrels", str(qrels), "--annotator", name), shown)
    refused(run("annotators", ws_, "--adjudicator", name), shown)
    refused(run("import", ws_, "run", str(tmp_path / "bm25.run"), "--name", name), shown)
    refused(run("pool", ws_, "--depth", "1", "--name", name), shown)
    refused(
        run("judge", ws_, "1030303", "d1", "1", "--annotator", "a", "--source", f"model:{name}")
    )
    assert dump(ws) == before


def test_names_already_stored_are_printed_literally(ws: Path) -> None:
    """Older workspaces may hold names from before the checks: every message
    and listing shows them as visible escapes."""
    conn = sqlite3.connect(ws)
    with conn:
        conn.execute(
            "INSERT INTO annotators (name, added_at) VALUES (?, 'then')",
            ("eve\x1b]0;pwned\x07\x1b[2J",),
        )
    conn.close()
    listed = run("annotators", str(ws))
    assert "eve\\x1b]0;pwned\\x07\\x1b[2J" in listed.stdout
    assert "\x1b" not in listed.stdout
    missing = run("export", str(ws), "qrels", "--annotator", "eve\x1b]0;pwned")
    refused(missing, "no annotator 'eve\\x1b]0;pwned'", "closest known: 'eve\\x1b]0;pwned\\x07")


# -- point 11: provenance cannot be claimed -----------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--annotator", "import:nist.qrels"), "reserved"),
        (("--annotator", "model:gpt"), "reserved"),
        (("--annotator", "alice", "--source", "import:nist.qrels"), "'import:' sources"),
        (("--annotator", "alice", "--source", "import:"), "'import:' sources"),
        (("--annotator", "alice", "--source", "model:"), "model's name: it is empty"),
        (("--annotator", "alice", "--source", "robot"), "give 'human' or 'model:NAME'"),
    ],
)
def test_judge_cannot_claim_provenance(ws: Path, args: tuple[str, ...], fragment: str) -> None:
    before = dump(ws)
    refused(run("judge", str(ws), "1030303", "d1", "1", *args), fragment)
    assert dump(ws) == before


def test_a_model_source_is_accepted(ws: Path) -> None:
    result = run("judge", str(ws), "1030303", "d1", "1", "--annotator", "m", "--source", "model:x")
    assert result.exit_code == 0, result.output


def test_import_qrels_cannot_claim_a_reserved_annotator(ws: Path, tmp_path: Path) -> None:
    qrels = tmp_path / "more.qrels"
    qrels.write_text("1030303 0 d1 1\n")
    before = dump(ws)
    for name in ("import:nist.qrels", "model:gpt"):
        refused(run("import", str(ws), "qrels", str(qrels), "--annotator", name), "reserved")
    assert dump(ws) == before


def test_a_qrels_file_name_that_cannot_be_a_source_is_refused(ws: Path, tmp_path: Path) -> None:
    hostile = tmp_path / "nist\x1b]0;pwned\x07.qrels"
    hostile.write_text("1030303 0 d1 1\n")
    before = dump(ws)
    refused(run("import", str(ws), "qrels", str(hostile)), "rename the file")
    refused(run("import", str(ws), "qrels", str(hostile), "--annotator", "nist"), "rename the file")
    assert dump(ws) == before


@pytest.mark.parametrize("name", ["import:nist.qrels", "model:x", "eve\x1b[2J"])
def test_the_app_refuses_such_an_annotator_before_it_starts(ws: Path, name: str) -> None:
    refused(run("tui", str(ws), "--annotator", name), "cannot be used")


@pytest.mark.parametrize("grade", ["\uff11", "\u0661", "1_0", "1.0", " 1x"])
def test_a_grade_is_ascii_digits_only(ws: Path, grade: str) -> None:
    before = dump(ws)
    refused(run("judge", str(ws), "1030303", "d1", grade, "--annotator", "alice"), "grade must be")
    assert dump(ws) == before


def test_grade_labels_are_ascii_digits_only(tmp_path: Path) -> None:
    result = run("init", str(tmp_path / "x.sqlite"), "--labels", "\uff11=Bad")
    refused(result, "labels look like")
    assert not (tmp_path / "x.sqlite").exists()


def test_bytes_that_are_not_utf8_in_arguments_are_refused_clearly(ws: Path, tmp_path: Path) -> None:
    """A byte that is not UTF-8 in argv or a file name reaches Python as a lone
    surrogate, which SQLite cannot take: refused with a message, never a crash."""
    directory = os.fsencode(tmp_path)
    Path(os.fsdecode(directory + b"/caf\xe9.run")).write_text("1030303 Q0 d2 1 1.0 r\n")
    Path(os.fsdecode(directory + b"/caf\xe9.qrels")).write_text("1030303 0 d2 1\n")
    ws_ = os.fsencode(ws)
    cases: list[tuple[list[bytes], int, str]] = [
        ([b"export", ws_, b"qrels", b"--annotator", b"x\xff"], 2, "no annotator 'x\\udcff'"),
        ([b"judge", ws_, b"1030303", b"d1", b"1", b"--annotator", b"a", b"--note", b"\xff"], 2,
         "holds bytes that are not UTF-8"),
        ([b"judge", ws_, b"1030303", b"d\xff", b"1", b"--annotator", b"a"], 2, "cannot be used"),
        ([b"pool", ws_, b"--depth", b"1", b"--runs", b"\xff"], 2, "no run named '\\udcff'"),
        ([b"import", ws_, b"qrels", directory + b"/caf\xe9.qrels"], 2, "rename the file"),
        ([b"import", ws_, b"run", directory + b"/caf\xe9.run", b"--name", b"cafe"], 0,
         "'cafe': 1 lines from"),
    ]  # fmt: skip
    for args, code, fragment in cases:
        process = subprocess.run(
            [sys.executable.encode(), b"-m", b"judgepool", *args],
            capture_output=True,
            timeout=60,
        )
        shown = (process.stdout + process.stderr).decode("utf-8")  # every byte is UTF-8
        assert process.returncode == code, shown
        assert fragment in shown, shown
        assert "Traceback" not in shown and "unexpected error" not in shown
    with open_workspace(ws) as workspace:
        stored = find_run(workspace, "cafe")
    assert stored is not None and stored.source.endswith("caf\\xe9.run")  # recorded visibly
