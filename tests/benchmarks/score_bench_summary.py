"""The reporting half of the scoring benchmark (`bench_score.py`): the medians
and ratios of every tool's rounds (`summarise`), the table it prints, and the
verdict lines: whether the tools agree to 4 decimals and whether judgepool met
its goal against the fastest of ir_measures and ranx.
"""

from __future__ import annotations

import statistics
from importlib import metadata
from typing import Any

from score_bench_measure import Measurement

# The baseline for the "x fastest peer" column: the Python-facing peers a user
# would otherwise reach for. judgepool is the subject and trec_eval is plain C.
PEERS = ("ir_measures", "ranx", "pytrec_eval")
# The goal compares judgepool with the faster of these two.
GOAL_PEERS = ("ir_measures", "ranx")
GOAL_RATIO = 0.2
GOAL_PEAK_MB = 1000.0  # 1 GB = 10^9 bytes
AGREE_TOL = 5e-5  # "agree to 4 decimals"


def version_of(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def summarise(results: list[Measurement], tools: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for tool in tools:
        ok = [m for m in results if m.tool == tool and m.ok]
        failed = [m for m in results if m.tool == tool and not m.ok]
        if not ok:
            out[tool] = {
                "ok_rounds": 0,
                "failed_rounds": len(failed),
                "error": failed[0].error if failed else None,
            }
            continue
        walls = [m.wall_s for m in ok]
        ndcgs = {round(m.ndcg, 9) for m in ok if m.ndcg is not None}
        out[tool] = {
            "ok_rounds": len(ok),
            "failed_rounds": len(failed),
            "median_wall_s": statistics.median(walls),
            "min_wall_s": min(walls),
            "max_wall_s": max(walls),
            "median_cpu_s": statistics.median(m.cpu_s for m in ok),
            "median_peak_rss_mb": statistics.median(m.peak_rss_mb for m in ok),
            "max_peak_rss_mb": max(m.peak_rss_mb for m in ok),
            "ndcg": ok[0].ndcg,
            "ndcg_stable_across_rounds": len(ndcgs) == 1,
            "n": ok[0].n,
            "over": ok[0].over,
        }
    peer_medians = [out[t]["median_wall_s"] for t in PEERS if out.get(t, {}).get("ok_rounds")]
    fastest = min(peer_medians) if peer_medians else None
    for s in out.values():
        if fastest and s.get("ok_rounds"):
            s["x_fastest_peer"] = s["median_wall_s"] / fastest
    return out


def print_table(summary: dict[str, dict[str, Any]]) -> None:
    head = (
        f"{'tool':<12} {'ok':>4} {'median s':>9} {'min s':>7} {'max s':>7} {'cpu s':>7} "
        f"{'peak MB':>8} {'nDCG@10':>9} {'x peer':>7}  averaged over"
    )
    print(head)
    print("-" * len(head))
    for tool, s in summary.items():
        if not s.get("ok_rounds"):
            print(f"{tool:<12} {0:>4}  failed: {str(s.get('error'))[:200]}")
            continue
        n = "?" if s["n"] is None else str(s["n"])
        print(
            f"{tool:<12} {s['ok_rounds']:>4} {s['median_wall_s']:>9.2f} {s['min_wall_s']:>7.2f} "
            f"{s['max_wall_s']:>7.2f} {s['median_cpu_s']:>7.2f} "
            f"{s['median_peak_rss_mb']:>8.0f} {fmt(s['ndcg'], '.6f'):>9} "
            f"{fmt(s.get('x_fastest_peer'), '.2f'):>7}  {n} {s['over']}"
        )


def verdict_lines(summary: dict[str, dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    vals = {t: s["ndcg"] for t, s in summary.items() if s.get("ok_rounds")}
    if len(vals) > 1:
        spread = max(vals.values()) - min(vals.values())
        agree = "agree" if spread <= AGREE_TOL else "DISAGREE"
        lines.append(
            f"nDCG@10: max spread between tools {spread:.2e}: "
            f"{agree} to 4 decimals (tolerance {AGREE_TOL:g})"
        )
    for tool, s in summary.items():
        if s.get("ok_rounds") and not s["ndcg_stable_across_rounds"]:
            lines.append(f"warning: {tool} reported different nDCG@10 in different rounds")
    jp = summary.get("judgepool", {})
    goal = [summary[t] for t in GOAL_PEERS if summary.get(t, {}).get("ok_rounds")]
    if not jp.get("ok_rounds"):
        lines.append("goal: judgepool did not run, no verdict")
    elif not goal:
        lines.append("goal: neither ir_measures nor ranx ran, no verdict")
    else:
        best = min(goal, key=lambda s: s["median_wall_s"])
        best_name = next(t for t in GOAL_PEERS if summary.get(t) is best)
        ratio = jp["median_wall_s"] / best["median_wall_s"]
        peak = jp["max_peak_rss_mb"]
        met = ratio <= GOAL_RATIO and peak < GOAL_PEAK_MB
        # CPU time is far less disturbed by other work than wall time: shown
        # beside the verdict as a cross-check, never instead of it.
        cpu_ratio = jp["median_cpu_s"] / best["median_cpu_s"]
        jp["goal_ratio"] = ratio
        jp["goal_cpu_ratio"] = cpu_ratio
        jp["goal_met"] = met
        lines.append(
            f"goal: judgepool median {jp['median_wall_s']:.2f} s = {ratio:.3f}x {best_name} "
            f"({best['median_wall_s']:.2f} s), peak {peak:.0f} MB (max over rounds); "
            f"goal <= {GOAL_RATIO}x and peak < 1 GB: {'MET' if met else 'NOT MET'} "
            f"(CPU time ratio {cpu_ratio:.3f}x)"
        )
    return lines
