#pragma once
// FP8 scales in the Hopper consumers (scales.cuh says what each mode means and how it is laid out).
//
// FP8 wgmma accumulates in the tensor cores with fewer bits than fp32 (measured by others: about 14
// of the 23 mantissa bits survive a long chain), so FP8 promotes: each stage's product (128 k, four
// m64nNk32 wgmmas chained), or each run of Scales::promote_every / 128 stages, lands in registers of
// its own and is added to the fp32 sum with ordinary adds (mainloop.cuh: promoted_step, and
// promoted_product for runs of several stages); calls that never promote run on tiles too wide for
// that (sm90/policy.cuh). The scales join there or after:
//   Block:           a stage is one k block of the scales, so its product is multiplied by its rows'
//                    A scales and its columns' B scale as it is added (one FMA per accumulator).
//                    Single products on two math warpgroups read the stage's scales from shared
//                    memory, where the producer copied them beside its tiles (BlockShape's scale
//                    slots); grouped calls load them from global memory as the stage's wgmmas are
//                    issued; one math warpgroup's tiles get them from the factor ring below.
//   Tensor, Rowwise: the scales do not vary along k, so the sum is multiplied once after the
//                    mainloop (OutputScales), before split-K's reduction and the epilogue; the
//                    products are added as they are, in a kernel of their own (kernels.cuh:
//                    kFixedScales); and nothing ties a product to one k block, so a product may span
//                    several stages (Scales::promote_every: fewer adds, longer sums in the tensor
//                    cores). BlockScalePromotion below serves these modes too (factors of 1), as
//                    the grouped calls use it.
#include "../args.cuh"
#include "../scales.cuh"
#include "../ptx/cp_async.cuh"
#include "barriers.cuh"
#include "mainloop.cuh"
#include "scheduler.cuh"

