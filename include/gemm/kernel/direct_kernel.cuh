#pragma once
// The tutorials' first kernels: one thread per element of C, reading A and B straight from
// global memory. The mapping part decides which threads of a warp get neighbouring elements.
#include <string>
#include "../args.cuh"

namespace gemm {

// Consecutive threads take consecutive *rows* of C: a warp's B reads are one address (broadcast)
// but its A reads and C writes stride by a whole row: uncoalesced, the naive kernel's flaw.
struct RowPerLane {
  static std::string describe() { return "RowPerLane"; }
  __device__ static void element(int block_row, int block_col, int& row, int& col) {
    row = block_row * 32 + static_cast<int>(threadIdx.x) % 32;
    col = block_col * 32 + static_cast<int>(threadIdx.x) / 32;
  }
};

// Consecutive threads take consecutive *columns* of C: B reads and C writes of a warp coalesce.
struct ColumnPerLane {
  static std::string describe() { return "ColumnPerLane"; }
  __device__ static void element(int block_row, int block_col, int& row, int& col) {
    row = block_row * 32 + static_cast<int>(threadIdx.x) / 32;
    col = block_col * 32 + static_cast<int>(threadIdx.x) % 32;
  }
};

namespace detail {

// 1024 threads cover a 32 x 32 block of C.
template <class T, class Mapping>
__global__ void __launch_bounds__(1024) direct_gemm_kernel(const GemmArgs<T> args) {
  const int blocks_n = (args.n + 31) / 32;
  int row, col;
  Mapping::element(blockIdx.x / blocks_n, blockIdx.x % blocks_n, row, col);
  if (row >= args.m || col >= args.n) return;
  const T* a = args.A + static_cast<long long>(row) * args.lda;
  const T* b = args.B + col;
  T acc = T(0);
  for (int i = 0; i < args.k; ++i) acc += a[i] * b[static_cast<long long>(i) * args.ldb];
  T* c = args.C + static_cast<long long>(row) * args.ldc + col;
  *c = args.beta != T(0) ? args.alpha * acc + args.beta * *c : args.alpha * acc;
}

}  // namespace detail
}  // namespace gemm
