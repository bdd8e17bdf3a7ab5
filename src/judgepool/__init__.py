"""judgepool: retrieval evaluation against a fixed judged universe.

This module holds the version only, so that importing the package stays cheap.

The layers, each importing only those after it (import-linter checks it):
`cli` (the command line) and `tui` (the app) over `services` (the use cases),
over `store` (the workspace's SQLite file), over `formats` (files in and out),
over `core` (the engine and every rule, free of storage and interface).
`display` is how data text is shown literally, to every layer above core;
`__main__` lets ``python -m judgepool`` run the command line.
"""

__version__ = "0.1.0"
