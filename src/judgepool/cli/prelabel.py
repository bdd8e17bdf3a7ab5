"""``judgepool prelabel``: a model on an OpenAI-compatible endpoint grades a
workspace's holes (or its pool, its assigned items, a file's items), each
grade recorded as the rater ``model:NAME`` (`judgepool.services.prelabel`).

A progress bar with the rate and the time left on a terminal (none when
standard error is piped), then a summary: labelled, skipped (labelled before
with the same prompt), failed with the reasons, time, tokens when the
endpoint reports them. Ctrl-C stops at once, keeping every grade recorded,
and prints the summary so far (exit code 130).

``--withdraw NAME`` labels nothing: it takes back every current label of
``model:NAME`` (`judgepool.services.prelabel_raters.withdraw_model`) and says
how many; it goes with ``--json`` alone.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING, Final

import click
from click.core import ParameterSource

from judgepool.cli.params import AsciiDecimal, AsciiInteger
from judgepool.cli.progress import CountProgress
from judgepool.core.terms.errors import InputError
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.services.prelabel import Tally


# The options that label, none of which goes with --withdraw (by parameter name).
_LABELLING: Final = (
    "model", "endpoint", "api_key_env", "items", "limit", "concurrency", "timeout",
    "relabel_withdrawn",
)  # fmt: skip
MAX_TIMEOUT: Final = 3600.0  # an hour for one answer: beyond any model's reply


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


def _summary_lines(tally: Tally, rater: str) -> list[str]:
    lines = [
        f"{literal(rater)}: labelled {tally.labelled:,}, skipped {tally.skipped:,} "
        f"(labelled before with the same prompt), failed {sum(tally.failed.values()):,}, "
        f"of {tally.todo + tally.skipped + tally.withdrawn:,} items in {tally.seconds:.1f} s"
    ]
    if not tally.todo and not tally.skipped and not tally.withdrawn:
        lines.append("nothing to label: --items chose no item")
    if tally.withdrawn:
        lines.append(
            f"withdrawn, not asked again: {tally.withdrawn:,} (the model's labels of them were "
            "withdrawn; --relabel-withdrawn asks about them)"
        )
    if tally.elsewhere:
        lines.append(
            f"left to another run: {tally.elsewhere:,} (another prelabel run of "
            f"{literal(rater)} held them, or labelled them meanwhile)"
        )
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


def _withdraw(workspace: str, model: str, as_json: bool) -> None:
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import prelabel_raters
    from judgepool.services import workspace as workspaces

    with workspaces.open_workspace(workspace, to_write=True) as ws:
        done = prelabel_raters.withdraw_model(ws, model)
    if as_json:
        click.echo(json.dumps({"rater": done.rater, "withdrawn": done.withdrawn}))
        return
    click.echo(
        f"{literal(done.rater)}: withdrew {done.withdrawn:,} "
        f"{'label' if done.withdrawn == 1 else 'labels'} (an event each, appended to the "
        "ledger: nothing deleted); no number counts them now, and prelabel asks about "
        "these items again only with --relabel-withdrawn"
    )


def _alone(ctx: click.Context) -> None:
    """Refuse a labelling option given with --withdraw."""
    given = [
        "--" + name.replace("_", "-")
        for name in _LABELLING
        if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)
    ]
    if given:
        raise click.UsageError(
            f"--withdraw labels nothing, so it goes without {', '.join(given)} (with --json alone)"
        )


@click.command("prelabel")
@click.argument("workspace")
@click.option(
    "--model",
    "model",
    default=None,
    metavar="NAME",
    help="The model to ask, as the endpoint names it; its grades are the rater model:NAME "
    "(NAME follows the rules of an annotator's name: at most 64 characters, not like a "
    "model the workspace holds).",
)
@click.option(
    "--endpoint",
    default=None,
    metavar="URL",
    help="The OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 "
    "(vLLM), http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 "
    "(Ollama); /chat/completions is added. A redirect is not followed.",
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
    type=AsciiDecimal(0, MAX_TIMEOUT, low_open=True),
    default=60.0,
    show_default=True,
    metavar="S",
    help="Seconds one request may take, all of it (the answer's last byte "
    f"included), before it is retried: more than 0, at most {MAX_TIMEOUT:g}.",
)
@click.option(
    "--relabel-withdrawn",
    "relabel_withdrawn",
    is_flag=True,
    help="Ask about the items whose labels of this model were withdrawn too "
    "(they are left out otherwise).",
)
@click.option(
    "--withdraw",
    "withdraw",
    default=None,
    metavar="NAME",
    help="Label nothing: take back every current label of model:NAME, appending an "
    "event that withdraws each (nothing is deleted).",
)
@click.option("--json", "as_json", is_flag=True, help="The summary as one JSON object.")
@click.pass_context
def prelabel_command(
    ctx: click.Context,
    workspace: str,
    model: str | None,
    endpoint: str | None,
    api_key_env: str | None,
    items: str,
    limit: int | None,
    concurrency: int,
    timeout: float,
    relabel_withdrawn: bool,
    withdraw: str | None,
    as_json: bool,
) -> None:
    """Ask a model on an OpenAI-compatible ENDPOINT to grade WORKSPACE's holes.

    \b
    One chat-completions request per item: the query (with its narrative),
    the document and the scale's labels, the answer asked for as the JSON
    object {"grade": N} (response_format json_schema) and read strictly.
    Each grade is recorded at once as the rater model:NAME, with the prompt's
    digest and the model's reply; a rerun skips what is labelled with the
    same prompt, and two runs at once share the items rather than ask twice.
    429 and 5xx are retried with backoff (Retry-After honoured); an
    unreadable reply is asked once more, then a failure, never a grade; a
    reply over 4 MB is a failure. The grades are a model's: agreement and the
    adjudication queue never count them as a person's, a person grading blind
    never sees them, and compare --prior model:NAME takes them as evidence
    for the holes. --withdraw NAME takes them back.

    \b
    Examples:
        judgepool prelabel team.sqlite --model qwen2.5:7b --endpoint http://127.0.0.1:11434/v1
        judgepool prelabel team.sqlite --withdraw qwen2.5:7b
    """
    if withdraw is not None:
        _alone(ctx)
        _withdraw(workspace, withdraw, as_json)
        return
    if model is None or endpoint is None:
        missing = "--model NAME" if model is None else "--endpoint URL"
        raise click.UsageError(
            f"prelabel needs {missing} (or --withdraw NAME, to take a model's labels back)"
        )
    # httpx and the asking services, for labelling only (not --withdraw)
    from judgepool.services import prelabel, prelabel_asking, prelabel_items, prelabel_raters
    from judgepool.services import workspace as workspaces

    key = _api_key(api_key_env)
    url = prelabel_asking.chat_url(endpoint)
    with workspaces.open_workspace(workspace, to_write=True) as ws:
        rater = prelabel_raters.model_rater(ws, model)
        chosen = prelabel_items.chosen_items(ws, rater, items)
        batch = prelabel_items.prepare_batch(
            ws, rater, chosen, limit, relabel_withdrawn=relabel_withdrawn
        )
        tally = prelabel.Tally(
            todo=len(batch.todo), skipped=batch.skipped, withdrawn=batch.withdrawn
        )
        progress = CountProgress(len(batch.todo), f"prelabel {model}", sys.stderr.isatty())

        def shown(now: Tally) -> None:
            failed = sum(now.failed.values())
            progress.update(now.done, f"failed {failed:,}" if failed else "")

        target = prelabel_asking.Endpoint(url, model, key, timeout)
        interrupted = False
        try:
            asyncio.run(
                prelabel.label_batch(
                    ws,
                    rater,
                    batch,
                    target,
                    tally,
                    concurrency=concurrency,
                    on_item=shown,
                    relabel_withdrawn=relabel_withdrawn,
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
