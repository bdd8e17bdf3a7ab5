"""The active contract on screen, and the dialog that changes it.

`ContractBar` shows every parameter of the contract in one or two lines; the
audit and scores screens keep it docked at the top so no number is ever read
without the choices behind it.

`ContractDialog` edits every parameter but the scale, made from the
contract's own `Parameter`s (so a new parameter appears here by itself).
Choices are `Select`s; free values are `Input`s whose text reaches `Contract`
as typed, so an invalid value
shows the `ContractError` the contract itself raises (the same message the
command line prints) and the dialog stays open. It returns the new contract,
or None when cancelled; ``ctrl+o`` (or its button) applies it and sets
``save_as_default``: the caller then saves it as the workspace's default.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from judgepool.core.team.roles import Reach
from judgepool.core.terms.contract import PARAMETERS, Contract, Parameter
from judgepool.core.terms.errors import ContractError
from judgepool.core.terms.tokens import parse_int
from judgepool.display import literal

# What the dialog edits: every parameter of the contract but the scale (the
# workspace's), in the contract's order; choices as selects, the rest typed.
EDITABLE: tuple[Parameter, ...] = tuple(p for p in PARAMETERS if p.editable)


def contract_text(contract: Contract) -> Text:
    """Every parameter of the contract, as text (an entity pattern is data)."""
    text = Text()
    text.append("contract ", style="bold")
    parts = contract.shown()
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
    """The text typed for parameter ``name`` as the contract expects it; text
    that is not a number is passed on as it is, so the contract's own message
    explains what is wrong."""
    parameter = next(p for p in PARAMETERS if p.name == name)
    text = text.strip()
    if parameter.kind == "integer":
        # the one number grammar: "１０" or "1_0" stay text, and are refused
        try:
            value = parse_int(text)
        except ValueError:  # more digits than int() reads: far beyond any bound
            return text
        return text if value is None else value
    if parameter.kind == "pattern":
        return text or None
    return text


class ContractDialog(ModalScreen[Contract | None]):
    """Edit the active contract; apply with enter or the button, escape cancels."""

    REACH: ClassVar[Reach] = "review"

    # every field takes three lines: under 46 lines the fields scroll, and the
    # dialog takes the whole terminal (under 100 columns its whole width too)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 - typed by Textual
    VERTICAL_BREAKPOINTS = [(0, "-short"), (46, "-tall")]  # noqa: RUF012 - typed by Textual

    DEFAULT_CSS = """
    ContractDialog {
        align: center middle;
    }
    ContractDialog > Vertical {
        width: 76;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary;
        background: $surface;
        padding: 1 2;
    }
    ContractDialog #contract-fields {
        height: auto;
    }
    ContractDialog.-short > Vertical {
        height: 100%;
        padding: 0 1;
    }
    ContractDialog.-narrow > Vertical {
        width: 100%;
    }
    ContractDialog.-short #contract-fields {
        height: 1fr;
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
    ContractDialog.-short Horizontal {
        margin: 0;
    }
    ContractDialog Button {
        margin: 0 0 0 2;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", tooltip="Close without changing the contract"),
        Binding("ctrl+s", "apply", "apply", tooltip="Apply the contract (enter in a field too)"),
        Binding(
            "ctrl+o",
            "save_default",
            "save as default",
            tooltip="Apply the contract and save it as the workspace's default",
        ),
    ]

    def __init__(self, contract: Contract) -> None:
        super().__init__()
        self.contract = contract
        self.save_as_default = False

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
            # the fields scroll where the terminal is too short for them all:
            # the buttons below stay in view
            with VerticalScroll(id="contract-fields"), Grid():
                for parameter in EDITABLE:
                    name = parameter.name
                    yield Label(name)
                    value = values[name]
                    if parameter.kind == "choice":
                        yield Select(
                            [(choice, choice) for choice in parameter.choices],
                            value=value,
                            allow_blank=False,
                            id=f"contract-{name}",
                        )
                    else:
                        yield Input(
                            "" if value is None else str(value),
                            id=f"contract-{name}",
                            placeholder=parameter.default_text if value is None else "",
                            tooltip=parameter.summary,
                        )
            yield Static("", id="contract-error")
            with Horizontal():
                yield Button("Apply", variant="primary", id="contract-apply")
                yield Button("Save as default", id="contract-default")
                yield Button("Cancel", id="contract-cancel")

    def on_mount(self) -> None:
        self.query_one("#contract-k", Input).focus()

    def edited(self) -> Contract:
        """The contract the dialog's fields describe; raises `ContractError`."""
        changes: dict[str, Any] = {}
        for parameter in EDITABLE:
            widget_id = f"#contract-{parameter.name}"
            if parameter.kind == "choice":
                changes[parameter.name] = self.query_one(widget_id, Select).value
            else:
                text = self.query_one(widget_id, Input).value
                changes[parameter.name] = _typed_value(parameter.name, text)
        return self.contract.with_changes(**changes)

    def action_apply(self) -> None:
        try:
            contract = self.edited()
        except ContractError as exc:
            self.query_one("#contract-error", Static).update(Text(literal(str(exc))))
            return
        self.dismiss(contract)

    def action_save_default(self) -> None:
        self.save_as_default = True
        self.action_apply()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "contract-apply":
            self.action_apply()
        elif event.button.id == "contract-default":
            self.action_save_default()
        else:
            self.action_cancel()
