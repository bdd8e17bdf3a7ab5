"""score and audit --workspace: the same numbers as the exported qrels, stored with provenance."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

# the 43 judged DL19 queries, their full qrels and three runs cut to the top 20
DATA = Path(__file__).parents[1] / "fixtures" / "dl19-top20"


@pytest.fixture
def workspace(cli: Callable[..., Result], tmp_path: Path) -> Path:
    ws = tmp_path / "ws.sqlite"
    for args in (
        ("init", ws),
        ("import", ws, "qrels", DATA / "qrels.txt"),
        ("import", ws, "run", DATA / "bm25.top20.trec", "--name", "bm25"),
        ("import", ws, "run", DATA / "splade-pp-ed.top20.trec", "--name", "splade"),
    ):
        result = cli(*args)
        assert result.exit_code == 0, result.output
    return ws


def scores(result: Result) -> dict[str, dict[str, object]]:
    assert result.exit_code == 0, result.output
    return {d["run"]: d for d in map(json.loads, result.stdout.splitlines())}


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_workspace_scores_equal_exported_qrels_scores(
    cli: Callable[..., Result], workspace: Path, tmp_path: Path, engine: str
) -> None:
    exported = tmp_path / "exported.qrels"
    assert cli("export", workspace, "qrels", "-o", exported).exit_code == 0
    common = ("--preset", "trec_eval", "--format", "json", "--per-query", "--engine", engine)
    from_ws = scores(cli("score", "bm25", "splade", "--workspace", workspace, *common))
    from_files = scores(cli("score", DATA / "bm25.top20.trec", DATA / "splade-pp-ed.top20.trec",
                            "--qrels", exported, *common))  # fmt: skip
    for name, path in (("bm25", "bm25.top20.trec"), ("splade", "splade-pp-ed.top20.trec")):
        a, b = from_ws[name], from_files[str(DATA / path)]
        assert a["summary"] == b["summary"]
        assert a["per_query"] == b["per_query"]
        assert (a["qrels_digest"], a["run_digest"], a["fingerprint"]) == (
            b["qrels_digest"], b["run_digest"], b["fingerprint"],
        )  # fmt: skip
    # and the published BM25 figure of these runs (cut to 20, which leaves nDCG@10 as is)
    assert round(from_ws["bm25"]["summary"]["ndcg"], 4) == 0.5058  # type: ignore[index]


def test_scores_are_stored_and_marked_stale_when_judgments_change(
    cli: Callable[..., Result], workspace: Path
) -> None:
    result = cli("score", "--workspace", workspace, "--preset", "trec_eval", "--format", "json")
    assert set(scores(result)) == {"bm25", "splade"}  # no RUN: every stored run
    listing = cli("evaluations", workspace)
    assert listing.exit_code == 0, listing.output
    assert "bm25" in listing.stdout and "splade" in listing.stdout
    # a new grade changes the judged universe: stored evaluations are no longer current
    assert (
        cli(
            "judge", workspace, "19335", "brand-new-doc", "2", "--annotator", "ann", "--allow-new"
        ).exit_code
        == 0
    )
    again = cli("evaluations", workspace, "--format", "json")
    if again.exit_code != 0:  # the listing may only have a table format
        again = cli("evaluations", workspace)
    assert again.exit_code == 0, again.output
    assert "stale" in again.stdout.lower() or "false" in again.stdout.lower()


def test_workspace_unknown_run_name_is_an_input_error(
    cli: Callable[..., Result], workspace: Path
) -> None:
    result = cli("score", "nope", "--workspace", workspace)
    assert result.exit_code == 2 and "no run named 'nope'" in result.stderr


def test_workspace_default_contract_rejects_unjudged(
    cli: Callable[..., Result], workspace: Path
) -> None:
    # SPLADE's top 10 holds passages outside the DL19 pools: the default contract refuses them
    result = cli("score", "splade", "--workspace", workspace)
    assert result.exit_code == 1 and "unjudged" in result.stderr


def test_audit_a_stored_run(cli: Callable[..., Result], workspace: Path) -> None:
    result = cli("audit", "splade", "--workspace", workspace, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["run"] == "splade" and report["lines"] == 860
    # trec_eval v10 reports unj_10 = 0.0744 over 43 queries for this run: 32 documents
    assert report["coverage"]["unjudged_at_k"] == 32
    assert len(report["findings"]["unjudged"]) == 32
    assert cli("audit", "splade", "--workspace", workspace, "--fail-on", "unjudged").exit_code == 1
    assert cli("audit", "bm25", "--workspace", workspace, "--fail-on", "unjudged").exit_code == 0


def test_qrels_and_workspace_are_exclusive(cli: Callable[..., Result], workspace: Path) -> None:
    result = cli("score", "bm25", "--workspace", workspace, "--qrels", DATA / "qrels.txt")
    assert result.exit_code == 2 and "either --qrels" in result.output
