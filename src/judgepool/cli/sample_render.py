"""``compare --sample FILE``: the sample's estimates, read and shown beside the
exact numbers (a section of the table, and ``sample`` in the JSON).

The estimates come from `judgepool.services.sample`; this module reads the
file, finds the model labels the comparison's prior uses (the prior-powered
estimate takes the same prior as the draws), and writes the section.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgepool.cli.render import fmt, table
from judgepool.core.holes.priors import ModelLabels, prior_model
from judgepool.core.holes.sample_estimate import Estimate
from judgepool.display import literal

if TYPE_CHECKING:
    from judgepool.cli.compare_options import CompareOptions, Comparison
    from judgepool.formats.sample_file import SampleFile
    from judgepool.services.sample import SampleReport


def read_sample_file(path: str) -> SampleFile:
    """The sample file, every line checked, before any run is read."""
    # imported here: a comparison without a sample does not load the reader
    from judgepool.formats.sample_file import read_sample

    return read_sample(path)


def sample_report(
    sample: SampleFile, comparison: Comparison, options: CompareOptions
) -> SampleReport:
    """The sample's estimates for the comparison just computed (its workspace
    still open: a model's labels may be read from it)."""
    from judgepool.services.sample import sample_estimates

    compared = comparison.compared
    return sample_estimates(
        compared, comparison.inputs.judged.judgments, sample, _model(comparison, options)
    )


def _model(comparison: Comparison, options: CompareOptions) -> ModelLabels | None:
    """The labels of the model the comparison's prior calibrates, if it names one."""
    # late: a command pays only for what it runs (see judgepool.cli)
    from judgepool.services import model_labels

    prior = comparison.compared.report.prior
    if prior is not None and prior.model is not None:
        return ModelLabels(prior.model.name, prior.model.labels)
    name = prior_model(options.prior)
    if name is None:
        return None
    # no draws (--draws 0): the prior was not built, so its labels are read here
    if options.labels_file is not None:
        scale = comparison.inputs.contract.scale
        return model_labels.file_labels(options.labels_file, name, scale)
    assert comparison.inputs.workspace is not None  # compare_options checked it
    return model_labels.workspace_labels(comparison.inputs.workspace, name)


def _cells(found: Estimate) -> list[str]:
    low, high = found.interval
    return [fmt(found.value), f"[{fmt(low)}, {fmt(high)}]"]


def render_sample_table(report: SampleReport, keys: dict[str, str]) -> str:
    """The section of ``compare --sample``: what the sample is, then per run and
    per pair both estimates with their 95 % intervals, and what they mean.
    ``keys``: each run's key in the comparison's tables."""
    sample = report.sample
    k = report.contract.k
    prior = report.prior
    out = [
        f"sample     {literal(sample.path)}: {len(sample.holes):,} holes drawn of "
        f"{sample.frame_holes:,} (expected {sample.size:g}, seed {sample.seed}, "
        f"{sample.design}), every one graded",
        f"estimates  of nDCG@{k} with every hole judged, from the sampled grades alone; "
        "intervals from the design,",
        "           whatever the prior says",
        *([f"note       {report.note}"] if report.note else []),
        "",
    ]
    rows = [
        [keys[name], literal(name), *_cells(ht), *_cells(powered)]
        for name, ht, powered in zip(
            report.runs, report.ht.runs, report.prior_powered.runs, strict=True
        )
    ]
    powered_label = f"prior-powered ({prior})"
    out.append(table(["", "run", "HT", "95% interval", powered_label, "95% interval"], rows, 2))
    out.append("")
    pair_rows = [
        [keys[a], keys[b], *_cells(ht), *_cells(powered)]
        for (a, b), ht, powered in zip(
            report.pairs, report.ht.pairs, report.prior_powered.pairs, strict=True
        )
    ]
    pair_header = ["A", "B", "HT diff", "95% interval", "prior-powered diff", "95% interval"]
    out.append(table(pair_header, pair_rows, 2))
    out += [
        "",
        "What the sample's columns mean (estimates, beside the exact numbers above):",
        "  HT            Horvitz-Thompson: each sampled hole's grade stands for 1/π holes like it",
        "                (π: its inclusion probability), in the runs' DCG and in the count of",
        "                each grade that makes the ideal (as infNDCG does).",
        f"  prior-powered the {prior} prior's expectation for every hole, corrected by what the",
        "                sampled grades say it got wrong (each correction weighed by 1/π): centred",
        "                whatever the prior says; narrower the better it predicts.",
        "  95% interval  the estimate +- 1.96 standard errors of the sampling design",
        "                (linearisation); a pair's is of its difference, on the same sample.",
    ]
    return "\n".join(out)
