#pragma once
// Split-K on the cooperative Hopper kernel: a tile's k range cut into `splits` slices that different
// blocks compute at once, for shapes with too few tiles to fill the GPU (decode: 16 x 4096 x 4096 is
// 32 tiles of 64 x 128; weight gradients: 384 x 384 x 65536 is 9 tiles of 128 x 128).
//
// Every block stores its slice's accumulators, as they lie in its threads' registers, into a
// workspace of fp32 partial tiles and counts itself in on the tile's counter; the block that counts
// last adds the slices in slice order and runs the tile's epilogue (detail/slice_sums.cuh: results
// bitwise reproducible from call to call).
//
// The tail split: where a call's tiles make whole rounds of the SMs and a last, partial one, the
// whole rounds run whole tiles and only the last round's tiles are cut, into as many slices as
// fill that round (`whole`: the tiles before them; 4096 x 2112 is 4 rounds and 16 tiles of 128 x
// 128 on 132 SMs: the 16 in 8 slices each).
//
// The separate fixup (SplitKWork::separate): the last block of a tile reads every slice's partial
// tile alone, at the rate one SM reads L2 (9 tiles of 128 x 128 in 12 slices: 768 KB for one block,
// longer than its slice's math). With many slices the blocks only store their partial tiles, and
// split_k_fixup_kernel, launched after the kernel, adds them: each tile by as many blocks as a
// consumer thread holds chunks of 4 accumulators, each block one chunk, in slice order (the same
// sums, bitwise), and stores it with the register epilogue. No counters, so no memset before the
// call either.
#include <cstdint>
#include "../detail/slice_sums.cuh"
#include "../ptx/grid_dependency.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/tma.cuh"
#include "barriers.cuh"
#include "epilogue.cuh"
#include "scheduler.cuh"

namespace gemm::sm90 {

// What the kernel is given: splits == 1 means no split-K (and no workspace).
struct SplitKWork {
  int splits = 1;
  int whole = 0;                 // tiles computed whole, before the split ones
  float* partials = nullptr;     // (tiles - whole) x splits partial tiles (SplitKPartials::kFloats each)
  unsigned* counters = nullptr;  // one per split tile, 0 between calls (not with `separate`)
  bool separate = false;         // the partial tiles are added by split_k_fixup_kernel after the kernel
};

template <class Shape>
struct SplitKPartials {
  static constexpr int kRegs = Shape::kMmaM * Shape::kAccRegs;  // accumulators per consumer thread
  static constexpr int kChunks = kRegs / 4;                      // float4 pieces of them
  static constexpr int kFloats = Shape::kConsumers * 128 * kRegs;
  static_assert(Shape::kAccRegs % 4 == 0, "Split-K moves accumulators in groups of 4.");

