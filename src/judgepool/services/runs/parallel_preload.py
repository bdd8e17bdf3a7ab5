"""What the process that forks `judgepool.services.runs.worker_pool`'s workers
imports once, before its first fork (its "preload"): never imported elsewhere.

Importing this module makes that process ignore Ctrl-C, which it then passes
on to every worker from the moment it is forked: the command's own process
stops the workers (see `worker_pool`), so none dies of the terminal's
interrupt with a traceback of its own. And the engine's modules (numpy,
pyarrow) are imported here once, not in every worker.
"""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)

import judgepool.core.fast  # noqa: E402
import judgepool.core.fast.audit  # noqa: E402
import judgepool.core.fast.run_pass  # noqa: E402
import judgepool.formats.fast_run  # noqa: E402
import judgepool.services.runs.parallel_runs  # noqa: E402
import judgepool.services.runs.passes  # noqa: E402
import judgepool.services.runs.sources  # noqa: E402
import judgepool.services.runs.worker_pool  # noqa: E402, F401
