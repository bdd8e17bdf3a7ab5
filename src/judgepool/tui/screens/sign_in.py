"""The sign-in screen of a served session (`judgepool serve`).

Two fields, name then token (Tab between them; Enter in the name field goes
to the token, Enter in the token field signs in). Nothing else is reachable
from here: the app refuses its own actions until someone has signed in
(`judgepool.tui.app.JudgepoolApp.check_action`). A match dismisses the
screen with the name; a refusal says why (never which of the two was wrong)
and the fields stay disabled for `FAILURE_PAUSE` seconds, on top of the
workspace-wide limit of `judgepool.services.sign_in`.

Before sign-in the screen shows only what anyone who reaches the server may
see: no workspace file name or path (a file name can say whose study it is,
a path who runs the server and how), not even in a refusal. The grade
screen names the workspace once someone has signed in.
"""

from __future__ import annotations

from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, Label, Static

from judgepool.core.terms.errors import JudgepoolError
from judgepool.services import sign_in
from judgepool.services.workspace import Workspace

FAILURE_PAUSE: Final = 1.0


class SignInScreen(Screen[str]):
    """Name and token; dismissed with the name once they match."""

    # Priority bindings run before the key reaches the focused field, and the
    # action moves the focus at once, so keys typed right after Tab go to the
    # other field: with Textual's own Tab, they could still reach the name
    # field (a name "alice5aL" and a token three characters short).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "other_field", "next field", show=False, priority=True),
        Binding("shift+tab", "other_field", "previous field", show=False, priority=True),
    ]

    DEFAULT_CSS: ClassVar[str] = """
    SignInScreen {
        align: center middle;
    }
    SignInScreen > Vertical {
        width: 64;
        max-width: 100%;
        height: auto;
        border: round $primary;
        padding: 1 2;
    }
    SignInScreen Input {
        margin-bottom: 1;
    }
    #sign-in-message {
        color: $error;
        height: auto;
    }
    """

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("judgepool · sign in", id="sign-in-title")
            yield Label("Name")
            yield Input(id="sign-in-name", placeholder="your annotator name")
            yield Label("Token")
            yield Input(id="sign-in-token", password=True, placeholder="the token you were given")
            yield Static("", id="sign-in-message")

    def on_mount(self) -> None:
        self.query_one("#sign-in-name", Input).focus()

    def action_other_field(self) -> None:
        """Tab and shift+Tab: from one field to the other (there are two)."""
        name = self.query_one("#sign-in-name", Input)
        token = self.query_one("#sign-in-token", Input)
        # set_focus at once: Widget.focus() waits for the next turn of the
        # loop, and keys typed right after Tab would still reach this field
        self.set_focus(token if self.focused is name else name)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        name = self.query_one("#sign-in-name", Input)
        token = self.query_one("#sign-in-token", Input)
        if event.input is name and not token.value:
            self.set_focus(token)
            return
        if not name.value:
            self.set_focus(name)
            return
        self.attempt(name.value, token.value)

    def attempt(self, name: str, token: str) -> None:
        """Check the name and token; dismiss with the name, or say why not."""
        try:
            result = sign_in.sign_in(self.ws, name, token)
        except JudgepoolError as exc:
            # the attempt could not be recorded (a read-only or busy workspace):
            # refused, in words that name no file (the server's log has the error)
            sign_in.log.warning("sign-in not recorded: %s", exc)
            result = sign_in.SignInResult(
                None, "cannot sign in now: the workspace could not record it; try again soon"
            )
        if result.name is not None:
            self.dismiss(result.name)
            return
        refusal = result.refusal or "refused"
        message = self.query_one("#sign-in-message", Static)
        message.update(Text(refusal))
        token_input = self.query_one("#sign-in-token", Input)
        token_input.value = ""
        self.app.bell()
        fields = list(self.query(Input))
        for field in fields:
            field.disabled = True

        def reopen() -> None:
            for field in fields:
                field.disabled = False
            token_input.focus()
            # say so: the fields take keys again (a browser cannot see "disabled")
            message.update(Text(f"{refusal} · you can type again"))

        self.set_timer(FAILURE_PAUSE, reopen)
