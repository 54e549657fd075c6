#pragma once
// The math warpgroups' pieces of the warp-specialised Hopper kernels: a unit's mainloop over the
// ring of stages (plain, or with 3xTF32's promoted accumulators), and its epilogue (epilogue.cuh's
// stores, chosen per unit). kernels.cuh assembles them per schedule.
#include <cuda.h>
#include "../detail/batch.cuh"
#include "../ptx/wgmma.cuh"
#include "barriers.cuh"
#include "epilogue.cuh"
#include "mainloop.cuh"
#include "tensor_map.cuh"

namespace gemm::sm90 {

template <class Shape>
using Accumulators = float[Shape::kMmaM][Shape::kAccRegs];

template <class Shape>
__device__ __forceinline__ void zero_accumulators(Accumulators<Shape>& acc) {
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
    for (int i = 0; i < Shape::kAccRegs; ++i) acc[mi][i] = 0.0f;
}

// The wgmmas of k_blocks full stages into acc (this warpgroup's rows from `row`), each stage handed
// back to the producer once the wgmmas after it are issued and its own have finished. On return the
// last stage's wgmmas may still run: finish_mainloop waits for them. previous: the stage whose
// wgmmas may still be reading it (-1: none).
template <class Shape>
__device__ __forceinline__ void issue_mainloop(Accumulators<Shape>& acc, const Stages<Shape>& st,
                                               RingPosition<Shape::kStages>& pos, int& previous, int row,
                                               int k_blocks, bool leader) {
  const StageDescriptors<Shape> d(st, row);
  for (int kb = 0; kb < k_blocks; ++kb) {
    ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
    ptx::wgmma_fence();
    mma_stage<Shape>(acc, d, pos.stage);
    ptx::wgmma_commit();
    ptx::wgmma_wait<1>();  // the previous stage's wgmmas have finished: hand it back
    if (leader && previous >= 0) st.release(previous);
    previous = pos.stage;
    pos.advance();
  }
}

template <class Shape>
__device__ __forceinline__ void finish_mainloop(Accumulators<Shape>& acc, const Stages<Shape>& st, int previous,
                                                bool leader) {
  ptx::wgmma_wait<0>();
  fence_accumulators<Shape>(acc);
  if (leader) st.release(previous);
}

// A through registers (BlockShape::kRegisterA: a TF32 A stored k x m, which wgmma cannot read from
// shared memory): at each stage the warpgroup loads its A fragments from the stage
// (RegisterFragments, 16 32-bit loads a thread) and issues its wgmmas on them (WgmmaRs).
// Two sets of fragments in turn, P a constant so that both stay in registers: one stage's wgmmas may
// still read theirs while the next stage's are loaded, and a set is loaded again only after the wait
// that shows its wgmmas done (the fence there keeps its registers from other use until then).
template <class Shape, int P>
__device__ __forceinline__ void register_a_step(Accumulators<Shape>& acc, unsigned (&frag)[2][Shape::BK / 8][4],
                                                const RegisterFragments<typename Shape::TileA>& f,
                                                const StageDescriptors<Shape>& d, const Stages<Shape>& st,
                                                RingPosition<Shape::kStages>& pos, int& previous, bool leader) {
  ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
  f.load(frag[P], static_cast<unsigned>(pos.stage * Shape::TileA::kBytes));
  ptx::wgmma_fence();  // (orders the fragments' loads before the wgmmas that read them)
#pragma unroll
  for (int s = 0; s < Shape::BK / 8; ++s) Shape::MmaRs::mma(acc[0], frag[P][s], d.b(pos.stage, 8 * s));
  ptx::wgmma_commit();
  ptx::wgmma_wait<1>();  // the previous stage's wgmmas have finished: its fragments and stage are free
#pragma unroll
  for (int s = 0; s < Shape::BK / 8; ++s) ptx::wgmma_fence_operands(frag[P ^ 1][s]);
  if (leader && previous >= 0) st.release(previous);
  previous = pos.stage;
  pos.advance();
}

template <class Shape>
__device__ __forceinline__ void register_a_mainloop(Accumulators<Shape>& acc, const Stages<Shape>& st,
                                                    RingPosition<Shape::kStages>& pos, int row, int k_blocks,
                                                    bool leader) {
  static_assert(Shape::kRegisterA, "register_a_mainloop: a shape whose A goes through registers.");
  const StageDescriptors<Shape> d(st, row);
  const RegisterFragments<typename Shape::TileA> f(st.a(0), row);
  unsigned frag[2][Shape::BK / 8][4];
  int previous = -1;
  int kb = 0;
  for (; kb + 1 < k_blocks; kb += 2) {
    register_a_step<Shape, 0>(acc, frag, f, d, st, pos, previous, leader);
    register_a_step<Shape, 1>(acc, frag, f, d, st, pos, previous, leader);
  }
  if (kb < k_blocks) register_a_step<Shape, 0>(acc, frag, f, d, st, pos, previous, leader);
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int s = 0; s < Shape::BK / 8; ++s) ptx::wgmma_fence_operands(frag[0][s]), ptx::wgmma_fence_operands(frag[1][s]);
  fence_accumulators<Shape>(acc);
  if (leader && previous >= 0) st.release(previous);
}

