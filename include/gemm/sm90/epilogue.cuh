#pragma once
// The Hopper epilogues: C = epilogue(alpha * acc + beta * C) from the wgmma accumulators (epilogue.cuh:
// bias and activation of a fused call, the identity otherwise).
//
// store_block (any C, any beta): straight from registers. A lane holds pairs of neighbouring
// columns (see ptx/wgmma_ops.cuh), so where C's rows allow it a pair moves as one 4-byte (bf16,
// fp16) or 8-byte (float) access; every element is bounds-checked on its own row and column, and
// beta == 0 never reads C.
// store_block_tma (beta == 0, C as TMA needs it): the warpgroup writes 64-row chunks of 128-byte
// rows into two swizzled shared buffers in turn and one thread hands each chunk to the TMA engine,
// which writes it to C while the warps go on: with a persistent kernel, the stores drain under the
// next tile's mainloop. TMA drops rows past the matrix, but along a row it clips only to 16 bytes
// (measured: n = 63 bf16 columns wrote column 63), so a tile whose columns end inside a row that
// is not a whole number of 16 bytes must use store_block.
#include <cstdint>
#include <cuda.h>
#include "../epilogue.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../types.cuh"

namespace gemm::sm90 {

template <class Out>
struct alignas(2 * sizeof(Out)) Pair {
  Out x, y;
};

// acc: one warpgroup's 64 x BN block at (row0, col0) of C, in the m64nBN fragment layout.
template <int BN, class Args>
__device__ __forceinline__ void store_block(const float (&acc)[BN / 2], const Args& args, int row0, int col0,
                                            bool pairs) {
  using Out = typename Args::Output;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int r = row0 + warp * 16 + lane / 4;
  const int c0 = col0 + 2 * (lane % 4);
  const float alpha = args.alpha, beta = args.beta;
  const bool read_c = beta != 0.0f;
  const auto& epi = detail::epilogue_of(args);
#pragma unroll
  for (int g = 0; g < BN / 8; ++g) {
    const int col = c0 + 8 * g;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r + 8 * h;
      if (row >= args.m || col >= args.n) continue;
      Out* c = args.C + static_cast<long long>(row) * args.ldc + col;
      float v0 = alpha * acc[4 * g + 2 * h], v1 = alpha * acc[4 * g + 2 * h + 1];
      if (pairs && col + 1 < args.n) {
        Pair<Out> p;
        if (read_c) {
          p = *reinterpret_cast<const Pair<Out>*>(c);
          v0 += beta * detail::convert<float>(p.x);
          v1 += beta * detail::convert<float>(p.y);
        }
        p.x = detail::convert<Out>(epi(v0, row, col));
        p.y = detail::convert<Out>(epi(v1, row, col + 1));
        *reinterpret_cast<Pair<Out>*>(c) = p;
      } else {
        if (read_c) v0 += beta * detail::convert<float>(c[0]);
        c[0] = detail::convert<Out>(epi(v0, row, col));
        if (col + 1 < args.n) {
          if (read_c) v1 += beta * detail::convert<float>(c[1]);
          c[1] = detail::convert<Out>(epi(v1, row, col + 1));
        }
      }
    }
  }
}

// One chunk of the TMA-store epilogue: 64 rows of 128 bytes (64 bf16/fp16 or 32 float columns),
// laid out with the 128-byte swizzle so that a warp's pair stores hit 32 different banks.
template <class Out>
struct StoreChunk {
  static constexpr int kRows = 64;
  static constexpr int kCols = 128 / static_cast<int>(sizeof(Out));
  static constexpr int kBytes = kRows * 128;
  __device__ static int offset(int row, int byte) { return row * 128 + (((byte >> 4) ^ (row & 7)) << 4) + (byte & 15); }
};

