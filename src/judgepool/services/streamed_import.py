"""Importing a large run file in bounded memory: `import_run_in_chunks`.

`imports.import_run` reads the whole run into Python lists before writing it
(2.6 GB at the peak for the 6.98 M-line run). A regular file of at least
`IMPORT_STREAM_FROM_BYTES` is instead read twice, a chunk at a time
(`formats.fast_run.chunks.RunBlocks`): first to check every line and take the
digest and the line count (a bad line refuses the import before anything is
written, as before), then to write the lines chunk by chunk in one transaction
(`store.run_writer.RunWriter`). A file that changed between the two readings
is refused, and the transaction leaves nothing.

What stays the same: the rows, the snapshot's columns, the record, the
refusals (bad line, no lines, a different run under the name) and the no-op
for the same file under the same name.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Final

from judgepool.core.progress import LinesCallback
from judgepool.core.terms.errors import InputError
from judgepool.formats.fast_run.chunks import RunBlocks
from judgepool.formats.fast_run.prefetch import prefetched
from judgepool.store.run_writer import RunWriter
from judgepool.store.workspace import Workspace

IMPORT_STREAM_FROM_BYTES: Final = 64 << 20


def check_run_file(path: str | Path) -> tuple[str, int]:
    """The run file's digest and number of lines, every line checked (the
    `InputError` of the first bad line), in bounded memory."""
    blocks = RunBlocks(path)
    count = 0
    with closing(iter(blocks)) as reading:
        for block in reading:
            count += len(block)
    return blocks.digest, count


def import_run_in_chunks(
    ws: Workspace,
    path: str | Path,
    *,
    name: str,
    source: str,
    digest: str,
    total: int,
    on_progress: LinesCallback | None,
) -> None:
    """Write the run file (already checked: ``digest``, ``total`` lines) under
    ``name`` in one transaction, a chunk at a time."""
    blocks = RunBlocks(path)
    with ws.write() as conn:
        writer = RunWriter(conn, name=name, source=source, digest=digest, total=total)
        if on_progress is not None:
            on_progress(0, total)
        with closing(prefetched(blocks)) as reading:
            for block in reading:
                if writer.written + len(block) > total:
                    break
                writer.add(block.query_ids, block.doc_ids, block.ranks, block.scores, block.lines)
                if on_progress is not None:
                    on_progress(writer.written, total)
        changed = writer.written != total
        if not changed:
            try:
                changed = blocks.digest != digest
            except RuntimeError:  # stopped before the end: more lines than counted
                changed = True
        if changed:
            raise InputError(
                "changed while it was being imported (its lines differ from the first "
                "reading); nothing was imported: import it again once it is complete",
                str(path),
            )
        writer.finish()
