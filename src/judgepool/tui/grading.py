"""Where the annotator is in the grading plan, and the counts behind the progress bars.

`GradingSession` is plain Python (no Textual, no database), so navigation
can be tested on its own and every keystroke costs O(1), except the search
for the next unjudged document. Documents run query after query; "next"
after the last document of a query is the first of the next query.

A document sent from the audit ("judge the holes") is shown at once; once it
is graded, the session returns to the document the annotator was on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgepool.services.app_queries import (
    NOT_JUDGED,
    GradingPlan,
    Item,
    ItemJudgment,
    PlanQuery,
    done_for,
    grading_plan,
)

if TYPE_CHECKING:
    from judgepool.services.workspace import Workspace

Position = tuple[int, int]  # (query index, document index)


class GradingSession:
    """The plan, the current position, the judgments and the progress counts."""

    def __init__(self, plan: GradingPlan) -> None:
        self.position: Position | None = None
        self._resume: Position | None = None
        self._load(plan)
        if self.total:
            self.position = (0, 0)
            self.next_unjudged(include_current=True)

    def _load(self, plan: GradingPlan) -> None:
        self.queries: list[PlanQuery] = plan.queries
        self.scale = plan.scale
        self.labels = plan.labels
        self.personal = plan.personal
        self.judgments: dict[Item, ItemJudgment] = plan.judgments
        self._query_index = {q.id: i for i, q in enumerate(self.queries)}
        self._doc_index: dict[Item, int] = {}
        self.judged_in_query: list[int] = []
        judgments = self.judgments
        for query in self.queries:
            items = [(query.id, doc) for doc in query.doc_ids]
            self._doc_index.update(zip(items, range(len(items)), strict=True))
            self.judged_in_query.append(
                sum(1 for item in items if item in judgments and self.done(judgments[item]))
            )
        self.total = len(self._doc_index)
        self.total_judged = sum(self.judged_in_query)

    def reload(self, plan: GradingPlan) -> None:
        """Take a plan read afresh (F5), staying on the current document when
        the new plan holds it, else starting at its first document to grade."""
        current = self.current
        self._resume = None
        self._load(plan)
        self.position = (0, 0) if self.total else None
        if current is not None and current in self._doc_index:
            self.goto(*current)
        elif self.total:
            self.next_unjudged(include_current=True)

    def done(self, judgment: ItemJudgment) -> bool:
        """Whether an item needs no more grading in this plan (see the module)."""
        return done_for(judgment, self.personal)

    # -- what is where ------------------------------------------------------------

    def judgment(self, query_id: str, doc_id: str) -> ItemJudgment:
        return self.judgments.get((query_id, doc_id), NOT_JUDGED)

    @property
    def current(self) -> Item | None:
        if self.position is None:
            return None
        qi, di = self.position
        query = self.queries[qi]
        return query.id, query.doc_ids[di]

    @property
    def current_query(self) -> PlanQuery | None:
        return None if self.position is None else self.queries[self.position[0]]

    def query_progress(self) -> tuple[int, int]:
        """(judged, pooled) for the current query."""
        if self.position is None:
            return 0, 0
        qi = self.position[0]
        return self.judged_in_query[qi], len(self.queries[qi].doc_ids)

    # -- recording ----------------------------------------------------------------

    def record(self, query_id: str, doc_id: str, judgment: ItemJudgment) -> None:
        """Take in an item's judgments after an event was committed."""
        item = (query_id, doc_id)
        before = self.done(self.judgment(query_id, doc_id))
        self.judgments[item] = judgment
        qi = self._query_index.get(query_id)
        if qi is not None and item in self._doc_index:
            change = int(self.done(judgment)) - int(before)
            self.judged_in_query[qi] += change
            self.total_judged += change

    # -- moving -------------------------------------------------------------------

    def _go(self, position: Position) -> Item:
        self.position = position
        current = self.current
        assert current is not None  # a position always names a document
        return current

    def _ordered_positions(self, start: Position) -> list[Position]:
        """Every position after ``start``, wrapping around, ending with ``start``."""
        flat = [(qi, di) for qi, q in enumerate(self.queries) for di in range(len(q.doc_ids))]
        at = flat.index(start)
        return flat[at + 1 :] + flat[: at + 1]

    def goto(self, query_id: str, doc_id: str) -> Item | None:
        """The given document, if it is in the plan; else stay put."""
        qi = self._query_index.get(query_id)
        di = self._doc_index.get((query_id, doc_id))
        if qi is None or di is None:
            return self.current
        return self._go((qi, di))

    def step(self, delta: int) -> Item | None:
        """The next (+1) or previous (-1) document, across query boundaries; stays
        put at either end."""
        if self.position is None:
            return None
        qi, di = self.position
        di += delta
        while not 0 <= di < len(self.queries[qi].doc_ids):
            qi += 1 if delta > 0 else -1
            if not 0 <= qi < len(self.queries):
                return self.current
            di = 0 if delta > 0 else len(self.queries[qi].doc_ids) - 1
        return self._go((qi, di))

    def step_query(self, delta: int) -> Item | None:
        """The first unjudged document (else the first) of the next or previous query
        that has documents; stays put at either end."""
        if self.position is None:
            return None
        qi = self.position[0] + delta
        while 0 <= qi < len(self.queries) and not self.queries[qi].doc_ids:
            qi += delta
        if not 0 <= qi < len(self.queries):
            return self.current
        query = self.queries[qi]
        for di, doc in enumerate(query.doc_ids):
            if not self.done(self.judgment(query.id, doc)):
                return self._go((qi, di))
        return self._go((qi, 0))

    def find_query(self, wanted: str) -> Item | None:
        """Go to the query whose ID is ``wanted`` (ignoring case), else to the next
        query after the current one whose text holds every word of ``wanted``
        (ignoring case), at its first document to grade; None when no query
        matches (the position is unchanged)."""
        wanted = wanted.strip()
        if not wanted:
            return None
        folded = wanted.casefold()
        start = -1 if self.position is None else self.position[0]
        count = len(self.queries)
        order = [(start + 1 + step) % count for step in range(count)]
        found = next((qi for qi in order if self.queries[qi].id.casefold() == folded), None)
        if found is None:
            words = folded.split()
            found = next(
                (
                    qi
                    for qi in order
                    if all(word in self.queries[qi].text.text.casefold() for word in words)
                ),
                None,
            )
        if found is None or not self.queries[found].doc_ids:
            return None
        self.position = (found, 0)
        return self.step_query(0)

    def next_unjudged(self, include_current: bool = False) -> Item | None:
        """The next document nobody has graded, preferring ones not deferred as
        unsure; None when every document is graded (the position is unchanged)."""
        if self.position is None:
            return None
        positions = self._ordered_positions(self.position)
        if include_current:
            positions = [positions[-1], *positions[:-1]]
        deferred: Position | None = None
        for qi, di in positions:
            query = self.queries[qi]
            judgment = self.judgment(query.id, query.doc_ids[di])
            if self.done(judgment):
                continue
            if not judgment.own_unsure:
                return self._go((qi, di))
            if deferred is None:
                deferred = (qi, di)
        return None if deferred is None else self._go(deferred)

    def advance(self) -> Item | None:
        """After a grade: back to where a queued document interrupted, else the
        next document."""
        if self._resume is not None:
            resume, self._resume = self._resume, None
            return self._go(resume)
        return self.step(+1)

    def resume(self) -> Item | None:
        """Back to where sent documents interrupted the annotator (if they did
        not move on their own since), else stay put."""
        if self._resume is not None:
            resume, self._resume = self._resume, None
            return self._go(resume)
        return self.current

    def forget_resume(self) -> None:
        """The annotator moved on their own: a grade no longer returns anywhere."""
        self._resume = None

    # -- documents sent from the audit ("judge the holes") ------------------------

    def add_query(self, query: PlanQuery) -> None:
        """Make room for a query the plan did not have."""
        if query.id in self._query_index:
            return
        self._query_index[query.id] = len(self.queries)
        self.queries.append(query)
        self.judged_in_query.append(0)

    def has_query(self, query_id: str) -> bool:
        return query_id in self._query_index

    def show(self, query_id: str, doc_id: str) -> Item:
        """Show ``doc_id`` now, adding it to its query if it was not pooled (the
        query must be known: see `add_query`). The next grade returns to the
        document shown before, unless the annotator moves on first."""
        if self._resume is None and self.position is not None:
            self._resume = self.position
        item = (query_id, doc_id)
        qi = self._query_index[query_id]
        if item not in self._doc_index:
            query = self.queries[qi]
            self._doc_index[item] = len(query.doc_ids)
            query.doc_ids.append(doc_id)
            self.total += 1
            if self.done(self.judgment(query_id, doc_id)):
                self.judged_in_query[qi] += 1
                self.total_judged += 1
        return self._go((qi, self._doc_index[item]))


def read_session(ws: Workspace, annotator: str) -> GradingSession:
    """Read the grading plan on ``ws`` (a connection of the caller's own thread)."""
    return GradingSession(grading_plan(ws, annotator))
