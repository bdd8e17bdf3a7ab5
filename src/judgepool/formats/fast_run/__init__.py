"""Reading a TREC run into columns, fast: `RunColumns` and `read_run_columns`.

The reference reader (`formats.trec.read_run`) builds one `RunEntry` per line,
which takes about half a minute on a seven-million-line run. This reader gives
the same lines as columns (pyarrow strings for the IDs, numpy for the numbers)
and accepts exactly what the reference accepts, raising the same `InputError`
(file and line) on the first bad line.

How, in three tiers, each used only when the one before cannot vouch for the
input:

1. `stream`: the file streams through pyarrow's CSV parser, read by a small
   file object that hashes every byte for the digest and scans for what the
   parser would read differently from the reference. The whole file is never
   held in memory, and the parser's threads overlap reading, hashing and
   parsing.
2. `blocks`: otherwise the file is read into memory and taken block by block
   (about 8 MB of whole lines), the parser tried on each block as it is, then
   with its separators regularised, then on smaller pieces.
3. `blocks`: the smallest pieces are read line by line with the reference's
   own helpers. Comments, blank lines and every error end up here, so errors
   carry the reference's message.

A file that is not a regular file (a FIFO, ``/dev/stdin``, a device) is read
into memory with one open and taken from tier 2: it cannot be opened twice.

pyarrow's own numpy conversions (``pa.array``, ``to_numpy``) are avoided: their
first use imports pandas, a third of a second (`judgepool.core.scoring.arrow`).

`reader` holds the entry points; `columns` what every tier produces, and the
reader's memory pool. Beside the whole-file reader: `chunks` reads a run in
chunks of whole queries, `partitions` groups a run that does not keep each
query's lines together through temporary files, `collecting` reads past every
bad line for an audit, and `prefetch` makes the next chunk in a thread while
the caller works on the current one.
"""

from judgepool.formats.fast_run.columns import ParsedRun
from judgepool.formats.fast_run.reader import RunColumns, parse_run_bytes, read_run_columns

__all__ = ["ParsedRun", "RunColumns", "parse_run_bytes", "read_run_columns"]
