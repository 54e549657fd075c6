#!/usr/bin/env bash
# Compiler launcher for the project's own CUDA builds (CMAKE_CUDA_COMPILER_LAUNCHER): runs one
# compile command and fails it when ptxas says it serialised wgmma or overrode the register plan.
# ptxas reports these as "info" lines, not warnings, so -Werror does not catch them:
#   C7510, C7511, C7515  wgmma.mma_async instructions are serialized (a large silent slowdown)
#   C7517, C7519         warpgroup.wait / warpgroup.arrive injected around accumulator uses
#   C7508                setmaxnreg ignored
# With --check-spills first (the nvcc whose register allocation cmake/ptxas-spills.txt records:
# CMakeLists.txt decides), it also asks ptxas to name every function that spills registers
# (-warn-spills) and fails the compile when a Hopper kernel (namespace gemm::sm90) spills more than
# that file allows it: a spill that appears in a mainloop costs speed without failing a test (one
# did, unnoticed, in the promoted FP8 grouped kernel). Optimised compiles only (-O0 spills
# everywhere). GEMM_SPILL_LOG=FILE: append every spill line there and fail on none (to refresh the
# allowances).
#   ptxas-guard.sh [--check-spills] COMPILER ARGS...
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
spill_check=0
if [ "${1:-}" = --check-spills ]; then
  spill_check=1
  shift
fi
case " $* " in *" -O0 "*) spill_check=0 ;; esac
allow="$here/ptxas-spills.txt"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if [ "$spill_check" = 1 ]; then
  "$@" -Xptxas -warn-spills >"$log" 2>&1
else
  "$@" >"$log" 2>&1
fi
rc=$?
# The spill warnings go to the report (or the check below), not the build's output.
grep -v "Registers are spilled to local memory" "$log" >&2
if grep -qE '\((C7508|C7510|C7511|C7515|C7517|C7519)\)' "$log"; then
  echo "error: ptxas serialised wgmma or ignored setmaxnreg (see the lines above); see docs/architecture.md," \
       "'The Hopper family', for the rules the kernels follow" >&2
  exit 1
fi
[ "$spill_check" = 1 ] || exit "$rc"
# "ptxas warning : Registers are spilled to local memory in function 'NAME', S bytes spill stores, L bytes spill loads"
spills="$(sed -n "s/.*Registers are spilled to local memory in function '\([^']*\)', \([0-9]*\) bytes spill stores.*/\2 \1/p" "$log" | sort -u)"
[ -n "$spills" ] || exit "$rc"
if [ -n "${GEMM_SPILL_LOG:-}" ]; then
  printf '%s\n' "$spills" >>"$GEMM_SPILL_LOG"
  exit "$rc"
fi
over=0
while read -r bytes name; do
  case "$name" in _ZN4gemm4sm90*) ;; *) continue ;; esac
  allowed="$(awk -v n="$name" '$1 !~ /^#/ && $2 == n { print $1; exit }' "$allow" 2>/dev/null)"
  if [ -z "$allowed" ] || [ "$bytes" -gt "$allowed" ]; then
    echo "error: ptxas spills $bytes bytes (allowed: ${allowed:-0}) in $name" >&2
    over=1
  fi
done <<<"$spills"
if [ "$over" = 1 ]; then
  echo "error: a Hopper kernel spills more registers than cmake/ptxas-spills.txt allows; measure the kernel," \
       "then remove the spill or raise its allowance there (docs/build.md, 'Register spills')" >&2
  exit 1
fi
exit "$rc"
