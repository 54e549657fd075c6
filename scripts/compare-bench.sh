#!/usr/bin/env bash
# Times two gemm_bench builds (before and after a change) on the same GPU in one run, alternating
# them ROUNDS times so that clock and temperature drift touch both alike, and prints each row's
# median TFLOP/s and % of cuBLAS for both, with their ratio.
#
#   scripts/compare-bench.sh BEFORE_BIN AFTER_BIN OUT_DIR [gemm_bench flags...]
#   GEMM_COMPARE_ROUNDS=3 scripts/compare-bench.sh old/gemm_bench new/gemm_bench out \
#       --gemm_types=bf16,float --benchmark_filter='Tuned|Persistent|cublas'
set -euo pipefail
before="${1:?usage: compare-bench.sh BEFORE_BIN AFTER_BIN OUT_DIR [flags]}"
after="${2:?}"
out="${3:?}"
shift 3
rounds="${GEMM_COMPARE_ROUNDS:-2}"
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  for side in before after; do
    bin="$before"
    [ "$side" = after ] && bin="$after"
    echo "=== round $r: $side ($bin)"
    "$bin" --gemm_no_flow "$@" --benchmark_out="$out/${side}_$r.json" --benchmark_out_format=json \
      > "$out/${side}_$r.txt" 2>&1 || { echo "$side failed: see $out/${side}_$r.txt"; tail -5 "$out/${side}_$r.txt"; exit 1; }
  done
done
python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(side):
    rows = {}
    for r in range(1, rounds + 1):
        for b in json.load(open(f"{out}/{side}_{r}.json"))["benchmarks"]:
            if b.get("aggregate_name") not in (None, "median") or b.get("error_occurred"):
                continue
            name = b.get("run_name", b["name"]).removesuffix("/manual_time")
            rows.setdefault(name, []).append((b.get("TFLOP/s", 0.0), b.get("pct_cublas")))
    return rows
before, after = load("before"), load("after")
print("| row | before TFLOP/s | after TFLOP/s | after / before | before % of cuBLAS | after % of cuBLAS |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
ratios = []
for name in before:
    if name not in after or name.startswith("cublas/"):
        continue
    tb = statistics.median(t for t, _ in before[name])
    ta = statistics.median(t for t, _ in after[name])
    pb = [p for _, p in before[name] if p is not None]
    pa = [p for _, p in after[name] if p is not None]
    f = lambda v: f"{statistics.median(v):.1f}%" if v else "-"
    ratios.append(ta / tb if tb > 0 else float("nan"))
    print(f"| {name} | {tb:.1f} | {ta:.1f} | {ratios[-1]:.3f} | {f(pb)} | {f(pa)} |")
if ratios:
    import math
    g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\n{len(ratios)} rows: geometric mean of after / before {g:.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")
EOF
