#!/usr/bin/env bash
# Where the build's time goes: builds every target in a fresh tree with nvcc's per-phase timing
# (--time) and prints a markdown table of seconds per CUDA file and phase (front end, cicc and ptxas
# per architecture, host compile), largest first, and the configure + build wall time.
#
#   scripts/compile-times.sh OUT.md                  # what CI builds: programs for 90a, sm_80 checked
#   GEMM_CUDA_ARCHS=90a GEMM_CHECK_ARCHS= scripts/compile-times.sh OUT.md
#   GEMM_JOBS=1 scripts/compile-times.sh OUT.md      # one compile at a time: per-file figures without
#                                                    # the other core's load (twice the wall time)
set -euo pipefail
# shellcheck source=scripts/_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

out="${1:?usage: scripts/compile-times.sh OUT.md}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
archs="${GEMM_CUDA_ARCHS:-90a}"
check_archs="${GEMM_CHECK_ARCHS-80}"
jobs="${GEMM_JOBS:-$(gemm_jobs)}"
build_dir="${GEMM_BUILD_DIR:-build-times}"

gemm_install_deps --ninja
gemm_find_nvcc
rm -rf "$build_dir"
csv="$PWD/$build_dir/nvcc-time.csv"
mkdir -p "$build_dir"
t0="$(gemm_now)"
gemm_configure "$build_dir" "$archs" -G Ninja -DGEMM_CHECK_ARCHITECTURES="$check_archs" \
  -DCMAKE_CUDA_FLAGS="--time $csv" >/dev/null
cmake --build "$build_dir" -j"$jobs"
t1="$(gemm_now)"

python3 - "$csv" "$out" "$(gemm_elapsed "$t0" "$t1")" "$archs" "$check_archs" "$jobs" "$gemm_root" <<'EOF'
import collections, csv, sys
path, out, wall, archs, check, jobs, root = sys.argv[1:]
per_file = collections.defaultdict(lambda: collections.defaultdict(float))
for row in csv.reader(open(path)):
    if len(row) < 8 or row[0].strip() in ("", "source file name"):
        continue
    name, phase, arch, ms = row[0].strip(), row[1].strip(), row[4].strip(), row[6].strip()
    try:
        ms = float(ms)
    except ValueError:
        continue
    if phase == "cicc" or phase == "ptxas":
        key = f"{phase} {arch.replace('compute_', 'sm_')}"
    elif phase == "gcc (compiling)":
        key = "host"
    else:
        key = "front end"
    per_file[name][key] += ms / 1000
cols = sorted({k for f in per_file.values() for k in f}, key=lambda k: (k != "front end", k == "host", k))
rows = sorted(per_file.items(), key=lambda kv: -sum(kv[1].values()))
total = sum(sum(f.values()) for f in per_file.values())
with open(out, "w") as f:
    f.write(f"nvcc seconds per CUDA file and phase: programs for {archs}, gemm_arch_check for "
            f"{check or '(none)'}, {jobs} jobs; configure + build {wall} s wall, {total:.0f} s of nvcc.\n\n")
    f.write("| file | total | " + " | ".join(cols) + " |\n")
    f.write("| --- | ---: | " + " | ".join("---:" for _ in cols) + " |\n")
    for name, ph in rows:
        short = name.replace(root + "/", "")
        f.write(f"| {short} | {sum(ph.values()):.0f} | " + " | ".join(f"{ph.get(c, 0):.0f}" for c in cols) + " |\n")
print(f"configure + build: {wall} s; nvcc total {total:.0f} s over {len(rows)} files; table in {out}")
EOF
