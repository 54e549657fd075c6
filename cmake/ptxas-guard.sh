#!/usr/bin/env bash
# Compiler launcher for the project's own CUDA builds (CMAKE_CUDA_COMPILER_LAUNCHER): runs one
# compile command and fails it when ptxas says it serialised wgmma or overrode the register plan.
# ptxas reports these as "info" lines, not warnings, so -Werror does not catch them:
#   C7510, C7511, C7515  wgmma.mma_async instructions are serialized (a large silent slowdown)
#   C7517, C7519         warpgroup.wait / warpgroup.arrive injected around accumulator uses
#   C7508                setmaxnreg ignored
set -u
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$@" >"$log" 2>&1
rc=$?
cat "$log" >&2
if grep -qE '\((C7508|C7510|C7511|C7515|C7517|C7519)\)' "$log"; then
  echo "error: ptxas serialised wgmma or ignored setmaxnreg (see the lines above); see docs/architecture.md," \
       "'The Hopper family', for the rules the kernels follow" >&2
  exit 1
fi
exit "$rc"
