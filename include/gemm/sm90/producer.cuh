#pragma once
// The producer warpgroup of the warp-specialised Hopper kernels: it walks the scheduler's units and
// fills the ring of stages with each unit's k blocks. One thread issues the TMA loads; the entries of
// a pointer array that TMA cannot read (A or B not 16-byte aligned: no place in the address map) are
// filled by the warpgroup's 128 threads with ordinary loads instead.
#include <cuda.h>
#include "../detail/batch.cuh"
#include "../grouped_args.cuh"
#include "../ptx/mbarrier.cuh"
#include "barriers.cuh"
#include "mainloop.cuh"
#include "scaling.cuh"
#include "scheduler.cuh"
#include "tensor_map.cuh"

namespace gemm::sm90 {

// The rank of the maps a call reads: 2-D for one product, 3-D for a strided batch (entry b at z = b,
// z = 0 for an operand of stride 0), address maps (4-D) for a pointer array (tensor_map.cuh).
template <class Args>
inline constexpr int kMapRank = Args::kBatching == Batch::Pointers ? 4 : Args::kBatching != Batch::None ? 3 : 2;

template <class Shape, class Sched, class Args>
__device__ __forceinline__ void produce(const Stages<Shape>& st, const Sched& sched, const Args& params,
                                        const CUtensorMap* map_a, const CUtensorMap* map_b) {
  constexpr bool kBatched = Args::kBatching != Batch::None;
  constexpr bool kPointers = Args::kBatching == Batch::Pointers;
  if (!kPointers && threadIdx.x != 0) return;
  const bool issuer = threadIdx.x == 0;
  RingPosition<Shape::kStages> pos;
  OperandSource src_a{map_a}, src_b{map_b};
  UnitCursor cursor;
  for (auto w = sched.template begin<true>(cursor); w < sched.count; w = sched.template next<true>(w, cursor)) {
    const WorkUnit u = sched.unit(w);
    bool by_tma = true;
    decltype(auto) entry = detail::entry_of(params, u.b);
    if constexpr (kPointers) {
      by_tma = address_place(entry.A, src_a.at) && address_place(entry.B, src_b.at);
    } else if constexpr (kBatched) {
      src_a.at.z = params.stride_a != 0 ? u.b : 0, src_b.at.z = params.stride_b != 0 ? u.b : 0;
      if constexpr (detail::is_grouped<Args>) src_a.at.row = params.group_begin(u.b);
    }
    const int m0 = u.tile_m * Shape::BM, n0 = u.tile_n * Shape::BN;
    // (An address map's boxes wholly outside the entry are not copied: OperandTile::boxes_within.)
    const int boxes_a = kPointers ? Shape::TileA::boxes_within(m0, params.m) : Shape::TileA::kBoxes;
    const int boxes_b = kPointers ? Shape::TileB::boxes_within(n0, params.n) : Shape::TileB::kBoxes;
    for (int kb = u.k_begin; kb < u.k_begin + u.k_blocks; ++kb) {
      if (by_tma) {
        if (issuer) {
          ptx::mbarrier_wait(st.empty(pos.stage), pos.phase ^ 1);  // the first pass finds every stage free
          if constexpr (Shape::kScaleSlots)
            st.template load<kMapRank<Args>>(pos.stage, src_a, src_b, m0, n0, kb, boxes_a, boxes_b,
                                             stage_scales<Shape>(entry, m0, n0, kb));
          else
            st.template load<kMapRank<Args>>(pos.stage, src_a, src_b, m0, n0, kb, boxes_a, boxes_b);
        }
      } else if constexpr (kPointers) {
        // The threads other than the issuer skipped the TMA units: they first wait for it, so that
        // all reach each stage's empty barrier within one fill of it (a parity wait cannot tell
        // fills apart).
        if (kb == u.k_begin) ptx::named_barrier_sync(kFillBarrier, 128);
        ptx::mbarrier_wait(st.empty(pos.stage), pos.phase ^ 1);
        st.fill(pos.stage, entry, m0, n0, kb, threadIdx.x, 128);
        ptx::named_barrier_sync(kFillBarrier, 128);
        if (issuer) ptx::mbarrier_arrive(st.full(pos.stage));
      }
      pos.advance();
    }
  }
}

}  // namespace gemm::sm90
