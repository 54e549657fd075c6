#pragma once
// A few rows of C (m of at most kRows: a handful of tokens) against B stored transposed (a weight, n
// x k, rows along k), in strict fp32: every element of C is a dot product along k of a row of A and a
// row of B. Such a call is bound by reading B once (16 tokens: 8 flops a byte); the tiled kernels
// stage B through shared memory in 16 x 512 tiles and reach about a quarter of HBM's bandwidth.
//
// A block owns kWarps x kColsPerWarp columns of C, every row, and all of k or one of `slices` k
// slices (sm_90: the blocks of one thread block cluster, whose first block adds their sums in rank
// order from the others' shared memory, as few_rows_kernel does). Warp w takes kColsPerWarp rows of
// B, its lanes along k: lane l loads 16 bytes of each row at k = 4 l, 4 l + 128, ... (a warp's load
// instruction reads 512 neighbouring bytes of one row), groups of kLoads / 2 such steps of each row
// in flight (up to 8 rows in two register sets in turn, so that the next group's loads are issued
// before this group's FMAs). A's rows pass through shared memory `chunk` k at a time, each row
// contiguous (one 16-byte read per row and step, the same for the warp's columns), rows past m zero
// (kRows is m rounded up to 1, 2, 4, 8 or 16 by the launch: no branch on m); where a block's k takes
// more than one chunk, the next chunk is copied (cp.async) into a second buffer while this one is
// multiplied, so that the warps never wait for A between chunks. Each lane's partial sums are added
// across the warp in a fixed butterfly order, so results are the same from call to call; each
// leaves through the mma family's element store (C = epilogue(alpha * acc + beta * C)).
// B's rows and leading dimension are 16-byte aligned (the policy checks); A's may be anything.
#include "../args.cuh"
#include "../detail/batch.cuh"
#include "../detail/launch.cuh"
#include "../mma/epilogue.cuh"
#include "../ptx/cluster.cuh"
#include "../ptx/cp_async.cuh"
#include "../ptx/grid_dependency.cuh"

