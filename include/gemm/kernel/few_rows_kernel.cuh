#pragma once
// A few rows of C (m of at most kRows: a handful of tokens) against a B read along its rows, where
// that B's rows are not aligned for the tensor-core tiles' loads. Such a call is small and bound by
// reading B once; the wgmma tiles would first copy A and B aligned and then reduce the slices of a
// k split, three launches for a few microseconds of reading (1 x 51 x 2450: 2450 rows of 51 bf16).
// One launch instead, on CUDA cores, any alignment, leading dimension and layout (the operands'
// strides at run time).
//
// A block owns kCols = 64 columns of C, every row, and all of k or, where the columns make few blocks
// (sm_90), one of `slices` k slices: the slices of a span are the blocks of one thread block cluster,
// whose first block adds their sums in rank order from the others' shared memory (one block
// reading all of a narrow B from HBM waits on it row after row). Lane l of each warp takes columns
// l and l + 32 of the block's span (each load instruction of a warp reads 32 neighbouring elements
// of one row of B), warp w the k indices w, w + kWarps, ... (neighbouring warps read neighbouring
// rows), kLoads of them loaded before any is used: the warps' loads wait on L2 or HBM together, not
// one after the other. A's rows are read once into shared memory as the accumulator type, k-major
// (the kRows values of one k side by side: one vector read per k and row group, no branch on m: rows
// past m are zeros; kRows is m rounded up to 1, 2, 4 or 8 by the launch), `chunk` elements of k at a
// time (all of k where they fit, so that nothing waits on a barrier while B streams). The warps'
// sums meet in shared memory, one row of C at a time, and are added in warp order, so results are
// the same from call to call; each leaves through the mma family's element store (C =
// epilogue(alpha * acc + beta * C)).
#include <type_traits>
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../mma/epilogue.cuh"
#include "../ptx/cluster.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

inline constexpr int kFewRowsCols = 64;              // columns of C per block
inline constexpr int kFewRowsSmemBytes = 48 * 1024;  // A's chunk (and the sums), at most
inline constexpr int kFewRowsMinSlice = 256;          // k of a block where k is sliced, at least

// The k elements of A's (padded) rows that pass through shared memory at a time: all of k where
// they fit.
inline int few_rows_chunk(int rows, int k, int scalar_bytes) {
  const int fit = kFewRowsSmemBytes / (scalar_bytes * rows);
  return k < fit ? (k > 0 ? k : 1) : fit;
}

template <class Args, int kRows, int kWarps, int kLoads>
__global__ void __launch_bounds__(32 * kWarps) few_rows_kernel(const Args params, int chunk, int slices) {
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  using S = typename Args::Scalar;
  constexpr int kCols = kFewRowsCols, kThreads = 32 * kWarps;
  extern __shared__ __align__(16) unsigned char few_rows_smem[];
  S* const smem = reinterpret_cast<S*>(few_rows_smem);  // A: `chunk` k of kRows each; at the end the sums
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int m = args.m, col0 = static_cast<int>(blockIdx.x) / slices * kCols;
  // This block's k: slice `rank` of `slices` (the blocks of one cluster, which add their sums below).
  const int rank = static_cast<int>(blockIdx.x) % slices, per = (args.k + slices - 1) / slices;
  const int k_begin = rank * per < args.k ? rank * per : args.k;
  const int k_end = k_begin + per < args.k ? k_begin + per : args.k;
  const int c0 = col0 + lane, c1 = c0 + 32;
  const bool in0 = c0 < args.n, in1 = c1 < args.n;
  S acc0[kRows], acc1[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc0[r] = S(0), acc1[r] = S(0);

  for (int k0 = k_begin; k0 < k_end; k0 += chunk) {
    const int len = k_end - k0 < chunk ? k_end - k0 : chunk;
    if (k0 > k_begin) __syncthreads();  // (every warp is done with the previous chunk)
    // Along A's rows (its loads coalesced where A is row-major), into k-major places.
    for (int i = static_cast<int>(threadIdx.x); i < kRows * len; i += kThreads) {
      const int r = i / len, p = i - r * len;
      smem[p * kRows + r] = r < m ? convert<S>(args.A[args.a_offset(r, k0 + p)]) : S(0);
    }
    __syncthreads();
    for (int p0 = warp; p0 < len; p0 += kWarps * kLoads) {
      S b0[kLoads], b1[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        const int p = p0 + j * kWarps;
        b0[j] = in0 && p < len ? convert<S>(args.B[args.b_offset(k0 + p, c0)]) : S(0);
        b1[j] = in1 && p < len ? convert<S>(args.B[args.b_offset(k0 + p, c1)]) : S(0);
      }
#pragma unroll
      for (int j = 0; j < kLoads; ++j) {
        const int p = p0 + j * kWarps;
        const S* a = smem + (p < len ? p : len - 1) * kRows;  // (past len: B's values are 0)
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          acc0[r] += a[r] * b0[j];
          acc1[r] += a[r] * b1[j];
        }
      }
    }
  }

  // Each row's sums: every warp's 64 into shared memory, added in warp order by the first 64
  // threads and stored; with k slices, kept in this block's `totals`, which the cluster's first block
  // adds in rank order (from the other blocks' shared memory) and stores.
  S* const totals = smem + kWarps * kCols;  // kRows x kCols (k slices only)
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if (r < m) {
      __syncthreads();  // (A's chunk, or the previous row's sums, is read)
      smem[warp * kCols + lane] = acc0[r];
      smem[warp * kCols + lane + 32] = acc1[r];
      __syncthreads();
      if (threadIdx.x < kCols) {
        const int col = col0 + static_cast<int>(threadIdx.x);
        S sum = smem[threadIdx.x];
        for (int w = 1; w < kWarps; ++w) sum += smem[w * kCols + threadIdx.x];
        if (slices == 1)
          mma::store_element(args, r, col, sum);
        else
          totals[r * kCols + threadIdx.x] = sum;
      }
    }
  }
  if (slices > 1) {
    static_assert(std::is_same_v<S, float>, "few_rows_kernel: k slices add float sums across the cluster.");
    ptx::cluster_sync();  // every block's totals are written
    if (rank == 0 && threadIdx.x < kCols) {
      for (int r = 0; r < m; ++r) {
        const S* mine = totals + r * kCols + threadIdx.x;
        S sum = *mine;
        for (int q = 1; q < slices; ++q) sum += ptx::load_shared_of_rank(mine, static_cast<unsigned>(q));
        mma::store_element(args, r, col0 + static_cast<int>(threadIdx.x), sum);
      }
    }
    ptx::cluster_sync();  // the first block is done reading the others' shared memory
  }
}

}  // namespace gemm::detail