namespace gemm::sm90 {

// This thread's rows of its tile in a warpgroup's m64 block mi (the warpgroup's rows from `row`):
// lane / 4 and 8 more, in its warp's 16 (the accumulator layout, ptx/wgmma_ops.cuh).
__device__ __forceinline__ int tile_row(int row, int mi, int h) {
  return row + 64 * mi + 16 * ((threadIdx.x / 32) % 4) + (threadIdx.x % 32) / 4 + 8 * h;
}

// The same rows of C (tile tile_m), clamped into C so that rows past its edge read valid scales
// (their results are never stored).
template <class Shape>
__device__ __forceinline__ int scaled_row(int m, int tile_m, int row, int mi, int h) {
  const int r = tile_m * Shape::BM + tile_row(row, mi, h);
  return r < m ? r : m - 1;
}

// Block scales: floats from one k block of A's scales to the next (the caller's stride, else m).
template <class Args>
__device__ __forceinline__ long long a_scale_step(const Scales& sc, const Args& args) {
  return sc.a_step(args.m);
}

// Block scales: k block 0's scale of B's 128-column block nb (clamped into B) of a call's B.
template <class Args>
__device__ __forceinline__ const float* b_scale_column(const Scales& sc, const Args& args, int nb) {
  const int n_blocks = (args.n + kScaleBlock - 1) / kScaleBlock;
  return sc.b + min(nb, n_blocks - 1) * sc.b_step(args.k);
}

// Block scales that travel in the stages (BlockShape::kScaleSlots): what the producer copies for k
// block kb of the tile at (m0, n0): A's scales of the tile's rows (up to A's last, rounded up to 4:
// where m is not a multiple of 4 the scales are an aligned copy whose rows are padded), and the
// group of four of B's scales that holds kb's for the tile's columns. The host has made both 16-byte
// aligned (HopperPolicy::plan_staging: m and ceil(k / 128), or the copies' pitches, multiples of 4).
template <class Shape, class Args>
__device__ __forceinline__ StageScales stage_scales(const Args& args, int m0, int n0, int kb) {
  const Scales& sc = detail::scales_of(args);
  StageScales s;
  s.a = sc.a + static_cast<long long>(kb) * a_scale_step(sc, args) + m0;
  s.a_bytes = (4u * static_cast<unsigned>(min(Shape::BM, args.m - m0)) + 15u) & ~15u;  // (an aligned copy's pad)
  s.b = b_scale_column(sc, args, n0 / kScaleBlock) + (kb & ~3);
  return s;
}

// A factor of 1, read where a call's scales do not vary along k.
__device__ const float kUnitScale = 1.0f;

// A position in the ring of per-row factors (Stages::factors).
struct FactorRing {
  int slot = 0, phase = 0;
};

// The producer warpgroup's second warp, where a block's tiles have a factor ring (one math
// warpgroup: BlockShape::kFactorSlots): for every k block of the block's units, in the consumers'
// order, the tile's rows' factors a[kb][row] * b[n block][kb] (1 for other modes than Block) into the
// next slot, once the consumers have read what it held. Loading them here, not in the math
// warpgroup between its wgmmas: 64 x 8192 x 8192 with block scales 22% faster (H100); with two math
// warpgroups 1-3% slower, so those keep their loads (design/fp8.md).
template <class Shape, class Sched, class Args>
__device__ void produce_factors(const Stages<Shape>& st, const Sched& sched, const Args& params) {
  constexpr int kPer = Shape::BM / 32;
  static_assert(Shape::BM % 32 == 0, "FP8 factor ring: the tile's rows in whole rounds of a warp.");
  const int lane = threadIdx.x % 32;
  FactorRing ring;
  UnitCursor cursor;
  for (auto w = sched.template begin<false>(cursor); w < sched.count; w = sched.template next<false>(w, cursor)) {
    const WorkUnit u = sched.unit(w);
    decltype(auto) args = detail::entry_of(params, u.b);
    const Scales& sc = detail::scales_of(args);
    const bool block = sc.mode == ScaleMode::Block;
    const long long a_step = block ? a_scale_step(sc, args) : 0;
    const float* a = block ? sc.a : &kUnitScale;
    const float* b = block ? b_scale_column(sc, args, u.tile_n * Shape::BN / kScaleBlock) : &kUnitScale;
    int rows[kPer];  // this lane's rows of the tile, clamped into A (as scaled_row)
#pragma unroll
    for (int i = 0; i < kPer; ++i) rows[i] = block ? min(u.tile_m * Shape::BM + lane + 32 * i, args.m - 1) : 0;
    for (int kb = u.k_begin; kb < u.k_begin + u.k_blocks; ++kb) {
      const float bv = __ldg(b + (block ? kb : 0));
      float f[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) f[i] = __ldg(a + (block ? kb * a_step + rows[i] : 0)) * bv;
      ptx::mbarrier_wait(st.factor_empty(ring.slot), ring.phase ^ 1);  // the first pass finds every slot free
      float* dst = st.factors(ring.slot);
#pragma unroll
      for (int i = 0; i < kPer; ++i) dst[lane + 32 * i] = f[i];
      ptx::mbarrier_arrive(st.factor_full(ring.slot));  // (each lane: its own stores released)
      if (++ring.slot == Shape::kFactorSlots) ring.slot = 0, ring.phase ^= 1;
    }
  }
}

// The block scales' promotion: part times a[kb][row] * b[n block][kb] into acc.
template <class Shape>
struct BlockScalePromotion {
  static_assert(Shape::BK == kScaleBlock, "FP8 block scales: a stage is one 128-deep k block of the scales.");
  static_assert(Shape::BN % kScaleBlock == 0 || kScaleBlock % Shape::BN == 0,
                "FP8 block scales: the tile's width divides 128 or is a multiple of it, so that each 8-column "
                "group of accumulators lies in one 128-column block of B's scales.");
  static constexpr int kNBlocks = Shape::BN > kScaleBlock ? Shape::BN / kScaleBlock : 1;
  struct Factors {
    float s[Shape::kMmaM][2][kNBlocks];  // a[row] * b[block] for this thread's rows and the tile's blocks
  };
  static constexpr bool kRing = Shape::kFactorSlots > 0;
  static_assert(!kRing || kNBlocks == 1, "FP8 factor ring: one 128-column block of B's scales per tile.");
  // With scale slots the factors come from the stage (load_from_stage), read before its wgmmas.
  static constexpr bool kFromStage = Shape::kScaleSlots;
  static_assert(!kFromStage || kNBlocks == 1, "FP8 scale slots: one 128-column block of B's scales per tile.");
  int stages;                            // stages per product (mainloop.cuh: PlainPromotion)
  const float* a_rows[Shape::kMmaM][2];  // k block 0's scales of this thread's rows
  const float* b_blocks[kNBlocks];       // k block 0's scales of the tile's n blocks
  int a_step, b_step;                    // floats from one k block's scales to the next's
  // Other modes than Block read factors of 1 the same way (one float, steps of 0): no branch per stage.
  // With the factor ring (kRing): the factors are read from it instead, at these rows of the tile.
  const Stages<Shape>* st = nullptr;
  FactorRing* ring = nullptr;
  int local_rows[Shape::kMmaM][2];

