#pragma once
// The Hopper kernels, one per schedule, assembled from mainloop.cuh's pieces (stages, TMA loads of a
// stage, wgmmas over a stage), the scheduler (scheduler.cuh: which units a block takes), the producer
// warpgroup (producer.cuh), the consumers' mainloops and epilogue (consumer.cuh, epilogue.cuh) and
// split-K's reduction (split_k.cuh):
//
//   wgmma_kernel        one warpgroup does everything: its first thread issues the TMA loads of the
//                       next stages, all four warps wait for a stage, multiply it, wait for the tensor
//                       cores, and only then is the stage refilled.
//   cooperative_kernel  a producer warpgroup only issues TMA loads (one thread), Consumers warpgroups
//                       only multiply, each owning BM / Consumers rows of every tile; full/empty
//                       barriers hand each stage back and forth, so loads run Stages - 1 stages ahead of
//                       the math and the math never waits for its own refills. setmaxnreg moves
//                       registers from the producer to the consumers. kPersistent: one block per SM
//                       walks the units in Raster order, and the producer fills the next unit's stages
//                       while the consumers store this one's results. With epilogue buffers in the
//                       shape and beta == 0, results go through shared memory (store_block_staged): to
//                       the TMA engine (c_store Tma: C as TMA needs it), so the consumers start the next
//                       tile while the previous one's stores drain, or to C by the consumers themselves
//                       in row order (Direct: rows TMA cannot write). With split-K (SplitKWork), a unit
//                       is one k slice of a tile (after `whole` whole tiles with the tail split), and
//                       the block that finishes a tile's last slice adds the slices and stores it (or,
//                       with many slices, split_k_fixup_kernel does after the kernel).
//   pingpong_kernel     persistent, two consumers each owning whole tiles, the block's units alternating
//                       between them, and the mainloops taking turns: a consumer starts its tile's
//                       mainloop once the other has issued the last wgmma of the tile before (a pair of
//                       named barriers), so each consumer's epilogue (a fused activation's math above
//                       all) runs under the other's mainloop instead of between tiles. The turns also
//                       keep a consumer from waiting on a stage more than one fill ahead of the ring,
//                       which an mbarrier's parity cannot tell apart.
//
// kPromote (3xTF32): the tensor cores' fp32 accumulation truncates, and over a long k its error grows
// about linearly (measured: 8x strict fp32's at k = 4096). With kPromote each stage's product goes
// into its own registers (the first wgmma overwrites them) and is added to the running sum with
// ordinary round-to-nearest adds once the stage's wgmmas are done: the truncation then only
// accumulates over one stage (32 k). The cooperative kernel keeps two sets of stage products and adds
// one while the tensor cores fill the other (mainloop.cuh: promoted_step); the single-warpgroup
// kernel waits for each stage. Three sets of accumulator registers: tiles of at most 128 columns.
// FP8 promotes on those tiles (its wgmma keeps even fewer accumulator bits), one stage being 128 k
// and a product one or more stages (Scales::promote_every), and applies its scales there or after the
// mainloop (scaling.cuh); wider tiles take only FP8 calls that never promote, with kPromote false.
#include <cuda.h>
#include <type_traits>
#include "../detail/batch.cuh"
#include "../ptx/grid_dependency.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "consumer.cuh"
#include "epilogue.cuh"
#include "mainloop.cuh"
#include "producer.cuh"
#include "scaling.cuh"
#include "scheduler.cuh"
#include "split_k.cuh"

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
  ptx::wait_for_prior_grid();  // (launched as dependent: ptx/grid_dependency.cuh)
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
  const StageDescriptors<Shape> d(st, 0);
  for (int kb = 0; kb < k_blocks; ++kb) {
    ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
    ptx::wgmma_fence();
    if constexpr (kPromote) {
      float part[Shape::kMmaM][Shape::kAccRegs];
      mma_stage<Shape>(part, d, pos.stage, 0);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      fence_accumulators<Shape>(part);
      add_accumulators<Shape>(acc, part);
    } else {
      mma_stage<Shape>(acc, d, pos.stage);
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

// Register budgets after setmaxnreg: 128 x (40 + 2 x 232) = 64512 of the SM's 65536 (one math
// warpgroup keeps 232 too); more math warpgroups share what the producer leaves, in multiples of 8
// (three: 128 x (40 + 3 x 152) = 63488).
inline constexpr int kProducerRegs = 40;
template <int Consumers>
inline constexpr int kConsumerRegs = Consumers <= 2 ? 232 : (65536 / 128 - kProducerRegs) / Consumers / 8 * 8;
static_assert(128 * (kProducerRegs + 2 * kConsumerRegs<2>) <= 65536 && 128 * (kProducerRegs + 3 * kConsumerRegs<3>) <= 65536 &&
                  kConsumerRegs<3> % 8 == 0,
              "setmaxnreg budgets: the warpgroups' registers must fit the SM's 65536, in multiples of 8.");

// What every warp-specialised block does first: the stages' barriers, the maps' descriptors fetched.
// unit_readers: the threads that read the unit queue (scheduler.cuh), where units are claimed.
template <class Shape>
__device__ __forceinline__ void init_stages(const Stages<Shape>& st, const CUtensorMap* map_a,
                                            const CUtensorMap* map_b, int readers, int unit_readers = 0) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < Shape::kStages; ++s) {
      ptx::mbarrier_init(st.full(s), 1);        // the producer's expect_tx arrival
      ptx::mbarrier_init(st.empty(s), readers);  // one per warpgroup reading the stage
    }
    for (int s = 0; s < Shape::kFactorSlots; ++s) {
      ptx::mbarrier_init(st.factor_full(s), 32);                        // the filling warp's lanes
      ptx::mbarrier_init(st.factor_empty(s), 128 * Shape::kConsumers);  // every math thread
    }
    if (unit_readers > 0) {
      const UnitQueue q = st.unit_queue();
      for (int s = 0; s < kUnitSlots; ++s) {
        ptx::mbarrier_init(q.full + s, 1);  // the claiming thread
        ptx::mbarrier_init(q.empty + s, unit_readers);
      }
    }
    ptx::fence_barrier_init();
    ptx::tma_prefetch_descriptor(map_a);
    ptx::tma_prefetch_descriptor(map_b);
  }
  __syncthreads();
}

