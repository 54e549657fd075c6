#pragma once
// The Hopper kernels, one per schedule. Both are built from mainloop.cuh's pieces (stages, TMA
// loads of a stage, wgmmas over a stage) and epilogue.cuh; they differ in who does what:
//
//   wgmma_kernel            one warpgroup does everything: its first thread issues the TMA loads of
//                           the next stages, all four warps wait for a stage, multiply it, wait for
//                           the tensor cores, and only then is the stage refilled.
//   warp_specialized_kernel a producer warpgroup only issues TMA loads (one thread), Consumers
//                           warpgroups only multiply; full/empty barriers hand each stage back and
//                           forth, so loads run Stages - 1 stages ahead of the math and the math never
//                           waits for its own refills. setmaxnreg moves registers from the producer
//                           to the consumers. kPersistent: one block per SM walks tiles in Raster
//                           order, and the producer fills the next tile's stages while the consumers
//                           store this one's results. With epilogue buffers in the shape and
//                           beta == 0, results go through shared memory (store_block_staged): to
//                           the TMA engine (c_store Tma: C as TMA needs it), so the consumers start
//                           the next tile while the previous one's stores drain, or to C by the
//                           consumers themselves in row order (Direct: rows TMA cannot write).
//                           Shape::kPingPong (persistent only): each consumer owns whole tiles, the
//                           block's work items alternating between the two, and the mainloops take
//                           turns: a consumer starts its tile's mainloop once the other has issued
//                           the last wgmma of the tile before (a pair of named barriers), so each
//                           consumer's epilogue (a fused activation's math above all) runs under the
//                           other's mainloop instead of between tiles. The turns also keep a
//                           consumer from waiting on a stage more than one fill ahead of the ring,
//                           which an mbarrier's parity cannot tell apart.
//
// kPromote (3xTF32): the tensor cores' fp32 accumulation truncates, and over a long k its error grows
// about linearly (measured: 8x strict fp32's at k = 4096). With kPromote each stage's product goes
// into its own registers (the first wgmma overwrites them) and is added to the running sum with
// ordinary round-to-nearest adds once the stage's wgmmas are done: the truncation then only
// accumulates over one stage (32 k). The warp-specialised kernel keeps two sets of stage products
// and adds one while the tensor cores fill the other (mainloop.cuh: promoted_step); the single-
// warpgroup kernel waits for each stage. Three sets of accumulator registers: tiles of at most 128
// columns.
#include <cuda.h>
#include <type_traits>
#include "../detail/batch.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "epilogue.cuh"
#include "mainloop.cuh"

namespace gemm::sm90 {

template <class Args, class Shape, class Raster, bool kPromote = false>
__global__ void __launch_bounds__(128, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                 const Args params) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // A strided batch reads 3-D maps, entry b at z = b (z = 0 for an operand of stride 0).
  static_assert(Args::kBatching != Batch::Pointers,
                "Pointer arrays run on the warp-specialised kernel, whose producer warpgroup loads the entries "
                "TMA cannot read.");
  constexpr int kRank = Args::kBatching != Batch::None ? 3 : 2;
  if (detail::beyond_batch(params)) return;
  decltype(auto) args = detail::block_entry(params);
  const int b = static_cast<int>(detail::block_batch<Args>());
  const OperandSource src_a{&map_a, {params.stride_a != 0 ? b : 0}}, src_b{&map_b, {params.stride_b != 0 ? b : 0}};
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Stages<Shape> st(smem_raw);
  const int tiles_m = (args.m + Shape::BM - 1) / Shape::BM, tiles_n = (args.n + Shape::BN - 1) / Shape::BN;
  int tile_m, tile_n;
  Raster::tile(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
  const int m0 = tile_m * Shape::BM, n0 = tile_n * Shape::BN;
  const int k_blocks = (args.k + Shape::BK - 1) / Shape::BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Shape::kStages; ++s) ptx::mbarrier_init(st.full(s), 1);
    ptx::fence_barrier_init();
    for (int s = 0; s < Shape::kStages && s < k_blocks; ++s) st.template load<kRank>(s, src_a, src_b, m0, n0, s);
  }
  __syncthreads();

  float acc[Shape::kMmaM][Shape::kAccRegs];
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
    for (int i = 0; i < Shape::kAccRegs; ++i) acc[mi][i] = 0.0f;

  RingPosition<Shape::kStages> pos;
  for (int kb = 0; kb < k_blocks; ++kb) {
    ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
    ptx::wgmma_fence();
    if constexpr (kPromote) {
      float part[Shape::kMmaM][Shape::kAccRegs];
      mma_stage<Shape>(part, st.a(pos.stage), st.b(pos.stage), 0, 0);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      fence_accumulators<Shape>(part);
      add_accumulators<Shape>(acc, part);
    } else {
      mma_stage<Shape>(acc, st.a(pos.stage), st.b(pos.stage), 0);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      fence_accumulators<Shape>(acc);
    }
    __syncthreads();  // every warp is done with the stage before it is refilled
    if (threadIdx.x == 0 && kb + Shape::kStages < k_blocks)
      st.template load<kRank>(pos.stage, src_a, src_b, m0, n0, kb + Shape::kStages);
    pos.advance();
  }

  const bool pairs = pairs_aligned(args);
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi) store_block<Shape::BN>(acc[mi], args, m0 + 64 * mi, n0, pairs);
#else
  (void)map_a, (void)map_b, (void)params;
  __trap();  // unreachable: the host launches this only on sm_90 with sm_90a code present
