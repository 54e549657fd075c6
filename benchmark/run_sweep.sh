#!/usr/bin/env bash
# Runs gemm_bench on the GPU machine and collects everything in one folder.
#
#   run_sweep.sh OUT_DIR [gemm_bench args...]      e.g. run_sweep.sh out --gemm_full
#
# Writes OUT_DIR/results.json (Google Benchmark JSON), OUT_DIR/flow.json (the
# whole-flow table), OUT_DIR/console.txt (everything printed), OUT_DIR/gpu.txt
# (nvidia-smi), OUT_DIR/summary.md (plot.py's markdown tables, one per type)
# and, where python3 has matplotlib, the PNGs of plot.py. The binary is
# $GEMM_BENCH, or gemm_bench next to this script (the build folder gets a copy
# of it), or build/benchmark/gemm_bench.
set -u -o pipefail

if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: $0 OUT_DIR [gemm_bench args...]" >&2
  exit 2
fi
out_dir=$1
shift

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${GEMM_BENCH:-}
if [ -z "$bin" ]; then
  for cand in "$here/gemm_bench" "$here/../build/benchmark/gemm_bench" "$PWD/gemm_bench"; do
    if [ -x "$cand" ]; then bin=$cand; break; fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "run_sweep.sh: gemm_bench not found; set GEMM_BENCH=/path/to/gemm_bench" >&2
  exit 2
fi
plot=$here/plot.py
[ -f "$plot" ] || plot=$(dirname "$bin")/plot.py

mkdir -p "$out_dir"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi 2>&1 || true
  nvidia-smi -q -d CLOCK 2>&1 || true
} >"$out_dir/gpu.txt"

echo "run_sweep.sh: $bin $* -> $out_dir" >&2
"$bin" \
  --benchmark_out="$out_dir/results.json" --benchmark_out_format=json \
  --gemm_flow_out="$out_dir/flow.json" \
  "$@" 2>&1 | tee "$out_dir/console.txt"
rc=${PIPESTATUS[0]}

if [ -f "$out_dir/results.json" ] && [ -f "$plot" ] && command -v python3 >/dev/null; then
  extra=()
  [ -f "$out_dir/flow.json" ] && extra+=(--flow "$out_dir/flow.json")
  # Without matplotlib: summary.md only.
  python3 -c 'import matplotlib' 2>/dev/null || extra+=(--no-plots)
  python3 "$plot" "$out_dir/results.json" "${extra[@]}" --outdir "$out_dir" --markdown \
    >"$out_dir/summary.md" || echo "run_sweep.sh: plot.py failed" >&2
fi

echo "run_sweep.sh: gemm_bench exited with $rc; results in $out_dir" >&2
exit "$rc"
