"""Taking a model's labels back (``judgepool prelabel WS --withdraw NAME``):
nothing is deleted from the append-only ledger; each of the model's current
grades gets an event that withdraws it (grade NULL, not unsure, the source
``model:NAME``), as an undo of a first grade does, all in one transaction,
so every number computed after it is computed without them, and the ledger
still says what the model said and when it was taken back.

The claims of running ``prelabel`` runs of the model end in the same
transaction (`judgepool.store.model_claims.drop_rater`), so an answer still
on its way is not recorded after the withdrawal.
"""

from __future__ import annotations

from judgepool.store import ledger, model_claims
from judgepool.store.workspace import Workspace


def withdraw_labels(ws: Workspace, rater: str) -> int:
    """Withdraw every current judgment of ``rater`` (``model:NAME``), in one
    transaction; how many were withdrawn."""
    with ws.write() as conn:
        held = conn.execute(
            "SELECT query_id, doc_id FROM current_judgments WHERE annotator = ? "
            "ORDER BY query_id, doc_id",
            (rater,),
        ).fetchall()
        for query_id, doc_id in held:
            ledger.append_event(
                conn,
                query_id=query_id,
                doc_id=doc_id,
                grade=None,
                unsure=False,
                annotator=rater,
                source=rater,
            )
        model_claims.drop_rater(conn, rater)
    return len(held)


def withdrawn_items(ws: Workspace, rater: str) -> set[tuple[str, str]]:
    """The items ``rater`` graded whose latest event took the label back
    (a withdrawal, or an undo of its first grade): events, but no current
    judgment."""
    return {
        (str(query_id), str(doc_id))
        for query_id, doc_id in ws.conn.execute(
            # the source term lets SQLite read the partial index of model events
            "SELECT query_id, doc_id FROM judgment_events "
            "WHERE annotator = ? AND source LIKE 'model:_%' "
            "EXCEPT SELECT query_id, doc_id FROM current_judgments WHERE annotator = ?",
            (rater, rater),
        )
    }