namespace gemm::detail {

inline constexpr int kDotRowsColsPerWarp = 4;          // rows of B (columns of C) per warp
inline constexpr int kDotRowsSmemBytes = 48 * 1024;    // A's two chunks (and the sums), at most
inline constexpr int kDotRowsMinSlice = 512;           // k of a block where k is sliced, at least
inline constexpr int kDotRowsSliceOverhead = 256;      // what a block costs besides its k, in k (the slice rule)
inline constexpr int kDotRowsSliceCounts[] = {1, 2, 3, 4, 6, 8};  // the k slice counts weighed (measured)

// The k elements of A's (padded) rows that pass through shared memory at a time: all of a block's k
// where it fits in one of two buffers, else a multiple of a warp's step (128).
inline int dot_rows_chunk(int rows, int k) {
  const int fit = kDotRowsSmemBytes / 2 / (4 * rows) / 128 * 128;
  const int whole = (k + 3) / 4 * 4;
  return whole < fit ? (whole > 0 ? whole : 4) : fit;
}

// Shared memory of a block: A's chunk, twice where the block's k takes more than one, and at least
// the sums of its columns (k slices).
inline int dot_rows_smem_bytes(int rows, int block_cols, int k, int chunk) {
  const int buffers = k > chunk ? 2 : 1;
  return (buffers * chunk > block_cols ? buffers * chunk : block_cols) * rows * static_cast<int>(sizeof(float));
}

// k slices of a block's columns (DotRowsPolicy, sm_90: the blocks of one cluster). The blocks run in
// rounds of as many clusters as the device holds at once, clusters[s - 1] for clusters of s blocks
// (cudaOccupancyMaxActiveClusters: with two blocks an SM, 264 single blocks on 132 SMs but 62
// clusters of 4 and 30 of 8, not 66 and 33); a round costs its blocks' k plus kDotRowsSliceOverhead
// (filling the loads, A's first chunk, the cluster's sums). Of 1, 2, 3, 4, 6 and 8 slices (the
// counts measured) up to `most`, the count of least cost, the smaller of equals: 16 x 4096 (128
// blocks of columns) x 14336 in 2 slices (one round of 256 blocks), where 3 (384 blocks, a round and
// a half) ran 37% slower (H200; design/fp32-cuda-cores.md#a-chunk-of-a-ahead-and-slices-by-resident-clusters).
inline int dot_rows_slices(long long spans, int k, int most, const int (&clusters)[8]) {
  int slices = 1;
  double least = 0.0;
  for (const int s : kDotRowsSliceCounts) {
    if (s > most || clusters[s - 1] < 1) break;  // (a cluster this large does not fit)
    const long long rounds = ceil_div(spans, clusters[s - 1]);
    const double cost = static_cast<double>(rounds) * (static_cast<double>(k) / s + kDotRowsSliceOverhead);
    if (s == 1 || cost < least) {
      least = cost;
      slices = s;
    }
  }
  return slices;
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
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
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

  // A's chunk at k0 into dst, rows past m and k past the block's end zero: 16-byte copies where A's
  // rows are 16-byte aligned, else one float each.
  const bool a_vectors = args.op_a == Op::N && args.lda % 4 == 0 && (reinterpret_cast<uintptr_t>(args.A) & 15) == 0;
  const auto copy_chunk = [&](float* dst, int k0) {
    const int len = k_end - k0 < chunk ? k_end - k0 : chunk, padded = (len + 3) / 4 * 4;
    if (a_vectors) {
      const int quads = padded / 4;
      for (int i = static_cast<int>(threadIdx.x); i < kRows * quads; i += kThreads) {
        const int r = i / quads, p = 4 * (i - r * quads);
        const int bytes = r < m && p < len ? (len - p < 4 ? 4 * (len - p) : 16) : 0;
        detail::cp_async<16>(dst + r * chunk + p, bytes > 0 ? args.A + args.a_offset(r, k0 + p) : args.A, bytes);
      }
    } else {
      for (int i = static_cast<int>(threadIdx.x); i < kRows * padded; i += kThreads) {
        const int r = i / padded, p = i - r * padded;
        const bool inside = r < m && p < len;
        detail::cp_async<4>(dst + r * chunk + p, inside ? args.A + args.a_offset(r, k0 + p) : args.A, inside ? 4 : 0);
      }
    }
    detail::cp_async_commit();
  };
  const bool double_buffered = k_end - k_begin > chunk;
  int buffer = 0;
  if (double_buffered) copy_chunk(smem, k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += chunk) {
    const int len = k_end - k0 < chunk ? k_end - k0 : chunk;
    const float* const a_chunk = smem + buffer * kRows * chunk;
    if (double_buffered) {
      // The next chunk into the other buffer (every warp was done with it at the end of the last
      // round), then wait for this one.
      if (k0 + chunk < k_end) {
        copy_chunk(smem + (buffer ^ 1) * kRows * chunk, k0 + chunk);
        detail::cp_async_wait<1>();
      } else {
        detail::cp_async_wait<0>();
      }
      buffer ^= 1;
    } else {
      const int padded = (len + 3) / 4 * 4;
      for (int i = static_cast<int>(threadIdx.x); i < kRows * padded; i += kThreads) {
        const int r = i / padded, p = i - r * padded;
        smem[r * chunk + p] = r < m && p < len ? args.A[args.a_offset(r, k0 + p)] : 0.f;
      }
    }
    __syncthreads();
    // Groups of kLoads / 2 steps of 128 k. Up to 8 rows, two groups in turn: the next group's loads
    // are issued before this group's FMAs, so that every warp always has B in flight. 16 rows, each
    // group loaded and then multiplied: the second set of registers would cost the SM a block (H200,
    // fp32 16 x 8192 x 8192: 281 us pipelined against 172), and groups of kLoads steps held more of
    // the registers for 2-5% less speed.
    constexpr bool kPipelined = kRows <= 8 && kLoads >= 2;
    constexpr int kSteps = kLoads >= 2 ? kLoads / 2 : 1, kGroup = 128 * kSteps;
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
            const float4 a = *reinterpret_cast<const float4*>(a_chunk + r * chunk + p);
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
    __syncthreads();  // (every warp is done with this chunk before its buffer is filled again)
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
