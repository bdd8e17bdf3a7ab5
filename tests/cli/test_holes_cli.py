"""``judgepool holes`` on real files: the depth order on a hand-made case, the
settle order's JSON shape (docs/product.md), --limit, the table, a workspace's
stored runs, and both engines alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from tests.cli.conftest import ranked, write_qrels, write_run

DL19 = Path(__file__).resolve().parents[1] / "data" / "dl19-passage"
# the 43-query DL19 slice with top-20 runs (moved from sample_data/ by the demo rebuild)
SAMPLE = Path(__file__).parents[2] / "tests" / "fixtures" / "dl19-top20"


def holes_json(cli: Callable[..., Result], *args: Any) -> list[dict[str, Any]]:
    result = cli("holes", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    data: list[dict[str, Any]] = json.loads(result.stdout)
    return data


def hand_made(tmp_path: Path) -> tuple[Path, Path, Path]:
    qrels = write_qrels(tmp_path / "qrels", {"q1": {"j1": 2}, "q2": {"j2": 1}})
    a = write_run(
        tmp_path / "A", [*ranked("q1", ["u1", "j1", "u2"]), *ranked("q2", ["j2", "u3", "u4"])]
    )
    b = write_run(
        tmp_path / "B", [*ranked("q1", ["j1", "u5", "u1"]), *ranked("q2", ["u6", "j2", "u3"])]
    )
    return qrels, a, b


def test_depth_order_is_round_robin_by_rank(cli: Callable[..., Result], tmp_path: Path) -> None:
    qrels, a, b = hand_made(tmp_path)
    entries = holes_json(cli, a, b, "--qrels", qrels, "-k", "3", "--unjudged", "zero",
                         "--order", "depth")  # fmt: skip
    assert [(e["query_id"], e["doc_id"]) for e in entries] == [
        ("q1", "u1"), ("q2", "u6"), ("q2", "u3"), ("q1", "u5"), ("q1", "u2"), ("q2", "u4"),
    ]  # fmt: skip
    assert entries[0] == {
        "query_id": "q1", "doc_id": "u1", "runs": [str(a), str(b)], "best_rank": 1,
        "priority": 1.0,
    }  # fmt: skip
    # the runs' order decides who goes first at each rank
    swapped = holes_json(cli, b, a, "--qrels", qrels, "-k", "3", "--unjudged", "zero",
                         "--order", "depth", "--limit", "2")  # fmt: skip
    assert [(e["query_id"], e["doc_id"]) for e in swapped] == [("q2", "u6"), ("q1", "u1")]


def test_settle_order_json_shape_and_limit(cli: Callable[..., Result]) -> None:
    runs = sorted((DL19 / "runs").glob("*.trec.gz"))
    args = (*runs, "--qrels", DL19 / "qrels.dl19-passage.txt.gz", "--unjudged", "zero")
    everything = holes_json(cli, *args)
    assert len(everything) > 50
    for entry in everything:
        assert set(entry) == {"query_id", "doc_id", "runs", "best_rank", "priority"}
        assert 1 <= entry["best_rank"] <= 10 and entry["runs"]
    # a team's batch (each hole's share counts only the way the holes above it
    # leave), then by priority: falling all the way
    priorities = [e["priority"] for e in everything]
    assert priorities == sorted(priorities, reverse=True) and priorities[0] > 0
    assert len({(e["query_id"], e["doc_id"]) for e in everything}) == len(everything)
    assert holes_json(cli, *args, "--limit", "5") == everything[:5]
    assert holes_json(cli, *args, "--limit", "5", "--engine", "reference") == everything[:5]
    depth = holes_json(cli, *args, "--order", "depth")
    assert sorted((e["query_id"], e["doc_id"]) for e in depth) == sorted(
        (e["query_id"], e["doc_id"]) for e in everything
    )


def test_the_table_says_how_many_and_what_priority_means(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    qrels, a, b = hand_made(tmp_path)
    result = cli("holes", a, b, "--qrels", qrels, "-k", "3", "--unjudged", "zero", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "6 unjudged documents in the top 3 over 2 queries; settle order, the first 2 shown" in (
        result.stdout
    )
    assert "priority: the share of the remaining way to a verdict" in result.stdout


def test_a_workspaces_stored_runs(cli: Callable[..., Result], tmp_path: Path) -> None:
    ws = tmp_path / "ws.sqlite"
    steps = [("init", ws), ("import", ws, "qrels", SAMPLE / "qrels.txt")]
    for name, file in (("bm25", "bm25.top20.trec"), ("splade", "splade-pp-ed.top20.trec")):
        steps.append(("import", ws, "run", SAMPLE / file, "--name", name))
    for args in steps:
        assert cli(*args).exit_code == 0
    entries = holes_json(cli, "--workspace", ws, "--unjudged", "zero", "--order", "depth")
    assert entries and {run for e in entries for run in e["runs"]} <= {"bm25", "splade"}
    refused = cli("holes", "--workspace", ws, "nope")
    assert refused.exit_code == 2 and "no run named 'nope'" in refused.stderr


def test_holes_are_listed_under_every_unjudged_policy(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # listing the holes is the command's job: the default unjudged=reject, which
    # refuses to score a run with one, must not refuse to list them (issue 17, 11)
    qrels, a, b = hand_made(tmp_path)
    args = (a, b, "--qrels", qrels, "-k", "3")
    by_policy = {
        policy: holes_json(cli, *args, "--unjudged", policy)
        for policy in ("reject", "zero", "condense")
    }
    assert holes_json(cli, *args) == by_policy["reject"]  # the default
    assert len(by_policy["reject"]) == 6
    assert by_policy["reject"] == by_policy["zero"] == by_policy["condense"]
    for order in ("settle", "depth"):
        listed = holes_json(cli, *args, "--order", order)
        assert listed == holes_json(cli, *args, "--order", order, "--unjudged", "zero")
    table = cli("holes", *args)
    assert table.exit_code == 0, table.output
    assert "6 unjudged documents in the top 3 over 2 queries" in table.stdout
    assert (
        "note       listed as under unjudged=zero: reject refuses a run with holes, and the "
        "holes are the same under every policy" in table.stdout
    )


def test_a_freshly_pooled_workspace_has_every_pooled_document_for_a_hole(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    # no grade yet: the judged queries are none, and the holes are the runs' top
    # k of the pooled queries (issue 17, 13)
    ws = tmp_path / "ws.sqlite"
    steps = [("init", ws)]
    for name, file in (("bm25", "bm25.top20.trec"), ("splade", "splade-pp-ed.top20.trec")):
        steps.append(("import", ws, "run", SAMPLE / file, "--name", name))
    for args in steps:
        assert cli(*args).exit_code == 0
    pooled = cli("pool", ws, "--depth", "10")
    assert pooled.exit_code == 0 and "736 members over 43 queries" in pooled.stdout
    table = cli("holes", "--workspace", ws)
    assert table.exit_code == 0, table.output
    assert "736 unjudged documents in the top 10 over 43 queries" in table.stdout
    for order in ("settle", "depth"):
        entries = holes_json(cli, "--workspace", ws, "--order", order)
        assert len({(e["query_id"], e["doc_id"]) for e in entries}) == len(entries) == 736
    # one grade: that document leaves the list, its query stays with the others
    first = holes_json(cli, "--workspace", ws, "--order", "depth", "--limit", "1")[0]
    judged = cli("judge", ws, first["query_id"], first["doc_id"], "2", "--annotator", "alice")
    assert judged.exit_code == 0, judged.output
    after = holes_json(cli, "--workspace", ws, "--order", "depth")
    assert len(after) == 735 and (first["query_id"], first["doc_id"]) not in {
        (e["query_id"], e["doc_id"]) for e in after
    }
    assert len({e["query_id"] for e in after}) == 43
    # -k deeper than the pool: the pooled queries' whole top k are holes, as
    # a judged query's would be
    deeper = holes_json(cli, "--workspace", ws, "-k", "20", "--order", "depth")
    assert len(deeper) > len(after)


def test_a_workspace_with_nothing_judged_or_pooled_says_what_to_do(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    ws = tmp_path / "ws.sqlite"
    for args in (("init", ws), ("import", ws, "run", SAMPLE / "bm25.top20.trec", "--name", "b")):
        assert cli(*args).exit_code == 0
    table = cli("holes", "--workspace", ws)
    assert table.exit_code == 0, table.output
    assert "0 unjudged documents in the top 10 over 0 queries" in table.stdout
    assert "no query is judged or pooled yet: pool the runs first (judgepool pool WS" in (
        table.stdout
    )