  // Piece q of consumer c's thread t in a partial tile: each store instruction of a warp writes
  // 512 contiguous bytes.
  __device__ static float4* piece(float* tile, int consumer, int q, int t) {
    return reinterpret_cast<float4*>(tile) + (consumer * kChunks + q) * 128 + t;
  }
};

// A split tile's partial tiles: slice s's at split_partials(sk, tile_index) + s * kFloats.
template <class Shape>
__device__ __forceinline__ float* split_partials(const SplitKWork& sk, long long tile_index) {
  return sk.partials + tile_index * sk.splits * static_cast<long long>(SplitKPartials<Shape>::kFloats);
}

// This thread's accumulators into its slice's partial tile (rows_in: it holds rows of C).
template <class Shape>
__device__ __forceinline__ void store_partial(const float (&acc)[Shape::kMmaM][Shape::kAccRegs], const SplitKWork& sk,
                                              long long tile_index, int split, int consumer, bool rows_in) {
  using P = SplitKPartials<Shape>;
  if (!rows_in) return;
  const int t = threadIdx.x % 128;
  float* mine = split_partials<Shape>(sk, tile_index) + static_cast<long long>(split) * P::kFloats;
#pragma unroll
  for (int q = 0; q < P::kChunks; ++q) {
    const int mi = (4 * q) / Shape::kAccRegs, i = (4 * q) % Shape::kAccRegs;
    *P::piece(mine, consumer, q, t) = make_float4(acc[mi][i], acc[mi][i + 1], acc[mi][i + 2], acc[mi][i + 3]);
  }
}

// This thread's accumulators: the sum of every slice's, in slice order.
template <class Shape>
__device__ __forceinline__ void add_partials(float (&acc)[Shape::kMmaM][Shape::kAccRegs], const float* tiles,
                                             int splits, int consumer) {
  using P = SplitKPartials<Shape>;
  const int t = threadIdx.x % 128;
  // Slice by slice, each slice's pieces loaded together (one trip to L2 per slice, not per piece).
  for (int s = 0; s < splits; ++s) {
    const float* slice = tiles + static_cast<long long>(s) * P::kFloats;
#pragma unroll
    for (int q = 0; q < P::kChunks; ++q) {
      const float4 v = __ldcg(P::piece(const_cast<float*>(slice), consumer, q, t));
      const int mi = (4 * q) / Shape::kAccRegs, i = (4 * q) % Shape::kAccRegs;
      if (s == 0) {
        acc[mi][i] = v.x, acc[mi][i + 1] = v.y, acc[mi][i + 2] = v.z, acc[mi][i + 3] = v.w;
      } else {
        acc[mi][i] += v.x, acc[mi][i + 1] += v.y, acc[mi][i + 2] += v.z, acc[mi][i + 3] += v.w;
      }
    }
  }
}

// After the mainloop of a split-K unit: true when this block is the tile's last and acc now holds
// the sum of every slice (the caller stores the tile); false when another block will. tile_index:
// the tile's place among the split tiles (WorkUnit::slot). rows_in: this
// thread holds rows of C inside the matrix (the others' accumulators are never stored, so they are
// neither written nor read). flag: a word of shared memory for the block's verdict.
template <class Shape>
__device__ bool split_k_reduce(float (&acc)[Shape::kMmaM][Shape::kAccRegs], const SplitKWork& sk, long long tile_index,
                               int split, int consumer, bool rows_in, int* flag) {
  float* tiles = split_partials<Shape>(sk, tile_index);
  store_partial<Shape>(acc, sk, tile_index, split, consumer, rows_in);
  const auto consumers_sync = [] { ptx::named_barrier_sync(kSplitKBarrier, 128 * Shape::kConsumers); };
  const bool leader = threadIdx.x == 128;  // the first consumer thread
  if (!detail::counted_in_last(sk.counters + tile_index, sk.splits, leader, flag, consumers_sync)) return false;
  if (rows_in) add_partials<Shape>(acc, tiles, sk.splits, consumer);
  detail::reset_slice_counter(sk.counters + tile_index, leader);
  return true;
}

// The separate fixup: block x adds chunk x % kChunks of every consumer thread's accumulators (4 of
// them, one n8 column group of two rows) of split tile x / kChunks (whole + that index in the
// raster order, as the scheduler numbers them), over every slice in slice order, and stores it: a
// block of 128 x Consumers threads mirrors the consumers of the kernel, each thread reading what
// its twin stored, four slices' loads in flight at a time. Launched with programmatic dependent
// launch: it waits for the kernel first.
template <class Args, class Shape, class Raster>
__global__ void __launch_bounds__(128 * Shape::kConsumers)
    split_k_fixup_kernel(const Args params, const SplitKWork sk) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using P = SplitKPartials<Shape>;
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
  const int tiles_m = (params.m + Shape::BM - 1) / Shape::BM, tiles_n = (params.n + Shape::BN - 1) / Shape::BN;
  const int slot = static_cast<int>(blockIdx.x) / P::kChunks, q = static_cast<int>(blockIdx.x) % P::kChunks;
  int tile_m, tile_n;
  Raster::tile(sk.whole + slot, tiles_m, tiles_n, tile_m, tile_n);
  const int consumer = threadIdx.x / 128, t = threadIdx.x % 128, row = consumer * Shape::kWgRows;
  // (Rows of this thread: its warp's 16 from row + 16 * warp, each m64 block 64 further on.)
  if (tile_m * Shape::BM + row + 16 * ((threadIdx.x / 32) % 4) >= params.m) return;
  const float* first = split_partials<Shape>(sk, slot);
  float4 sum = __ldcg(P::piece(const_cast<float*>(first), consumer, q, t));
#pragma unroll 4
  for (int s = 1; s < sk.splits; ++s) {
    const float4 v = __ldcg(P::piece(const_cast<float*>(first) + static_cast<long long>(s) * P::kFloats, consumer, q, t));
    sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
  }
  float acc[Shape::kMmaM][Shape::kAccRegs];
  constexpr int kGroups = Shape::kAccRegs / 4;  // chunks (n8 column groups) per m64 block
#pragma unroll
  for (int c = 0; c < P::kChunks; ++c) {  // (into registers the epilogue indexes at compile time)
    const int mi = c / kGroups, i = 4 * (c % kGroups);
    acc[mi][i] = sum.x, acc[mi][i + 1] = sum.y, acc[mi][i + 2] = sum.z, acc[mi][i + 3] = sum.w;
  }
  const int mi = q / kGroups, g = q % kGroups;
  const bool pairs = pairs_aligned(params);
#pragma unroll
  for (int m = 0; m < Shape::kMmaM; ++m)
    if (m == mi)
      store_block<Shape::BN>(acc[m], params, tile_m * Shape::BM + row + 64 * m, tile_n * Shape::BN, pairs, g, g + 1);
#else
  (void)params, (void)sk;
  __trap();  // unreachable: the host launches this only on sm_90 with sm_90a code present
#endif
}

}  // namespace gemm::sm90
