#pragma once
// The Hopper epilogues: C = epilogue(alpha * acc + beta * C) from the wgmma accumulators (epilogue.cuh:
// bias and activation of a fused call, the identity otherwise).
//
// store_block (any C, any beta): straight from registers (and the only way for FP8 C, for an FP8
// call that scales its output or asks for its amax: OutputStage, and for a call turned around:
// detail::Turned). A lane holds pairs of neighbouring columns (see ptx/wgmma_ops.cuh), so where C's
// rows allow it a pair moves as one 4-byte (bf16, fp16) or 8-byte (float) access; every element is
// bounds-checked on its own row and column, and beta == 0 never reads C.
// store_block_staged (beta == 0): the warpgroup writes 64-row chunks of 128-byte rows into two
// swizzled shared buffers in turn, and then either
//   CStore::Tma:    one thread hands each chunk to the TMA engine, which writes it to C while the
//                   warps go on: with a persistent kernel, the stores drain under the next tile's
//                   mainloop. TMA drops rows past the matrix, but along a row it clips only to 16
//                   bytes (measured: n = 63 bf16 columns wrote column 63), so a tile whose columns
//                   end inside a row that is not a whole number of 16 bytes goes the next way.
//   CStore::Direct: the warpgroup copies each chunk to C itself, a warp store per row of the
//                   chunk (store_chunk_direct): for a C that TMA cannot write (rows not 16-byte
//                   aligned: an odd ldc of bf16). From registers, a lane's elements lie on 8 rows,
//                   and with rows too odd for pairs a warp's store touched 32 sectors for 64 bytes
//                   (4096 x 4097 bf16: 150 us of stores, against a 180 us multiply); from the
//                   chunk a warp stores one row's 128 contiguous bytes.
#include <cstdint>
#include <cstring>
#include <cuda.h>
#include <type_traits>
#include <utility>
#include "../detail/turned.cuh"
#include "../epilogue.cuh"
#include "../ptx/tma.cuh"
#include "../scales.cuh"
#include "../ptx/wgmma.cuh"
#include "../types.cuh"
#include "tensor_map.cuh"

namespace gemm::sm90 {

template <class Out>
struct alignas(2 * sizeof(Out)) Pair {
  Out x, y;
};

// What becomes of a result on its way into C: converted to C's type (FP8: saturating); in an FP8
// call with scales, first multiplied by the D scale (1 without one), its magnitude noted for amax
// (scales.cuh: Scales::output).
template <class Args>
struct OutputStage {
  using Out = typename Args::Output;
  static constexpr bool kScaled = detail::has_scales<Args>;
  float d = 1.0f;
  float* amax = nullptr;
  float largest = 0.0f;  // this thread's largest |result| (fmaxf: NaN results do not count)

  __device__ explicit OutputStage(const Args& args) {
    if constexpr (kScaled) {
      const Scales& s = detail::scales_of(args);
      if (s.d != nullptr) d = __ldg(s.d);
      amax = s.amax;
    } else {
      (void)args;
    }
  }
  __device__ __forceinline__ Out operator()(float v) {
    if constexpr (kScaled) {
      largest = fmaxf(largest, fabsf(v));
      return detail::convert<Out>(v * d);
    } else {
      return detail::convert<Out>(v);
    }
  }
  // The warp's largest into *amax (every lane of the warp calls this). Magnitudes are non-negative,
  // so they order as their bit patterns do: an integer atomicMax.
  __device__ __forceinline__ void finish() const {
    if constexpr (kScaled) {
      if (amax == nullptr) return;
      float x = largest;
#pragma unroll
      for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
      if (threadIdx.x % 32 == 0) atomicMax(reinterpret_cast<int*>(amax), __float_as_int(x));
    }
  }
};

// Two neighbouring elements of a vector in one load (p: at a multiple of the pair's size).
template <class T>
__device__ __forceinline__ Pair<T> load_pair(const T* p) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "load_pair: elements of 1, 2 or 4 bytes.");
  using Word = std::conditional_t<sizeof(T) == 1, unsigned short,
                                  std::conditional_t<sizeof(T) == 2, unsigned int, unsigned long long>>;
  const Word w = __ldg(reinterpret_cast<const Word*>(p));
  Pair<T> pair;
  static_assert(sizeof(pair) == sizeof(w), "Pair<T>: two elements, no padding.");
  memcpy(&pair, &w, sizeof(w));
  return pair;
}