// A consumer whose rows all lie past its entry's last row (the last tile row of C, or of a grouped
// call's group, holding kWgRows rows or fewer for the other consumer) multiplies nothing: it only
// waits for each stage and hands it back, so that the ring stays in step, and the other consumer has
// the tensor cores to itself. Its accumulators stay zero; they are never stored. The cooperative
// kernel takes this path on tiles 256 wide only. Measured on an H200 (bf16, NT, the same kernels
// with and without it, alternated): 128x256 tiles 14-16% faster at 1088 and 2112 x 4096 x 4096 and
// grouped DeepSeek-V3 down 10-15% (up 3%); but 128x128 tiles 8-15% slower at 576 x 7168 x 7168 and
// 320 x 14336 x 4096, where one warpgroup's m64n128 wgmmas alone do not keep the tensor cores busy.
//
// Only the leader waits for each stage (and hands it back); the warpgroup's other threads move their
// ring position on and meet it at the consumer's barrier after the loop. With every thread waiting,
// nothing kept the four warps together (no wgmma of theirs to wait for), and a warp that fell two
// fills of a stage behind read the barrier's parity as the fill before: it then waited a whole ring
// lap late and the warpgroup's next wgmmas never started (a hang, measured at 4000 x 2048 x 200, beta
// != 0, where the other consumer's long epilogue let the ring run ahead).
template <class Shape>
__device__ __forceinline__ void skip_mainloop(const Stages<Shape>& st, RingPosition<Shape::kStages>& pos,
                                              int k_blocks, bool leader, int consumer) {
  for (int kb = 0; kb < k_blocks; ++kb) {
    if (leader) {
      ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
      st.release(pos.stage);
    }
    pos.advance();
  }
  ptx::named_barrier_sync(epilogue_barrier(consumer), 128);  // (the leader has seen every fill)
}

// The promoted mainloop (3xTF32, FP8): two sets of stage products in turn, so that while one
// stage's wgmmas fill one set, the other set (the stage before) is added to acc and the tensor cores
// never wait for the adds (mainloop.cuh: promoted_step). k_begin: the unit's first k block (the block
// scales' index).
template <class Shape, class Promotion = PlainPromotion>
__device__ __forceinline__ void promoted_mainloop(Accumulators<Shape>& acc, const Stages<Shape>& st,
                                                  RingPosition<Shape::kStages>& pos, int row, int k_blocks,
                                                  bool leader, const Promotion& promotion = {}, int k_begin = 0) {
  const StageDescriptors<Shape> d(st, row);
  int previous = -1;
  float part[2][Shape::kMmaM][Shape::kAccRegs];
  typename Promotion::Factors factors[2];
  int kb = 0;
  for (; kb + 1 < k_blocks; kb += 2) {
    promoted_step<Shape, 0>(acc, part, factors, promotion, st, d, pos, previous, leader, k_begin + kb);
    promoted_step<Shape, 1>(acc, part, factors, promotion, st, d, pos, previous, leader, k_begin + kb + 1);
  }
  if (kb < k_blocks) {  // an odd number of stages: the last product is in part[0]
    promoted_step<Shape, 0>(acc, part, factors, promotion, st, d, pos, previous, leader, k_begin + kb);
    finish_promoted<Shape, 0>(acc, part, factors, promotion, st, previous, leader);
  } else {
    finish_promoted<Shape, 1>(acc, part, factors, promotion, st, previous, leader);
  }
}

