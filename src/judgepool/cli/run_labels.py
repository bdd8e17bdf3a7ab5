"""The labels of the runs in ``compare --format latex``: a paper names a run
"BM25", not ``runs/bm25.trec``.

Each ``--label FILE=NAME`` names one compared run: FILE as the run was given on
the command line (or another name of the same file; a stored run by its name).
A run without a label is labelled with its file name without the extension
(``runs/bm25.trec.gz`` is ``bm25``); a stored run keeps its name. Two runs the
defaults would label alike keep the names they were given instead; two labels
given alike are refused, as is a label for a run that is not compared.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

import click

from judgepool.display import quoted
from judgepool.services.runs.sources import FileSource

if TYPE_CHECKING:
    from judgepool.services.runs.sources import RunSource

# compressions the run readers open; a label drops them with the extension
COMPRESSED: Final = (".gz",)


def default_label(source: RunSource) -> str:
    """A stored run's name; a file's name without its directory, compression
    suffix and extension (the name itself when nothing is left)."""
    if not isinstance(source, FileSource):
        return source.name
    name = PurePath(source.name).name
    for suffix in COMPRESSED:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    stem = PurePath(name).stem
    return stem or name


def _same_file(source: RunSource, given: str) -> bool:
    if not isinstance(source, FileSource):
        return False
    try:
        return os.path.samefile(source.path, given)
    except OSError:
        return False


def _run_of(sources: Sequence[RunSource], given: str) -> RunSource | None:
    """The compared run that ``given`` names: by the name it was compared
    under, else (a file) by being the same file."""
    for source in sources:
        if source.name == given:
            return source
    return next((source for source in sources if _same_file(source, given)), None)


def _parse(sources: Sequence[RunSource], option: str) -> tuple[RunSource, str]:
    """The run and label of one ``FILE=NAME``. FILE may hold '=' itself (a
    path like ``lr=0.1/run.trec``): the longest part before an '=' that names a
    compared run is FILE."""
    splits = [i for i, char in enumerate(option) if char == "="]
    if not splits:
        raise click.BadParameter(f"{quoted(option)} is not FILE=NAME", param_hint="--label")
    for at in reversed(splits):
        source = _run_of(sources, option[:at])
        if source is not None:
            label = option[at + 1 :]
            if not label.strip():
                raise click.BadParameter(
                    f"{quoted(option)} gives an empty label", param_hint="--label"
                )
            return source, label
    compared = ", ".join(quoted(source.name) for source in sources)
    raise click.BadParameter(
        f"{quoted(option)} labels no run compared here (the runs: {compared})",
        param_hint="--label",
    )


def run_labels(sources: Sequence[RunSource], options: Sequence[str]) -> dict[str, str]:
    """Every compared run's label, by the name it is compared under."""
    given: dict[str, str] = {}
    for option in options:
        source, label = _parse(sources, option)
        if source.name in given:
            raise click.BadParameter(
                f"the run {quoted(source.name)} is labelled twice "
                f"({quoted(given[source.name])} and {quoted(label)}); label it once",
                param_hint="--label",
            )
        given[source.name] = label
    defaults = {s.name: default_label(s) for s in sources if s.name not in given}
    taken = list(given.values()) + list(defaults.values())
    labels = {
        name: label if taken.count(label) == 1 or name in given else name
        for name, label in {**defaults, **given}.items()
    }
    by_label: dict[str, str] = {}
    for source in sources:
        label = labels[source.name]
        if label in by_label:
            raise click.BadParameter(
                f"the runs {quoted(by_label[label])} and {quoted(source.name)} would both be "
                f"labelled {quoted(label)}; give each its own label",
                param_hint="--label",
            )
        by_label[label] = source.name
    return {source.name: labels[source.name] for source in sources}
