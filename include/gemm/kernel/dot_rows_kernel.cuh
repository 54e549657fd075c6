#pragma once
// A few rows of C (m of at most kRows: a handful of tokens) against B stored transposed (a weight, n
// x k, rows along k), in strict fp32: every element of C is a dot product along k of a row of A and a
// row of B. Such a call is bound by reading B once (16 tokens: 8 flops a byte); the tiled kernels
// stage B through shared memory in 16 x 512 tiles and reach about a quarter of HBM's bandwidth.
//
// A block owns kWarps x kColsPerWarp columns of C, every row, and all of k or, where the blocks make
// fewer than two per SM (sm_90), one of `slices` k slices (the blocks of one thread block cluster,
// whose first block adds their sums in rank order from the others' shared memory, as
// few_rows_kernel does). Warp w takes kColsPerWarp rows of B, its lanes along k: lane l loads 16
// bytes of each row at k = 4 l, 4 l + 128, ... (a warp's load instruction reads 512 neighbouring
// bytes of one row), kLoads such steps of each row in flight (below: in two groups in turn for up
// to 8 rows). A's rows pass through shared memory `chunk` k at a time, each row contiguous (one
// 16-byte read per row and step, the same for the warp's columns), rows past m zero (kRows is m
// rounded up to 1, 2, 4, 8 or 16 by the launch: no branch on m). Each lane's partial sums are added
// across the warp in a fixed butterfly order, so results are the same from call to call; each
// leaves through the mma family's element store (C = epilogue(alpha * acc + beta * C)).
// B's rows and leading dimension are 16-byte aligned (the policy checks); A's may be anything.
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../mma/epilogue.cuh"
#include "../ptx/cluster.cuh"

namespace gemm::detail {

inline constexpr int kDotRowsColsPerWarp = 4;          // rows of B (columns of C) per warp
inline constexpr int kDotRowsSmemBytes = 48 * 1024;    // A's chunk (and the sums), at most
inline constexpr int kDotRowsMinSlice = 1024;          // k of a block where k is sliced, at least

// The k elements of A's (padded) rows that pass through shared memory at a time: all of k where
// they fit, else a multiple of a warp's step (128).
inline int dot_rows_chunk(int rows, int k) {
  const int fit = kDotRowsSmemBytes / (4 * rows) / 128 * 128;
  const int whole = (k + 3) / 4 * 4;
  return whole < fit ? (whole > 0 ? whole : 4) : fit;
}

// Four floats of a row of B from position p of [.., end): past end, zeros.
__device__ __forceinline__ float4 dot_rows_load(const float* row, int p, int end) {
  if (p + 3 < end) return __ldg(reinterpret_cast<const float4*>(row + p));
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  if (p < end) v.x = __ldg(row + p);
  if (p + 1 < end) v.y = __ldg(row + p + 1);
  if (p + 2 < end) v.z = __ldg(row + p + 2);
  return v;
}

template <class Args, int kRows, int kWarps, int kLoads>
__global__ void __launch_bounds__(32 * kWarps) dot_rows_kernel(const Args params, int chunk, int slices) {
  if (beyond_batch(params)) return;
  decltype(auto) args = block_entry(params);
  constexpr int kCols = kDotRowsColsPerWarp, kBlockCols = kWarps * kCols, kThreads = 32 * kWarps;
  extern __shared__ __align__(16) unsigned char dot_rows_smem[];
  float* const smem = reinterpret_cast<float*>(dot_rows_smem);  // A: kRows rows of `chunk`; then the sums
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int m = args.m, col0 = static_cast<int>(blockIdx.x) / slices * kBlockCols + warp * kCols;
  // This block's k: slice `rank` of `slices`, in whole steps of 4 (16-byte loads).
  const int rank = static_cast<int>(blockIdx.x) % slices;
  const int per = ((args.k + slices - 1) / slices + 3) / 4 * 4;
  const int k_begin = rank * per < args.k ? rank * per : args.k;
  const int k_end = k_begin + per < args.k ? k_begin + per : args.k;
  // This warp's rows of B (a column past n reads B's last row: its sums are never stored).
  const float* rows[kCols];
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    const int j = col0 + c < args.n ? col0 + c : args.n - 1;
    rows[c] = args.B + static_cast<long long>(j) * args.ldb;
  }
  float acc[kRows][kCols];
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[r][c] = 0.f;

