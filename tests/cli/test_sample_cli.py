"""``holes --sample``, ``assign --sample`` and ``compare --sample`` on real
files: the demo's DL19 slice (its hidden judgments play the judges), and a
workspace graded as the app grades.

A sample of every hole (each drawn for sure) must give back, from both
estimators, the exact nDCG of the comparison with every hole judged, with no
spread; anything that would make the estimate other than the sample's is
refused naming the file (and line): a hole not graded yet, another
comparison's holes, an edited or shortened file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from judgepool.core.terms.contract import Scale
from judgepool.formats.trec import read_qrels
from tests.cli.conftest import ranked, write_qrels, write_run
from tests.cli.test_team_cli import assigned_rows, grade, judgepool, refused, run

DEMO = Path(__file__).resolve().parents[2] / "sample_data" / "dl19"
RUNS = [DEMO / "bm25.trec", DEMO / "splade-pp-ed.trec", DEMO / "repllama.trec"]
SCALE = Scale.parse("0..3")


def draw(cli: Callable[..., Result], tmp_path: Path, size: int, seed: int = 1) -> Path:
    result = cli("holes", *RUNS, "--qrels", DEMO / "qrels.txt", "--sample", size, "--seed", seed)
    assert result.exit_code == 0, result.output
    path = tmp_path / f"sample-{size}-{seed}.tsv"
    path.write_text(result.stdout)
    return path


def sampled(path: Path) -> list[tuple[str, str]]:
    return [
        (line.split("\t")[0], line.split("\t")[1])
        for line in path.read_text().splitlines()
        if not line.startswith("#")
    ]


def judged_with(tmp_path: Path, items: list[tuple[str, str]], name: str = "judged") -> Path:
    """The demo's qrels plus the hidden grades of ``items`` (0 where the
    hidden judgments have none, as unjudged=zero would score them)."""
    hidden = read_qrels(DEMO / "hidden.qrels", SCALE).judgments
    judgments = {q: dict(d) for q, d in read_qrels(DEMO / "qrels.txt", SCALE).judgments.items()}
    for query, doc in items:
        judgments[query][doc] = hidden.get(query, {}).get(doc, 0)
    return write_qrels(tmp_path / f"{name}.qrels", judgments)


def compare_json(cli: Callable[..., Result], qrels: Path, *args: Any) -> dict[str, Any]:
    result = cli("compare", *RUNS, "--qrels", qrels, "--unjudged", "zero", "--format", "json",
                 "--draws", "0", *args)  # fmt: skip
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_sample_of_every_hole_gives_the_exact_ndcg(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    everything = draw(cli, tmp_path, 1000)
    holes = sampled(everything)
    listed = cli("holes", *RUNS, "--qrels", DEMO / "qrels.txt", "--format", "json")
    assert sorted(holes) == sorted((e["query_id"], e["doc_id"]) for e in json.loads(listed.stdout))
    assert all(line.split("\t")[2] == "1.0" for line in everything.read_text().splitlines()[3:])
    data = compare_json(cli, judged_with(tmp_path, holes), "--sample", everything)
    section = data["sample"]
    assert (section["sampled"], section["frame_holes"], section["prior"]) == (58, 58, "rank")
    for exact, estimated in zip(data["runs"], section["runs"], strict=True):
        for estimator in ("ht", "prior_powered"):
            assert estimated[estimator]["estimate"] == pytest.approx(exact["ndcg"], abs=1e-12)
            assert estimated[estimator]["se"] == 0
    for pair, estimated in zip(data["pairs"], section["pairs"], strict=True):
        assert estimated["ht"]["estimate"] == pytest.approx(pair["mean_diff"], abs=1e-12)


def test_a_sample_in_the_table_with_its_note(cli: Callable[..., Result], tmp_path: Path) -> None:
    path = draw(cli, tmp_path, 20)
    qrels = judged_with(tmp_path, sampled(path))
    result = cli("compare", *RUNS, "--qrels", qrels, "--unjudged", "zero", "--draws", "0",
                 "--sample", path)  # fmt: skip
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert f"sample     {path}: {len(sampled(path))} holes drawn of 58 (expected 20, seed 1" in text
    assert "prior-powered (rank)" in text and "HT diff" in text
    # six queries: the intervals were measured on 43 or more
    assert "with 6 queries and" in text and "read them as rough" in text
    # the same seed draws the same sample
    assert draw(cli, tmp_path, 20).read_text() == path.read_text()


def test_what_compare_refuses(cli: Callable[..., Result], tmp_path: Path) -> None:
    path = draw(cli, tmp_path, 20)
    holes = sampled(path)
    graded = judged_with(tmp_path, holes)

    def refusal(sample: Path, qrels: Path = graded, runs: list[Path] = RUNS) -> str:
        result = cli("compare", *runs, "--qrels", qrels, "--unjudged", "zero", "--sample", sample)
        assert result.exit_code == 2, result.output
        return result.output

    # two sampled holes without a grade: how many, and the first one's line
    partial = judged_with(tmp_path, holes[2:], "partial")
    assert f"{path}:4: 2 of the {len(holes)} sampled holes have no grade yet" in refusal(
        path, partial
    )
    # another comparison: without RepLLaMA, a hole only it returned is no hole
    # of the comparison; the first such line is named
    listed = cli("holes", *RUNS[:2], "--qrels", DEMO / "qrels.txt", "--format", "json")
    fewer = {(e["query_id"], e["doc_id"]) for e in json.loads(listed.stdout)}
    outside = next(number for number, hole in enumerate(holes, start=4) if hole not in fewer)
    assert f"{path}:{outside}: " in refusal(path, runs=RUNS[:2])
    assert "not a hole of this comparison" in refusal(path, runs=RUNS[:2])
    # the same runs, a hole judged outside the sample: the frame is no longer the sample's
    outside_sample = sorted(set(fewer) - set(holes))[0]
    more = judged_with(tmp_path, [*holes, outside_sample], "more")
    assert "the sample was drawn from 58 holes; this comparison's holes" in refusal(path, more)
    lines = path.read_text().splitlines()
    # an edited inclusion probability: the seed does not draw that hole at it
    fields = lines[3].split("\t")
    fields[2] = "0.000001"
    edited = tmp_path / "edited.tsv"
    edited.write_text("\n".join([*lines[:3], "\t".join(fields), *lines[4:]]) + "\n")
    assert f"{edited}:4: seed 1 does not draw" in refusal(edited)
    # a line left out: refused before any run is read
    short = tmp_path / "short.tsv"
    short.write_text("\n".join(lines[:-1]) + "\n")
    assert "the file lists" in refusal(short)
    # the sample is for the table and JSON only
    result = cli("compare", *RUNS, "--qrels", graded, "--format", "markdown", "--sample", path)
    assert result.exit_code == 2 and "--sample applies to --format table or json" in result.output


def test_holes_sample_options(cli: Callable[..., Result]) -> None:
    for extra in (["--format", "json"], ["--limit", "3"], ["--order", "depth"]):
        result = cli("holes", *RUNS, "--qrels", DEMO / "qrels.txt", "--sample", "5", *extra)
        assert result.exit_code == 2 and "does not apply" in result.output
    result = cli("holes", *RUNS, "--qrels", DEMO / "qrels.txt", "--seed", "3")
    assert result.exit_code == 2 and "--seed goes with --sample" in result.output


DOCS = {query: [f"{query}d{i:02d}" for i in range(12)] for query in ("q1", "q2", "q3")}


def team_workspace(tmp_path: Path, depth: int) -> Path:
    """Two runs over three queries, a few documents judged, pooled to ``depth``."""
    path = tmp_path / "team.sqlite"
    assert run("init", path).exit_code == 0
    for name, order in (("a", 1), ("b", -1)):
        rows = [row for query, docs in DOCS.items() for row in ranked(query, docs[::order])]
        write_run(tmp_path / f"{name}.run", rows, name)
        assert run("import", path, "run", tmp_path / f"{name}.run").exit_code == 0
    judged = {q: {docs[0]: 3, docs[1]: 0, docs[-1]: 2} for q, docs in DOCS.items()}
    write_qrels(tmp_path / "seen.qrels", judged)
    assert run("import", path, "qrels", tmp_path / "seen.qrels").exit_code == 0
    assert run("pool", path, "--depth", str(depth)).exit_code == 0
    return path


def test_assign_hands_out_the_sample_and_compare_estimates_from_it(tmp_path: Path) -> None:
    path = team_workspace(tmp_path, 10)
    drawn = judgepool("holes", "--workspace", path, "--sample", "6", "--seed", "4")
    assert drawn.returncode == 0, drawn.stderr
    sample = tmp_path / "sample.tsv"
    sample.write_text(drawn.stdout)
    holes = sampled(sample)
    done = judgepool("assign", path, "--annotators", "alice,bob", "--overlap", "1",
                     "--sample", sample)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"--sample {sample}: {len(holes)} of its {len(holes)} holes assigned" in done.stdout
    assert sorted((q, d) for _, q, d in assigned_rows(path, 1)) == sorted(holes)
    before = judgepool("compare", "--workspace", path, "--unjudged", "zero", "--sample", sample)
    assert f"{len(holes)} of the {len(holes)} sampled holes have no grade yet" in refused(before)
    grade(path, "alice", {doc: int(doc[-1]) % 4 for _, doc in holes})
    after = judgepool("compare", "--workspace", path, "--unjudged", "zero", "--sample", sample,
                      "--format", "json")  # fmt: skip
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["sample"]["sampled"] == len(holes)
    # every sampled hole graded: nothing left to hand out
    again = judgepool("assign", path, "--annotators", "carol", "--overlap", "1",
                      "--sample", sample)  # fmt: skip
    assert "none of the sample's" in refused(again)


def test_assign_refuses_a_sampled_hole_that_is_not_pooled(tmp_path: Path) -> None:
    path = team_workspace(tmp_path, 2)
    drawn = judgepool("holes", "--workspace", path, "--sample", "30", "--seed", "1")
    sample = tmp_path / "sample.tsv"
    sample.write_text(drawn.stdout)
    done = judgepool("assign", path, "--annotators", "alice", "--overlap", "1",
                     "--sample", sample)  # fmt: skip
    assert f"{sample}:" in refused(done) and "is not pooled" in done.stderr
    both = judgepool("assign", path, "--annotators", "alice", "--overlap", "1",
                     "--sample", sample, "--settle", "3")  # fmt: skip
    assert "not with --settle" in refused(both)