// The roles of a warp-specialised block: warpgroup 0 gives up registers and produces every unit's
// stages (true: this thread was the producer's, and is done); the math warpgroups take the registers.
// kFactors: the warpgroup's second warp fills the FP8 factor ring (scaling.cuh: produce_factors).
template <bool kFactors = false, class Shape, class Sched, class Args>
__device__ __forceinline__ bool producer_done(const Stages<Shape>& st, const Sched& sched, const Args& params,
                                              const CUtensorMap* map_a, const CUtensorMap* map_b) {
  if (threadIdx.x / 128 == 0) {
    ptx::setmaxnreg_dec<kProducerRegs>();
    if constexpr (kFactors) {
      if (threadIdx.x / 32 == 1) {
        produce_factors(st, sched, params);
        return true;
      }
    }
    produce(st, sched, params, map_a, map_b);
    return true;
  }
  ptx::setmaxnreg_inc<kConsumerRegs<Shape::kConsumers>>();
  return false;
}

// Where a unit's C goes: through TMA stores (c_store Tma, and for a pointer array only an entry whose
// C has a place in the address map), at `at` in map_c.
struct CTarget {
  bool by_tma;
  MapPlace at;
};
// A group of a grouped call: at its first row of a contiguous C (its own entry of a masked one), and
// through TMA only where the tile's rows lie wholly in the group (TMA clips rows only at the map's edge).
template <class Args, class Entry>
__device__ __forceinline__ CTarget c_target(const Args& params, const Entry& entry, const WorkUnit& u, int bm,
                                            CStore c_store) {
  CTarget t{c_store == CStore::Tma, MapPlace{Args::kBatching != Batch::None ? u.b : 0}};
  if constexpr (Args::kBatching == Batch::Pointers) t.by_tma = t.by_tma && address_place(entry.C, t.at);
  if constexpr (detail::is_grouped<Args>) {
    if (params.form == GroupedForm::Contiguous) t.at.z = 0, t.at.row = params.group_begin(u.b);
    t.by_tma = t.by_tma && (u.tile_m + 1) * bm <= entry.m;
  }
  return t;
}