#endif
}

// Register budgets after setmaxnreg: 128 x (40 + 2 x 232) = 64512 of the SM's 65536.
inline constexpr int kProducerRegs = 40;
inline constexpr int kConsumerRegs = 232;

template <class Args, class Shape, class Raster, bool kPersistent, bool kPromote = false>
__global__ void __launch_bounds__(128 * (Shape::kConsumers + 1), 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                            const __grid_constant__ CUtensorMap map_c, const Args params, const CStore c_store) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Work items w = b * tiles + tile over the batch's entries b (one entry without a batch): a
  // persistent block walks them gridDim.x apart, a non-persistent one takes its tile of its entry.
  // A strided batch reads (and TMA-stores) 3-D maps, entry b at z = b (0 for an operand of stride 0);
  // a pointer array reads address maps (tensor_map.cuh), entry b at the place of its pointers.
  constexpr bool kBatched = Args::kBatching != Batch::None;
  constexpr bool kPointers = Args::kBatching == Batch::Pointers;
  constexpr int kRank = kPointers ? 4 : kBatched ? 3 : 2;
  using Work = std::conditional_t<kBatched, long long, int>;
  if (!kPersistent && detail::beyond_batch(params)) return;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Stages<Shape> st(smem_raw);
  const int tiles_m = (params.m + Shape::BM - 1) / Shape::BM, tiles_n = (params.n + Shape::BN - 1) / Shape::BN;
  const int tiles = tiles_m * tiles_n;
  const int k_blocks = (params.k + Shape::BK - 1) / Shape::BK;
  const Work work = kBatched ? static_cast<Work>(tiles) * params.batch : tiles;
  const Work first = kPersistent || !kBatched ? static_cast<Work>(blockIdx.x)
                                            : static_cast<Work>(blockIdx.x) + static_cast<Work>(tiles) * detail::block_batch<Args>();
  const Work stride = kPersistent ? static_cast<Work>(gridDim.x) : work;
  const int warpgroup = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Shape::kStages; ++s) {
      ptx::mbarrier_init(st.full(s), 1);                    // the producer's expect_tx arrival
      ptx::mbarrier_init(st.empty(s), Shape::kPingPong ? 1 : Shape::kConsumers);  // one per reading warpgroup
    }
    ptx::fence_barrier_init();
    ptx::tma_prefetch_descriptor(&map_a);
    ptx::tma_prefetch_descriptor(&map_b);
  }
  __syncthreads();
  // Launched with programmatic dependent launch, the set-up above may overlap the stream's previous
  // kernel; the pointer arrays (and C) are touched only once that kernel is done.
  if constexpr (kPointers) ptx::wait_for_prior_grid();

  if (warpgroup == 0) {  // producer
    ptx::setmaxnreg_dec<kProducerRegs>();
    // One thread issues the TMA loads. A pointer array's entries that TMA cannot read (A or B not
    // 16-byte aligned: no place in the address map) are filled by the warpgroup's 128 threads instead.
    if (kPointers || threadIdx.x == 0) {
      const bool issuer = threadIdx.x == 0;
      constexpr int kFillBarrier = 5;  // (1, 2: the consumers' epilogues; 3, 4: ping-pong turns)
      RingPosition<Shape::kStages> pos;
      OperandSource src_a{&map_a}, src_b{&map_b};
      for (Work w = first; w < work; w += stride) {
        const int b = kBatched ? static_cast<int>(w / tiles) : 0;
        const int tile = static_cast<int>(w - static_cast<Work>(b) * tiles);
        bool by_tma = true;
        decltype(auto) entry = detail::entry_of(params, b);
        if constexpr (kPointers) {
          by_tma = address_place(entry.A, src_a.at) && address_place(entry.B, src_b.at);
        } else if constexpr (kBatched) {
          src_a.at.z = params.stride_a != 0 ? b : 0, src_b.at.z = params.stride_b != 0 ? b : 0;
        }
        int tile_m, tile_n;
        Raster::tile(tile, tiles_m, tiles_n, tile_m, tile_n);
        const int m0 = tile_m * Shape::BM, n0 = tile_n * Shape::BN;
        // (An address map's boxes wholly outside the entry are not copied: OperandTile::boxes_within.)
        const int boxes_a = kPointers ? Shape::TileA::boxes_within(m0, params.m) : Shape::TileA::kBoxes;
        const int boxes_b = kPointers ? Shape::TileB::boxes_within(n0, params.n) : Shape::TileB::kBoxes;
        for (int kb = 0; kb < k_blocks; ++kb) {
          if (by_tma) {
            if (issuer) {
              ptx::mbarrier_wait(st.empty(pos.stage), pos.phase ^ 1);  // the first pass finds every stage free
              st.template load<kRank>(pos.stage, src_a, src_b, m0, n0, kb, boxes_a, boxes_b);
            }
          } else if constexpr (kPointers) {
            // The threads other than the issuer skipped the TMA items: they first wait for it, so
            // that all reach each stage's empty barrier within one fill of it (a parity wait
            // cannot tell fills apart).
            if (kb == 0) ptx::named_barrier_sync(kFillBarrier, 128);
            ptx::mbarrier_wait(st.empty(pos.stage), pos.phase ^ 1);
            st.fill(pos.stage, entry, m0, n0, kb, threadIdx.x, 128);
            ptx::named_barrier_sync(kFillBarrier, 128);
            if (issuer) ptx::mbarrier_arrive(st.full(pos.stage));
          }
          pos.advance();
        }
      }
    }
  } else {  // math
    ptx::setmaxnreg_inc<kConsumerRegs>();
    static_assert(!Shape::kPingPong || (kPersistent && Shape::kConsumers == 2 && !kPromote),
                  "The ping-pong schedule is persistent, with two consumers, and not for 3xTF32.");
    const int consumer = warpgroup - 1;
    const int row = Shape::kPingPong ? 0 : consumer * Shape::kWgRows;
    const bool leader = threadIdx.x % 128 == 0;
    const bool pairs_unbatched = pairs_aligned(params);  // (hoisted, as before batches)
    RingPosition<Shape::kStages> pos;
    // Ping-pong: consumer c takes the block's work items c, c + 2, ...; the ring holds the stages of
    // every item in order, so it starts c tiles in and skips the other consumer's tile after each.
    Work mine = first, step = stride;
    if constexpr (Shape::kPingPong) {
      mine = first + consumer * stride;
      step = 2 * stride;
      pos.advance(consumer * k_blocks);
    }
    const auto skip_other = [&] {
      if constexpr (Shape::kPingPong) pos.advance(k_blocks);
    };
    for (Work w = mine; w < work; w += step, skip_other()) {
      const int b = kBatched ? static_cast<int>(w / tiles) : 0;
      const int tile = static_cast<int>(w - static_cast<Work>(b) * tiles);
      decltype(auto) args = detail::entry_of(params, b);
      const bool pairs = kBatched ? pairs_aligned(args) : pairs_unbatched;
      // Where this entry's C lies in map_c (a pointer array's C only where it is 16-byte aligned).
      MapPlace c_at{kBatched ? b : 0};
      bool c_by_tma = c_store == CStore::Tma;
      if constexpr (kPointers) c_by_tma = c_by_tma && address_place(args.C, c_at);
      int tile_m, tile_n;
      Raster::tile(tile, tiles_m, tiles_n, tile_m, tile_n);
      float acc[Shape::kMmaM][Shape::kAccRegs];
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
        for (int i = 0; i < Shape::kAccRegs; ++i) acc[mi][i] = 0.0f;

      // Ping-pong: this consumer's turn on the tensor cores. Every work item but the block's first
      // waits for the other consumer's arrival after the mainloop of the item before it.
      constexpr int kTurn = 3;  // named barriers kTurn + c: consumer c may start (1, 2: the epilogues)
      if constexpr (Shape::kPingPong) {
        if (w != first) ptx::named_barrier_sync(kTurn + consumer, 256);
      }
      int previous = -1;  // the stage whose wgmmas may still be reading it
      if constexpr (kPromote) {
        // Two sets of stage products in turn: while one stage's wgmmas fill one set, the other set
        // (the stage before) is added to acc, so the tensor cores never wait for the adds.
        float part[2][Shape::kMmaM][Shape::kAccRegs];
        int kb = 0;
        for (; kb + 1 < k_blocks; kb += 2) {
          promoted_step<Shape, 0>(acc, part, st, pos, previous, row, leader);
          promoted_step<Shape, 1>(acc, part, st, pos, previous, row, leader);
        }
        if (kb < k_blocks) {  // an odd number of stages: the last product is in part[0]
          promoted_step<Shape, 0>(acc, part, st, pos, previous, row, leader);
          finish_promoted<Shape, 0>(acc, part, st, previous, leader);
        } else {
          finish_promoted<Shape, 1>(acc, part, st, previous, leader);
        }
      } else {
        for (int kb = 0; kb < k_blocks; ++kb) {
          ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
          ptx::wgmma_fence();
          mma_stage<Shape>(acc, st.a(pos.stage), st.b(pos.stage), row);
          ptx::wgmma_commit();
          ptx::wgmma_wait<1>();  // the previous stage's wgmmas have finished: hand it back
          if (leader && previous >= 0) ptx::mbarrier_arrive(st.empty(previous));
          previous = pos.stage;
          pos.advance();
        }
        if constexpr (Shape::kPingPong) {  // the other consumer's turn, if it has a next tile
          if (w + stride < work) ptx::named_barrier_arrive(kTurn + (1 - consumer), 256);
        }
        ptx::wgmma_wait<0>();
        fence_accumulators<Shape>(acc);
        if (leader) ptx::mbarrier_arrive(st.empty(previous));
      }
      if constexpr (Shape::kEpilogueBytes > 0) {
        // TMA clips stores at the matrix edge only to 16-byte granularity along a row, so a tile
        // that ends inside a row whose length is not a multiple of 16 bytes stores directly.
        const bool whole_row_end = (static_cast<long long>(args.n) * sizeof(typename Args::Output)) % 16 == 0;
        if (c_by_tma && (whole_row_end || (tile_n + 1) * Shape::BN <= args.n)) {
#pragma unroll
          for (int mi = 0; mi < Shape::kMmaM; ++mi)
            store_block_staged<Shape::BN, CStore::Tma, kRank>(acc[mi], args, &map_c, st.epilogue(warpgroup - 1),
                                                              tile_m * Shape::BM + row + 64 * mi, tile_n * Shape::BN,
                                                              warpgroup, c_at);
          continue;
        }
        if (c_store != CStore::Registers) {
          // After TMA stores (a tile before this one), the buffers are written again only once
          // those stores have read them (store_block_staged's first barrier holds the others back).
          if (c_store == CStore::Tma && leader) ptx::bulk_wait_read<0>();
#pragma unroll
          for (int mi = 0; mi < Shape::kMmaM; ++mi)
            store_block_staged<Shape::BN, CStore::Direct>(acc[mi], args, &map_c, st.epilogue(warpgroup - 1),
                                                          tile_m * Shape::BM + row + 64 * mi, tile_n * Shape::BN,
                                                          warpgroup);
          continue;
        }
      }
#pragma unroll
      for (int mi = 0; mi < Shape::kMmaM; ++mi)
        store_block<Shape::BN>(acc[mi], args, tile_m * Shape::BM + row + 64 * mi, tile_n * Shape::BN, pairs);
    }
    if constexpr (Shape::kEpilogueBytes > 0) {
      if (c_store == CStore::Tma && leader) ptx::bulk_wait<0>();  // the buffers stay valid until the last store is done
    }
  }
#else
  (void)map_a, (void)map_b, (void)map_c, (void)params, (void)c_store;
  __trap();  // unreachable: the host launches this only on sm_90 with sm_90a code present
#endif
}

}  // namespace gemm::sm90
