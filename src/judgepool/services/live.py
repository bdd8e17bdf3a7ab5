"""Following a workspace that other terminals and processes write to while the
app has it open.

`StoreWatcher` remembers SQLite's ``data_version`` of one connection and the
newest judgment event it has seen; `StoreWatcher.changed_items` is cheap when
nothing changed (one pragma, no table read) and otherwise names the items that
gained judgment events since, so the app re-reads only those.
"""

from __future__ import annotations

from judgepool.store import grading_live
from judgepool.store.workspace import Workspace

Item = tuple[str, str]


class StoreWatcher:
    """What one connection has seen of the workspace so far."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.version = grading_live.data_version(ws)
        self.last_event = grading_live.last_event_id(ws)
        self.assignment = grading_live.current_assignment_id(ws)

    def changed_items(self, *, force: bool = False) -> list[Item] | None:
        """None when no other connection committed since the last call (and not
        ``force``); else the items with judgment events newer than the last
        seen, oldest change first (possibly none: a commit that wrote no
        judgment). The connection's own grades are included once seen: the
        caller takes them in again, which is harmless."""
        version = grading_live.data_version(self.ws)
        if version == self.version and not force:
            return None
        self.version = version
        self.last_event, items = grading_live.items_changed_since(self.ws, self.last_event)
        return items

    def assignment_changed(self) -> bool:
        """Whether the current assignment is another than when last asked (the
        queues changed: the grading plan must be read again)."""
        assignment = grading_live.current_assignment_id(self.ws)
        changed, self.assignment = assignment != self.assignment, assignment
        return changed