  for (int k0 = k_begin; k0 < k_end; k0 += chunk) {
    const int len = k_end - k0 < chunk ? k_end - k0 : chunk;
    if (k0 > k_begin) __syncthreads();  // (every warp is done with the previous chunk)
    const int padded = (len + 3) / 4 * 4;
    for (int i = static_cast<int>(threadIdx.x); i < kRows * padded; i += kThreads) {
      const int r = i / padded, p = i - r * padded;
      smem[r * chunk + p] = r < m && p < len ? args.A[args.a_offset(r, k0 + p)] : 0.f;
    }
    __syncthreads();
    // Up to 8 rows, two groups of kLoads / 2 steps of 128 k in turn: the next group's loads are
    // issued before this group's FMAs, so that every warp always has B in flight. 16 rows, groups of
    // kLoads steps loaded and then multiplied: the second set of registers would cost the SM a block
    // (H200, fp32 16 x 8192 x 8192: 281 us pipelined against 172).
    constexpr bool kPipelined = kRows <= 8 && kLoads >= 2;
    constexpr int kSteps = kPipelined ? kLoads / 2 : kLoads, kGroup = 128 * kSteps;
    const auto load = [&](float4 (&b)[kSteps][kCols], int p0) {
#pragma unroll
      for (int j = 0; j < kSteps; ++j)
#pragma unroll
        for (int c = 0; c < kCols; ++c) b[j][c] = dot_rows_load(rows[c], k0 + p0 + 128 * j, k0 + len);
    };
    const auto multiply = [&](const float4 (&b)[kSteps][kCols], int p0) {
#pragma unroll
      for (int j = 0; j < kSteps; ++j) {
        const int p = p0 + 128 * j;
        if (p < len) {
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            const float4 a = *reinterpret_cast<const float4*>(smem + r * chunk + p);
#pragma unroll
            for (int c = 0; c < kCols; ++c) {
              acc[r][c] = fmaf(a.x, b[j][c].x, acc[r][c]);
              acc[r][c] = fmaf(a.y, b[j][c].y, acc[r][c]);
              acc[r][c] = fmaf(a.z, b[j][c].z, acc[r][c]);
              acc[r][c] = fmaf(a.w, b[j][c].w, acc[r][c]);
            }
          }
        }
      }
    };
    float4 b0[kSteps][kCols];
    if constexpr (kPipelined) {
      float4 b1[kSteps][kCols];
      int p0 = 4 * lane;
      if (p0 < len) load(b0, p0);
      for (; p0 < len; p0 += 2 * kGroup) {
        if (p0 + kGroup < len) load(b1, p0 + kGroup);
        multiply(b0, p0);
        if (p0 + kGroup >= len) break;
        if (p0 + 2 * kGroup < len) load(b0, p0 + 2 * kGroup);
        multiply(b1, p0 + kGroup);
      }
    } else {
      for (int p0 = 4 * lane; p0 < len; p0 += kGroup) {
        load(b0, p0);
        multiply(b0, p0);
      }
    }
  }

  // Across the warp: a butterfly, the same order every call; lane 0 holds the totals.
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kCols; ++c)
#pragma unroll
      for (int o = 16; o > 0; o /= 2) acc[r][c] += __shfl_xor_sync(0xffffffffu, acc[r][c], o);
  if (slices == 1) {
    if (lane == 0) {
#pragma unroll
      for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kCols; ++c)
          if (r < m && col0 + c < args.n) mma::store_element(args, r, col0 + c, acc[r][c]);
    }
    return;
  }
  // k slices: each block's totals in its shared memory (after A's chunk is read), which the
  // cluster's first block adds in rank order and stores.
  __syncthreads();
  float* const totals = smem;  // kRows x kBlockCols
  if (lane == 0) {
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
      for (int c = 0; c < kCols; ++c) totals[r * kBlockCols + warp * kCols + c] = acc[r][c];
  }
  ptx::cluster_sync();  // every block's totals are written
  if (rank == 0) {
    const int first = static_cast<int>(blockIdx.x) / slices * kBlockCols;
    for (int i = static_cast<int>(threadIdx.x); i < m * kBlockCols; i += kThreads) {
      const int r = i / kBlockCols, col = first + (i - r * kBlockCols);
      float sum = totals[i];
      for (int q = 1; q < slices; ++q) sum += ptx::load_shared_of_rank(totals + i, static_cast<unsigned>(q));
      if (col < args.n) mma::store_element(args, r, col, sum);
    }
  }
  ptx::cluster_sync();  // the first block is done reading the others' shared memory
}

}  // namespace gemm::detail
