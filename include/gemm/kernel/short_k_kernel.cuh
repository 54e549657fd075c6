#pragma once
// A product whose k is a few elements: each output costs k multiply-adds, so the call is bound by
// writing C (431 x 9355 x 4 writes 8 MB of bf16 and reads 80 KB). On CUDA cores, one block per
// Rows x Threads tile of C: the tile's rows of A in shared memory (as the accumulator type), each
// thread one column of C with that column of B in registers, the column's Rows results stored along
// C's rows by consecutive threads (a warp writes 32 neighbours of a row). Element loads and stores:
// any alignment, any leading dimension, any layout (the operands' strides at run time); each result
// leaves through the mma family's element store (C = epilogue(alpha * acc + beta * C)).
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../mma/epilogue.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

template <class Args, int kMaxK, int kRows, int kThreads>
__global__ void __launch_bounds__(kThreads) short_k_kernel(const Args params) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  using S = typename Args::Scalar;
  __shared__ S a_rows[kRows][kMaxK];
  const int tiles_n = (args.n + kThreads - 1) / kThreads;
  const int row0 = static_cast<int>(blockIdx.x / tiles_n) * kRows;
  const int col = static_cast<int>(blockIdx.x % tiles_n) * kThreads + static_cast<int>(threadIdx.x);
  const int k = args.k;
  // (Zeros past k and past the last row: the loops below run over kMaxK and stop at the last row.)
  for (int i = threadIdx.x; i < kRows * kMaxK; i += kThreads) {
    const int r = i / kMaxK, p = i % kMaxK;
    a_rows[r][p] = row0 + r < args.m && p < k ? convert<S>(args.A[args.a_offset(row0 + r, p)]) : S(0);
  }
  __syncthreads();
  if (col >= args.n) return;
  S b[kMaxK];
#pragma unroll
  for (int p = 0; p < kMaxK; ++p) b[p] = p < k ? convert<S>(args.B[args.b_offset(p, col)]) : S(0);
  const int rows = args.m - row0 < kRows ? args.m - row0 : kRows;
  for (int r = 0; r < rows; ++r) {
    S acc = S(0);
#pragma unroll
    for (int p = 0; p < kMaxK; ++p) acc += a_rows[r][p] * b[p];
    mma::store_element(args, row0 + r, col, acc);
  }
}

}  // namespace gemm::detail
