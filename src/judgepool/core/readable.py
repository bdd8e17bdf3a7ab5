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

A space in mojibake can stand for a lost byte: read as Latin-1, both 0xA0
(no-break space) and 0x85 (NEL) are whitespace, which MS MARCO's text
collapsed to a space. ftfy always takes it for 0xA0, which after ``Ù``
makes the digit ``٠`` of what was the letter ``م`` (``هاشم`` read
``هاش٠``). Where 0xA0 would make no letter and 0x85 a letter
(`_NEL_LETTERS`), the letter is taken.
"""

from __future__ import annotations

import functools
import re
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


def _lead_byte_guesses() -> dict[str, tuple[str, str]]:
    """The Latin-1 characters of a UTF-8 lead byte after which a space taken
    for 0xA0 makes no letter and taken for 0x85 makes one, with the two."""
    guesses: dict[str, tuple[str, str]] = {}
    for lead in range(0xC2, 0xE0):
        as_nbsp, as_nel = bytes([lead, 0xA0]).decode(), bytes([lead, 0x85]).decode()
        if as_nel.isalpha() and not as_nbsp.isalpha():
            guesses[chr(lead)] = (as_nbsp, as_nel)
    return guesses


_NEL_LETTERS: Final = _lead_byte_guesses()
_LEAD_THEN_SPACE: Final = re.compile(f"([{''.join(_NEL_LETTERS)}]) ")
_NBSP_FOR_NEL: Final = frozenset(_NEL_LETTERS.values())


def _repaired(text: str) -> str | None:
    """``text`` as ftfy repairs its encoding; None when the repair is refused."""
    import ftfy

    fixed = ftfy.fix_and_explain(text, config=_encoding_only())
    steps = [tuple(step) for step in fixed.explanation or ()]
    if any(steps[i : i + 2] == _C1_AS_WINDOWS_1252 for i in range(len(steps))):
        return None
    return fixed.text


def readable(text: str) -> str:
    """``text`` with its mojibake repaired (the same string when there is none)."""
    if text.isascii():  # ASCII holds no mojibake: the common case costs nothing
        return text
    fixed = _repaired(text)
    if fixed is None:
        return text
    if fixed == text or not _LEAD_THEN_SPACE.search(text):
        return fixed
    # the same repair with those spaces read as 0x85, kept only where it
    # changed nothing but ftfy's non-letter into the letter
    trial = _repaired(_LEAD_THEN_SPACE.sub(lambda found: found[1] + "\x85", text))
    if trial is None or len(trial) != len(fixed):
        return fixed
    changed = {(was, now) for was, now in zip(fixed, trial, strict=True) if was != now}
    return trial if changed and changed <= _NBSP_FOR_NEL else fixed
