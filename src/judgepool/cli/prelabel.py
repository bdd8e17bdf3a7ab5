"""``judgepool prelabel``: a model on an OpenAI-compatible endpoint grades a
workspace's holes (or its pool, its assigned items, a file's items), each
grade recorded as the rater ``model:NAME`` (`judgepool.services.prelabel`).

A progress bar with the rate and the time left on a terminal (none when
standard error is piped), then a summary: labelled, skipped (labelled before
with the same prompt), failed with the reasons, time, tokens when the
endpoint reports them. Ctrl-C stops at once, keeping every grade recorded,
and prints the summary so far (exit code 130).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING

import click

from judgepool.cli import main
from judgepool.cli.lazy import LazyModule
from judgepool.cli.params import AsciiInteger
from judgepool.cli.progress import CountProgress
from judgepool.core.errors import InputError
from judgepool.core.raters import MODEL_PREFIX
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.services import prelabel, prelabel_items
    from judgepool.services import workspace as workspaces
else:
    prelabel = LazyModule("judgepool.services.prelabel")
    prelabel_items = LazyModule("judgepool.services.prelabel_items")
    workspaces = LazyModule("judgepool.services.workspace")


def _api_key(variable: str | None) -> str | None:
    """The key from the environment variable named (never from the command
    line, where other users of the machine and the shell's history see it)."""
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise InputError(
            f"--api-key-env {literal(variable)}: the environment variable is not set "
            "(or empty); export it with the endpoint's key, or leave the option out for "
            "an endpoint without one"
        )
    return value


def _timeout(value: float) -> float:
    if not value > 0:
        raise InputError(f"--timeout must be more than 0 seconds, got {value:g}")
    return value


def _summary_lines(tally: prelabel.Tally, rater: str) -> list[str]:
    lines = [
        f"{literal(rater)}: labelled {tally.labelled:,}, skipped {tally.skipped:,} "
        f"(labelled before with the same prompt), failed {sum(tally.failed.values()):,}, "
        f"of {tally.todo + tally.skipped:,} items in {tally.seconds:.1f} s"
    ]
    if not tally.todo and not tally.skipped:
        lines.append("nothing to label: --items chose no item")
    not_asked = tally.todo - tally.done
    if not_asked > 0:
        lines.append(f"not asked: {not_asked:,} (a rerun labels them)")
    for reason, count in sorted(tally.failed.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"  failed {count:,}: {literal(reason)}")
    if tally.tokens_reported:
        lines.append(
            f"tokens: {tally.prompt_tokens:,} prompt, {tally.completion_tokens:,} completion "
            "(as the endpoint reported them)"
        )
    else:
        lines.append("tokens: not reported by the endpoint")
    if tally.stopped_by is not None:
        lines.append(f"stopped: {literal(tally.stopped_by)}")
    return lines


@main.command("prelabel")
@click.argument("workspace")
@click.option(
    "--model",
    "model",
    required=True,
    metavar="NAME",
    help="The model to ask, as the endpoint names it; its grades are the rater model:NAME.",
)
@click.option(
    "--endpoint",
    required=True,
    metavar="URL",
    help="The OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
    "(vLLM), http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 "
    "(Ollama); /chat/completions is added.",
)
@click.option(
    "--api-key-env",
    "api_key_env",
    default=None,
    metavar="VAR",
    help="The environment variable holding the API key (never the key itself). [default: no key]",
)
@click.option(
    "--items",
    default="holes",
    show_default=True,
    metavar="holes|pool|assigned|FILE",
    help="What to grade: the holes of the stored runs at the workspace's k, every "
    "pooled item, every item of the current assignment, or a file of QUERY DOC lines.",
)
@click.option(
    "--limit",
    type=AsciiInteger(1, 10**9),
    default=None,
    metavar="N",
    help="Ask for at most N items (those labelled already are skipped, not counted).",
)
@click.option(
    "--concurrency",
    type=AsciiInteger(1, 256),
    default=4,
    show_default=True,
    metavar="N",
    help="Requests in flight at once.",
)
@click.option(
    "--timeout",
    "timeout",
    type=float,
    default=60.0,
    show_default=True,
    metavar="S",
    help="Seconds a request may take before it is retried.",
)
@click.option("--json", "as_json", is_flag=True, help="The summary as one JSON object.")
def prelabel_command(
    workspace: str,
    model: str,
    endpoint: str,
    api_key_env: str | None,
    items: str,
    limit: int | None,
    concurrency: int,
    timeout: float,
    as_json: bool,
) -> None:
    """Ask a model on an OpenAI-compatible ENDPOINT to grade WORKSPACE's holes.

    \b
    One chat-completions request per item: the query (with its narrative),
    the document and the scale's labels, the answer asked for as the JSON
    object {"grade": N} (response_format json_schema) and read strictly.
    Each grade is recorded at once as the rater model:NAME, with the prompt's
    digest and the model's reply; a rerun skips what is labelled with the
    same prompt. 429 and 5xx are retried with backoff (Retry-After honoured);
    an unreadable reply is asked once more, then a failure, never a grade.
    The grades are a model's: agreement and the adjudication queue never
    count them as a person's, a person grading blind never sees them, and
    compare --prior model:NAME takes them as evidence for the holes.

    \b
    Example:
        judgepool prelabel team.sqlite --model qwen2.5:7b --endpoint http://127.0.0.1:11434/v1
    """
    key = _api_key(api_key_env)
    url = prelabel.chat_url(endpoint)
    seconds = _timeout(timeout)
    rater = MODEL_PREFIX + model
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        prelabel_items.check_rater(model)
        chosen = prelabel_items.chosen_items(ws, rater, items)
        batch = prelabel_items.prepare_batch(ws, rater, chosen, limit)
        tally = prelabel.Tally(todo=len(batch.todo), skipped=batch.skipped)
        progress = CountProgress(len(batch.todo), f"prelabel {model}", sys.stderr.isatty())

        def shown(now: prelabel.Tally) -> None:
            failed = sum(now.failed.values())
            progress.update(now.done, f"failed {failed:,}" if failed else "")

        target = prelabel.Endpoint(url, model, key, seconds)
        interrupted = False
        try:
            asyncio.run(
                prelabel.label_batch(
                    ws, rater, batch, target, tally, concurrency=concurrency, on_item=shown
                )
            )
        except KeyboardInterrupt:
            interrupted = True
            tally.stopped_by = "interrupted (Ctrl-C); every grade recorded is kept"
        finally:
            progress.close()
    if as_json:
        click.echo(json.dumps({"rater": rater, **tally.to_dict()}, ensure_ascii=False))
    else:
        for line in _summary_lines(tally, rater):
            click.echo(line)
    if interrupted:
        sys.exit(130)
    if tally.stopped_by is not None:
        sys.exit(1)