// The scheduler of a call: the grouped one for grouped calls, else tiles (or k slices) in raster order.
template <class Args, class Raster, bool kPersistent, bool kBatched>
using SchedulerFor = std::conditional_t<detail::is_grouped<Args>, GroupedScheduler<Raster>,
                                        TileScheduler<Raster, kPersistent, kBatched>>;

// kSplitK: the split-K fixup is compiled in (compositions with HopperSplitK; in the others its
// registers would only crowd the accumulators: 128x256 tiles spilled 320 bytes with it).
// kFixedScales: FP8 calls whose scales do not vary along k (tensor and row scales, applied once
// after the mainloop: scaling.cuh's OutputScales), whose products are added as they are, with
// plain adds, in products of Scales::promote_every's stages (consumer.cuh). Loading factors of 1
// per stage in the block scales' loop cost these calls 14-18% (design/fp8.md).
template <class Args, class Shape, class Raster, bool kPersistent, bool kPromote = false, bool kSplitK = false,
          bool kFixedScales = false>
__global__ void __launch_bounds__(128 * (Shape::kConsumers + 1), 1)
    cooperative_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_c, const Args params, const CStore c_store,
                       const SplitKWork split_k) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(!Shape::kPingPong, "cooperative_kernel: each consumer owns rows of every tile (pingpong_kernel "
                                   "takes whole tiles in turn).");
  static_assert(!Shape::kRegisterA || !kPromote, "A through registers: single TF32 products (not 3xTF32's promoted "
                                                 "accumulators).");
  static_assert(!kPromote || Shape::kMmaM * Shape::kAccRegs <= 64,
                "Promoted accumulation (3xTF32, FP8) keeps three sets of accumulators: each math warpgroup owns at "
                "most 64 x 128 of the tile (BlockTile<128, 128> with two consumers, or <64, 128> with one).");
  constexpr bool kBatched = Args::kBatching != Batch::None;
  if (!kPersistent && detail::beyond_batch(params)) return;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Stages<Shape> st(smem_raw);
  static_assert(!detail::is_grouped<Args> || kPersistent, "Grouped calls run on the persistent schedule.");
  constexpr bool kFactors = kPromote && !kFixedScales && detail::has_scales<Args> && Shape::kFactorSlots > 0;
  // (Claimed units, grouped calls: every math thread and the factor warp read each from the queue.)
  const auto set_up = [&] {
    init_stages(st, &map_a, &map_b, Shape::kConsumers,
                detail::is_grouped<Args> ? 128 * Shape::kConsumers + (kFactors ? 32 : 0) : 0);
  };
  // The set-up before the wait may overlap the stream's previous kernel. A grouped call builds its
  // scheduler before the wait too and reads only the unit count (the counting kernel's) after it:
  // built wholly after the wait, the promoted FP8 grouped kernel spilled 28 bytes and ran 6-11%
  // slower. Other calls build theirs after the wait: built before it, dense FP8 calls with block
  // scales ran 4-5% slower (design/grouped.md).
  if constexpr (!detail::is_grouped<Args>) {
    set_up();
    ptx::wait_for_prior_grid();
  }
  SchedulerFor<Args, Raster, kPersistent, kBatched> scheduler(params, Shape::BM, Shape::BN, Shape::BK, split_k.splits,
                                                              split_k.whole, st.unit_queue());
  if constexpr (detail::is_grouped<Args>) {
    set_up();
    ptx::wait_for_prior_grid();
    scheduler.read_count(params);
  }
  const auto& sched = scheduler;

  if (producer_done<kFactors>(st, sched, params, &map_a, &map_b)) return;
  const int consumer = threadIdx.x / 128 - 1;
  const int row = consumer * Shape::kWgRows;
  const bool leader = threadIdx.x % 128 == 0;
  const bool pairs_unbatched = pairs_aligned(params);  // (hoisted, as before batches)
  // The loop over the block's units; `spans` (a std::bool_constant): with kFixedScales, products of
  // several stages. Those get a copy of the loop of their own: with both mainloops in one loop the
  // compiler kept the ring position in ordinary registers and moved every wgmma descriptor into
  // uniform ones, and the default calls ran 3-5% slower (design/fp8.md).
  const auto run_units = [&](auto spans) {
    RingPosition<Shape::kStages> pos;
    [[maybe_unused]] FactorRing ring;  // (FP8 block scales on one math warpgroup)
    UnitCursor cursor;
    for (auto w = sched.template begin<false>(cursor); w < sched.count; w = sched.template next<false>(w, cursor)) {
      const WorkUnit u = sched.unit(w);
      decltype(auto) args = detail::entry_of(params, u.b);
      Accumulators<Shape> acc;
      zero_accumulators<Shape>(acc);
      TileBias<Shape, std::decay_t<decltype(args)>> bias;
      bias.load(args, u.tile_n * Shape::BN);  // (in flight under the mainloop)
      if constexpr (detail::has_scales<Args>) OutputScales<Shape>::copy(st, args, u, row);  // (the same)
      if constexpr (kPromote && kFixedScales) {
        const PlainPromotion promotion{detail::scales_of(args).promote_stages()};
        if constexpr (decltype(spans)::value)
          promoted_spans_mainloop<Shape>(acc, st, pos, row, u.k_blocks, leader, promotion, u.k_begin);
        else
          promoted_mainloop<Shape>(acc, st, pos, row, u.k_blocks, leader, promotion, u.k_begin);
      } else if constexpr (kPromote) {
        promoted_mainloop<Shape>(acc, st, pos, row, u.k_blocks, leader, promotion_for<Shape>(args, u, row, &st, &ring), u.k_begin);
      } else if (Shape::BN >= 256 && u.tile_m * Shape::BM + row >= args.m) {
        skip_mainloop<Shape>(st, pos, u.k_blocks, leader, consumer);  // (rows all past the entry's end)
      } else if constexpr (Shape::kRegisterA) {
        register_a_mainloop<Shape>(acc, st, pos, row, u.k_blocks, leader);
      } else {
        int previous = -1;
        issue_mainloop<Shape>(acc, st, pos, previous, row, u.k_blocks, leader);
        finish_mainloop<Shape>(acc, st, previous, leader);
      }
      if constexpr (detail::has_scales<Args>) OutputScales<Shape>::apply(acc, st, args, u, row);
      if constexpr (kSplitK) {
        if (u.slot >= 0) {  // a slice of a split tile
          // (Rows of this thread: its warp's 16 from row + 16 * warp, each m64 block 64 further on.)
          const bool rows_in = u.tile_m * Shape::BM + row + 16 * ((threadIdx.x / 32) % 4) < args.m;
          if (split_k.separate) {  // (split_k_fixup_kernel adds and stores the tile)
            store_partial<Shape>(acc, split_k, u.slot, u.split, consumer, rows_in);
            continue;
          }
          if (!split_k_reduce<Shape>(acc, split_k, u.slot, u.split, consumer, rows_in, st.split_flag())) continue;
        }
      }
      const CTarget c = c_target(params, args, u, Shape::BM, c_store);
      store_unit<Shape, kMapRank<Args>>(acc, args, bias, &map_c, st, consumer, u.tile_m, u.tile_n, row, c_store, c.by_tma,
                                        c.at, kBatched ? pairs_aligned(args) : pairs_unbatched);
    }
  };
  if constexpr (kPromote && kFixedScales) {
    if (detail::scales_of(params).promote_stages() > 1)
      run_units(std::true_type{});
    else
      run_units(std::false_type{});
  } else {
    run_units(std::false_type{});
  }
  if constexpr (Shape::kEpilogueBytes > 0) {
    if (c_store == CStore::Tma && leader) ptx::bulk_wait<0>();  // the buffers stay valid until the last store is done
  }
