"""The workspace's migrations, one module each, listed oldest first in
`MIGRATIONS`: migration *n* turns a version *n − 1* workspace into version
*n*, and the schema version of a workspace is the number of them it has had
(`judgepool.store.schema.SCHEMA_VERSION` is the last one's).

Migrations are history. Once released, a migration is never edited: its SQL
is what the files made by that release hold, down to the spacing SQLite
keeps in ``sqlite_master`` (the tests compare schemas by that text), and its
name is what those files' migration log records. A new schema version is a
new file appended to the list: ``vNN_what_it_adds.py`` (the version
zero-padded, so the files sort in version order), holding one function
``vN_what_it_adds``, and its `Migration` added at the end of `MIGRATIONS`,
named ``00NN_what_it_adds``. ``tests/store/test_migration_files.py`` holds
the layout.

Each migration takes the sqlite-utils `Database` of the connection being
upgraded and runs inside the caller's transaction: they are applied only by
`judgepool.store.schema.apply_migrations`, which has sqlite-utils'
`Migrations` run each in a savepoint of that transaction and log it in the
file's ``_sqlite_migrations`` table, so an upgrade commits or rolls back
whole.
The first three are SQL that sqlite-utils' table creation cannot express
(CHECK constraints, WITHOUT ROWID tables, AUTOINCREMENT, composite foreign
keys, the ledger's triggers); later ones use sqlite-utils where it can say
the same. From 9 on they make the tables behind a model's labels
(``judgepool prelabel``). The versions:

- `v01_corpus_runs_ledger`: the corpus, runs and their lines, the judgment
  ledger; `v02_annotators_sources_evaluations`: time per grade and undo,
  annotators, pool sources, runs as Arrow columns, stored evaluations;
  `v03_pool_item_index`: an index of pooled items; `v04_document_search`:
  full-text search of the documents;
- `v05_assignments`: assignments and their items; `v06_pool_finds`:
  documents people added to a pool; `v07_sign_in`: sign-in tokens for
  served sessions; `v08_roles_adjudications`: roles, guidelines seen,
  adjudications apart from annotations, undo dated by what it restores;
- `v09_model_replies`: what a model was asked and answered;
  `v10_model_claims`: items claimed by a running ``prelabel``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from judgepool.store.database import Database
from judgepool.store.migrations.v01_corpus_runs_ledger import v1_corpus_runs_ledger
from judgepool.store.migrations.v02_annotators_sources_evaluations import (
    v2_annotators_sources_evaluations,
)
from judgepool.store.migrations.v03_pool_item_index import v3_pool_item_index
from judgepool.store.migrations.v04_document_search import v4_document_search
from judgepool.store.migrations.v05_assignments import v5_assignments
from judgepool.store.migrations.v06_pool_finds import v6_pool_finds
from judgepool.store.migrations.v07_sign_in import v7_sign_in
from judgepool.store.migrations.v08_roles_adjudications import v8_roles_adjudications
from judgepool.store.migrations.v09_model_replies import v9_model_replies
from judgepool.store.migrations.v10_model_claims import v10_model_claims

__all__ = [
    "MIGRATIONS",
    "Migration",
    "v1_corpus_runs_ledger",
    "v2_annotators_sources_evaluations",
    "v3_pool_item_index",
    "v4_document_search",
    "v5_assignments",
    "v6_pool_finds",
    "v7_sign_in",
    "v8_roles_adjudications",
    "v9_model_replies",
    "v10_model_claims",
]


@dataclass(frozen=True)
class Migration:
    """One step of the schema: the version it makes, a name (the one recorded
    in the workspace's migration log) and what it adds."""

    version: int
    name: str
    description: str
    apply: Callable[[Database], None]


MIGRATIONS: Final[tuple[Migration, ...]] = (
    Migration(
        1,
        "0001_corpus_runs_ledger",
        "queries, documents, runs, the judgment ledger, pools",
        v1_corpus_runs_ledger,
    ),
    Migration(
        2,
        "0002_annotators_sources_evaluations",
        "annotator roles, pool sources, run column snapshots, stored evaluations",
        v2_annotators_sources_evaluations,
    ),
    Migration(
        3,
        "0003_pool_item_index",
        "an index of pooled items, for the app's start",
        v3_pool_item_index,
    ),
    Migration(
        4,
        "0004_document_search",
        "full-text search over documents' title and text",
        v4_document_search,
    ),
    Migration(
        5,
        "0005_assignments",
        "assignments of pooled items to annotators",
        v5_assignments,
    ),
    Migration(
        6,
        "0006_pool_finds",
        "documents added to a pool by a person (found by search), with who and the words",
        v6_pool_finds,
    ),
    Migration(
        7,
        "0007_sign_in",
        "sign-in tokens (salted hashes) and failed sign-ins, for served sessions",
        v7_sign_in,
    ),
    Migration(
        8,
        "0008_roles_adjudications",
        "roles (annotator, adjudicator, lead), adjudications kept apart from annotations, "
        "undos dated from the grade they restore, the guidelines each annotator has seen",
        v8_roles_adjudications,
    ),
    Migration(
        9,
        "0009_model_replies",
        "the prompt digest and reply behind each grade a model gave through prelabel",
        v9_model_replies,
    ),
    Migration(
        10,
        "0010_model_claims",
        "claims on the items a prelabel run is asking a model about, and the length of a "
        "model's reply where the text kept is cut",
        v10_model_claims,
    ),
)
