# shellcheck shell=bash
# Shared set-up for scripts/*.sh (sourced, not run).
#
# Provides:
#   gemm_root                 repository root (and cd's there)
#   gemm_install_deps [--no-catch2] [--ninja]
#                             apt-get install whatever of cmake/make/g++/Catch2/
#                             Google Benchmark is missing (sudo only if not root);
#                             --no-catch2: the caller builds no tests;
#                             --ninja: the caller builds with Ninja (ninja-build)
#   gemm_find_nvcc            sets NVCC and puts its directory on PATH
#   gemm_configure DIR ARCHS  cmake -S . -B DIR, Release, for ARCHS
#   gemm_has_target DIR NAME  whether the configured tree in DIR has target NAME
#   gemm_jobs                 parallel build jobs (nproc)

gemm_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$gemm_root" || exit 1

gemm_log() { printf '[gemm] %s\n' "$*" >&2; }
gemm_die() { printf '[gemm] error: %s\n' "$*" >&2; exit 1; }

gemm_jobs() { nproc 2>/dev/null || echo 2; }

gemm_now() { date +%s.%N; }
gemm_elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# Install the Debian/Ubuntu packages for whatever is missing.
gemm_install_deps() {
  local pkgs=() catch2=1 ninja=0 arg
  for arg in "$@"; do
    case "$arg" in
      --no-catch2) catch2=0 ;;
      --ninja) ninja=1 ;;
      *) gemm_die "gemm_install_deps: unknown option $arg" ;;
    esac
  done
  command -v cmake >/dev/null 2>&1 || pkgs+=(cmake)
  if [ "$ninja" -eq 1 ]; then
    command -v ninja >/dev/null 2>&1 || pkgs+=(ninja-build)
  else
    { command -v make >/dev/null 2>&1 || command -v ninja >/dev/null 2>&1; } || pkgs+=(make)
  fi
  command -v g++ >/dev/null 2>&1 || pkgs+=(g++)
  if [ "$catch2" -eq 1 ] && [ ! -f /usr/include/catch2/catch.hpp ] &&
    [ ! -f /usr/include/catch2/catch_test_macros.hpp ]; then
    pkgs+=(catch2)
  fi
  [ -f /usr/include/benchmark/benchmark.h ] || pkgs+=(libbenchmark-dev)

  if [ ${#pkgs[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 ||
      gemm_die "missing: ${pkgs[*]} (and no apt-get here; install them by hand)"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null 2>&1 || gemm_die "missing: ${pkgs[*]}; run as root or install sudo"
      sudo=(sudo)
    fi
    gemm_log "installing: ${pkgs[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "${pkgs[@]}"
  fi

  # The build needs CMake >= 3.25 (Debian 12, Ubuntu 24.04 ship it).
  local ver
  ver="$(cmake --version | awk 'NR == 1 { print $3 }')"
  if ! printf '3.25\n%s\n' "$ver" | sort -V -C; then
    gemm_die "CMake $ver is too old; 3.25 or newer is needed (e.g. 'pip install cmake' or Kitware's apt repository)"
  fi
}

gemm_find_nvcc() {
  if [ -n "${CUDACXX:-}" ] && [ -x "${CUDACXX}" ]; then
    NVCC="$CUDACXX"
  elif command -v nvcc >/dev/null 2>&1; then
    NVCC="$(command -v nvcc)"
  elif [ -x /usr/local/cuda/bin/nvcc ]; then
    NVCC=/usr/local/cuda/bin/nvcc
  else
    gemm_die "nvcc not found on PATH or in /usr/local/cuda/bin; install the CUDA toolkit"
  fi
  PATH="$(dirname "$NVCC"):$PATH"
  export PATH NVCC
  gemm_log "using $("$NVCC" --version | grep -o 'release [0-9.]*' || echo "$NVCC")"
}

# gemm_configure BUILD_DIR ARCHS [extra cmake args...]
gemm_configure() {
  local dir="$1" archs="$2"
  shift 2
  cmake -S "$gemm_root" -B "$dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCMAKE_CUDA_ARCHITECTURES="$archs" \
    "$@"
}

gemm_has_target() {
  [ -f "$1/gemm_targets.txt" ] && grep -qx "$2" "$1/gemm_targets.txt"
}
