"""The app's contract dialog reads numbers with the one grammar, as the CLI does."""

from __future__ import annotations

import pytest

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import ContractError
from judgepool.tui.widgets.score_contract import _typed_value


@pytest.mark.parametrize("text", ["１０", "1_0", "٣", "9" * 5000])
def test_k_typed_in_the_dialog_follows_the_one_grammar(text: str) -> None:
    value = _typed_value("k", text)
    with pytest.raises(ContractError, match="k must be"):
        Contract(k=value)


def test_plain_numbers_are_numbers() -> None:
    assert _typed_value("k", " 20 ") == 20
    assert _typed_value("relevant_from", "-1") == -1
