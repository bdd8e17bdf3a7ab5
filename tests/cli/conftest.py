"""Helpers for driving the real command line in-process on real files."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgepool.cli import main


def write_qrels(path: Path, judgments: dict[str, dict[str, int]]) -> Path:
    path.write_text(
        "".join(f"{q} 0 {d} {g}\n" for q, docs in judgments.items() for d, g in docs.items())
    )
    return path


def write_run(path: Path, rows: Sequence[tuple[str, str, float]], tag: str = "t") -> Path:
    """Rows of (query, doc, score), ranked in the order given."""
    ranks: dict[str, int] = {}
    lines = []
    for query, doc, score in rows:
        ranks[query] = ranks.get(query, 0) + 1
        lines.append(f"{query} Q0 {doc} {ranks[query]} {score!r} {tag}\n")
    path.write_text("".join(lines))
    return path


def ranked(query: str, docs: Sequence[str]) -> list[tuple[str, str, float]]:
    """A run returning ``docs`` in this order with strictly decreasing scores."""
    return [(query, doc, float(len(docs) - i)) for i, doc in enumerate(docs)]


@pytest.fixture
def cli() -> Callable[..., Result]:
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)

    return invoke


@pytest.fixture
def score_json(cli: Callable[..., Result]) -> Callable[..., list[dict[str, Any]]]:
    def run(*args: str) -> list[dict[str, Any]]:
        result = cli("score", *args, "--format", "json", "--per-query")
        assert result.exit_code == 0, result.output
        return [json.loads(line) for line in result.stdout.splitlines()]

    return run