// acc: one warpgroup's 64 x BN block at (row0, col0) of C. bufs: two StoreChunk buffers, 1024-byte
// aligned; barrier: a named barrier id of this warpgroup alone. kRank3: map_c is a batch, z the entry.
template <int BN, bool kRank3 = false, class Args>
__device__ __forceinline__ void store_block_tma(const float (&acc)[BN / 2], const Args& args, const CUtensorMap* map_c,
                                                char* bufs, int row0, int col0, int barrier, int z = 0) {
  using Out = typename Args::Output;
  using Chunk = StoreChunk<Out>;
  constexpr int kChunks = BN / Chunk::kCols;
  constexpr int kGroups = Chunk::kCols / 8;  // n8 accumulator groups per chunk
  static_assert(BN % Chunk::kCols == 0,
                "TMA-store epilogue: BN must be a whole number of 128-byte chunks (a multiple of 64 for bf16/fp16 C, "
                "of 32 for float C).");
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const bool leader = threadIdx.x % 128 == 0;
  const int r = warp * 16 + lane / 4;
  const int pair_byte = 2 * (lane % 4) * static_cast<int>(sizeof(Out));
  const auto& epi = detail::epilogue_of(args);
  // Pair (j, g, h): columns 8 g + 2 (lane % 4) (+1) of chunk j, row r + 8 h.
  const auto pair_at = [&](int j, int g, int h) {
    const int i = 4 * (j * kGroups + g) + 2 * h;
    // TMA drops what lies outside D, but the epilogue still sees those elements: clamp their
    // coordinates so that a bias or a caller's functor never reads past its vectors.
    const int row = min(row0 + r + 8 * h, args.m - 1);
    const int col = min(col0 + j * Chunk::kCols + 8 * g + 2 * (lane % 4), args.n - 2);
    Pair<Out> p;
    p.x = detail::convert<Out>(epi(args.alpha * acc[i], row, col));
    p.y = detail::convert<Out>(epi(args.alpha * acc[i + 1], row, col + 1));
    return p;
  };
  // A fused epilogue's pairs are all computed before the first store: its loads (a bias) then issue
  // together, instead of each waiting behind the shared-memory stores before it, across which the
  // compiler cannot move a load (measured: bias + GELU at 4096^3 took 1.7x the plain call).
  constexpr bool kEarly = detail::has_epilogue<Args>;
  Pair<Out> early[kEarly ? kChunks * kGroups * 2 : 1];
  if constexpr (kEarly) {
#pragma unroll
    for (int j = 0; j < kChunks; ++j)
#pragma unroll
      for (int g = 0; g < kGroups; ++g)
#pragma unroll
        for (int h = 0; h < 2; ++h) early[(j * kGroups + g) * 2 + h] = pair_at(j, g, h);
  }
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    char* buf = bufs + (j % 2) * Chunk::kBytes;
    // This buffer was last read by the store of chunk j - 2 (of this tile or the last): at most the
    // store of chunk j - 1 may still be reading its own buffer. With an odd chunk count the buffers'
    // turns shift from tile to tile, so a tile's first chunk waits for every store.
    if (leader) {
      if (kChunks % 2 == 1 && j == 0)
        ptx::bulk_wait_read<0>();
      else
        ptx::bulk_wait_read<1>();
    }
    ptx::named_barrier_sync(barrier, 128);
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int byte = g * 8 * static_cast<int>(sizeof(Out)) + pair_byte;
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<Pair<Out>*>(buf + Chunk::offset(r + 8 * h, byte)) =
            kEarly ? early[(j * kGroups + g) * 2 + h] : pair_at(j, g, h);
    }
    ptx::fence_proxy_async();  // the writes above, before the TMA engine reads them
    ptx::named_barrier_sync(barrier, 128);
    if (leader) {
      if constexpr (kRank3)
        ptx::tma_store_3d(map_c, buf, col0 + j * Chunk::kCols, row0, z);
      else
        ptx::tma_store_2d(map_c, buf, col0 + j * Chunk::kCols, row0), (void)z;
      ptx::bulk_commit();
    }
  }
}

// Whether every column pair (even column) of C starts on a pair boundary.
template <class Args>
__host__ __device__ inline bool pairs_aligned(const Args& args) {
  using Out = typename Args::Output;
  return reinterpret_cast<std::uintptr_t>(args.C) % (2 * sizeof(Out)) == 0 && args.ldc % 2 == 0;
}

}  // namespace gemm::sm90
