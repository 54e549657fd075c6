#pragma once
// The project's own programs (tests, benchmarks, tools) call gemm::gemm<T> with Tuned for every
// type, in dozens of files. Tuned's kernels for each type are compiled once, in the gemm_instances
// library (instances/CMakeLists.txt), and every file of a program that links it sees them declared
// here (CMake pre-includes this header), so nvcc does not compile them again in each file.
#include <gemm/instances.cuh>

// Each (math type, C's type) Tuned serves.
#define GEMM_TUNED_INSTANCES(X)          \
  X(float, float)                        \
  X(::gemm::tf32, float)                 \
  X(::gemm::tf32x3, float)               \
  X(double, double)                      \
  X(__nv_bfloat16, __nv_bfloat16)        \
  X(__nv_bfloat16, float)                \
  X(__half, __half)                      \
  X(__half, float)

#define GEMM_TUNED_EXTERN(T, Out) GEMM_EXTERN(T, Out, ::gemm::preset::Tuned)
GEMM_TUNED_INSTANCES(GEMM_TUNED_EXTERN)
#undef GEMM_TUNED_EXTERN
