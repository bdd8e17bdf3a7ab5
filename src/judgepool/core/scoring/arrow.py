"""Building and reading pyarrow arrays without pyarrow's pandas-backed conversions.

The fast engine (`core.fast`) and the fast run reader (`formats.fast_run`) both
move columns between pyarrow (strings, sorting, set look-ups) and numpy
(numbers, hashing). pyarrow's own conversions (``pa.array``, ``pa.table`` of
numpy, ``Array.to_numpy``) load pandas on first use, a third to half a second;
these helpers build and read arrow memory directly. Every one expects arrays
without nulls, as runs and judgments are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = [
    "STRING_LIMIT",
    "arrow_numbers",
    "arrow_strings",
    "combine_strings",
    "numpy_of",
    "string_array",
    "string_buffers",
    "take",
    "text_bytes",
]

# The largest byte offset a (32-bit) string array can hold: beyond it, large_string.
STRING_LIMIT: Final = 2**31 - 1


def arrow_strings(values: Sequence[str]) -> pa.Array:
    """A pyarrow string array of Python strings (large_string beyond 2 GB)."""
    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    data = pa.py_buffer(b"".join(encoded))
    if offsets[-1] > STRING_LIMIT:
        return pa.Array.from_buffers(
            pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), data]
        )
    return pa.Array.from_buffers(
        pa.string(), len(encoded), [None, pa.py_buffer(offsets.astype(np.int32)), data]
    )


def arrow_numbers(values: npt.NDArray[Any]) -> pa.Array:
    """A null-free int64 or float64 pyarrow array viewing ``values``."""
    floats = values.dtype.kind == "f"
    values = np.ascontiguousarray(values, dtype=np.float64 if floats else np.int64)
    kind = pa.float64() if floats else pa.int64()
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def numpy_of(values: pa.Array | pa.ChunkedArray) -> npt.NDArray[Any]:
    """A null-free boolean or numeric pyarrow array as numpy (a view of arrow
    memory for numbers, a copy for booleans, which arrow packs in bits)."""
    if isinstance(values, pa.ChunkedArray):
        values = pa.concat_arrays(values.chunks) if values.num_chunks != 1 else values.chunk(0)
    start, count = values.offset, len(values)
    if pa.types.is_boolean(values.type):
        if count == 0:
            return np.zeros(0, dtype=bool)
        bits = np.frombuffer(values.buffers()[1], dtype=np.uint8)
        unpacked = np.unpackbits(bits, count=start + count, bitorder="little")
        return unpacked[start:].view(bool)
    dtype = np.dtype(values.type.to_pandas_dtype())
    if count == 0:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(values.buffers()[1], dtype=dtype)[start : start + count]


def take(values: pa.Array, rows: npt.NDArray[np.int64]) -> pa.Array:
    """The values at ``rows`` (numpy indices), in that order."""
    return values.take(arrow_numbers(rows))


def string_buffers(values: pa.Array) -> tuple[npt.NDArray[Any], npt.NDArray[np.uint8]]:
    """(offsets, length n + 1, a view in the array's own integer width; the data
    bytes) of a string array."""
    large = pa.types.is_large_string(values.type)
    buffers = values.buffers()
    count = len(values)
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)
    data = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, dtype=np.uint8)
    )
    return offsets[values.offset : values.offset + count + 1], data


def string_array(values: Any) -> pa.Array:
    """A contiguous string or large_string array of ``values`` (a pyarrow array,
    chunked or not, or a sequence of Python strings); other string-like types
    are cast to large_string. Nulls are refused (IDs are never missing)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not isinstance(values, pa.Array):
        values = arrow_strings(list(values))
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        values = values.cast(pa.large_string())
    if values.null_count:
        raise ValueError("query and document IDs must not be null")
    return values


def text_bytes(values: pa.Array) -> int:
    """The bytes of text a string array holds (its last offset less its first)."""
    if len(values) == 0:
        return 0
    offsets, _ = string_buffers(values)
    return int(offsets[-1] - offsets[0])


def combine_strings(
    parts: Sequence[pa.Array] | pa.ChunkedArray, memory_pool: pa.MemoryPool | None = None
) -> pa.Array:
    """One contiguous string array of string parts: large_string when their text
    together would overflow 32-bit offsets. ``memory_pool`` receives the copy."""
    chunks = list(parts.chunks) if isinstance(parts, pa.ChunkedArray) else list(parts)
    if not chunks:
        return arrow_strings([])
    size = sum(text_bytes(chunk) for chunk in chunks)
    if size > STRING_LIMIT:
        chunks = [chunk.cast(pa.large_string()) for chunk in chunks]
    if len(chunks) == 1:
        return chunks[0]
    return pa.concat_arrays(chunks, memory_pool=memory_pool)