// A fused epilogue's bias per column for this thread's columns of a BN-wide tile at col0: columns
// col0 + 8 g + 2 (lane % 4) and the one after, g < BN / 8, held as the bias stores them (two 16-bit
// values to a register). A kernel loads them as it starts a unit, so that the loads are in flight
// under the mainloop, and store_block_staged reads them for each 64-row block of the tile. Before,
// each element's bias was loaded in the epilogue, per 64-row block: per column pair two loads, two
// clamps, two addresses and the bias kind tested (the fused ping-pong kernel's epilogue then issued
// 1.78x the instructions of the plain one). Where the tile's columns lie inside C and the bias is
// aligned to pairs, one load per pair at fixed offsets; else each column clamped to C's last.
// kActive false (no epilogue, or a kernel that does not store through store_block_staged): empty.
template <int BN, class Args, bool kActive = detail::has_epilogue<Args>>
struct ColumnBias {
  __device__ __forceinline__ void load(const Args&, int) {}
  __device__ __forceinline__ float x(int) const { return 0.0f; }
  __device__ __forceinline__ float y(int) const { return 0.0f; }
};
template <int BN, class Args>
struct ColumnBias<BN, Args, true> {
  using Bias = typename std::decay_t<decltype(detail::epilogue_of(std::declval<const Args&>()))>::BiasType;
  Pair<Bias> v[BN / 8];

  __device__ __forceinline__ void load(const Args& args, int col0) {
    const Bias* p = detail::epilogue_of(args).column_bias_vector();
    const int c = col0 + 2 * (threadIdx.x % 4);
    if (p == nullptr) {
#pragma unroll
      for (int g = 0; g < BN / 8; ++g) v[g].x = v[g].y = detail::convert<Bias>(0.0f);
    } else if (col0 + BN <= args.n && reinterpret_cast<std::uintptr_t>(p) % sizeof(Pair<Bias>) == 0) {
#pragma unroll
      for (int g = 0; g < BN / 8; ++g) v[g] = load_pair(p + c + 8 * g);
    } else {
#pragma unroll
      for (int g = 0; g < BN / 8; ++g) {
        v[g].x = detail::load_bias(p + min(c + 8 * g, args.n - 1));
        v[g].y = detail::load_bias(p + min(c + 8 * g + 1, args.n - 1));
      }
    }
  }
  __device__ __forceinline__ float x(int g) const { return detail::convert<float>(v[g].x); }
  __device__ __forceinline__ float y(int g) const { return detail::convert<float>(v[g].y); }
};