  template <class Args>
  __device__ BlockScalePromotion(const Args& args, const WorkUnit& u, int row, const Stages<Shape>* st_,
                                 FactorRing* ring_)
      : st(st_), ring(ring_) {
    const Scales& sc = detail::scales_of(args);
    stages = sc.promote_stages();  // (1 with block scales: validate_scales refuses any other span)
    if constexpr (kRing || kFromStage) {
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) local_rows[mi][h] = tile_row(row, mi, h);
    } else {
      const bool block = sc.mode == ScaleMode::Block;
      a_step = block ? static_cast<int>(a_scale_step(sc, args)) : 0;
      b_step = block ? 1 : 0;
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          a_rows[mi][h] = block ? sc.a + scaled_row<Shape>(args.m, u.tile_m, row, mi, h) : &kUnitScale;
#pragma unroll
      for (int j = 0; j < kNBlocks; ++j)
        b_blocks[j] = block ? b_scale_column(sc, args, u.tile_n * Shape::BN / kScaleBlock + j) : &kUnitScale;
    }
  }

  __device__ __forceinline__ Factors load(int kb, int stage) const {
    if constexpr (kRing)
      return load_from_ring();
    else if constexpr (kFromStage)
      return load_from_stage(kb, stage);
    else
      return load_scales(kb);
  }

  // k block kb's factors from its stage's scale slot (rows past A's end read what the slot held
  // before: their results are never stored).
  __device__ __forceinline__ Factors load_from_stage(int kb, int stage) const {
    Factors f;
    const float* slot = st->scale_slot(stage);
    const float b = slot[Shape::BM + kb % 4];
#pragma unroll
    for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) f.s[mi][h][0] = slot[local_rows[mi][h]] * b;
    return f;
  }

  // The next slot of the ring (the producer's second warp fills the slots in the consumers' order
  // of k blocks), handed back as soon as its factors are in registers.
  __device__ __forceinline__ Factors load_from_ring() const {
    Factors f;
    ptx::mbarrier_wait(st->factor_full(ring->slot), ring->phase);
    const float* src = st->factors(ring->slot);
#pragma unroll
    for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) f.s[mi][h][0] = src[local_rows[mi][h]];
    ptx::mbarrier_arrive(st->factor_empty(ring->slot));
    if (++ring->slot == Shape::kFactorSlots) ring->slot = 0, ring->phase ^= 1;
    return f;
  }

  // k block kb's scales, loaded from global memory.
  __device__ __forceinline__ Factors load_scales(int kb) const {
    Factors f;
    float b[kNBlocks];
#pragma unroll
    for (int j = 0; j < kNBlocks; ++j) b[j] = __ldg(b_blocks[j] + static_cast<long long>(kb) * b_step);
#pragma unroll
    for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float a = __ldg(a_rows[mi][h] + static_cast<long long>(kb) * a_step);
#pragma unroll
        for (int j = 0; j < kNBlocks; ++j) f.s[mi][h][j] = a * b[j];
      }
    return f;
  }

  // Register 4g + 2h + e of an m64 block: row half h, columns 8g + ...: the tile's n block 8g / 128.
  template <class S>
  __device__ __forceinline__ void add(float (&acc)[S::kMmaM][S::kAccRegs], const float (&part)[S::kMmaM][S::kAccRegs],
                                      const Factors& f) const {
#pragma unroll
    for (int mi = 0; mi < S::kMmaM; ++mi)
#pragma unroll
      for (int g = 0; g < S::kAccRegs / 4; ++g) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float s = f.s[mi][h][(8 * g) / kScaleBlock];
#pragma unroll
          for (int e = 0; e < 2; ++e) acc[mi][4 * g + 2 * h + e] = fmaf(part[mi][4 * g + 2 * h + e], s, acc[mi][4 * g + 2 * h + e]);
        }
      }
  }
};

// The promotion a call's consumers use: the block scales' where the call carries scales, else plain
// (a product per stage).
template <class Shape, class Args>
__device__ __forceinline__ auto promotion_for(const Args& args, const WorkUnit& u, int row, const Stages<Shape>* st,
                                              FactorRing* ring) {
  if constexpr (detail::has_scales<Args>)
    return BlockScalePromotion<Shape>(args, u, row, st, ring);
  else
    return (void)args, (void)u, (void)row, (void)st, (void)ring, PlainPromotion{};
}

