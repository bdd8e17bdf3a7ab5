"""The demo workspace: ``workspaces/demo.sqlite`` built from ``sample_data/`` on first use.

It holds one collection, the DL19 slice of ``sample_data/dl19`` (see
``sample_data/README.md``): six queries, their passages, four runs (BM25 and
BM25+RM3, whose top 10 the judgments cover, and the modern SPLADE++ ED and
RepLLaMA, whose top 10 they do not), the judgments of the old runs' pool (as
the annotator ``qrels:dl19``) and a pool of every run's top 10
(`POOL_DEPTH`), so the modern runs' unjudged documents (the holes) are there
to grade at once. ``hidden.qrels`` beside it is not imported: it holds the
true grades of the holes, for the tests that replay the story.

Its default contract scores a hole as gain 0 (`demo_contract`) rather than
refusing the run, so every run has a score from the start, and its bounds say
how far the holes could move it.

The workspace is built under a temporary name and linked into place only
when complete: an interrupted build leaves nothing half-made, and two
processes building at once end with one complete workspace.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Final

import judgepool
from judgepool.core.progress import StageCallback, no_stage
from judgepool.core.terms.contract import Contract, Scale
from judgepool.core.terms.errors import InputError
from judgepool.services.imports import (
    default_run_name,
    import_documents,
    import_queries,
    import_run,
)
from judgepool.services.pools import pool
from judgepool.services.qrels import import_qrels
from judgepool.services.workspace import init_workspace
from judgepool.store.read_only import folder_writable

DEMO_NAME: Final = "demo.sqlite"
POOL_DEPTH: Final = 10
# The demo's collection: its folder of sample_data/ and the annotator of its qrels.
COLLECTION: Final = "dl19"
QRELS_ANNOTATOR: Final = f"qrels:{COLLECTION}"


def demo_contract(scale: Scale) -> Contract:
    """The demo's default contract: the contract's defaults, except that an
    unjudged document in the top k counts as gain 0 instead of refusing the run.
    The modern runs have holes by design; refusing them would hide the very
    comparison the demo is about, and the bounds show what the holes could do."""
    return Contract(scale=scale, unjudged="zero")


def find_sample_data(start: Path | None = None) -> Path:
    """``sample_data/`` of the source checkout, else of the current directory
    (or ``start``); an InputError naming both places when neither has it."""
    checkout = Path(judgepool.__file__).resolve().parents[2] / "sample_data"
    here = (start if start is not None else Path.cwd()) / "sample_data"
    for candidate in (checkout, here):
        if (candidate / "README.md").is_file() and (candidate / COLLECTION).is_dir():
            return candidate
    raise InputError(
        f"cannot find sample_data/ to build the demo workspace from; looked in {checkout} "
        f"and {here}. Run judgepool from a source checkout (or its directory), or open "
        "your own workspace with: judgepool tui WORKSPACE"
    )


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern))


def _one(folder: Path, *names: str) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise InputError(f"sample data set {folder} lacks {' or '.join(names)}")


def build_demo_workspace(
    target: Path, sample_data: Path, *, on_step: StageCallback = no_stage
) -> Path:
    """Build the demo workspace at ``target`` (which must not exist) from ``sample_data``."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.building")
    for leftover in _with_sidecars(temporary):
        leftover.unlink(missing_ok=True)
    try:
        with init_workspace(temporary, scale="0..3") as ws:
            folder = sample_data / COLLECTION
            on_step(f"importing {COLLECTION}")
            import_queries(ws, _one(folder, "queries.tsv"))
            import_documents(ws, _one(folder, "docs.tsv", "docs.tsv.gz"))
            import_qrels(ws, _one(folder, "qrels.txt"), annotator=QRELS_ANNOTATOR)
            for run in _files(folder, "*.trec"):
                import_run(ws, run, name=default_run_name(run))
            on_step(f"pooling every run's top {POOL_DEPTH}")
            pool(ws, depth=POOL_DEPTH)
            ws.set_default_contract(demo_contract(ws.scale))
        # Closed: SQLite has folded the write-ahead log into the file, so the
        # one file is the whole workspace. If another process linked its demo
        # first, that one is as good as ours.
        with contextlib.suppress(FileExistsError):
            os.link(temporary, target)
    finally:
        for leftover in _with_sidecars(temporary):
            leftover.unlink(missing_ok=True)
    return target


def _with_sidecars(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def ensure_demo_workspace(
    root: Path | None = None,
    *,
    sample_data: Path | None = None,
    on_step: StageCallback = no_stage,
) -> Path:
    """``ROOT/workspaces/demo.sqlite`` (ROOT: the current directory), built from
    sample_data on first use; an existing demo workspace is returned untouched."""
    base = root if root is not None else Path.cwd()
    target = base / "workspaces" / DEMO_NAME
    if target.exists():
        return target
    source = sample_data if sample_data is not None else find_sample_data(base)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_build(target, exc.strerror or str(exc)) from None
    if not folder_writable(target):
        raise _cannot_build(target, "you may not write the folder")
    return build_demo_workspace(target, source, on_step=on_step)


def _cannot_build(target: Path, reason: str) -> InputError:
    return InputError(
        f"cannot build the demo workspace here ({reason}); run judgepool from a folder you "
        "can write to, or open a workspace with: judgepool tui WORKSPACE",
        str(target),
    )
