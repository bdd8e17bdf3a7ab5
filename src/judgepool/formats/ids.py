"""The ID grammar (`judgepool.core.terms.tokens.id_problem`) as the file readers apply it.

Every reader where a query or document ID enters refuses an ID that
``id_problem`` gives a reason for, naming file and line and showing the ID
literally (`id_error` gives the message). Two faster ways to the same answer,
each falling back to ``id_problem`` itself whenever it cannot vouch:

- `id_error` skips ``id_problem`` for the common ID, printable ASCII without
  a space and not starting with ``#`` (exact: no such ID has a problem);
- `ids_may_have_problems` looks at a whole Arrow column of IDs at once (the
  fast run reader's columns): its bytes with numpy, and, only when they are
  not all ASCII, a search for the forbidden characters in their UTF-8
  (`has_forbidden_utf8` over `FORBIDDEN_RANGES`, a superset of what
  ``id_problem`` refuses: a test holds it to every code point). It may say
  yes for nothing (a slower reader then looks line by line), never no for a
  problem.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from judgepool.core.terms.tokens import id_problem

if TYPE_CHECKING:
    import pyarrow as pa

# Every non-ASCII code point that id_problem may refuse, as inclusive ranges:
# C1 controls, no-break and other Unicode spaces, line and paragraph
# separators, bidi and zero-width marks, the byte order mark, and the other
# format characters (Unicode 15.1; 13439..1343F is newer than some Pythons).
# Surrogates are not valid UTF-8 and never reach a decoded column.
FORBIDDEN_RANGES: Final = (
    (0x80, 0xA0),
    (0xAD, 0xAD),
    (0x600, 0x605),
    (0x61C, 0x61C),
    (0x6DD, 0x6DD),
    (0x70F, 0x70F),
    (0x890, 0x891),
    (0x8E2, 0x8E2),
    (0x1680, 0x1680),
    (0x180E, 0x180E),
    (0x2000, 0x200F),
    (0x2028, 0x202F),
    (0x205F, 0x2064),
    (0x2066, 0x206F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
_SPACE, _DEL = 0x20, 0x7F


def id_error(kind: str, text: str) -> str | None:
    """Why ``text`` cannot be a ``kind`` ("query", "document") ID, as a message
    showing it literally; None when it can."""
    if text.isascii() and text.isprintable() and " " not in text and text[:1] not in ("", "#"):
        return None  # printable ASCII, no space, no leading '#': nothing to refuse
    problem = id_problem(text)
    return None if problem is None else f"{kind} ID {text!r} cannot be used: {problem}"


def has_forbidden_utf8(text: Any) -> bool:
    """True if the valid UTF-8 in ``text`` (a numpy uint8 array of whole
    characters) encodes a code point of `FORBIDDEN_RANGES` or a surrogate.

    Vectorised: the bytes that can lead such a character are found with a
    lookup table, the code point each one starts is decoded (2, 3 or 4 bytes,
    by its lead byte) and looked up among the ranges: 0.1 s on the 34 MB of
    two million non-ASCII IDs, where a regular expression took 0.4 s."""
    import numpy as np

    ranges = np.array([*FORBIDDEN_RANGES, (0xD800, 0xDFFF)], dtype=np.int64)
    order = np.argsort(ranges[:, 0])
    lows, highs = ranges[order, 0], ranges[order, 1]
    leads = np.zeros(256, dtype=bool)
    for low, high in FORBIDDEN_RANGES:
        for code in range(low, high + 1):
            leads[chr(code).encode("utf-8")[0]] = True
    leads[0xED] = True  # surrogates, which valid UTF-8 never holds
    at = np.flatnonzero(text >= 0xC2)  # every lead byte of a multi-byte character
    at = at[leads[text[at]]]  # the table on those only: a tenth of the work
    if at.size == 0:
        return False
    last = text.size - 1
    b0, b1, b2, b3 = (
        text[np.minimum(at + step, last)].astype(np.int64) & mask
        for step, mask in ((0, 0xFF), (1, 0x3F), (2, 0x3F), (3, 0x3F))
    )
    code = np.where(
        b0 < 0xE0,
        ((b0 & 0x1F) << 6) | b1,
        np.where(
            b0 < 0xF0,
            ((b0 & 0x0F) << 12) | (b1 << 6) | b2,
            ((b0 & 0x07) << 18) | (b1 << 12) | (b2 << 6) | b3,
        ),
    )
    index = np.searchsorted(lows, code, side="right") - 1
    inside = (index >= 0) & (code <= highs[np.maximum(index, 0)])
    return bool(inside.any())


def _text_bytes(ids: pa.Array) -> Any:
    """The bytes of every value of a string array, end to end, as a numpy uint8 array."""
    import numpy as np
    import pyarrow as pa

    offsets_type = np.int64 if pa.types.is_large_string(ids.type) else np.int32
    offsets = np.frombuffer(ids.buffers()[1], dtype=offsets_type)
    start, stop = int(offsets[ids.offset]), int(offsets[ids.offset + len(ids)])
    return np.frombuffer(ids.buffers()[2], dtype=np.uint8)[start:stop]


def ids_may_have_problems(ids: pa.Array, *, comment_mark: bool = True) -> bool:
    """False only if no value of the string array ``ids`` has a problem for
    ``id_problem``; ``comment_mark=False`` says the file holds no ``#`` at all."""
    # numpy and pyarrow here, not at the top: the line readers need neither
    import numpy as np
    import pyarrow.compute as pc

    if len(ids) == 0:
        return False
    if ids.null_count or pc.min(pc.binary_length(ids)).as_py() == 0:
        return True
    text = _text_bytes(ids)
    if text.min() <= _SPACE:
        return True  # a control character or a space
    if text.max() >= _DEL:
        if np.any(text == _DEL):
            return True
        if has_forbidden_utf8(text):
            return True
    return comment_mark and bool(pc.any(pc.starts_with(ids, "#")).as_py())
