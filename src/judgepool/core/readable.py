"""Readable text: mojibake repaired for display, with ftfy.

MS MARCO passages were decoded with the wrong encoding before they were
published: ``company’s`` is stored as ``companyâ\\x80\\x99s``. ftfy undoes such
double decoding. Only the encoding is repaired: quotes stay curly, HTML
entities, terminal escapes and control characters stay as they are (the app
shows those literally), and nothing is normalised, so a reader sees what the
document says. The stored text is never changed: this is for display only.

ftfy is imported at the first text that is not ASCII: every command of the
command line imports this module (through `judgepool.display`), few repair
anything, and ftfy takes a tenth of a second to import.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import ftfy


@functools.cache
def _encoding_only() -> ftfy.TextFixerConfig:
    """ftfy's settings that repair the encoding and nothing else."""
    import ftfy

    return ftfy.TextFixerConfig(
        unescape_html=False,
        remove_terminal_escapes=False,
        uncurl_quotes=False,
        fix_latin_ligatures=False,
        fix_character_width=False,
        fix_line_breaks=False,
        remove_control_chars=False,
        fix_c1_controls=False,
        normalization=None,
        explain=True,
    )


# ftfy reads a C1 control character alone (an 8-bit CSI, ``\x9b``) as
# Windows-1252 text decoded as Latin-1 and makes it ``›``: that would hide a
# terminal escape the app must show as one. Such a repair is refused.
_C1_AS_WINDOWS_1252: Final = [("encode", "latin-1"), ("decode", "windows-1252")]


def readable(text: str) -> str:
    """``text`` with its mojibake repaired (the same string when there is none)."""
    if text.isascii():  # ASCII holds no mojibake: the common case costs nothing
        return text
    import ftfy

    fixed = ftfy.fix_and_explain(text, config=_encoding_only())
    steps = [tuple(step) for step in fixed.explanation or ()]
    if any(steps[i : i + 2] == _C1_AS_WINDOWS_1252 for i in range(len(steps))):
        return text
    return fixed.text
