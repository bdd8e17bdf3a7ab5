"""The contract's ``entity`` pattern, run by RE2: time linear in the ID, whatever the pattern.

Python's ``re`` backtracks, so a pattern such as ``(\\d|\\d|\\d|\\d|\\d|\\d|\\d|\\d|\\d|\\d)+x``
over a document ID of thirty digits runs for longer than anyone waits, and
holds the interpreter lock all that time (a served session's keys and its
quit go unanswered). RE2 never backtracks: matching takes time linear in the
ID's length and memory bounded when the pattern is compiled (8 MiB; a larger
pattern is refused). `EntityPattern` compiles with google-re2, the reference
engine maps IDs one at a time with it, and the fast engine maps a run's
distinct IDs all at once with Arrow's regular-expression kernels, which are
RE2 too (`arrow_rewrite`): both are checked here, so a pattern one of them
refuses is refused up front, with RE2's reason.

The syntax is RE2's: Python's, less back-references (``\\1``, ``(?P=name)``),
look-around (``(?=``, ``(?<=``...), conditionals, atomic groups and
possessive repeats, ``(?x)``, ``\\Z`` (RE2 writes ``\\z``), and ``\\C`` (a single
byte, which could cut a character in two). ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are
ASCII in RE2 (in Python's ``re`` they also take other scripts' digits and
letters); ``\\pL``, ``\\p{Nd}`` and their kin name Unicode classes.
"""

from __future__ import annotations

import re
from typing import Final

import re2

from judgepool.core.terms.errors import ContractError

# ``\C`` not itself escaped: an odd run of backslashes before the C.
_SINGLE_BYTE: Final = re.compile(r"(?<!\\)(?:\\\\)*\\C")
_WHY_RE2: Final = (
    "patterns run in RE2, in time linear in the ID, whose syntax has no back-references, "
    "look-around, conditionals, atomic groups or (?x), and writes \\Z as \\z"
)


def _options() -> re2.Options:
    options = re2.Options()
    # RE2 would also print each refusal on standard error, over the app's screen.
    options.log_errors = False
    return options


def _reason(error: Exception) -> str:
    detail = error.args[0] if error.args else ""
    text = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    return text or "RE2 refused it"


class EntityPattern:
    """A compiled entity pattern: ``entity_of`` maps a run's document ID to
    the judged entity it stands for."""

    __slots__ = ("_compiled", "groups", "text")

    def __init__(self, text: str) -> None:
        if not isinstance(text, str) or not text:
            raise ContractError("entity must be a non-empty regular expression or absent")
        if _SINGLE_BYTE.search(text):
            raise ContractError(
                "entity cannot use \\C (a single byte, which could cut a character in two); "
                "write . for one character"
            )
        try:
            compiled = re2.compile(text, options=_options())
        except re2.error as exc:
            raise ContractError(
                f"entity is not a regular expression judgepool can run: {_reason(exc)}; {_WHY_RE2}"
            ) from None
        self.text = text
        self._compiled = compiled
        self.groups: int = compiled.groups
        self._check_arrow()

    def entity_of(self, doc_id: str) -> str:
        """The pattern matched at the start of ``doc_id``: its first group (or
        the whole match when it has none); empty when that group took no part
        in the match. An ID the pattern does not match is its own entity."""
        found = self._compiled.match(doc_id)
        if found is None:
            return doc_id
        return str(found.group(1 if self.groups else 0) or "")

    def arrow_rewrite(self) -> tuple[str, str]:
        """The pattern and replacement for Arrow's ``replace_substring_regex``
        that turn each ID into its entity, as `entity_of` does: the pattern
        anchored at the start, followed by the rest of the ID, all replaced by
        the first group (the whole match when there is none); an ID it does
        not match is left as it is."""
        if self.groups:
            return f"^(?:{self.text})(?s:.*)", "\\1"
        return f"^({self.text})(?s:.*)", "\\1"

    def _check_arrow(self) -> None:
        # Arrow's RE2 is another build: what it refuses is refused here too,
        # rather than in the middle of scoring a run. Imported here, not at the
        # top: every command reads the contract, and most never need Arrow
        # (0.15 s of each command's start, a contract without an entity).
        import pyarrow as pa
        import pyarrow.compute as pc

        pattern, replacement = self.arrow_rewrite()
        try:
            pc.replace_substring_regex(pa.array(["x"]), pattern, replacement, max_replacements=1)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise ContractError(
                f"entity is not a regular expression judgepool can run: {exc}; {_WHY_RE2}"
            ) from None

    def __reduce__(self) -> tuple[type[EntityPattern], tuple[str]]:
        # to worker processes as its text, compiled again there
        return (EntityPattern, (self.text,))

    def __repr__(self) -> str:
        return f"EntityPattern({self.text!r})"
