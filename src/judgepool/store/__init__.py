"""The workspace store: one SQLite file (through sqlite-utils) holding queries,
documents, runs, pools, the append-only judgment ledger, settings and stored
evaluations.

`open_workspace` / `create_workspace` give a `Workspace`; the modules
`ledger`, `runs`, `pools`, `corpus` and `evaluations` read and write its
parts. Use cases (reading files, checking them, one transaction each) live
in `judgepool.services.workspace`.

Nothing is imported here, so that `judgepool.store.rules` can be read at
start-up without loading SQLite and sqlite-utils.
"""