// Tensor and Rowwise scales, applied once the sum is complete: acc(r, c) *= a[r or 0] * b[c or 0].
// Row scales on tiles with room for them (BlockShape::kOutputScaleBytes): each math warpgroup copies
// the unit's column scales and its rows' scales into its slot in shared memory with cp.async as the
// unit's mainloop starts, and reads them after it. Loaded after the mainloop instead (34 loads a
// thread) they held the tensor cores idle: row scales' calls ran 2-7% slower than tensor scales' on
// squares and up to 44% on wide calls with short k (16384 x 32768 x 512). One slot for both
// warpgroups, with barriers across them, cost tensor scales 3-5% (the warpgroups drift apart by up to
// the ring's stages); registers loaded before the mainloop spilled (design/fp8.md). Tensor scales are
// two floats, loaded after the mainloop. Every thread of a math warpgroup calls copy and apply.
template <class Shape>
struct OutputScales {
  static constexpr bool kStaged = Shape::kOutputScaleBytes > 0;
  static constexpr int kFloats = Shape::BN + Shape::kWgRows;  // (a warpgroup's slot)
  static_assert(!kStaged || Shape::kOutputScaleBytes == 4 * kFloats * Shape::kConsumers,
                "OutputScales: a slot per math warpgroup of its tile's columns and its rows (BlockShape::kOutputScaleBytes).");
  static_assert(Shape::kOutputScalesFit,
                "OutputScales: the FP8 output scales' slots cost this block shape a stage; give them room elsewhere "
                "or leave the shape without them (BlockShape::kOutputScaleBytes).");

  // The calling thread's warpgroup's slot: the BN columns' scales of B, then its kWgRows rows' of A.
  // (Found from the stages when needed: a pointer kept across the mainloop took registers from it.)
  __device__ static float* slot(const Stages<Shape>& st) {
    return st.output_scales() + (static_cast<int>(threadIdx.x) / 128 - 1) * kFloats;
  }

  // row: the warpgroup's first row in the tile.
  template <class Args>
  __device__ static __forceinline__ void copy(const Stages<Shape>& st, const Args& args, const WorkUnit& u, int row) {
    if constexpr (kStaged) {
      const Scales& sc = detail::scales_of(args);
      if (sc.mode != ScaleMode::Rowwise) return;
      float* const slot = OutputScales::slot(st);
      const int n0 = u.tile_n * Shape::BN, m0 = u.tile_m * Shape::BM + row - Shape::BN;  // (each clamped into C)
      for (int i = threadIdx.x % 128; i < kFloats; i += 128)
        detail::cp_async<4>(slot + i, i < Shape::BN ? sc.b + min(n0 + i, args.n - 1) : sc.a + min(m0 + i, args.m - 1), 4);
      detail::cp_async_commit();
    }
  }

  template <class Args>
  __device__ static __forceinline__ void apply(float (&acc)[Shape::kMmaM][Shape::kAccRegs], const Stages<Shape>& st,
                                               const Args& args, const WorkUnit& u, int row) {
    const Scales& sc = detail::scales_of(args);
    if (sc.mode == ScaleMode::Block) return;
    if (sc.mode == ScaleMode::Tensor) {
      const float f = __ldg(sc.a) * __ldg(sc.b);
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int i = 0; i < Shape::kAccRegs; ++i) acc[mi][i] *= f;
      return;
    }
    // This thread's columns 8g + 2 (lane % 4) + e and rows tile_row(row, mi, h).
    float2 b[Shape::kAccRegs / 4];
    float a[Shape::kMmaM][2];
    if constexpr (kStaged) {
      const int barrier = output_scale_barrier(static_cast<int>(threadIdx.x) / 128 - 1);
      const float* const slot = OutputScales::slot(st);
      detail::cp_async_wait<0>();
      ptx::named_barrier_sync(barrier, 128);  // (the warpgroup's copies have landed)
#pragma unroll
      for (int g = 0; g < Shape::kAccRegs / 4; ++g)
        b[g] = *reinterpret_cast<const float2*>(slot + 2 * (threadIdx.x % 4) + 8 * g);
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) a[mi][h] = slot[Shape::BN + tile_row(0, mi, h)];
      ptx::named_barrier_sync(barrier, 128);  // (read: the next unit's copies may start)
    } else {
      const int col0 = u.tile_n * Shape::BN + 2 * (threadIdx.x % 4);  // (each clamped into C)
#pragma unroll
      for (int g = 0; g < Shape::kAccRegs / 4; ++g) {
        b[g].x = __ldg(sc.b + min(col0 + 8 * g, args.n - 1));
        b[g].y = __ldg(sc.b + min(col0 + 8 * g + 1, args.n - 1));
      }
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) a[mi][h] = __ldg(sc.a + scaled_row<Shape>(args.m, u.tile_m, row, mi, h));
    }
#pragma unroll
    for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int g = 0; g < Shape::kAccRegs / 4; ++g) {
          acc[mi][4 * g + 2 * h] *= a[mi][h] * b[g].x;
          acc[mi][4 * g + 2 * h + 1] *= a[mi][h] * b[g].y;
        }
  }
};

}  // namespace gemm::sm90
