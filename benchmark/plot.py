#!/usr/bin/env python3
"""Plots and tabulates gemm_bench results.

Reads the Google Benchmark JSON written by
    gemm_bench --benchmark_out=results.json --benchmark_out_format=json
(and optionally the whole-flow JSON of --gemm_flow_out=flow.json) and writes

  staircase_4096.png          at 4096^3, one panel per type (float and bf16 by
                              default): every preset in ladder order, plus
                              cuBLAS; TFLOP/s and % of cuBLAS on the bars
  tflops_vs_size_<type>.png   TFLOP/s against square size, one line per preset
                              (row-major A and B only), for each type with
                              square power-of-two shapes
  shape_space_<type>.png      Tuned / cuBLAS against arithmetic intensity, one colour per
                              class (with --shape-space SUMMARY_JSON from gemm_bench
                              --gemm_shape_space_out); --markdown adds its per-class table
  flow_1024.png               kernel / whole flow / CPU times (with --flow)
  flow_timeline_1024.png      one instrumented gemm::host flow per memory kind:
                              per lane (stream, or host staging queue), its
                              H2D / kernel / D2H bars against time (with --flow,
                              when the flow JSON has "timelines")

Row names: gemm/<type>/<preset>/[<layout>/]<m>x<n>x<k> and
cublas/<type>/[<layout>/]<m>x<n>x<k>, where the optional layout segment is
NT, TN or TT (op(A), then op(B); T = stored transposed). Names without a
layout segment, older runs' included, are NN: row-major A and B.

The Google Benchmark JSON is optional: `plot.py --flow flow.json` draws the
flow pictures alone. Without matplotlib the pictures are skipped (with a note) and --markdown
still works. --markdown prints markdown tables (one per type: preset x key shape and
layout, TFLOP/s and % of cuBLAS) instead of, or as well as, the pictures.
When the run used repetitions, the median aggregates are used. Rows that
gemm_bench skipped (context entries "skipped:<row name>") show as "skipped".
"""

import argparse
import json
import math
import os
import re
import statistics
import sys
from collections import OrderedDict

CUBLAS = "cuBLAS"
LAYOUTS = ("NN", "NT", "TN", "TT")
TYPE_ORDER = ("float", "tf32", "tf32x3", "double", "bf16", "bf16_f32out", "fp16", "fp16_f32out")
SHAPE_RE = re.compile(r"^\d+x\d+x\d+$")

DEFAULT_KEY_SHAPES = {
    "float": ["1024x1024x1024", "4096x4096x4096", "4095x4097x4093", "16x4096x4096",
              "8192x8192x8192"],
    "double": ["1024x1024x1024", "4096x4096x4096", "8192x8192x8192"],
    "bf16": ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192", "4096x14336x4096",
             "4095x4096x4096", "4095x4097x4093", "4096x4096x4093", "4096x4097x4096", "4096x4096x4100",
             "1023x1025x1021"],
    "tf32": ["4096x4096x4096", "8192x8192x8192"],
    "tf32x3": ["2048x2048x2048", "4096x4096x4096", "8192x8192x8192", "4095x4097x4093"],
    "fp16": ["4096x4096x4096", "8192x8192x8192", "4096x14336x4096"],
    "bf16_f32out": ["4096x4096x4096", "8192x8192x8192"],
    "fp16_f32out": ["4096x4096x4096", "8192x8192x8192"],
}


def parse_name(name):
    """Row name -> (type, layout, impl, shape), or None.

    'gemm/bf16/Persistent/NT/4096x4096x4096/iterations:1/...' -> ('bf16', 'NT', 'Persistent', ...)
    'cublas/float/4096x4096x4096/...'                          -> ('float', 'NN', 'cuBLAS', ...)
    """
    parts = name.split("/")
    if parts[0] == "gemm" and len(parts) >= 4:
        typ, impl, rest = parts[1], parts[2], parts[3:]
    elif parts[0] == "cublas" and len(parts) >= 3:
        typ, impl, rest = parts[1], CUBLAS, parts[2:]
    else:
        return None
    layout = "NN"
    if rest and rest[0] in LAYOUTS:
        layout, rest = rest[0], rest[1:]
    if not rest or not SHAPE_RE.match(rest[0]):
        return None
    return typ, layout, impl, rest[0]