// acc: one warpgroup's 64 x BN block at (row0, col0) of C, in the m64nBN fragment layout; only its
// n8 column groups [g_begin, g_end) (split-K's separate fixup stores a tile in shares).
template <int BN, class Args>
__device__ __forceinline__ void store_block(const float (&acc)[BN / 2], const Args& args, int row0, int col0,
                                            bool pairs, int g_begin = 0, int g_end = BN / 8) {
  using Out = typename Args::Output;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int r = row0 + warp * 16 + lane / 4;
  const int c0 = col0 + 2 * (lane % 4);
  const float alpha = args.alpha, beta = args.beta;
  const bool read_c = beta != 0.0f;
  const auto& epi = detail::epilogue_of(args);
  OutputStage<Args> out(args);
#pragma unroll
  for (int g = 0; g < BN / 8; ++g) {
    if (g < g_begin || g >= g_end) continue;
    const int col = c0 + 8 * g;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r + 8 * h;
      if (row >= args.m || col >= args.n) continue;
      float v0 = alpha * acc[4 * g + 2 * h], v1 = alpha * acc[4 * g + 2 * h + 1];
      if constexpr (detail::is_turned<Args>) {
        // (row, col) of C^T is C's (col, row), and the epilogue's coordinates are C's: the pair's
        // elements lie a row of C apart, and the 8 lanes that share lane % 4 store 8 neighbours.
        Out* c = args.C + static_cast<long long>(col) * args.ldc + row;
        if (read_c) v0 += beta * detail::convert<float>(c[0]);
        c[0] = out(epi(v0, col, row));
        if (col + 1 < args.n) {
          c += args.ldc;
          if (read_c) v1 += beta * detail::convert<float>(c[0]);
          c[0] = out(epi(v1, col + 1, row));
        }
        continue;
      }
      Out* c = args.C + static_cast<long long>(row) * args.ldc + col;
      if (pairs && col + 1 < args.n) {
        Pair<Out> p;
        if (read_c) {
          p = *reinterpret_cast<const Pair<Out>*>(c);
          v0 += beta * detail::convert<float>(p.x);
          v1 += beta * detail::convert<float>(p.y);
        }
        p.x = out(epi(v0, row, col));
        p.y = out(epi(v1, row, col + 1));
        *reinterpret_cast<Pair<Out>*>(c) = p;
      } else {
        if (read_c) v0 += beta * detail::convert<float>(c[0]);
        c[0] = out(epi(v0, row, col));
        if (col + 1 < args.n) {
          if (read_c) v1 += beta * detail::convert<float>(c[1]);
          c[1] = out(epi(v1, row, col + 1));
        }
      }
    }
  }
  out.finish();
}

// One chunk of the TMA-store epilogue: 64 rows of 128 bytes (64 bf16/fp16 or 32 float columns),
// laid out with the 128-byte swizzle so that a warp's pair stores hit 32 different banks. A tile
// whose rows are an odd number of 64-byte halves (96 bf16 columns) goes in chunks of 64-byte rows
// with the 64-byte swizzle (16-byte piece p of row r at p ^ (r / 2 % 4)), which spreads a warp's
// pair stores over the 32 banks as well. TMA's map of C takes the same box and swizzle (make_c_map).
template <class Out, int RowBytes = 128>
struct StoreChunk {
  static_assert(RowBytes == 128 || RowBytes == 64, "StoreChunk: rows of 128 or 64 bytes.");
  static constexpr int kRows = 64;
  static constexpr int kRowBytes = RowBytes;
  static constexpr int kCols = kRowBytes / static_cast<int>(sizeof(Out));
  static constexpr int kBytes = kRows * kRowBytes;
  __device__ static int offset(int row, int byte) {
    const int swizzle = kRowBytes == 128 ? row & 7 : (row >> 1) & 3;
    return row * kRowBytes + (((byte >> 4) ^ swizzle) << 4) + (byte & 15);
  }
};

// The chunks a BN-wide tile's rows of Out are stored in: 128-byte rows where they divide it.
template <class Out, int BN>
using StoreChunkFor = StoreChunk<Out, (BN * static_cast<int>(sizeof(Out))) % 128 == 0 ? 128 : 64>;