// The same with products of promotion.stages stages (FP8 with tensor or row scales and
// Scales::promote_every above 128: mainloop.cuh's promoted_product). Only in the kernel of those
// scales (cooperative_kernel's kFixedScales), beside promoted_mainloop with plain adds: with the
// block scales' loop, the loops made ptxas spill the accumulators (2 KB a thread) and the default
// calls ran at a fifth of their speed.
template <class Shape, class Promotion>
__device__ __forceinline__ void promoted_spans_mainloop(Accumulators<Shape>& acc, const Stages<Shape>& st,
                                                        RingPosition<Shape::kStages>& pos, int row, int k_blocks,
                                                        bool leader, const Promotion& promotion, int k_begin) {
  const StageDescriptors<Shape> d(st, row);
  int previous = -1;
  float part[2][Shape::kMmaM][Shape::kAccRegs];
  typename Promotion::Factors factors[2];
  for (int kb = 0;;) {
    kb = promoted_product<Shape, 0>(acc, part, factors, promotion, st, d, pos, previous, leader, kb, k_blocks,
                                    k_begin);
    if (kb >= k_blocks) return finish_promoted<Shape, 0>(acc, part, factors, promotion, st, previous, leader);
    kb = promoted_product<Shape, 1>(acc, part, factors, promotion, st, d, pos, previous, leader, kb, k_blocks,
                                    k_begin);
    if (kb >= k_blocks) return finish_promoted<Shape, 1>(acc, part, factors, promotion, st, previous, leader);
  }
}

// Whether a shape's consumers may store a unit through shared memory (store_block_staged): with
// epilogue buffers, and C not FP8 (FP8 C: from registers).
template <class Shape, class Args>
inline constexpr bool kStagedStores = Shape::kEpilogueBytes > 0 && !is_fp8<typename Args::Output>;

// A fused call's column bias for a unit's tile, where the unit may be stored through shared memory
// (a kernel loads it before the unit's mainloop: ColumnBias).
template <class Shape, class Args>
using TileBias = ColumnBias<Shape::BN, Args, detail::has_epilogue<Args> && kStagedStores<Shape, Args>>;

// The consumer's epilogue for one unit: its rows [row, row + kWgRows) of the tile at (tile_m, tile_n)
// of `args` (the unit's batch entry). With epilogue buffers in the shape and beta == 0, through shared
// memory: to the TMA engine where it can write C (c_by_tma: the entry's C at `c_at` of map_c, of
// kRank dimensions), else by the consumers in row order (c_store Direct); from registers otherwise.
// bias: the tile's column bias, loaded (TileBias).
template <class Shape, int kRank, class Args>
__device__ __forceinline__ void store_unit(const Accumulators<Shape>& acc, const Args& args,
                                           const TileBias<Shape, Args>& bias, const CUtensorMap* map_c,
                                           const Stages<Shape>& st, int consumer, int tile_m, int tile_n, int row,
                                           CStore c_store, bool c_by_tma, MapPlace c_at, bool pairs) {
  const int row0 = tile_m * Shape::BM + row, col0 = tile_n * Shape::BN;
  if constexpr (kStagedStores<Shape, Args>) {
    // TMA clips stores at the matrix edge only to 16-byte granularity along a row, so a tile that
    // ends inside a row whose length is not a multiple of 16 bytes stores directly.
    const bool whole_row_end = (static_cast<long long>(args.n) * sizeof(typename Args::Output)) % 16 == 0;
    if (c_by_tma && (whole_row_end || (tile_n + 1) * Shape::BN <= args.n)) {
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
        store_block_staged<Shape::BN, CStore::Tma, kRank>(acc[mi], args, bias, map_c, st.epilogue(consumer),
                                                          row0 + 64 * mi, col0, epilogue_barrier(consumer), c_at);
      return;
    }
    if (c_store != CStore::Registers) {
      // After TMA stores (a tile before this one), the buffers are written again only once those
      // stores have read them (store_block_staged's first barrier holds the others back).
      if (c_store == CStore::Tma && threadIdx.x % 128 == 0) ptx::bulk_wait_read<0>();
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
        store_block_staged<Shape::BN, CStore::Direct>(acc[mi], args, bias, map_c, st.epilogue(consumer),
                                                      row0 + 64 * mi, col0, epilogue_barrier(consumer));
      return;
    }
  }
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi) store_block<Shape::BN>(acc[mi], args, row0 + 64 * mi, col0, pairs);
}

}  // namespace gemm::sm90
