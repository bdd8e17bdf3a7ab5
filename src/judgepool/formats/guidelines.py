"""Reading a team's grading guidelines: a Markdown file, UTF-8 text.

`parse_guidelines` turns a file's bytes into the text the workspace keeps:
the byte order mark dropped, line ends made LF, the text checked to be
UTF-8 (a bad byte is refused naming its line), to be text at all (a NUL
byte is refused: that is a binary file given by mistake), not blank, and at
most `MAX_GUIDELINES_CHARACTERS` long. `read_guidelines` reads a file first
(missing, a directory, unreadable: refused, saying which).

The text itself is the team's and is kept as written; whoever shows it
escapes what a terminal would act on (`judgepool.tui.dialogs.guidelines`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from judgepool.core.terms.errors import InputError
from judgepool.formats.source import read_bytes, strip_bom

MAX_GUIDELINES_CHARACTERS: Final = 50_000
"""The longest guidelines kept: about twenty pages of prose and examples. The
app lays Markdown out a widget per block: 20,000 characters in 560 short
blocks took 4.6 s on a loaded 2-core machine (Textual 8.2.8), so a text far
longer would keep an annotator waiting."""


def parse_guidelines(data: bytes, source: str) -> str:
    """The guidelines in ``data`` as kept (see the module); ``source`` names the
    file (or ``<stdin>``) in a refusal."""
    data = strip_bom(data)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError("holds a NUL byte: this is not a text file", source, line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8",
            source,
            line,
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise InputError(
            "is empty; to remove the guidelines, use --clear-guidelines instead", source
        )
    if len(text) > MAX_GUIDELINES_CHARACTERS:
        raise InputError(
            f"is {len(text):,} characters long; guidelines may have at most "
            f"{MAX_GUIDELINES_CHARACTERS:,}",
            source,
        )
    return text


def read_guidelines(path: str | Path) -> str:
    """The guidelines in the file at ``path`` (see `parse_guidelines`)."""
    return parse_guidelines(read_bytes(path), str(path))
