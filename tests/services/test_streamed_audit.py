"""A run audited in chunks gives the whole-file audit's report, byte for byte.

`services.runs.passes.read` of a file in chunks (`in_chunks=True`) is held to
the whole-file fast audit (below the streaming threshold) and to the reference audit
(`formats.trec.read_run(collect_errors=True)` + `audit.audit_run`) on the
random files of `tests/core/test_fast_audit` (bad lines of every kind among
comments and blank lines, CR LF, a byte order mark, gzip, runs that split
queries, duplicates, ties, unknown/missing/zero-IDCG queries), read in tiny
chunks so that cuts fall inside queries and lines and next to the bad lines.
The JSON of the reports must be identical. ``score --audit`` of such a file
(`SCORE_AND_AUDIT`; `REFUSAL_KEPT` as the audit screen reads) gives the scores
and the audit of the whole-file pass, and refuses a bad line with the same
`InputError`.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

import judgepool.services.runs.streaming as streaming
from judgepool.core.auditing.audit import AuditReport, audit_run
from judgepool.core.terms.contract import Contract
from judgepool.core.terms.errors import InputError, PolicyError
from judgepool.formats.trec import read_run
from judgepool.services.judgments_source import JudgmentsSource
from judgepool.services.runs.passes import Against, RunOutcome, Wanted, read
from judgepool.services.runs.sources import file_source
from tests.core.test_fast_audit import Judged, show_difference, write_case
from tests.services.test_streaming import CHUNK_SIZES, _split_run

BATCHES = 6
# 240 files, each audited in chunks of a random size (360 before the suite had
# to fit in 10 minutes)
PER_BATCH = 40

AUDIT = Wanted(score=False, audit=True)  # judgepool audit
SCORE_AND_AUDIT = Wanted(audit=True)  # score --audit: the contract's refusal raised
REFUSAL_KEPT = Wanted(audit=True, refusal_kept=True)  # the audit screen: kept


def _read(
    path: Path, judgments: Judged, contract: Contract, wanted: Wanted, **options: Any
) -> RunOutcome:
    """The run file read as ``wanted`` asks (``in_chunks=True``: in chunks
    whatever its size, in reads of ``chunk_bytes``)."""
    against = Against(JudgmentsSource(judgments, "qrels"), contract)
    return read(against, file_source(path), wanted, **options)


def _audit(path: Path, judgments: Judged, contract: Contract, **options: Any) -> AuditReport:
    return _read(path, judgments, contract, AUDIT, **options).audit_report()


def _audit_in_chunks(
    path: Path, judgments: Judged, contract: Contract, **options: Any
) -> AuditReport:
    return _audit(path, judgments, contract, in_chunks=True, **options)


def _json(report: AuditReport) -> str:
    return json.dumps(report.to_dict(), sort_keys=True)


def _reference(path: Path, judgments: Judged, contract: Contract) -> AuditReport:
    run = read_run(path, collect_errors=True)
    return audit_run(
        run.entries, judgments, contract.k, contract,
        run=str(path), bad_lines=run.bad_lines, lines=run.lines,
    )  # fmt: skip


def _outcome(compute: Any) -> tuple[str, Any]:
    """What scoring and auditing gave, in a form that compares by value."""
    try:
        audited = compute()
    except InputError as exc:
        return ("InputError", (str(exc), exc.path, exc.line))
    refusal = audited.refusal
    return (
        "ok",
        (
            _json(audited.report),
            audited.report,
            audited.scored,
            None if refusal is None else (type(refusal).__name__, str(refusal)),
            getattr(refusal, "entries", None),
            audited.unknown_holes,
        ),
    )


def _check(path: Path, judgments: Judged, contract: Contract, chunk_bytes: int) -> list[str]:
    """Assert both chunked passes equal the whole-file ones on ``path``; the notes said."""
    notes: list[str] = []
    whole = _audit(path, judgments, contract)
    expected = _reference(path, judgments, contract)
    assert whole == expected, show_difference(expected, whole)
    got = _audit_in_chunks(path, judgments, contract, chunk_bytes=chunk_bytes, on_note=notes.append)
    assert _json(got) == _json(whole), show_difference(whole, got)
    assert got == whole
    both_whole = _outcome(lambda: _read(path, judgments, contract, REFUSAL_KEPT))
    chunked = {"in_chunks": True, "chunk_bytes": chunk_bytes, "on_note": notes.append}
    both_chunked = _outcome(lambda: _read(path, judgments, contract, REFUSAL_KEPT, **chunked))
    assert both_chunked == both_whole
    for note in notes:
        assert "does not keep each query's lines together" in note
    return notes


@pytest.mark.parametrize("batch", range(BATCHES))
@pytest.mark.slow
def test_the_audit_in_chunks_is_the_whole_file_audit_on_random_files(
    tmp_path: Path, batch: int
) -> None:
    for seed in range(batch * PER_BATCH, (batch + 1) * PER_BATCH):
        rng = random.Random(seed)
        path, judgments, contract = write_case(tmp_path / f"run{seed}", rng)
        _check(path, judgments, contract, rng.choice(CHUNK_SIZES))
        path.unlink()


def test_bad_lines_next_to_every_cut_are_listed_with_their_line_in_the_file(
    tmp_path: Path,
) -> None:
    lines = [f"q{n // 7} Q0 d{n} {n % 7 + 1} {10 - n % 7} t\n" for n in range(70)]
    for at in (3, 20, 21, 50, 70):
        lines.insert(at, "q1 Q0 d1 one 1.0 t\n")
    path = tmp_path / "run"
    path.write_text("".join(lines), "ascii")
    judgments = {f"q{n}": {f"d{7 * n}": 1} for n in range(12)}
    for chunk_bytes in CHUNK_SIZES:
        _check(path, judgments, Contract(k=5), chunk_bytes)
    report = _audit_in_chunks(path, judgments, Contract(k=5), chunk_bytes=30)
    assert [bad.line for bad in report.findings.bad_lines] == [4, 21, 22, 51, 71]
    assert report.lines == 75


def test_a_run_that_splits_a_query_is_grouped_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spill = tmp_path / "spill"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    path = tmp_path / "split.run"
    judgments = _split_run(path)
    notes = _check(path, judgments, Contract(k=10), 1000)
    assert len(notes) == 2  # the audit's and score --audit's readings
    assert notes[0].startswith(f"{path} does not keep each query's lines together")
    assert "grouped by query through 4 temporary files" in notes[0]
    with path.open("a") as extra:
        extra.write("b Q0 d1 x 1 t\n")  # a bad line after the split
    # the audit lists it (score --audit refuses it, as the whole-file pass does)
    notes = _check(path, judgments, Contract(k=10), 1000)
    assert "grouped by query through" in notes[0]
    report = _audit_in_chunks(path, judgments, Contract(k=10), chunk_bytes=1000, on_note=print)
    assert [bad.line for bad in report.findings.bad_lines] == [201]
    assert not list(spill.iterdir())


def test_audit_and_score_audit_of_a_large_file_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "split.run"
    judgments = _split_run(path)
    contract = Contract(k=10, unjudged="zero")
    whole_report = _audit(path, judgments, contract)
    whole_both = _read(path, judgments, contract, SCORE_AND_AUDIT)
    stages: list[str] = []
    monkeypatch.setattr(streaming, "STREAM_FROM_BYTES", 1)
    monkeypatch.setattr(streaming, "stderr_note", lambda text: stages.append("note"))
    monkeypatch.setattr("judgepool.formats.fast_run.chunks.CHUNK_BYTES", 64)
    streamed_report = _audit(path, judgments, contract, on_progress=stages.append)
    assert any(stage.startswith("reading and auditing") for stage in stages)
    assert _json(streamed_report) == _json(whole_report)
    stages.clear()
    streamed_both = _read(path, judgments, contract, SCORE_AND_AUDIT, on_progress=stages.append)
    assert any(stage.startswith("reading and scoring and auditing") for stage in stages)
    assert streamed_both == whole_both


def test_score_audit_of_a_large_file_refuses_as_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run"
    path.write_text("q Q0 d1 1 2 t\nq Q0 d1 2 1 t\n", "ascii")
    strict = Contract(k=10, duplicates="reject")
    monkeypatch.setattr(streaming, "STREAM_FROM_BYTES", 1)
    with pytest.raises(PolicyError, match="d1"):
        _read(path, {"q": {"d1": 1}}, strict, SCORE_AND_AUDIT)
    empty = tmp_path / "empty"
    empty.write_text("# nothing\n", "ascii")
    with pytest.raises(InputError, match="has no run lines"):
        _read(empty, {"q": {"d1": 1}}, strict, SCORE_AND_AUDIT)
    assert _audit(empty, {"q": {"d1": 1}}, strict).lines == 1


def test_a_tie_of_zeros_reports_the_first_member_s_sign_in_any_chunk(tmp_path: Path) -> None:
    # ties by document ID put "a"'s -0.0 first: the group's score is -0.0 (the
    # reference's), whether or not another query of the chunk was re-sorted
    path = tmp_path / "run"
    path.write_text("q Q0 c 1 0.0 t\nq Q0 b 2 0.0 t\nq Q0 a 3 -0.0 t\n", "ascii")
    judgments = {"q": {"a": 1}}
    contract = Contract(k=2, ties="docid")
    report = _audit(path, judgments, contract)
    assert report == _reference(path, judgments, contract)
    assert '"score": -0.0' in json.dumps(report.to_dict()["findings"]["ties"])
    for chunk_bytes in CHUNK_SIZES:
        _check(path, judgments, contract, chunk_bytes)
