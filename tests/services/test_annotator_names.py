"""Annotator names as they enter a workspace (`entry_checks.annotator_name`):
stored in NFC, at most 64 characters, and refused when they look like a name
the workspace holds (``alicе`` with a Cyrillic е beside ``alice``); a name
already stored stays usable as it is, wherever names enter: judge, import,
annotators add and role, assign, search-and-judge, and sign-in."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from judgepool.core.team.confusables import confusable, skeleton
from judgepool.core.terms.errors import InputError
from judgepool.services import roles, sign_in
from judgepool.services.assignments import assign
from judgepool.services.entry_checks import MAX_ANNOTATOR_NAME, annotator_name
from judgepool.services.judging import judge, list_annotators
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import Workspace, init_workspace
from judgepool.store import ledger

CYRILLIC_IE = "\u0435"  # е, drawn as a Latin e
LOOKALIKE = "alic" + CYRILLIC_IE
NFD_JOSE = unicodedata.normalize("NFD", "José")
NFC_JOSE = unicodedata.normalize("NFC", "José")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    workspace = init_workspace(tmp_path / "w.sqlite", scale="0..3")
    yield workspace  # type: ignore[misc]
    workspace.close()


def names(ws: Workspace) -> list[str]:
    return sorted(a.name for a in list_annotators(ws))


def test_the_skeleton_takes_cyrillic_greek_and_latin_lookalikes_to_one_text() -> None:
    for lookalike in (
        LOOKALIKE,  # Cyrillic е
        "\u0430lice",  # Cyrillic а
        "\u03b1lice",  # Greek α
        "\uff41lice",  # full-width a
        "a1ice",  # digit one for l
        "aIice",  # capital I for l
    ):
        assert confusable(lookalike, "alice"), lookalike
    assert confusable("\u0412\u041e\u0412", "BOB")  # Cyrillic В, О
    assert confusable("rnary", "mary")
    # different names that look different are not confusable
    for different in ("Alice", "alicia", "alicé", "bob", "alice"):
        assert not confusable(different, "alice"), different
    assert skeleton(NFD_JOSE) == skeleton(NFC_JOSE)


def test_a_lookalike_of_a_name_the_workspace_holds_is_refused_everywhere_it_enters(
    ws: Workspace, tmp_path: Path
) -> None:
    judge(ws, "q1", "d1", 1, annotator="alice", allow_new=True)
    qrels = tmp_path / "mine.qrels"
    qrels.write_text("q1 0 d2 2\n")
    attempts = {
        "judge": lambda: judge(ws, "q1", "d1", 2, annotator=LOOKALIKE, allow_new=True),
        "import": lambda: import_qrels(ws, qrels, annotator=LOOKALIKE),
        "annotators add": lambda: sign_in.add_annotator(ws, LOOKALIKE),
        "annotators role": lambda: roles.set_role(ws, LOOKALIKE, "lead"),
        "the app": lambda: annotator_name(ws, LOOKALIKE),
    }
    for where, attempt in attempts.items():
        with pytest.raises(InputError) as refused:
            attempt()
        message = str(refused.value)
        assert "looks like the annotator 'alice'" in message, where
        assert "U+0435 CYRILLIC SMALL LETTER IE" in message, where
    assert names(ws) == ["alice"]
    # and the real alice goes on grading
    assert judge(ws, "q1", "d1", 3, annotator="alice", allow_new=True).annotator == "alice"


def test_two_new_names_that_look_alike_are_refused_together(ws: Workspace) -> None:
    judge(ws, "q1", "d1", 1, annotator="carol", allow_new=True)
    # refused before anything is assigned (this workspace has no pool yet)
    with pytest.raises(InputError, match="look alike"):
        assign(ws, annotators=["bob", "b\u043eb"], overlap=1)  # a Cyrillic о


def test_names_are_stored_in_nfc_and_found_in_either_form(ws: Workspace) -> None:
    event = judge(ws, "q1", "d1", 1, annotator=NFD_JOSE, allow_new=True)
    assert event.annotator == NFC_JOSE
    assert judge(ws, "q1", "d2", 2, annotator=NFC_JOSE, allow_new=True).annotator == NFC_JOSE
    assert names(ws) == [NFC_JOSE]


def test_names_stored_before_the_rules_stay_usable(ws: Workspace) -> None:
    long_name = "x" * (MAX_ANNOTATOR_NAME + 36)
    with ws.write() as conn:
        # as older workspaces hold them: an NFD name, a long one, and two lookalikes
        for stored in (NFD_JOSE, long_name, "alice", LOOKALIKE):
            ledger.register_annotator(conn, stored)
    for stored in (NFD_JOSE, long_name, "alice", LOOKALIKE):
        assert judge(ws, "q1", "d1", 1, annotator=stored, allow_new=True).annotator == stored
    # the NFC spelling of the stored NFD name is that name, not a new one
    assert judge(ws, "q1", "d1", 2, annotator=NFC_JOSE, allow_new=True).annotator == NFD_JOSE
    assert len(names(ws)) == 4
    assert roles.set_role(ws, long_name, "lead").name == long_name


def test_a_new_name_is_at_most_64_characters(ws: Workspace) -> None:
    longest = "a" + "b" * (MAX_ANNOTATOR_NAME - 1)
    assert annotator_name(ws, longest) == longest
    with pytest.raises(InputError, match="65 characters long, and names are at most 64"):
        annotator_name(ws, longest + "c")
    # counted after NFC: 64 letters with their accents composed fit
    accented = unicodedata.normalize("NFD", "é" * MAX_ANNOTATOR_NAME)
    assert len(accented) == 2 * MAX_ANNOTATOR_NAME
    assert annotator_name(ws, accented) == "é" * MAX_ANNOTATOR_NAME


def test_sign_in_finds_the_stored_name_typed_in_another_normal_form(ws: Workspace) -> None:
    token = sign_in.add_annotator(ws, NFD_JOSE)
    assert names(ws) == [NFC_JOSE]
    assert sign_in.sign_in(ws, NFD_JOSE, token).name == NFC_JOSE
    assert sign_in.sign_in(ws, NFC_JOSE, token).name == NFC_JOSE
    # a lookalike typed at sign-in is not the name: refused like any wrong pair
    assert not sign_in.sign_in(ws, "Jos\u0435\u0301", token).signed_in
