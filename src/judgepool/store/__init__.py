"""The workspace store: one SQLite file (through sqlite-utils) holding queries,
documents, runs, pools, the append-only judgment ledger, settings and stored
evaluations.

`open_workspace` / `create_workspace` (`workspace`) give a `Workspace`; the
modules `ledger`, `runs`, `pools`, `corpus`, `grading`, `evaluations` and
`search` read and write its parts, `migrations` and `schema` keep its schema,
and `holdings` says which IDs it holds. Of the ledger: `ledger` appends
events and reads the current judgments, roles, and each item's grades as the
consensus rules take them (the rules are `judgepool.core.consensus`);
`ledger_import` appends a qrels file's grades in bulk; `ledger_undo` takes
an event back in one transaction, under the rules of `judgepool.core.undo`.
The use cases (reading files, checking them, one transaction each) live in
`judgepool.services`.
"""
