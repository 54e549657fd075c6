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
#include <cstdint>
#include "../detail/slice_sums.cuh"
#include "../ptx/mbarrier.cuh"
#include "barriers.cuh"
#include "scheduler.cuh"

namespace gemm::sm90 {

// What the kernel is given: splits == 1 means no split-K (and no workspace).
struct SplitKWork {
  int splits = 1;
  int whole = 0;                 // tiles computed whole, before the split ones
  float* partials = nullptr;     // (tiles - whole) x splits partial tiles (SplitKPartials::kFloats each)
  unsigned* counters = nullptr;  // one per split tile, 0 between calls
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

// After the mainloop of a split-K unit: true when this block is the tile's last and acc now holds
// the sum of every slice (the caller stores the tile); false when another block will. tile_index:
// the tile's place among the split tiles (WorkUnit::slot). rows_in: this
// thread holds rows of C inside the matrix (the others' accumulators are never stored, so they are
// neither written nor read). flag: a word of shared memory for the block's verdict.
template <class Shape>
__device__ bool split_k_reduce(float (&acc)[Shape::kMmaM][Shape::kAccRegs], const SplitKWork& sk, long long tile_index,
                               int split, int consumer, bool rows_in, int* flag) {
  using P = SplitKPartials<Shape>;
  const int t = threadIdx.x % 128;
  float* tiles = sk.partials + tile_index * sk.splits * static_cast<long long>(P::kFloats);
  if (rows_in) {
    float* mine = tiles + static_cast<long long>(split) * P::kFloats;
#pragma unroll
    for (int q = 0; q < P::kChunks; ++q) {
      const int mi = (4 * q) / Shape::kAccRegs, i = (4 * q) % Shape::kAccRegs;
      *P::piece(mine, consumer, q, t) = make_float4(acc[mi][i], acc[mi][i + 1], acc[mi][i + 2], acc[mi][i + 3]);
    }
  }
  const auto consumers_sync = [] { ptx::named_barrier_sync(kSplitKBarrier, 128 * Shape::kConsumers); };
  const bool leader = threadIdx.x == 128;  // the first consumer thread
  if (!detail::counted_in_last(sk.counters + tile_index, sk.splits, leader, flag, consumers_sync)) return false;
  if (rows_in) {
    // Slice by slice, each slice's pieces loaded together (one trip to L2 per slice, not per piece).
    for (int s = 0; s < sk.splits; ++s) {
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
  detail::reset_slice_counter(sk.counters + tile_index, leader);
  return true;
}

}  // namespace gemm::sm90
