#!/usr/bin/env python3
"""Plots and tabulates gemm_bench results.

Reads the Google Benchmark JSON written by
    gemm_bench --benchmark_out=results.json --benchmark_out_format=json
(and optionally the whole-flow JSON of --gemm_flow_out=flow.json) and writes

  staircase_4096.png          every preset at 4096^3 float, in tutorial order,
                              plus cuBLAS: TFLOP/s and % of cuBLAS on the bars
  tflops_vs_size_float.png    TFLOP/s against square size, one line per preset
  tflops_vs_size_double.png   (when double squares are present)
  flow_1024.png               kernel / whole flow / CPU times (with --flow)

--markdown prints a markdown table (preset x key shape: TFLOP/s and % of
cuBLAS) instead of, or as well as, the pictures. When the run used
repetitions, the median aggregates are used.
"""

import argparse
import json
import math
import os
import statistics
import sys
from collections import OrderedDict

CUBLAS = "cuBLAS"

DEFAULT_KEY_SHAPES = {
    "float": ["1024x1024x1024", "4096x4096x4096", "4095x4097x4093", "16x4096x4096",
              "8192x8192x8192"],
    "double": ["1024x1024x1024", "4096x4096x4096", "8192x8192x8192"],
}


def parse_name(name):
    """'gemm/float/MultiStage/4096x4096x4096/iterations:1/...' -> (type, impl, shape)."""
    parts = name.split("/")
    if parts[0] == "gemm" and len(parts) >= 4:
        return parts[1], parts[2], parts[3]
    if parts[0] == "cublas" and len(parts) >= 3:
        return parts[1], CUBLAS, parts[2]
    return None


