"""The workspace store: one SQLite file (through sqlite-utils) holding queries,
documents, runs, pools, the append-only judgment ledger, settings and stored
evaluations.

`open_workspace` / `create_workspace` give a `Workspace`; the modules
`ledger`, `runs`, `pools`, `corpus`, `grading` and `evaluations` read and
write its parts, and `schema` holds its migrations. The use cases (reading
files, checking them, one transaction each) live in `judgepool.services`.
"""
