"""The team's grading guidelines: Markdown text kept in the workspace, shown
to each annotator on first open and again whenever the text changes.

``judgepool settings WS --guidelines FILE.md`` stores them (`set_guidelines`)
with their digest, the SHA-256 of the text as kept (UTF-8, LF line ends);
``--clear-guidelines`` removes them. The app asks `guidelines_due` when an
annotator opens it (and when another connection wrote): the guidelines are
due when the digest differs from the one recorded as shown to them, and
`mark_seen` records it once they are shown. The digest is also kept as a
setting of its own, so that the app's check reads a short string, not the
whole text.

Reading a file's text (`read_guidelines`, `parse_guidelines`) is the
formats layer's, exposed here for the command line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

from judgepool.formats.guidelines import MAX_GUIDELINES_CHARACTERS as MAX_GUIDELINES_CHARACTERS
from judgepool.formats.guidelines import parse_guidelines as parse_guidelines
from judgepool.formats.guidelines import read_guidelines as read_guidelines
from judgepool.store import guidelines as store
from judgepool.store.workspace import Workspace, now

GUIDELINES_KEY: Final = "guidelines"
DIGEST_KEY: Final = "guidelines_digest"


def digest_of(text: str) -> str:
    """The guidelines' digest: the SHA-256 of ``text`` in UTF-8, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Guidelines:
    """The guidelines as kept: the text, its digest and when it was stored."""

    text: str
    digest: str
    set_at: str

    @property
    def first_line(self) -> str:
        """The first line that is not blank, without the spaces around it."""
        return next((line.strip() for line in self.text.splitlines() if line.strip()), "")

    @property
    def lines(self) -> int:
        return len(self.text.splitlines())


@dataclass(frozen=True)
class GuidelinesChange:
    """What `set_guidelines` did: the guidelines now kept, and the digest of
    those they replaced (None: there were none)."""

    guidelines: Guidelines
    replaced: str | None

    @property
    def changed(self) -> bool:
        return self.replaced != self.guidelines.digest


def current_guidelines(ws: Workspace) -> Guidelines | None:
    """The workspace's guidelines, None when it has none."""
    stored: dict[str, Any] | None = ws.setting(GUIDELINES_KEY)
    if not stored:
        return None
    return Guidelines(str(stored["text"]), str(stored["digest"]), str(stored["set_at"]))


def current_digest(ws: Workspace) -> str | None:
    """The digest of the workspace's guidelines (None: none), read without the text."""
    digest = ws.setting(DIGEST_KEY)
    return digest if isinstance(digest, str) else None


def set_guidelines(ws: Workspace, text: str) -> GuidelinesChange:
    """Keep ``text`` (see `parse_guidelines`) as the workspace's guidelines, in one
    transaction. The same text again changes nothing: nobody is shown it again."""
    digest = digest_of(text)
    with ws.write() as conn:
        before = current_guidelines(ws)
        if before is not None and before.digest == digest:
            return GuidelinesChange(before, digest)
        kept = Guidelines(text, digest, now())
        ws.put_setting(
            conn, GUIDELINES_KEY, {"text": text, "digest": digest, "set_at": kept.set_at}
        )
        ws.put_setting(conn, DIGEST_KEY, digest)
    return GuidelinesChange(kept, None if before is None else before.digest)


def clear_guidelines(ws: Workspace) -> Guidelines | None:
    """Remove the workspace's guidelines (one transaction); those removed, if any."""
    with ws.write() as conn:
        before = current_guidelines(ws)
        ws.put_setting(conn, GUIDELINES_KEY, None)
        ws.put_setting(conn, DIGEST_KEY, None)
    return before


@dataclass(frozen=True)
class DueGuidelines:
    """Guidelines an annotator has not been shown: ``changed`` when they were
    shown an earlier text (else these are the first they see)."""

    guidelines: Guidelines
    changed: bool


def guidelines_due(ws: Workspace, annotator: str) -> DueGuidelines | None:
    """The guidelines, when ``annotator`` has not been shown this text yet."""
    digest = current_digest(ws)
    seen = store.seen_digest(ws.conn, annotator)
    if digest is None or seen == digest:
        return None
    guidelines = current_guidelines(ws)
    return None if guidelines is None else DueGuidelines(guidelines, changed=seen is not None)


def mark_seen(ws: Workspace, annotator: str, digest: str) -> None:
    """Record that ``annotator`` was shown the guidelines of ``digest`` (one
    transaction; an annotator not yet known is added)."""
    with ws.write() as conn:
        store.record_seen(conn, annotator, digest)


def seen_by(ws: Workspace, digest: str) -> list[str]:
    """Who was shown the guidelines of ``digest``, by name."""
    return store.seen_by(ws.conn, digest)
