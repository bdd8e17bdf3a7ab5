"""Stored evaluations: each score with its contract, consensus rule, digests,
fingerprint, summary and per-query records, so a number can always be traced
to the judged universe and the run it was computed from."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Final

from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.types import Evaluation
from judgepool.store.workspace import Workspace, now


@dataclass(frozen=True)
class StoredEvaluation:
    """One stored evaluation. ``current`` (filled by the caller that knows the
    workspace's digests) says whether its ``qrels_digest`` is still the
    digest of the workspace's judgments under its consensus rule."""

    id: int
    created_at: str
    run_name: str | None
    source: str | None
    contract: Contract
    consensus: str
    qrels_digest: str
    run_digest: str
    fingerprint: str
    implementation: str
    summary: dict[str, Any]
    unknown_queries: tuple[str, ...]
    current: bool | None = None


_COLUMNS: Final = (
    "id, created_at, run_name, source, contract, consensus, qrels_digest, run_digest, "
    "fingerprint, implementation, summary, unknown_queries"
)


def _stored(row: tuple[Any, ...]) -> StoredEvaluation:
    return StoredEvaluation(
        id=int(row[0]),
        created_at=row[1],
        run_name=row[2],
        source=row[3],
        contract=Contract.from_dict(json.loads(row[4])),
        consensus=row[5],
        qrels_digest=row[6],
        run_digest=row[7],
        fingerprint=row[8],
        implementation=row[9],
        summary=json.loads(row[10]),
        unknown_queries=tuple(json.loads(row[11])),
    )


def insert_evaluation(
    conn: sqlite3.Connection,
    evaluation: Evaluation,
    *,
    run_name: str | None,
    source: str | None,
    consensus: str,
    qrels_digest: str,
    run_digest: str,
    implementation: str,
) -> int:
    """Store an evaluation and its per-query records inside the caller's transaction."""
    contract = evaluation.contract
    cursor = conn.execute(
        f"INSERT INTO evaluations ({_COLUMNS.removeprefix('id, ')}) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            now(),
            run_name,
            source,
            contract.canonical_json(),
            consensus,
            qrels_digest,
            run_digest,
            contract.fingerprint(qrels_digest, run_digest),
            implementation,
            json.dumps(evaluation.summary.to_dict(), sort_keys=True),
            json.dumps(list(evaluation.unknown_queries)),
        ),
    )
    evaluation_id = cursor.lastrowid
    assert evaluation_id is not None  # set by every INSERT into a rowid table
    conn.executemany(
        "INSERT INTO evaluation_queries (evaluation_id, query_id, ndcg, record) "
        "VALUES (?, ?, ?, ?)",
        (
            (
                evaluation_id,
                record.query_id,
                record.ndcg,
                json.dumps(record.to_dict(), sort_keys=True),
            )
            for record in evaluation.per_query
        ),
    )
    return evaluation_id


def list_stored(ws: Workspace) -> list[StoredEvaluation]:
    return [
        _stored(row) for row in ws.conn.execute(f"SELECT {_COLUMNS} FROM evaluations ORDER BY id")
    ]


def stored_fingerprints(ws: Workspace, consensus: str) -> set[tuple[str, str]]:
    """(run name, fingerprint) of every evaluation stored of a workspace run
    under the ``consensus`` rule: which scores are stored already, without
    reading their records."""
    return {
        (str(name), str(fingerprint))
        for name, fingerprint in ws.conn.execute(
            "SELECT run_name, fingerprint FROM evaluations "
            "WHERE consensus = ? AND run_name IS NOT NULL",
            (consensus,),
        )
    }


def get_stored(ws: Workspace, evaluation_id: int) -> StoredEvaluation:
    row = ws.conn.execute(
        f"SELECT {_COLUMNS} FROM evaluations WHERE id = ?", (evaluation_id,)
    ).fetchone()
    if row is None:
        raise InputError(f"no stored evaluation {evaluation_id}", str(ws.path))
    return _stored(row)


def per_query_records(ws: Workspace, evaluation_id: int) -> list[dict[str, Any]]:
    """The stored per-query records (QueryResult.to_dict()), by query ID."""
    return [
        json.loads(row[0])
        for row in ws.conn.execute(
            "SELECT record FROM evaluation_queries WHERE evaluation_id = ? ORDER BY query_id",
            (evaluation_id,),
        )
    ]
