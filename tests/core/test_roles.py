"""The roles' rule: who acts in which role, and what each reaches."""

from __future__ import annotations

import pytest

from judgepool.core.team.roles import REACHES, ROLES, can_reach, check_role, effective_role


def test_a_workspace_without_roles_is_its_local_users() -> None:
    assert effective_role(None, any_role_set=False, served=False) == "lead"
    # a served session is never the lead without a role, even then
    assert effective_role(None, any_role_set=False, served=True) == "annotator"


def test_once_a_role_is_set_anyone_without_one_is_an_annotator() -> None:
    assert effective_role(None, any_role_set=True, served=False) == "annotator"
    assert effective_role(None, any_role_set=True, served=True) == "annotator"
    for role in ROLES:
        for served in (False, True):
            assert effective_role(role, any_role_set=True, served=served) == role


def test_what_each_role_reaches() -> None:
    reached = {role: {reach for reach in REACHES if can_reach(role, reach)} for role in ROLES}
    assert reached == {
        "annotator": {"grade", "own"},
        "adjudicator": {"grade", "own", "adjudicate"},
        "lead": set(REACHES),
    }


def test_an_unknown_role_is_refused_naming_the_roles() -> None:
    with pytest.raises(ValueError, match="choose one of annotator, adjudicator, lead"):
        check_role("admin")
