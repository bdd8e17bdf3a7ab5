"""The contract's parameters as command-line options, made from the contract itself.

Every option comes from a field's `judgepool.core.terms.contract.Parameter`: its
flag, type (a choice, an ASCII integer within its bounds, or text), help
sentence and shown default. A parameter added to `Contract` is an option of
every command that takes a contract, with nothing to add here. Each option
defaults to None, so only what the user gave overrides the preset or the
workspace's default contract.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from judgepool.cli.params import AsciiInteger
from judgepool.core.terms.contract import PARAMETERS, PRESETS, Contract, Parameter, Scale

F = TypeVar("F", bound=Callable[..., Any])

PRESET_HELP = (
    "Start from a named set of parameters. trec_eval9: linear gain, judged universe, "
    "unjudged zero, trec_eval ties, missing zero, scores compared in single precision "
    "(as trec_eval up to 9.0.8, pytrec_eval and ir_measures); trec_eval10: the same "
    "with scores compared as doubles (trec_eval 10.0); trec_eval: trec_eval9, the "
    "version behind published numbers."
)


def _option(parameter: Parameter) -> Callable[[F], F]:
    names = [parameter.option, parameter.name]
    if parameter.short is not None:
        names.insert(0, parameter.short)
    kind: Any = None  # a click type, or None for text
    if parameter.kind == "choice":
        kind = click.Choice(parameter.choices)
    elif parameter.kind == "integer":
        assert parameter.minimum is not None and parameter.maximum is not None
        kind = AsciiInteger(parameter.minimum, parameter.maximum)
    return click.option(
        *names,
        type=kind,
        default=None,
        metavar=parameter.metavar,
        help=f"{parameter.summary} [default: {parameter.default_text}]",
    )


def contract_options(func: F) -> F:
    """``--preset`` and one option per parameter of the contract, in its order."""
    for parameter in reversed(PARAMETERS):
        func = _option(parameter)(func)
    return click.option(
        "--preset", type=click.Choice(sorted(PRESETS)), default=None, help=PRESET_HELP
    )(func)


def build_contract(
    base: Contract | None, preset_name: str | None, given: dict[str, Any]
) -> Contract:
    """The contract: ``base`` (or the defaults), then the preset, then every option given."""
    changes = {name: value for name, value in given.items() if value is not None}
    if "scale" in changes:
        changes["scale"] = Scale.parse(changes["scale"])
    if preset_name is not None:
        changes = {**PRESETS[preset_name], **changes}
    return (base or Contract()).with_changes(**changes)


def contract_values(options: dict[str, Any]) -> dict[str, Any]:
    """The contract options among a command's keyword arguments."""
    return {parameter.name: options.get(parameter.name) for parameter in PARAMETERS}
