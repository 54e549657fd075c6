# shellcheck shell=bash
# gemm_find_sanitizer: prints the path of compute-sanitizer (PATH, $CUDA_HOME/bin, $CUDA_PATH/bin,
# /usr/local/cuda*/bin), or nothing. Sourced by the scripts that run the GPU suites under it.
gemm_find_sanitizer() {
  if command -v compute-sanitizer >/dev/null 2>&1; then
    command -v compute-sanitizer
    return
  fi
  local d
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-*; do
    if [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ]; then
      echo "$d/bin/compute-sanitizer"
      return
    fi
  done
}
