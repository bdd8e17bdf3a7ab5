"""The grading guidelines in a workspace: read from a file (UTF-8, refused
naming file and line otherwise), kept with their digest, due to each
annotator until they are shown this text, and due again once it changes."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.services import guidelines
from judgepool.services.settings import workspace_settings
from judgepool.services.workspace import Workspace, init_workspace, open_workspace

GUIDE = "# How we grade\n\nGrade **3** when the passage answers the query.\n"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return init_workspace(tmp_path / "team.sqlite")


def test_the_digest_is_the_sha256_of_the_text_as_kept(ws: Workspace) -> None:
    change = guidelines.set_guidelines(ws, GUIDE)
    assert change.guidelines.digest == hashlib.sha256(GUIDE.encode("utf-8")).hexdigest()
    assert change.replaced is None and change.changed
    kept = guidelines.current_guidelines(ws)
    assert kept is not None and kept.text == GUIDE and kept.digest == change.guidelines.digest
    assert guidelines.current_digest(ws) == kept.digest
    assert kept.first_line == "# How we grade" and kept.lines == 3


def test_the_guidelines_are_shown_once_to_each_annotator(ws: Workspace) -> None:
    assert guidelines.guidelines_due(ws, "alice") is None  # none set: nothing is due
    digest = guidelines.set_guidelines(ws, GUIDE).guidelines.digest
    for name in ("alice", "bob"):
        due = guidelines.guidelines_due(ws, name)
        assert due is not None and due.guidelines.digest == digest and not due.changed
    guidelines.mark_seen(ws, "alice", digest)
    assert guidelines.guidelines_due(ws, "alice") is None
    assert guidelines.guidelines_due(ws, "bob") is not None  # bob has not been shown them
    assert guidelines.seen_by(ws, digest) == ["alice"]


def test_a_changed_text_is_due_again_and_the_same_text_is_not(ws: Workspace) -> None:
    first = guidelines.set_guidelines(ws, GUIDE).guidelines.digest
    guidelines.mark_seen(ws, "alice", first)
    same = guidelines.set_guidelines(ws, GUIDE)
    assert not same.changed and guidelines.guidelines_due(ws, "alice") is None
    changed = guidelines.set_guidelines(ws, GUIDE + "\nUnsure (u) when you cannot tell.\n")
    assert changed.changed and changed.replaced == first
    due = guidelines.guidelines_due(ws, "alice")
    assert due is not None and due.changed and due.guidelines.digest != first
    guidelines.mark_seen(ws, "alice", due.guidelines.digest)
    assert guidelines.guidelines_due(ws, "alice") is None


def test_clearing_removes_them_and_nothing_is_due(ws: Workspace) -> None:
    guidelines.set_guidelines(ws, GUIDE)
    removed = guidelines.clear_guidelines(ws)
    assert removed is not None and removed.text == GUIDE
    assert guidelines.current_guidelines(ws) is None and guidelines.current_digest(ws) is None
    assert guidelines.guidelines_due(ws, "alice") is None
    assert guidelines.clear_guidelines(ws) is None


def test_the_settings_list_the_digest_first_line_and_who_was_shown_them(ws: Workspace) -> None:
    assert workspace_settings(ws)["guidelines"] is None
    digest = guidelines.set_guidelines(ws, "\n\n  # Grading  \nbody\n").guidelines.digest
    guidelines.mark_seen(ws, "bob", digest)
    shown = workspace_settings(ws)["guidelines"]
    assert shown["digest"] == digest and shown["first_line"] == "# Grading"
    assert shown["seen_by"] == ["bob"] and shown["lines"] == 4


def test_the_seen_digest_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "team.sqlite"
    with init_workspace(path) as ws:
        digest = guidelines.set_guidelines(ws, GUIDE).guidelines.digest
        guidelines.mark_seen(ws, "alice", digest)
    with open_workspace(path) as ws:
        assert guidelines.guidelines_due(ws, "alice") is None
        assert guidelines.guidelines_due(ws, "carol") is not None


# -- reading a file -------------------------------------------------------------


def test_a_file_is_read_as_utf8_without_its_bom_and_with_lf_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_bytes(b"\xef\xbb\xbf# Guide\r\nstraight \xe2\x80\x9cquotes\xe2\x80\x9d\r\n")
    assert guidelines.read_guidelines(path) == "# Guide\nstraight \u201cquotes\u201d\n"
    packed = tmp_path / "guide.md.gz"
    packed.write_bytes(gzip.compress(b"# Packed\n"))
    assert guidelines.read_guidelines(packed) == "# Packed\n"


def test_a_file_that_is_not_utf8_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("# Guide\n\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError) as refused:
        guidelines.read_guidelines(path)
    assert (refused.value.path, refused.value.line) == (str(path), 3)
    assert "is not UTF-8 text" in str(refused.value) and str(refused.value).startswith(
        f"{path}:3: "
    )


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"", "is empty"),
        (b" \n\n\t\n", "is empty"),
        (b"# Guide\n\x00\x01binary", "NUL byte"),
        (b"x" * (guidelines.MAX_GUIDELINES_CHARACTERS + 1), "at most 50,000"),
    ],
    ids=["empty", "blank", "binary", "too long"],
)
def test_what_is_not_guidelines_is_refused(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "guide.md"
    path.write_bytes(content)
    with pytest.raises(InputError, match=says):
        guidelines.read_guidelines(path)


def test_a_missing_file_or_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        guidelines.read_guidelines(tmp_path / "missing.md")
    with pytest.raises(InputError, match="is a directory"):
        guidelines.read_guidelines(tmp_path)