def parse_shape(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return m, n, k


def is_square_pow2(shape):
    m, n, k = parse_shape(shape)
    return m == n == k and m > 0 and (m & (m - 1)) == 0


def shape_title(shape):
    m, n, k = parse_shape(shape)
    return f"{m}^3" if m == n == k else shape


class Results:
    """Median TFLOP/s (and % of cuBLAS) per (type, impl, shape)."""

    def __init__(self, data):
        self.context = data.get("context", {})
        self.impls = []        # presets in first-appearance (tutorial) order, cuBLAS excluded
        self.types = []
        self.shapes = {}       # type -> shapes in first-appearance order
        self.tflops = {}       # (type, impl, shape) -> TFLOP/s
        self.pct = {}          # (type, impl, shape) -> % of cuBLAS
        self.errors = {}       # (type, impl, shape) -> message
        medians = {}
        iterations = OrderedDict()
        for b in data.get("benchmarks", []):
            key = parse_name(b.get("run_name") or b.get("name", ""))
            if key is None:
                continue
            typ, impl, shape = key
            if typ not in self.types:
                self.types.append(typ)
            self.shapes.setdefault(typ, [])
            if shape not in self.shapes[typ]:
                self.shapes[typ].append(shape)
            if impl != CUBLAS and impl not in self.impls:
                self.impls.append(impl)
            if b.get("error_occurred"):
                self.errors[key] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[key] = b
            else:
                iterations.setdefault(key, []).append(b)
        keys = list(OrderedDict.fromkeys(list(medians) + list(iterations)))
        for key in keys:
            if key in medians:
                b = medians[key]
                tf = b.get("TFLOP/s")
                pct = b.get("pct_cublas")
            else:
                runs = iterations[key]
                vals = [r["TFLOP/s"] for r in runs if "TFLOP/s" in r]
                tf = statistics.median(vals) if vals else None
                pvals = [r["pct_cublas"] for r in runs if "pct_cublas" in r]
                pct = statistics.median(pvals) if pvals else None
            if tf is None:
                continue
            self.tflops[key] = float(tf)
            if pct is not None:
                self.pct[key] = float(pct)
        # % of cuBLAS where the counter is missing but both medians exist.
        for (typ, impl, shape), tf in self.tflops.items():
            ref = self.tflops.get((typ, CUBLAS, shape))
            if (typ, impl, shape) not in self.pct and ref:
                self.pct[(typ, impl, shape)] = 100.0 * tf / ref
        for key in list(self.errors):
            if key in self.tflops:  # an error in one repetition only
                del self.errors[key]

    def rows(self):
        return self.impls + [CUBLAS]

    def gpu(self):
        return self.context.get("gpu_name", "")


def load(path):
    with open(path) as f:
        return Results(json.load(f))


# ---------------------------------------------------------------------------
# Pictures
# ---------------------------------------------------------------------------
def plt_module():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def set_log2_x(ax):
    try:
        ax.set_xscale("log", base=2)
    except TypeError:  # matplotlib < 3.3
        ax.set_xscale("log", basex=2)


def plot_staircase(res, typ, shape, path):
    names, values, pcts = [], [], []
    for impl in res.rows():
        key = (typ, impl, shape)
        if key in res.tflops:
            names.append(impl)
            values.append(res.tflops[key])
            pcts.append(res.pct.get(key))
    if not values:
        print(f"plot.py: no {typ} results at {shape}; {os.path.basename(path)} not written",
              file=sys.stderr)
        return False
    plt = plt_module()
    fig, ax = plt.subplots(figsize=(max(7.0, 0.75 * len(names) + 2), 5))
    colors = ["#4c72b0" if n != CUBLAS else "#333333" for n in names]
    bars = ax.bar(range(len(names)), values, color=colors)
    top = max(values)
    for bar, v, p in zip(bars, values, pcts):
        x = bar.get_x() + bar.get_width() / 2
        ax.text(x, bar.get_height() + top * 0.01, f"{v:.1f}", ha="center", va="bottom",
                fontsize=8, fontweight="bold")
        if p is not None:
            ax.text(x, bar.get_height() + top * 0.055, f"{p:.0f}%", ha="center", va="bottom",
                    fontsize=7, color="#555555")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("TFLOP/s (median)")
    ax.set_ylim(0, top * 1.15)
    gpu = res.gpu()
    label = "SGEMM" if typ == "float" else "DGEMM" if typ == "double" else typ
    ax.set_title(f"{label} {shape}{' on ' + gpu if gpu else ''}: TFLOP/s and % of cuBLAS")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


def plot_vs_size(res, typ, path):
    squares = sorted({s for s in res.shapes.get(typ, []) if is_square_pow2(s)},
                     key=lambda s: parse_shape(s)[0])
    if not squares:
        return False
    plt = plt_module()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    cmap = plt.get_cmap("tab20")
    plotted = False
    for i, impl in enumerate(res.rows()):
        xs, ys = [], []
        for s in squares:
            v = res.tflops.get((typ, impl, s))
            if v is not None:
                xs.append(parse_shape(s)[0])
                ys.append(v)
        if not xs:
            continue
        plotted = True
        if impl == CUBLAS:
            ax.plot(xs, ys, "k--", marker="s", linewidth=2, label=CUBLAS)
        else:
            ax.plot(xs, ys, marker="o", color=cmap(i % 20), label=impl)
    if not plotted:
        plt.close(fig)
        return False
    set_log2_x(ax)
    sizes = [parse_shape(s)[0] for s in squares]
    ax.set_xticks(sizes)
    ax.set_xticklabels([str(s) for s in sizes])
    ax.set_xlabel("m = n = k")
    ax.set_ylabel("TFLOP/s (median)")
    gpu = res.gpu()
    ax.set_title(f"{typ}: TFLOP/s against size{' on ' + gpu if gpu else ''}")
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


def plot_flow(flow, path):
    rows = [r for r in flow.get("rows", []) if r.get("kernel_ms") is not None]
    if not rows:
        return False
    plt = plt_module()
    names = [r["impl"] for r in rows]
    series = [("GPU kernel", "kernel_ms", "#4c72b0"),
              ("whole flow, pinned", "flow_pinned_ms", "#55a868"),
              ("whole flow, pageable", "flow_pageable_ms", "#c44e52")]
    fig, ax = plt.subplots(figsize=(11, 0.32 * len(names) + 1.8))
    h = 0.8 / len(series)
    for j, (label, field, color) in enumerate(series):
        ys = [i + (j - 1) * h for i in range(len(names))]
        vals = [r.get(field) or float("nan") for r in rows]
        ax.barh(ys, vals, height=h, color=color, label=label)
    cpu = flow.get("cpu_reference_ms")
    if cpu:
        ax.axvline(cpu, color="k", linestyle="--",
                   label=f"CPU reference, 1 thread ({cpu:.0f} ms)")
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xlabel("milliseconds (median, log scale)")
    m, n, k = flow.get("m", 1024), flow.get("n", 1024), flow.get("k", 1024)
    ax.set_title(f"{m}x{n}x{k} fp32: kernel vs whole flow (host to host) vs CPU")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------
def key_columns(res, wanted):
    cols = []
    for typ in res.types:
        present = res.shapes.get(typ, [])
        if wanted:
            shapes = [s for s in wanted if s in present]
        else:
            shapes = [s for s in DEFAULT_KEY_SHAPES.get(typ, []) if s in present] or present
        cols += [(typ, s) for s in shapes]
    return cols


def markdown(res, wanted):
    cols = key_columns(res, wanted)
    if not cols:
        return "(no results)\n"
    gpu = res.gpu()
    out = []
    if gpu:
        out.append(f"TFLOP/s (median) and % of cuBLAS on {gpu}.\n")
    out.append("| preset | " + " | ".join(f"{t} {shape_title(s)}" for t, s in cols) + " |")
    out.append("|---|" + "---:|" * len(cols))
    for impl in res.rows():
        cells = []
        for typ, s in cols:
            key = (typ, impl, s)
            if key in res.tflops:
                v = res.tflops[key]
                p = res.pct.get(key)
                cells.append(f"{v:.2f}" if impl == CUBLAS or p is None else f"{v:.2f} ({p:.0f}%)")
            elif key in res.errors:
                cells.append("error")
            else:
                cells.append("-")
        if any(c != "-" for c in cells):
            name = f"**{impl}**" if impl == CUBLAS else impl
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def flow_markdown(flow):
    def f(v, spec=".3f"):
        return "-" if v is None else format(v, spec)
    m, n, k = flow.get("m"), flow.get("n"), flow.get("k")
    cpu = flow.get("cpu_reference_ms")
    out = [f"Whole flow {m}x{n}x{k} fp32 (median of {flow.get('runs')} runs); "
           f"CPU reference, 1 thread: {f(cpu, '.1f')} ms.\n",
           "| implementation | GPU kernel (ms) | whole flow, pageable (ms) | "
           "whole flow, pinned (ms) | CPU 1 thread (ms) | ok |",
           "|---|---:|---:|---:|---:|---|"]
    for r in flow.get("rows", []):
        out.append(f"| {r['impl']} | {f(r.get('kernel_ms'))} | {f(r.get('flow_pageable_ms'))} | "
                   f"{f(r.get('flow_pinned_ms'))} | {f(cpu, '.1f')} | "
                   f"{'yes' if r.get('ok') else 'NO'} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="Google Benchmark JSON from gemm_bench")
    ap.add_argument("--flow", help="whole-flow JSON from gemm_bench --gemm_flow_out")
    ap.add_argument("--outdir", default=".", help="where the PNGs go (default: .)")
    ap.add_argument("--staircase-shape", default="4096x4096x4096",
                    help="shape of the staircase chart (default 4096x4096x4096)")
    ap.add_argument("--staircase-type", default="float", help="type of the staircase chart")
    ap.add_argument("--markdown", action="store_true",
                    help="print a markdown table of the key shapes")
    ap.add_argument("--shapes", default="",
                    help="comma-separated MxNxK columns for --markdown (default: key shapes)")
    ap.add_argument("--no-plots", action="store_true", help="only --markdown, no PNGs")
    args = ap.parse_args(argv)

    res = load(args.results)
    flow = None
    if args.flow:
        with open(args.flow) as f:
            flow = json.load(f)

    if not args.no_plots:
        os.makedirs(args.outdir, exist_ok=True)
        written = []
        m = parse_shape(args.staircase_shape)[0]
        p = os.path.join(args.outdir, f"staircase_{m}.png")
        if plot_staircase(res, args.staircase_type, args.staircase_shape, p):
            written.append(p)
        for typ in res.types:
            p = os.path.join(args.outdir, f"tflops_vs_size_{typ}.png")
            if plot_vs_size(res, typ, p):
                written.append(p)
        if flow is not None:
            p = os.path.join(args.outdir, f"flow_{flow.get('m', 1024)}.png")
            if plot_flow(flow, p):
                written.append(p)
        for p in written:
            print(f"plot.py: wrote {p}", file=sys.stderr)

    if args.markdown:
        wanted = [s for s in args.shapes.split(",") if s]
        sys.stdout.write(markdown(res, wanted))
        if flow is not None:
            sys.stdout.write("\n" + flow_markdown(flow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
