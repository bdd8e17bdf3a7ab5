"""Qrels in and out of a workspace: importing a file as one annotator's
judgments, and exporting the judged universe (or one annotator's grades) as
TREC qrels.

An import records what changed, says how many of the annotator's judgments
the file does not have, and withdraws them only when asked (``replace``): a
corrected file then leaves the annotator holding exactly its lines. An
export writes every judgment as ``qid 0 docid grade``; IDs are TREC tokens
(`judgepool.core.terms.tokens`), so reading the export back gives the same
judgments and the same qrels digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from judgepool.core.progress import LinesCallback
from judgepool.core.team.consensus import Provenance
from judgepool.core.terms.errors import InputError
from judgepool.core.terms.tokens import name_problem
from judgepool.display import literal, quoted
from judgepool.formats.trec import qrels_digest, read_qrels_rows
from judgepool.services.consensus import workspace_consensus
from judgepool.services.entry_checks import (
    MODEL_PREFIX,
    annotator_name,
    check_known_annotator,
    check_user_source,
)
from judgepool.store import ledger
from judgepool.store.ledger_import import append_grades
from judgepool.store.open_files import refuse_workspace_file
from judgepool.store.workspace import Workspace

IMPORT_PREFIX = "import:"


@dataclass(frozen=True)
class QrelsImport:
    """What importing a qrels file did. ``missing``: judgments the annotator
    holds that the file does not have; ``withdrawn``: how many of those were
    withdrawn (all of them with ``replace``, else none)."""

    path: str
    annotator: str
    source: str
    judgments: int
    added: int
    unchanged: int
    missing: int = 0
    withdrawn: int = 0


def import_source(path: str | Path) -> str:
    """The provenance an import records: ``import:<file name>``, refused when the
    file name could not be shown or stored as a name."""
    name = Path(path).name
    problem = name_problem(name)
    if problem is not None:
        raise InputError(
            f"the file name {quoted(name)} becomes the judgments' source and cannot: {problem}; "
            "rename the file",
            literal(str(path)),  # the very name that cannot be shown raw
        )
    return IMPORT_PREFIX + name


def import_qrels(
    ws: Workspace,
    path: str | Path,
    *,
    annotator: str | None = None,
    replace: bool = False,
    on_progress: LinesCallback | None = None,
    source: str | None = None,
) -> QrelsImport:
    """Import a qrels file as judgment events with source ``import:<file name>``,
    or ``model:NAME`` when ``source`` says the grades are a model's (labels of
    an LLM judge: agreement then compares them with people's, and never counts
    them as a person's).

    The annotator defaults to the source itself, so the file counts as one
    annotator beside the people who grade. An item the annotator already holds
    at the same grade adds no event (re-importing a file changes nothing).
    The annotator's judgments the file does not have are kept and counted;
    with ``replace`` they are withdrawn (a withdrawal event each), so the
    annotator then holds exactly the file. An empty file is refused.
    """
    file_source = import_source(path)
    if source is None:
        source = file_source
    elif not source.startswith(MODEL_PREFIX):
        raise InputError(
            f"an imported file's source is import:FILE-NAME (the default) or model:NAME, "
            f"not {quoted(source)}"
        )
    else:
        check_user_source(source)
    if annotator is not None:
        annotator = annotator_name(ws, annotator)
    who = annotator if annotator is not None else source
    refuse_workspace_file(path)  # reading it would drop this process's locks
    grades = read_qrels_rows(
        path,
        ws.scale,
        "it is the workspace's scale, chosen when it is created (judgepool init --scale)",
    )
    if not grades:
        raise InputError(
            "has no judgments (no qrels line): nothing imported. An empty file cannot "
            "withdraw judgments either; check that it is the file you meant",
            str(path),
        )
    if on_progress is not None:
        on_progress(0, len(grades))
    with ws.write() as conn:
        result = append_grades(conn, grades, annotator=who, source=source, withdraw_missing=replace)
    if on_progress is not None:
        on_progress(len(grades), len(grades))
    return QrelsImport(
        str(path), who, source, len(grades), result.added, result.unchanged,
        result.missing, result.withdrawn,
    )  # fmt: skip


@dataclass(frozen=True)
class QrelsExport:
    judgments: int
    queries: int
    digest: str
    rule: str | None
    annotator: str | None
    unresolved: int
    # what a consensus export rests on (None for one annotator's grades)
    provenance: Provenance | None = None


def export_qrels(
    ws: Workspace,
    out: TextIO,
    *,
    annotator: str | None = None,
    rule: str | None = None,
    with_model: str | None = None,
) -> QrelsExport:
    """Write TREC qrels (``qid 0 docid grade``, sorted) to ``out``: the consensus
    under ``rule`` (the workspace's default when None) of people's, imports' and
    adjudicators' grades, or one annotator's current grades. ``with_model``:
    that model's labels too, on the items nobody else graded, after a comment
    line that names the model and how many of its labels were counted (TREC
    readers skip lines starting with #)."""
    if annotator is not None and rule is not None:
        raise InputError("export either one annotator's grades or a consensus, not both")
    if annotator is not None and with_model is not None:
        raise InputError("--with-model goes with a consensus, not one annotator's grades")
    unresolved = 0
    provenance: Provenance | None = None
    if annotator is not None:
        check_known_annotator(ws, annotator)
        judgments = ledger.annotator_grades(ws, annotator)
        digest = qrels_digest(judgments)
        used_rule = None
    else:
        chosen = workspace_consensus(ws, rule, with_model=with_model)
        judgments, digest, used_rule = chosen.judgments, chosen.digest, chosen.rule
        unresolved = len(chosen.unresolved)
        provenance = chosen.provenance
        if chosen.with_model is not None:
            counted = provenance.models.get(chosen.with_model, 0)
            out.write(
                f"# judgepool: model:{chosen.with_model}'s labels counted as the grades of "
                f"{counted} items nobody else graded (--with-model); the rest are people's, "
                "imports' and adjudicators' grades\n"
            )
    count = 0
    for query_id in sorted(judgments):
        for doc_id, grade in sorted(judgments[query_id].items()):
            out.write(f"{query_id} 0 {doc_id} {grade}\n")
            count += 1
    return QrelsExport(count, len(judgments), digest, used_rule, annotator, unresolved, provenance)