// CStore::Direct: a warpgroup copies one StoreChunk at (row0, col0) of C to C. Warp w takes rows
// w, w + 4, ..., w + 60, a row per store instruction, so a warp's store covers one row's 128 bytes.
// Rows of 16-bit C: lane l moves the 4-byte pair at 2 l. A row that starts 2 bytes off a 4-byte
// boundary (every other row of an odd ldc; rows 4 apart share it) stores the pairs (1, 2) ...
// (61, 62) built with a funnel shift from its own and the next lane's pair, lane 0 element 0 and
// lane 31 element 63 alone. Measured: the first version (two 2-byte shared loads and the
// addresses recomputed per element) issued ~750 instructions per warp and chunk, and the consumers
// issue them while the tensor cores wait (4096^3 with ldc 4097: +30 us against TMA stores).
// A chunk that crosses C's edge takes the element-by-element loop.
template <class Out, class Chunk, class Args>
__device__ __forceinline__ void store_chunk_direct(const char* buf, const Args& args, int row0, int col0) {
  constexpr int kRowsPerWarp = Chunk::kRows / 4;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const long long ldc = args.ldc;
  Out* first = args.C + (row0 + warp) * ldc + col0;
  const bool whole = row0 + Chunk::kRows <= args.m && col0 + Chunk::kCols <= args.n;
  // Byte offset in the chunk of 4 bytes at column byte b of row warp + 4 i: rows 8 apart repeat the swizzle.
  const auto offset = [&](int i, int b) { return Chunk::offset(warp + 4 * (i % 2), b) + (i / 2) * 8 * 128; };
  if constexpr (Chunk::kRowBytes != 128) {
    // (64-byte rows: the element loop below.)
  } else if constexpr (sizeof(Out) == 2) {
    if (whole) {
      const bool odd = reinterpret_cast<std::uintptr_t>(first) % 4 != 0;  // the same for rows 4 apart
      const int even_offset = offset(0, 4 * lane), odd_offset = offset(1, 4 * lane);
      if (!odd) {
#pragma unroll
        for (int i = 0; i < kRowsPerWarp; ++i) {
          const auto w = *reinterpret_cast<const std::uint32_t*>(buf + (i % 2 ? odd_offset : even_offset) + (i / 2) * 1024);
          *reinterpret_cast<std::uint32_t*>(first + 4 * i * ldc + 2 * lane) = w;
        }
      } else {
#pragma unroll
        for (int i = 0; i < kRowsPerWarp; ++i) {
          const auto w = *reinterpret_cast<const std::uint32_t*>(buf + (i % 2 ? odd_offset : even_offset) + (i / 2) * 1024);
          const std::uint32_t next = __shfl_down_sync(0xffffffffu, w, 1);
          Out* row = first + 4 * i * ldc;
          if (lane < 31) *reinterpret_cast<std::uint32_t*>(row + 2 * lane + 1) = __funnelshift_r(w, next, 16);
          if (lane == 0) *reinterpret_cast<std::uint16_t*>(row) = static_cast<std::uint16_t>(w);
          if (lane == 31) *reinterpret_cast<std::uint16_t*>(row + 63) = static_cast<std::uint16_t>(w >> 16);
        }
      }
      return;
    }
  } else {
    static_assert(Chunk::kCols == 32, "store_chunk_direct: 32 float columns per chunk row.");
    if (whole) {
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; ++i)
        first[4 * i * ldc + lane] = *reinterpret_cast<const Out*>(buf + offset(i, 4 * lane));
      return;
    }
  }
  for (int i = 0; i < kRowsPerWarp; ++i) {
    if (row0 + warp + 4 * i >= args.m) break;
    for (int c = lane; c < Chunk::kCols && col0 + c < args.n; c += 32)
      first[4 * i * ldc + c] =
          *reinterpret_cast<const Out*>(buf + Chunk::offset(warp + 4 * i, c * static_cast<int>(sizeof(Out))));
  }
}

// How a warp-specialised kernel's consumers store C (the host picks, per call; see store_block_staged).
enum class CStore : int { Registers, Tma, Direct };