#else
  (void)map_a, (void)map_b, (void)map_c, (void)params, (void)c_store, (void)split_k;
  __trap();  // unreachable: the host launches this only on sm_90 with sm_90a code present
#endif
}

template <class Args, class Shape, class Raster>
__global__ void __launch_bounds__(128 * 3, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, const Args params, const CStore c_store,
                    const SplitKWork split_k) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(Shape::kPingPong && Shape::kConsumers == 2, "pingpong_kernel: two consumers taking whole tiles.");
  static_assert(!detail::is_grouped<Args>, "Grouped calls run on the cooperative schedule.");
  constexpr bool kBatched = Args::kBatching != Batch::None;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Stages<Shape> st(smem_raw);
  init_stages(st, &map_a, &map_b, 1);
  ptx::wait_for_prior_grid();  // (the set-up above may overlap the stream's previous kernel)
  const TileScheduler<Raster, true, kBatched> sched(params, Shape::BM, Shape::BN, Shape::BK, 1);

  if (producer_done(st, sched, params, &map_a, &map_b)) return;
  const int consumer = threadIdx.x / 128 - 1;
  const bool leader = threadIdx.x % 128 == 0;
  const bool pairs_unbatched = pairs_aligned(params);
  // Consumer c takes the block's units c, c + 2, ...; the ring holds the stages of every unit in
  // order, so it starts c units in and skips the other consumer's unit after each of its own.
  RingPosition<Shape::kStages> pos;
  pos.advance(consumer * sched.k_blocks);
  for (auto w = sched.first + consumer * sched.stride; w < sched.count; w += 2 * sched.stride) {
    const WorkUnit u = sched.unit(w);
    decltype(auto) args = detail::entry_of(params, u.b);
    Accumulators<Shape> acc;
    zero_accumulators<Shape>(acc);
    TileBias<Shape, std::decay_t<decltype(args)>> bias;
    bias.load(args, u.tile_n * Shape::BN);  // (in flight while this consumer waits for its turn)
    // This consumer's turn on the tensor cores: every unit but the block's first waits for the other
    // consumer's arrival after the mainloop of the unit before it.
    if (w != sched.first) ptx::named_barrier_sync(turn_barrier(consumer), 256);
    int previous = -1;
    issue_mainloop<Shape>(acc, st, pos, previous, 0, u.k_blocks, leader);
    if (w + sched.stride < sched.count) ptx::named_barrier_arrive(turn_barrier(1 - consumer), 256);
    finish_mainloop<Shape>(acc, st, previous, leader);
    const CTarget c = c_target(params, args, u, Shape::BM, c_store);
    store_unit<Shape, kMapRank<Args>>(acc, args, bias, &map_c, st, consumer, u.tile_m, u.tile_n, 0, c_store, c.by_tma,
                                      c.at, kBatched ? pairs_aligned(args) : pairs_unbatched);
    pos.advance(sched.k_blocks);  // the other consumer's unit
  }
  if constexpr (Shape::kEpilogueBytes > 0) {
    if (c_store == CStore::Tma && leader) ptx::bulk_wait<0>();
  }
#else
  (void)map_a, (void)map_b, (void)map_c, (void)params, (void)c_store, (void)split_k;
  __trap();  // unreachable: the host launches this only on sm_90 with sm_90a code present
#endif
}

}  // namespace gemm::sm90