def parse_shape(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return m, n, k


def is_square_pow2(shape):
    m, n, k = parse_shape(shape)
    return m == n == k and m > 0 and (m & (m - 1)) == 0


def shape_title(shape):
    m, n, k = parse_shape(shape)
    return f"{m}^3" if m == n == k else shape


def column_title(typ, layout, shape):
    return f"{typ} {shape_title(shape)}" + ("" if layout == "NN" else f" {layout}")


class Results:
    """Median TFLOP/s (and % of cuBLAS) per (type, layout, impl, shape)."""

    def __init__(self, data):
        self.context = data.get("context", {})
        self.impls = []        # presets in first-appearance (ladder) order, cuBLAS excluded
        self.type_impls = {}   # type -> its presets in first-appearance (ladder) order
        self.types = []
        self.columns = {}      # type -> (layout, shape) in first-appearance order
        self.tflops = {}       # (type, layout, impl, shape) -> TFLOP/s
        self.pct = {}          # (type, layout, impl, shape) -> % of cuBLAS
        self.errors = {}       # (type, layout, impl, shape) -> message
        self.skipped = {}      # (type, layout, impl, shape) -> reason
        medians = {}
        iterations = OrderedDict()
        for b in data.get("benchmarks", []):
            key = parse_name(b.get("run_name") or b.get("name", ""))
            if key is None:
                continue
            self._note(key)
            if b.get("error_occurred"):
                self.errors[key] = b.get("error_message", "error")
                continue
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[key] = b
            else:
                iterations.setdefault(key, []).append(b)
        # After the benchmarks, so that the presets and columns keep their order.
        for name, reason in self.context.items():
            if name.startswith("skipped:"):
                key = parse_name(name[len("skipped:"):])
                if key is not None:
                    self._note(key)
                    self.skipped[key] = reason
        known = [t for t in TYPE_ORDER if t in self.types]
        self.types = known + [t for t in self.types if t not in known]
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
        for (typ, layout, impl, shape), tf in self.tflops.items():
            ref = self.tflops.get((typ, layout, CUBLAS, shape))
            if (typ, layout, impl, shape) not in self.pct and ref:
                self.pct[(typ, layout, impl, shape)] = 100.0 * tf / ref
        for key in list(self.errors):
            if key in self.tflops:  # an error in one repetition only
                del self.errors[key]

    def _note(self, key):
        typ, layout, impl, shape = key
        if typ not in self.types:
            self.types.append(typ)
        cols = self.columns.setdefault(typ, [])
        if (layout, shape) not in cols:
            cols.append((layout, shape))
        if impl != CUBLAS and impl not in self.impls:
            self.impls.append(impl)
        impls = self.type_impls.setdefault(typ, [])
        if impl != CUBLAS and impl not in impls:
            impls.append(impl)

    def rows(self, typ=None):
        """Presets (of one type, if given) in ladder order, then cuBLAS."""
        if typ is None:
            return self.impls + [CUBLAS]
        return self.type_impls.get(typ, []) + [CUBLAS]

    def shapes(self, typ, layout="NN"):
        return [s for lay, s in self.columns.get(typ, []) if lay == layout]

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


def staircase_bars(res, typ, shape):
    names, values, pcts = [], [], []
    for impl in res.rows(typ):
        key = (typ, "NN", impl, shape)
        if key in res.tflops:
            names.append(impl)
            values.append(res.tflops[key])
            pcts.append(res.pct.get(key))
    return names, values, pcts


def type_title(typ):
    return {"float": "SGEMM (strict fp32)", "double": "DGEMM", "tf32": "TF32",
            "tf32x3": "3xTF32 (vs strict SGEMM)",
            "bf16": "bf16", "fp16": "fp16"}.get(typ, typ)


def plot_staircase(res, types, shape, path):
    """One panel per type with results at shape (row-major A and B)."""
    panels = []
    for typ in types:
        names, values, pcts = staircase_bars(res, typ, shape)
        if values:
            panels.append((typ, names, values, pcts))
        else:
            print(f"plot.py: no {typ} results at {shape} for the staircase", file=sys.stderr)
    if not panels:
        print(f"plot.py: no results at {shape}; {os.path.basename(path)} not written",
              file=sys.stderr)
        return False
    plt = plt_module()
    widths = [max(4.0, 0.75 * len(p[1]) + 1.5) for p in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(sum(widths), 5.5),
                             gridspec_kw={"width_ratios": widths}, squeeze=False)
    for ax, (typ, names, values, pcts) in zip(axes[0], panels):
        colors = ["#4c72b0" if n != CUBLAS else "#333333" for n in names]
        bars = ax.bar(range(len(names)), values, color=colors)
        top = max(values)
        for bar, v, p in zip(bars, values, pcts):
            x = bar.get_x() + bar.get_width() / 2
            ax.text(x, bar.get_height() + top * 0.01, f"{v:.1f}", ha="center", va="bottom",
                    fontsize=8, fontweight="bold")
            if p is not None:
                ax.text(x, bar.get_height() + top * 0.055, f"{p:.0f}%", ha="center",
                        va="bottom", fontsize=7, color="#555555")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right")
        ax.set_ylabel("TFLOP/s (median)")
        ax.set_ylim(0, top * 1.15)
        ax.set_title(f"{type_title(typ)} {shape_title(shape)}")
        ax.grid(axis="y", alpha=0.3)
    gpu = res.gpu()
    fig.suptitle(f"{shape}{' on ' + gpu if gpu else ''}: TFLOP/s and % of cuBLAS "
                 "(row-major A and B)")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


def plot_vs_size(res, typ, path):
    squares = sorted({s for s in res.shapes(typ) if is_square_pow2(s)},
                     key=lambda s: parse_shape(s)[0])
    if not squares:
        return False
    plt = plt_module()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    cmap = plt.get_cmap("tab20")
    plotted = False
    for i, impl in enumerate(res.rows(typ)):
        xs, ys = [], []
        for s in squares:
            v = res.tflops.get((typ, "NN", impl, s))
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
    ax.set_title(f"{typ}: TFLOP/s against size, row-major A and B{' on ' + gpu if gpu else ''}")
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


def plot_flow(flow, path):
    rows = [r for r in flow.get("rows", [])
            if r.get("kernel_ms") is not None or r.get("flow_pinned_ms") is not None]
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


LANE_COLORS = {"H2D": "#4c72b0", "gemm": "#55a868", "D2H": "#dd8452", "stage in": "#8da0cb",
               "stage out": "#e5c494", "widen": "#8172b3", "narrow": "#8172b3"}


def plot_timeline(flow, path):
    """One panel per instrumented gemm::host flow: a row per lane, a bar per operation."""
    timelines = [t for t in flow.get("timelines", []) if t.get("spans")]
    if not timelines:
        return False
    plt = plt_module()
    from matplotlib.patches import Patch
    fig, axes = plt.subplots(len(timelines), 1, figsize=(12, 2.2 + 1.0 * len(timelines) * 2.4),
                             squeeze=False)
    for ax, tl in zip(axes[:, 0], timelines):
        spans = tl["spans"]
        lanes = sorted({(s["lane"], s["lane_name"]) for s in spans})
        row = {lane: i for i, (lane, _) in enumerate(lanes)}
        for s in spans:
            start, end = s["start_ms"] * 1e3, s["end_ms"] * 1e3  # microseconds
            ax.barh(row[s["lane"]], max(end - start, 0.3), left=start, height=0.7,
                    color=LANE_COLORS.get(s["kind"], "#999999"), edgecolor="white", linewidth=0.4)
            if s["kind"] == "gemm" and s.get("step", -1) >= 0 and end - start > 8:
                ax.text((start + end) / 2, row[s["lane"]], str(s["step"]), ha="center", va="center",
                        fontsize=6, color="white")
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([name for _, name in lanes])
        ax.invert_yaxis()
        total = max(s["end_ms"] for s in spans) * 1e3
        ax.set_xlabel("microseconds from the call's first event")
        ax.set_title(f"{tl.get('label', '')}: {total:.0f} us", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    kinds = []
    for tl in timelines:
        for s in tl["spans"]:
            if s["kind"] not in kinds:
                kinds.append(s["kind"])
    gpu = flow.get("context", {}).get("gpu_name", "")
    fig.suptitle(f"gemm::host timelines{' on ' + gpu if gpu else ''} (CUDA events; staging copies "
                 "driven by the calling thread are timed on the host clock)", fontsize=10, y=0.995)
    fig.legend(handles=[Patch(color=LANE_COLORS.get(k, "#999999"), label=k) for k in kinds],
               loc="upper center", bbox_to_anchor=(0.5, 0.965), fontsize=8, ncol=len(kinds), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------
def key_columns(res, typ, wanted):
    """(layout, shape) columns of one type: the wanted (or key) shapes, each in
    every layout present for it."""
    present = res.columns.get(typ, [])
    shapes = list(OrderedDict.fromkeys(s for _, s in present))
    if wanted:
        chosen = [s for s in wanted if s in shapes]
    else:
        chosen = [s for s in DEFAULT_KEY_SHAPES.get(typ, []) if s in shapes] or shapes
    return [(lay, s) for s in chosen for lay in LAYOUTS if (lay, s) in present]


def cell(res, key):
    impl = key[2]
    if key in res.tflops:
        v = res.tflops[key]
        p = res.pct.get(key)
        return f"{v:.2f}" if impl == CUBLAS or p is None else f"{v:.2f} ({p:.0f}%)"
    if key in res.errors:
        return "error"
    if key in res.skipped:
        return "skipped"
    return "-"


def markdown(res, wanted):
    out = []
    gpu = res.gpu()
    if gpu:
        out.append(f"TFLOP/s (median) and % of cuBLAS on {gpu}. Shapes are m x n x k; "
                   "NT/TN/TT: op(A) op(B), T = stored transposed (otherwise row-major A, B).\n")
    for typ in res.types:
        cols = key_columns(res, typ, wanted)
        if not cols:
            continue
        out.append(f"### {typ}\n")
        out.append("| preset | " + " | ".join(column_title(typ, lay, s) for lay, s in cols) + " |")
        out.append("|---|" + "---:|" * len(cols))
        for impl in res.rows(typ):
            cells = [cell(res, (typ, lay, impl, s)) for lay, s in cols]
            if any(c != "-" for c in cells):
                name = f"**{impl}**" if impl == CUBLAS else impl
                out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
    if not any(line.startswith("### ") for line in out):
        return "(no results)\n"
    return "\n".join(out)


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


def host_flow_markdown(flow):
    """The gemm::host rows of the flow JSON, if any."""
    rows = flow.get("host_rows", [])
    if not rows:
        return ""
    def f(v, spec=".3f"):
        return "-" if v is None else format(v, spec)
    pcie = flow.get("pcie", {})
    out = [f"GEMM from host memory (gemm::host). PCIe pinned: H2D {f(pcie.get('h2d_4MiB_GBs'), '.1f')} / "
           f"D2H {f(pcie.get('d2h_4MiB_GBs'), '.1f')} GB/s at 4 MiB, {f(pcie.get('h2d_256MiB_GBs'), '.1f')} / "
           f"{f(pcie.get('d2h_256MiB_GBs'), '.1f')} GB/s at 256 MiB.\n",
           "| flow | time (ms) | TFLOP/s | copy floor (ms) | time / floor | predicted (ms) | target (ms) | ok |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        ratio = r["ms"] / r["floor_ms"] if r.get("ms") and r.get("floor_ms") else None
        out.append(f"| {r['name']} | {f(r.get('ms'))} | {f(r.get('tflops'), '.1f')} | {f(r.get('floor_ms'))} | "
                   f"{f(ratio, '.2f')} | {f(r.get('predicted_ms'))} | {f(r.get('target_ms'), '.2f')} | "
                   f"{'yes' if r.get('ok') else 'NO'} |")
    return "\n".join(out) + "\n"


SPACE_CLASSES = ("decode", "forward", "backward-data", "weight-gradient", "long-k", "random")


def plot_shape_space(space, typ, path):
    """Tuned / cuBLAS against arithmetic intensity (flop per byte of minimum traffic), log x."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [r for r in space["shapes"] if r["type"] == typ]
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(9, 5.5))
    colours = plt.get_cmap("tab10")
    for i, cls in enumerate(SPACE_CLASSES):
        pts = [r for r in rows if r["class"] == cls]
        if pts:
            ax.scatter([r["intensity"] for r in pts], [r["ratio"] for r in pts], s=18, alpha=0.8,
                       color=colours(i), label=f"{cls} ({len(pts)})")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("arithmetic intensity (flop per byte of A, B and C moved once)")
    ax.set_ylabel("Tuned / cuBLAS (time ratio, >1: faster)")
    ax.set_title(f"{typ}: Tuned against cuBLAS over the shape space ({space.get('device', '')})", fontsize=9)
    ax.legend(fontsize=8, loc="best")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def shape_space_markdown(space):
    out = ["| type | class | shapes | geometric mean | worst | worst shape | median roofline fraction "
           "| HBM fraction, median / lowest |",
           "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: |"]
    for e in space["summary"]:
        # (Summaries written before the HBM fractions were added have none.)
        hbm = (f"{e['median_hbm_fraction']:.2f} / {e['lowest_hbm_fraction']:.2f}"
               if "median_hbm_fraction" in e else "")
        out.append(f"| {e['type']} | {e['class']} | {e['shapes']} | {e['geomean']:.3f} | {e['worst']:.3f} | "
                   f"{e['worst_shape']} ({e['worst_source']}) | {e['median_roofline_fraction']:.2f} | {hbm} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", help="Google Benchmark JSON from gemm_bench (optional with --flow)")
    ap.add_argument("--flow", help="whole-flow JSON from gemm_bench --gemm_flow_out")
    ap.add_argument("--shape-space", help="summary JSON from gemm_bench --gemm_shape_space_out")
    ap.add_argument("--outdir", default=".", help="where the PNGs go (default: .)")
    ap.add_argument("--staircase-shape", default="4096x4096x4096",
                    help="shape of the staircase chart (default 4096x4096x4096)")
    ap.add_argument("--staircase-types", "--staircase-type", default="float,bf16",
                    help="comma-separated types, one staircase panel each (default float,bf16)")
    ap.add_argument("--markdown", action="store_true",
                    help="print a markdown table of the key shapes")
    ap.add_argument("--shapes", default="",
                    help="comma-separated MxNxK columns for --markdown (default: key shapes)")
    ap.add_argument("--no-plots", action="store_true", help="only --markdown, no PNGs")
    args = ap.parse_args(argv)

    if not args.results and not args.flow and not args.shape_space:
        ap.error("give the Google Benchmark JSON, --flow FLOW_JSON, --shape-space SUMMARY_JSON, or several")
    space = None
    if args.shape_space:
        with open(args.shape_space) as f:
            space = json.load(f)
    res = load(args.results) if args.results else Results({})
    flow = None
    if args.flow:
        with open(args.flow) as f:
            flow = json.load(f)

    plots = not args.no_plots
    if plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("plot.py: matplotlib is not installed; no pictures (pip install matplotlib)",
                  file=sys.stderr)
            plots = False
    if plots:
        os.makedirs(args.outdir, exist_ok=True)
        written = []
        m = parse_shape(args.staircase_shape)[0]
        p = os.path.join(args.outdir, f"staircase_{m}.png")
        types = [t for t in args.staircase_types.split(",") if t]
        if args.results and plot_staircase(res, types, args.staircase_shape, p):
            written.append(p)
        for typ in res.types:
            p = os.path.join(args.outdir, f"tflops_vs_size_{typ}.png")
            if plot_vs_size(res, typ, p):
                written.append(p)
        if space is not None:
            for typ in TYPE_ORDER:
                p = os.path.join(args.outdir, f"shape_space_{typ}.png")
                if plot_shape_space(space, typ, p):
                    written.append(p)
        if flow is not None:
            p = os.path.join(args.outdir, f"flow_{flow.get('m', 1024)}.png")
            if plot_flow(flow, p):
                written.append(p)
            p = os.path.join(args.outdir, f"flow_timeline_{flow.get('m', 1024)}.png")
            if plot_timeline(flow, p):
                written.append(p)
        for p in written:
            print(f"plot.py: wrote {p}", file=sys.stderr)

    if args.markdown:
        wanted = [s for s in args.shapes.split(",") if s]
        if args.results:
            sys.stdout.write(markdown(res, wanted))
        if space is not None:
            sys.stdout.write("\n" + shape_space_markdown(space))
        if flow is not None:
            sys.stdout.write("\n" + flow_markdown(flow))
            host_md = host_flow_markdown(flow)
            if host_md:
                sys.stdout.write("\n" + host_md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