// acc: one warpgroup's 64 x BN block at (row0, col0) of C; bias: the tile's column bias (col0's).
// bufs: two StoreChunk buffers, 1024-byte aligned; barrier: a named barrier id of this warpgroup
// alone. kMode: CStore::Tma (through map_c, of kRank dimensions, the entry at `at` in it) or
// CStore::Direct (to args.C: map_c is not read).
template <int BN, CStore kMode, int kRank = 2, class Args>
__device__ __forceinline__ void store_block_staged(const float (&acc)[BN / 2], const Args& args,
                                                   const ColumnBias<BN, Args>& bias, const CUtensorMap* map_c,
                                                   char* bufs, int row0, int col0, int barrier, MapPlace at = {}) {
  static_assert(kMode == CStore::Tma || kMode == CStore::Direct, "store_block_staged: Tma or Direct.");
  static_assert(!detail::is_turned<Args>, "store_block_staged: a turned-around call stores from registers.");
  using Out = typename Args::Output;
  using Chunk = StoreChunkFor<Out, BN>;
  constexpr int kChunks = BN / Chunk::kCols;
  constexpr int kGroups = Chunk::kCols / 8;  // n8 accumulator groups per chunk
  static_assert(BN % Chunk::kCols == 0,
                "TMA-store epilogue: BN must be a whole number of 64-byte chunks (a multiple of 32 for bf16/fp16 C, "
                "of 16 for float C).");
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const bool leader = threadIdx.x % 128 == 0;
  const int r = warp * 16 + lane / 4;
  const int pair_byte = 2 * (lane % 4) * static_cast<int>(sizeof(Out));
  const auto& epi = detail::epilogue_of(args);
  // A fused epilogue's bias in split form (see detail::hoisted): this thread's two rows' terms once per
  // block, the columns' from `bias`. Elements outside C are computed but never stored: their
  // coordinates are clamped so that a bias or a caller's functor never reads past its vectors. (Each
  // column on its own: with an odd n, the last column's pair partner lies outside C.)
  const int rows[2] = {min(row0 + r, args.m - 1), min(row0 + r + 8, args.m - 1)};
  const float row_bias[2] = {epi.template row_bias<float>(rows[0]), epi.template row_bias<float>(rows[1])};
  // Pairs (j, g, 0) and (j, g, 1): columns 8 g + 2 (lane % 4) (+1) of chunk j, rows r and r + 8.
  const auto pairs_at = [&](int j, int g, Pair<Out> (&p)[2]) {
    const int i = 4 * (j * kGroups + g);
    const int col = col0 + j * Chunk::kCols + 8 * g + 2 * (lane % 4);
    const int cx = min(col, args.n - 1), cy = min(col + 1, args.n - 1);
    const float bx = bias.x(j * kGroups + g), by = bias.y(j * kGroups + g);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      p[h].x = detail::convert<Out>(detail::hoisted(epi, args.alpha, acc[i + 2 * h], row_bias[h], bx, rows[h], cx));
      p[h].y = detail::convert<Out>(detail::hoisted(epi, args.alpha, acc[i + 2 * h + 1], row_bias[h], by, rows[h], cy));
    }
  };
  // (The pairs are computed chunk by chunk, between its stores. A fused epilogue's pairs were once all
  // computed first, so that their bias loads issued together instead of each behind the shared-memory
  // stores before it (bias + GELU at 4096^3 took 1.7x the plain call); the column bias now comes
  // loaded, and computing early measured no faster: design/epilogue.md.)
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    char* buf = bufs + (j % 2) * Chunk::kBytes;
    // This buffer was last read by the store of chunk j - 2 (of this tile or the last): at most the
    // store of chunk j - 1 may still be reading its own buffer. With an odd chunk count the buffers'
    // turns shift from tile to tile, so a tile's first chunk waits for every store. (Direct: the
    // warpgroup's own reads of chunk j - 2 are behind the barrier below.)
    if (kMode == CStore::Tma && leader) {
      if (kChunks % 2 == 1 && j == 0)
        ptx::bulk_wait_read<0>();
      else
        ptx::bulk_wait_read<1>();
    }
    ptx::named_barrier_sync(barrier, 128);
#pragma unroll
    for (int g = 0; g < kGroups; ++g) {
      const int byte = g * 8 * static_cast<int>(sizeof(Out)) + pair_byte;
      Pair<Out> p[2];
      pairs_at(j, g, p);
#pragma unroll
      for (int h = 0; h < 2; ++h) *reinterpret_cast<Pair<Out>*>(buf + Chunk::offset(r + 8 * h, byte)) = p[h];
    }
    const int c0 = col0 + j * Chunk::kCols;
    if constexpr (kMode == CStore::Tma) {
      ptx::fence_proxy_async();  // the writes above, before the TMA engine reads them
      ptx::named_barrier_sync(barrier, 128);
      if (leader) {
        // (No store of a chunk wholly outside C: TMA faults on one through an address map.)
        if (c0 < args.n && row0 < args.m) tma_store<kRank>(map_c, buf, c0, row0, at);
        ptx::bulk_commit();
      }
    } else {
      (void)map_c, (void)at;
      ptx::named_barrier_sync(barrier, 128);
      store_chunk_direct<Out, Chunk>(buf, args, row0, c0);
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
