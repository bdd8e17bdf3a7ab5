"""The Arrow helpers the fast engine and the fast run reader share (`core.scoring.arrow`)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from judgepool.core.scoring import arrow
from judgepool.core.scoring.arrow import (
    arrow_numbers,
    arrow_strings,
    combine_strings,
    numpy_of,
    string_array,
    string_buffers,
    take,
    text_bytes,
)

VALUES = ["q1", "", "é文𝄞", "a much longer identifier than the others", "x"]


def test_arrow_strings_round_trip_any_text() -> None:
    built = arrow_strings(VALUES)
    assert built.type == pa.string()
    assert built.to_pylist() == VALUES
    assert arrow_strings([]).to_pylist() == []


def test_numbers_go_both_ways_without_a_copy_of_numpy_memory() -> None:
    floats = np.array([1.5, -0.0, 3.0])
    assert arrow_numbers(floats).type == pa.float64()
    assert numpy_of(arrow_numbers(floats)).tolist() == [1.5, -0.0, 3.0]
    ints = np.array([3, 1, 2], dtype=np.int64)
    assert arrow_numbers(ints).type == pa.int64()
    assert np.shares_memory(numpy_of(arrow_numbers(ints)), ints)


def test_numpy_of_respects_slices_and_chunks() -> None:
    numbers = pa.array([0, 1, 2, 3, 4], type=pa.int64()).slice(2, 2)
    assert numpy_of(numbers).tolist() == [2, 3]
    # booleans are packed in bits: a slice starting inside a byte
    flags = pa.array([True, False, True, True, False, False, True, False, True, True])
    assert numpy_of(flags.slice(3, 6)).tolist() == [True, False, False, True, False, True]
    assert numpy_of(flags.slice(3, 0)).tolist() == []
    chunked = pa.chunked_array([[1, 2], [3]], type=pa.int64())
    assert numpy_of(chunked).tolist() == [1, 2, 3]


def test_take_and_the_buffers_of_a_slice() -> None:
    values = arrow_strings(VALUES)
    assert take(values, np.array([2, 0], dtype=np.int64)).to_pylist() == ["é文𝄞", "q1"]
    part = values.slice(2, 2)
    offsets, data = string_buffers(part)
    assert len(offsets) == 3
    assert bytes(data[offsets[0] : offsets[1]]).decode() == "é文𝄞"
    assert text_bytes(part) == len("é文𝄞".encode()) + len(VALUES[3])
    assert text_bytes(values.slice(1, 0)) == 0


def test_combine_strings_joins_parts_and_widens_beyond_32_bit_offsets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parts = [arrow_strings(VALUES[:2]), arrow_strings(VALUES[2:]).slice(1)]
    combined = combine_strings(parts)
    assert combined.to_pylist() == [*VALUES[:2], *VALUES[3:]]
    assert combined.type == pa.string()
    assert combine_strings([]).to_pylist() == []
    # a limit the test can reach stands in for 2 GB of text
    monkeypatch.setattr(arrow, "STRING_LIMIT", 10)
    widened = combine_strings(parts)
    assert widened.type == pa.large_string()
    assert widened.to_pylist() == combined.to_pylist()


def test_string_array_takes_any_string_column_and_refuses_nulls() -> None:
    chunked = pa.chunked_array([["a", "b"], ["c"]])
    assert string_array(chunked).to_pylist() == ["a", "b", "c"]
    assert string_array(["é", "x"]).to_pylist() == ["é", "x"]
    assert string_array(pa.array([b"d1"], type=pa.binary())).type == pa.large_string()
    large = pa.array(["a"], type=pa.large_string())
    assert string_array(large).type == pa.large_string()
    with pytest.raises(ValueError, match="must not be null"):
        string_array(pa.array(["a", None]))


def test_the_helpers_never_load_pandas() -> None:
    # pyarrow's own conversions import pandas on first use: a third of a second
    program = (
        "import sys, numpy as np\n"
        "from judgepool.core.scoring.arrow import arrow_numbers, arrow_strings, numpy_of, take\n"
        "values = arrow_strings(['a', 'b'])\n"
        "numpy_of(arrow_numbers(np.arange(3)))\n"
        "take(values, np.array([1]))\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
