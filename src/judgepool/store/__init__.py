"""The workspace store: one SQLite file (through sqlite-utils) holding queries,
documents, runs, pools, the append-only judgment ledger, settings and stored
evaluations. Only this package writes SQL; the use cases (reading files,
checking them, one transaction each) live in `judgepool.services`.

- the file: `database` (sqlite-utils, imported without pandas),
  `workspace` (`open_workspace` / `create_workspace` give a `Workspace`: its
  transactions and settings), `connection` (one configured
  connection, or a read-only one), `read_only` (files this process may read
  but not write), `open_files` (nothing but SQLite touches an open workspace
  file), `snapshots` (several reads that see one state), `bulk` (many rows
  per INSERT);
- its schema: `schema` (recognising a workspace, bringing its schema up to
  date), `migrations` (a package: one module per step, listed oldest
  first);
- the corpus and the runs: `corpus` (queries and documents), `search`
  (full-text search over the documents), `runs` (runs as imported, read back
  as lines or columns), `run_writer` (a run written a chunk at a time),
  `pools` (the documents chosen for judging), `pool_finds` (documents a person
  added to a pool by search), `holdings` (which IDs the workspace holds, and
  which look like a given one), `evaluations` (stored scores);
- the ledger: `ledger` (appending events; the current judgments, roles, and
  each item's grades as the consensus rules of `judgepool.core.team.consensus`
  take them), `ledger_import` (a qrels file's grades in bulk), `ledger_undo`
  (an event taken back in one transaction, under the rules of
  `judgepool.core.team.undo`), `notes` (the notes left), `ratings` (each rater's
  current grades, for agreement), `model_replies` (a model's grades from
  ``prelabel``, each with its reply and prompt digest), `model_claims` (the
  items a ``prelabel`` run is asking about, so two runs never ask twice),
  `model_withdrawal` (a model's labels taken back);
- what grading reads and keeps: `grading` (the grading plan's rows),
  `grading_live` (what the app follows while a workspace is open),
  `own_review` (an annotator's own review), `assignments` (assignments and
  progress), `guidelines` (which guidelines each annotator was last shown),
  `sign_in` (sign-in tokens and failed sign-ins, as stored).
"""
