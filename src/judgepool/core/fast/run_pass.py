"""`RunPass`: the fast engine's one pass over a run, scored, audited or both.

A run comes in chunks of whole queries (a run read whole is one chunk; a large
file read in chunks is many: `judgepool.services.runs.streaming`). Each chunk
is indexed (grouped, ordered, hashed: `indexed.index_run`) and matched against
the judgments (`matching.find_judged_lines`) once, and what is asked of the
pass is computed from that one index: the scores (`chunked.ChunkedQueries`,
with each judged query's top k when asked), the audit's findings
(`audit.audit_indexed`), or both. The summary (`evaluation`, `report`) merges
the chunks as the whole run gives them, bit for bit: every per-query value
depends on that query's lines alone (see `chunked` and `audit`).

A chunk holding a query an earlier chunk held raises `chunked.QuerySplit`:
the reader groups the run by query and starts a new pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from judgepool.core.auditing.audit import AuditReport, BadLineLike, audit_contract
from judgepool.core.comparing.bounds import TopK
from judgepool.core.fast.audit import AuditPart, audit_indexed, finish_audit
from judgepool.core.fast.chunked import ChunkedQueries, SeenQueries
from judgepool.core.fast.indexed import index_run
from judgepool.core.fast.matching import find_judged_lines
from judgepool.core.fast.run import ColumnarRun
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import UnjudgedEntry
from judgepool.core.terms.types import Evaluation, Judgments


class RunPass:
    """The chunks of one run (`add`): scored when ``score`` (with the top k
    of each judged query when ``tops``), audited at the contract's k when
    ``audit``. ``rows``: the lines added so far."""

    def __init__(
        self,
        judgments: Judgments,
        contract: Contract,
        *,
        score: bool = True,
        tops: bool = False,
        audit: bool = False,
    ) -> None:
        if not (score or audit):
            raise ValueError("a pass scores, audits, or both")
        self.judgments = judgments
        self.contract = contract
        self.scores = ChunkedQueries(judgments, contract, with_tops=tops) if score else None
        # the index depends on the tie policy, the score precision and the
        # entity pattern alone, which the audit's contract keeps: scoring
        # reads the same index
        self.audit = audit_contract(contract.k, contract) if audit else None
        self.parts: list[AuditPart] = []
        # kept here, once, not in every part (the audit screen lists them)
        self.unknown_holes: dict[str, tuple[UnjudgedEntry, ...]] = {}
        self.rows = 0
        self._seen = SeenQueries()

    def add(self, chunk: ColumnarRun) -> None:
        """Score and/or audit the queries of ``chunk`` (every line of each).
        Raises `QuerySplit` when an earlier chunk held one of them."""
        if self.audit is None:
            assert self.scores is not None
            self.scores.add(chunk)
            self.rows = self.scores.rows
            return
        indexed = index_run(chunk, self.judgments, self.audit)
        self._seen.take(indexed.layout.query_ids)
        self.rows += indexed.run.size
        lookup = find_judged_lines(indexed, self.judgments)
        part = audit_indexed(indexed, lookup, self.judgments, self.audit)
        self.unknown_holes.update(part.unknown_holes)
        self.parts.append(replace(part, unknown_holes={}))
        if self.scores is not None:
            self.scores.add_indexed(indexed, lookup)

    def evaluation(self, source: str | None = None) -> Evaluation:
        """The run's `Evaluation`; raises the contract's refusal
        (`DuplicatesRejected`, `UnjudgedRejected`) as scoring the whole run does."""
        if self.scores is None:
            raise ValueError("this pass does not score")
        return self.scores.evaluation(source)

    @property
    def tops(self) -> dict[str, TopK]:
        """The top k of every judged query the run returned (when asked)."""
        return {} if self.scores is None else self.scores.tops

    def report(
        self, run: str, *, bad_lines: Iterable[BadLineLike] = (), lines: int | None = None
    ) -> AuditReport:
        """The run's audit report, with the bad lines and the line count the
        reader found (`audit.finish_audit`)."""
        if self.audit is None:
            raise ValueError("this pass does not audit")
        return finish_audit(
            self.parts,
            self.judgments,
            self.contract.k,
            self.contract,
            run=run,
            bad_lines=bad_lines,
            lines=lines,
        )
