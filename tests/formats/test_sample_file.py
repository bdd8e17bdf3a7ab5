"""The sample file: what ``holes --sample`` writes reads back the same (the
inclusion probabilities to the last bit), and every bad line is refused
naming the file and the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgepool.core.terms.errors import InputError
from judgepool.formats.sample_file import SampledHole, SampleFile, read_sample, sample_text

DIGEST = "ab" * 32


def sample(holes: int = 3) -> SampleFile:
    listed = tuple(
        SampledHole(0, f"q{i % 2}", f"d{i}", 1 / (i + 1.5 + 1e-13)) for i in range(holes)
    )
    return SampleFile("", "poisson-impact", 7, 2.5, 40, DIGEST, listed)


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sample.tsv"
    path.write_text(text)
    return path


def test_round_trip(tmp_path: Path) -> None:
    drawn = sample()
    path = written(tmp_path, sample_text(drawn, "a note\non two lines"))
    read = read_sample(path)
    assert (read.design, read.seed, read.size, read.frame_holes, read.frame_digest) == (
        "poisson-impact", 7, 2.5, 40, DIGEST,
    )  # fmt: skip
    assert [(h.query_id, h.doc_id, h.inclusion) for h in read.holes] == [
        (h.query_id, h.doc_id, h.inclusion) for h in drawn.holes
    ]
    # the comments come first: two of the note, one of the columns
    assert [h.line for h in read.holes] == [4, 5, 6]


def lines_of(tmp_path: Path) -> list[str]:
    return sample_text(sample(), "note").splitlines()


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (lambda f: f[:7], 3, "8 tab-separated fields"),
        (lambda f: [*f[:2], "0", *f[3:]], 3, "inclusion probability"),
        (lambda f: [*f[:2], "1.5", *f[3:]], 3, "inclusion probability"),
        (lambda f: [*f[:2], "nan", *f[3:]], 3, "inclusion probability"),
        (lambda f: [f[0], "bad id", *f[2:]], 3, "document ID"),
    ],
)
def test_a_bad_line_is_refused_naming_it(
    tmp_path: Path, change: object, line: int, message: str
) -> None:
    lines = lines_of(tmp_path)
    lines[2] = "\t".join(change(lines[2].split("\t")))  # type: ignore[operator]
    with pytest.raises(InputError, match=message) as refused:
        read_sample(written(tmp_path, "\n".join(lines) + "\n"))
    assert (refused.value.path, refused.value.line) == (str(tmp_path / "sample.tsv"), line)


def test_one_file_one_sample(tmp_path: Path) -> None:
    lines = lines_of(tmp_path)
    fields = lines[4].split("\t")
    fields[3] = "8"  # another seed
    lines[4] = "\t".join(fields)
    with pytest.raises(InputError, match="seed is '8' here but '7'") as refused:
        read_sample(written(tmp_path, "\n".join(lines) + "\n"))
    assert refused.value.line == 5


def test_a_hole_twice_and_a_line_left_out(tmp_path: Path) -> None:
    lines = lines_of(tmp_path)
    twice = [*lines, lines[3]]
    with pytest.raises(InputError, match="listed twice \\(first on line 4\\)") as refused:
        read_sample(written(tmp_path, "\n".join(twice) + "\n"))
    assert refused.value.line == 6
    with pytest.raises(InputError, match="the sample has 3 holes, the file lists 2"):
        read_sample(written(tmp_path, "\n".join(lines[:-1]) + "\n"))


def test_bad_shared_fields_and_an_empty_file(tmp_path: Path) -> None:
    lines = lines_of(tmp_path)
    for column, value, message in (
        (3, "-1", "seed"),
        (5, "0", "size"),
        (6, "x", "'sampled'"),
        (7, "40:abc", "the frame must be N:SHA256"),
    ):
        changed = [lines[0], lines[1]]
        for row in lines[2:]:
            fields = row.split("\t")
            fields[column] = value
            changed.append("\t".join(fields))
        with pytest.raises(InputError, match=message) as refused:
            read_sample(written(tmp_path, "\n".join(changed) + "\n"))
        assert refused.value.line == 3
    with pytest.raises(InputError, match="lists no sampled hole"):
        read_sample(written(tmp_path, "# nothing\n"))
