#pragma once
// The tutorials' first kernels: one thread per element of C, reading A and B straight from
// global memory. The mapping part decides which threads of a warp get neighbouring elements.
#include <string>
#include "../args.cuh"
#include "../epilogue.cuh"
#include "../detail/batch.cuh"
#include "../ptx/grid_dependency.cuh"

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

// 1024 threads cover a 32 x 32 block of C. The layouts of A and B are run-time strides here: the
// direct kernels exist to show the access pattern of a row-major call, and a transposed operand
// simply walks its other stride.
template <class Args, class Mapping>
__global__ void __launch_bounds__(1024) direct_gemm_kernel(const Args params) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  using S = typename Args::Scalar;
  const int blocks_n = (args.n + 31) / 32;
  int row, col;
  Mapping::element(blockIdx.x / blocks_n, blockIdx.x % blocks_n, row, col);
  if (row >= args.m || col >= args.n) return;
  const long long a_step = args.op_a == Op::N ? 1 : args.lda;  // along k
  const long long b_step = args.op_b == Op::N ? args.ldb : 1;
  const auto* a = args.A + args.a_offset(row, 0);
  const auto* b = args.B + args.b_offset(0, col);
  S acc = S(0);
  for (int i = 0; i < args.k; ++i) acc += convert<S>(a[i * a_step]) * convert<S>(b[i * b_step]);
  auto* c = args.C + static_cast<long long>(row) * args.ldc + col;
  *c = convert<typename Args::Output>(
      epilogue_of(args)(args.beta != S(0) ? args.alpha * acc + args.beta * convert<S>(*c) : args.alpha * acc, row, col));
}

}  // namespace detail
}  // namespace gemm
