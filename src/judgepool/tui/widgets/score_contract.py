"""The active contract on screen, and the dialog that changes it.

`ContractBar` shows every parameter of the contract in one or two lines; the
audit and scores screens keep it docked at the top so no number is ever read
without the choices behind it.

`ContractDialog` edits k, gain, universe, unjudged, duplicates, ties,
zero_idcg, missing, relevant_from and entity. Choices are `Select`s; free
values are `Input`s whose text reaches `Contract` as typed, so an invalid value
shows the `ContractError` the contract itself raises (the same message the
command line prints) and the dialog stays open. It returns the new contract,
or None when cancelled.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from judgepool.core.contract import (
    DUPLICATE_POLICIES,
    MISSING_POLICIES,
    TIE_POLICIES,
    UNIVERSES,
    UNJUDGED_POLICIES,
    ZERO_IDCG_POLICIES,
    Contract,
)
from judgepool.core.errors import ContractError
from judgepool.core.tokens import parse_int
from judgepool.display import literal

# The parameters chosen from a fixed list, in the order they are shown.
CHOICES: dict[str, tuple[str, ...]] = {
    "universe": UNIVERSES,
    "unjudged": UNJUDGED_POLICIES,
    "duplicates": DUPLICATE_POLICIES,
    "ties": TIE_POLICIES,
    "zero_idcg": ZERO_IDCG_POLICIES,
    "missing": MISSING_POLICIES,
}
# The parameters typed in.
TYPED: tuple[str, ...] = ("k", "gain", "relevant_from", "entity")


def contract_text(contract: Contract) -> Text:
    """Every parameter of the contract, as text (an entity pattern is data)."""
    text = Text()
    text.append("contract ", style="bold")
    parts = [
        ("k", str(contract.k)),
        ("gain", contract.gain),
        ("universe", contract.universe),
        ("unjudged", contract.unjudged),
        ("duplicates", contract.duplicates),
        ("ties", contract.ties),
        ("zero_idcg", contract.zero_idcg),
        ("missing", contract.missing),
        ("relevant_from", str(contract.relevant_from)),
        ("scale", str(contract.scale)),
        ("entity", contract.entity if contract.entity else "identity"),
    ]
    for index, (name, value) in enumerate(parts):
        if index:
            text.append("  ")
        text.append(f"{name}=", style="dim")
        text.append(literal(value), style="bold cyan")
    return text


class ContractBar(Static):
    """The active contract, always visible above the numbers it produced."""

    DEFAULT_CSS = """
    ContractBar {
        height: auto;
        padding: 0 1;
        background: $boost;
    }
    """

    def show(self, contract: Contract) -> None:
        self.update(contract_text(contract))


def _typed_value(name: str, text: str) -> Any:
    """The typed text as the contract expects it; text that is not a number is
    passed on as it is, so the contract's own message explains what is wrong."""
    text = text.strip()
    if name in ("k", "relevant_from"):
        # the one number grammar: "１０" or "1_0" stay text, and are refused
        try:
            value = parse_int(text)
        except ValueError:  # more digits than int() reads: far beyond any bound
            return text
        return text if value is None else value
    if name == "entity":
        return text or None
    return text


class ContractDialog(ModalScreen[Contract | None]):
    """Edit the active contract; apply with enter or the button, escape cancels."""

    DEFAULT_CSS = """
    ContractDialog {
        align: center middle;
    }
    ContractDialog > Vertical {
        width: 76;
        height: auto;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ContractDialog Grid {
        grid-size: 2;
        grid-columns: 16 1fr;
        grid-rows: 3;
        height: auto;
    }
    ContractDialog Grid Label {
        padding: 1 0;
    }
    ContractDialog #contract-error {
        color: $error;
        height: auto;
        margin: 1 0 0 0;
    }
    ContractDialog Horizontal {
        height: auto;
        align: right middle;
        margin: 1 0 0 0;
    }
    ContractDialog Button {
        margin: 0 0 0 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", tooltip="Close without changing the contract"),
        Binding("ctrl+s", "apply", "apply", tooltip="Apply the contract (enter in a field too)"),
    ]

    def __init__(self, contract: Contract) -> None:
        super().__init__()
        self.contract = contract

    def compose(self) -> ComposeResult:
        values = self.contract.to_dict()
        with Vertical():
            yield Static(Text("Change the contract", style="bold"))
            yield Static(
                Text(
                    f"The scale {self.contract.scale} is the workspace's and does not change. "
                    "Every score recomputes when you apply.",
                    style="dim",
                )
            )
            with Grid():
                for name in TYPED:
                    yield Label(name)
                    value = values[name]
                    yield Input(
                        "" if value is None else str(value),
                        id=f"contract-{name}",
                        placeholder="identity" if name == "entity" else "",
                    )
                for name, allowed in CHOICES.items():
                    yield Label(name)
                    yield Select(
                        [(choice, choice) for choice in allowed],
                        value=values[name],
                        allow_blank=False,
                        id=f"contract-{name}",
                    )
            yield Static("", id="contract-error")
            with Horizontal():
                yield Button("Apply", variant="primary", id="contract-apply")
                yield Button("Cancel", id="contract-cancel")

    def on_mount(self) -> None:
        self.query_one("#contract-k", Input).focus()

    def edited(self) -> Contract:
        """The contract the dialog's fields describe; raises `ContractError`."""
        changes: dict[str, Any] = {}
        for name in TYPED:
            changes[name] = _typed_value(name, self.query_one(f"#contract-{name}", Input).value)
        for name in CHOICES:
            changes[name] = self.query_one(f"#contract-{name}", Select).value
        return self.contract.with_changes(**changes)

    def action_apply(self) -> None:
        try:
            contract = self.edited()
        except ContractError as exc:
            self.query_one("#contract-error", Static).update(Text(literal(str(exc))))
            return
        self.dismiss(contract)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "contract-apply":
            self.action_apply()
        else:
            self.action_cancel()
