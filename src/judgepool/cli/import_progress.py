"""The progress shown while a file is imported into a workspace."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

import click

from judgepool.cli.progress import StageProgress
from judgepool.display import literal


class ImportProgress:
    """A stage spinner while a file is read, then a bar while its lines are
    written; both on standard error and only when it is a terminal."""

    def __init__(self, label: str, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.label = label
        self._stage = StageProgress(self.enabled)
        self._bar: Any = None
        self._done = 0

    def __enter__(self) -> ImportProgress:
        self._stage.__enter__()
        self._stage.update(f"reading {literal(self.label)}")
        return self

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._stage.__exit__(None, None, None)
            self._bar = click.progressbar(
                length=total, label=f"writing {literal(self.label)}", file=sys.stderr
            )
            self._bar.__enter__()
        self._bar.update(done - self._done)
        self._done = done

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, value, traceback)
        else:
            self._stage.__exit__(kind, value, traceback)
