#pragma once
// The pieces every Hopper kernel shares: the shape of a block's work, its shared-memory stages,
// the TMA loads of one stage and the wgmmas over one stage.
#include <cstdint>
#include <type_traits>
#include "../ptx/mbarrier.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../types.cuh"
#include "barriers.cuh"
#include "operand.cuh"
#include "ring.cuh"
#include "scheduler.cuh"

namespace gemm::sm90 {

template <class In>
using WgmmaType = std::conditional_t<
    std::is_same_v<In, __nv_bfloat16>, ptx::WgmmaBf16,
    std::conditional_t<std::is_same_v<In, __half>, ptx::WgmmaF16,
                       std::conditional_t<std::is_same_v<In, __nv_fp8_e4m3>, ptx::WgmmaE4m3,
                                          std::conditional_t<std::is_same_v<In, __nv_fp8_e5m2>, ptx::WgmmaE5m2,
                                                             ptx::WgmmaTf32>>>>;

// A block computes a BM x BN tile of C with Consumers warpgroups of math, each owning BM / Consumers
// rows (one or two m64 wgmmas per k step), over a ring of Stages shared-memory stages. PingPong:
// each math warpgroup owns whole BM x BN tiles instead, the consumers taking turns (kernels.cuh).
// OpA, OpB: how A and B are stored, which decides each operand tile's major-ness.
// EpilogueBuffers: bytes of shared memory each math warpgroup stages its results through (0 for
// the register epilogue). ScaleSlots: FP8 block scales travel in the stages (below). RegisterA: a
// TF32 A stored k x m reaches wgmma through registers (RegisterFragments, WgmmaRs) instead of a
// transposed copy; an A stored m x k still goes through its descriptor.
template <class In, int BM_, int BN_, int Stages_, int Consumers_, Op OpA, Op OpB, int EpilogueBuffers = 0,
          bool PingPong = false, bool ScaleSlots = false, bool RegisterA = false>
struct BlockShape {
  static constexpr int BM = BM_, BN = BN_, kConsumers = Consumers_;
  static constexpr int kEpilogueBytes = EpilogueBuffers;
  static constexpr bool kPingPong = PingPong;
  static constexpr bool kRegisterA = RegisterA && OpA == Op::T;
  using TileA = OperandTile<In, BM, OpA == Op::N, kRegisterA>;
  using TileB = OperandTile<In, BN, OpB == Op::T>;
  using Mma = ptx::Wgmma<WgmmaType<In>, BN, OpA == Op::T && !kRegisterA, OpB == Op::N>;
  using MmaRs = ptx::WgmmaRs<WgmmaType<In>, BN>;  // (kRegisterA)
  static_assert(!kRegisterA || std::is_same_v<WgmmaType<In>, ptx::WgmmaTf32>,
                "A through registers (WgmmaRegisterA) serves TF32 only: 16-bit types read an A stored k x m "
                "through its descriptor, FP8 has no such path.");
  static constexpr int BK = TileA::kBK;
  static constexpr int kWgRows = kPingPong ? BM : BM / kConsumers;  // rows of C per math warpgroup
  static constexpr int kMmaM = kWgRows / 64;       // m64 wgmmas per k step per warpgroup
  static_assert(kWgRows % 64 == 0 && (kMmaM == 1 || kMmaM == 2),
                "Hopper tiles: each math warpgroup owns 64 or 128 rows of the tile (BM / consumers).");
  static_assert(kConsumers >= 1 && kConsumers <= kMaxConsumers,
                "Hopper tiles: one to three math warpgroups (PersistentProducerConsumer<1..3>).");
  static_assert(BN % 16 == 0 && BN >= 16 && BN <= 256, "Hopper tiles: BN is a multiple of 16 up to 256 (wgmma's N).");
  static constexpr int kStageBytes = TileA::kBytes + TileB::kBytes;
  // FP8 block scales (single products on promoted 128x128 and 128x64 tiles): each stage also carries
  // its k block's scales, A's for the tile's rows (BM floats) and the aligned group of four of B's
  // that holds the tile's columns' one, copied beside the tiles by the producer (Stages::load), so
  // that the math warpgroups read them from shared memory, not from L2 a stage before their use.
  static constexpr bool kScaleSlots = ScaleSlots;
  static constexpr int kScaleSlotBytes = ScaleSlots ? BM * 4 + 16 : 0;
  // FP8 with block scales on one math warpgroup (decode's 64x128 tiles): a ring of kFactorSlots
  // slots of BM per-row factors (a * b of the stage's k block), filled by the producer warpgroup's
  // second warp, with a full and an empty barrier each (scaling.cuh: produce_factors).
  static constexpr int kFactorSlots = is_fp8<In> && kConsumers == 1 && !kPingPong ? 3 : 0;
  static constexpr int kFactorBytes = kFactorSlots * (BM * 4 + 16);
  // FP8 row scales on the promoted tiles: for each math warpgroup the unit's BN column scales of B,
  // then its rows' scales of A, copied into shared memory as the unit's mainloop starts and read after
  // it (scaling.cuh: OutputScales). (128x256 tiles, FP8 never promoted, have no room for them.)
  static constexpr int kOutputScaleBytes = is_fp8<In> && BN <= 128 ? kConsumers * (BN + kWgRows) * 4 : 0;
  // The queue of claimed units (scheduler.cuh; grouped calls): its barriers and words.
  static constexpr int kUnitQueueBytes = kUnitSlots * (16 + 4);
  // Shared memory: per stage the tiles, the scale slot, the full and empty barriers; once the
  // epilogue buffers, split-K's verdict word (and padding), the factor ring, the unit queue, padding
  // before the scale slots, the output scales, and slack to align the start to 1024 bytes.
  static constexpr int kBytesPerStage = kStageBytes + kScaleSlotBytes + 2 * 8;
  static constexpr int kOnceBytesWithoutOutputScales =
      kConsumers * kEpilogueBytes + 16 + kFactorBytes + kUnitQueueBytes + (ScaleSlots ? 16 : 0) + 1024;
  static constexpr int kOnceBytes =
      kOnceBytesWithoutOutputScales + (kOutputScaleBytes && !ScaleSlots ? 16 : 0) + kOutputScaleBytes;
  // Stages_, or one fewer where the scale slots would not fit beside them in a block's 227 KB (the
  // 128x128 tiles' six stages of 32 KB leave about 2 KB, not 3.1).
  static constexpr int kStages = Stages_ * kBytesPerStage + kOnceBytes <= 227 * 1024 ? Stages_ : Stages_ - 1;
  static constexpr int kSmemBytes = kStages * kBytesPerStage + kOnceBytes;
  // Whether the FP8 output scales' slots leave the stages as asked (checked by OutputScales, where
  // they are used: a check here would instantiate the operand tiles of shapes that are only named).
  static constexpr bool kOutputScalesFit =
      kOutputScaleBytes == 0 || kStages == Stages_ || Stages_ * kBytesPerStage + kOnceBytesWithoutOutputScales > 227 * 1024;
  static constexpr int kAccRegs = BN / 2;
  static_assert(!ScaleSlots || (is_fp8<In> && kConsumers == 2 && kMmaM == 1 && BN <= 128 && !PingPong),
                "FP8 scale slots: promoted tiles of two math warpgroups, 64 x 128 or 64 x 64 each.");
  static_assert(!kPingPong || kMmaM * kAccRegs <= 128,
                "PersistentPingPong: a math warpgroup holds a whole tile's accumulators, at most 128 x 128 (or 64 x 256).");
  static_assert(!kRegisterA || (kMmaM == 1 && !kPingPong && BN % 64 == 0),
                "A through registers: cooperative tiles whose math warpgroups own 64 rows each, BN a multiple of 64.");
};

// What the producer copies into a stage's scale slot (BlockShape::kScaleSlots): a_bytes of A's
// scales from a (the tile's rows of the stage's k block) and the 16 bytes at b (the aligned group of
// four of B's scales holding the stage's one for the tile's columns). All 16-byte aligned: the host
// stages aligned copies of scales that are not (HopperPolicy::plan_staging).
struct StageScales {
  const float* a = nullptr;
  unsigned a_bytes = 0;
  const float* b = nullptr;
};

// The stages and barriers in dynamic shared memory, laid out from a 1024-byte boundary:
// A of every stage, B of every stage, each math warpgroup's epilogue buffers, the full and empty
// barriers, then a word for split-K's verdict (split_k.cuh), the factor ring, the unit queue, the scale
// slots, the output scales.
template <class Shape>
struct Stages {
  char* base;
  __device__ explicit Stages(unsigned char* raw) {
    const unsigned off = detail::smem_address(raw);
    base = reinterpret_cast<char*>(raw) + ((1024 - off % 1024) % 1024);
  }
  __device__ char* a(int s) const { return base + s * Shape::TileA::kBytes; }
  __device__ char* b(int s) const { return base + Shape::kStages * Shape::TileA::kBytes + s * Shape::TileB::kBytes; }
  __device__ char* epilogue(int consumer) const {
    return base + Shape::kStages * Shape::kStageBytes + consumer * Shape::kEpilogueBytes;
  }
  __device__ std::uint64_t* full(int s) const {
    return reinterpret_cast<std::uint64_t*>(epilogue(Shape::kConsumers)) + s;
  }
  __device__ std::uint64_t* empty(int s) const { return full(Shape::kStages) + s; }
  __device__ int* split_flag() const { return reinterpret_cast<int*>(empty(Shape::kStages)); }
  // The factor ring (kFactorSlots > 0) after split-K's word: slot s's BM floats, then the barriers.
  __device__ float* factors(int slot) const {
    return reinterpret_cast<float*>(reinterpret_cast<char*>(split_flag()) + 16) + slot * Shape::BM;
  }
  __device__ std::uint64_t* factor_full(int slot) const {
    return reinterpret_cast<std::uint64_t*>(factors(Shape::kFactorSlots)) + slot;
  }
  __device__ std::uint64_t* factor_empty(int slot) const { return factor_full(Shape::kFactorSlots) + slot; }
  // The unit queue (scheduler.cuh): its full barriers, empty barriers, then its words.
  __device__ UnitQueue unit_queue() const {
    std::uint64_t* full = factor_empty(Shape::kFactorSlots);
    return UnitQueue{reinterpret_cast<int*>(full + 2 * kUnitSlots), full, full + kUnitSlots};
  }
  // Stage s's scale slot (kScaleSlots): BM floats of A's scales, then four of B's; from the next
  // 16-byte boundary after the unit queue (bulk copies write 16-byte-aligned runs).
  __device__ float* scale_slot(int s) const {
    char* end = reinterpret_cast<char*>(unit_queue().slots + kUnitSlots);
    end += (16 - detail::smem_address(end) % 16) % 16;
    return reinterpret_cast<float*>(end) + s * (Shape::kScaleSlotBytes / 4);
  }
  // The output scales (kOutputScaleBytes), after the scale slots.
  __device__ float* output_scales() const { return scale_slot(Shape::kStages); }

  // One thread: stage s receives the A and B tiles of k block kb of the tile at (m0, n0), and with
  // scale slots that k block's scales (`scales`).
  // boxes_a, boxes_b: how many of each tile's boxes to copy (OperandTile::boxes_within), all by default.
  template <int kRank>
  __device__ void load(int s, const OperandSource& src_a, const OperandSource& src_b, int m0, int n0, int kb,
                       int boxes_a = Shape::TileA::kBoxes, int boxes_b = Shape::TileB::kBoxes,
                       const StageScales& scales = {}) const {
    constexpr unsigned kBScaleBytes = 16;
    ptx::mbarrier_arrive_expect_tx(full(s), boxes_a * Shape::TileA::kBoxBytes + boxes_b * Shape::TileB::kBoxBytes +
                                                (Shape::kScaleSlots ? scales.a_bytes + kBScaleBytes : 0));
    Shape::TileA::template load<kRank>(a(s), src_a, m0, kb * Shape::BK, full(s), boxes_a);
    Shape::TileB::template load<kRank>(b(s), src_b, n0, kb * Shape::BK, full(s), boxes_b);
    if constexpr (Shape::kScaleSlots) {
      ptx::bulk_load(scale_slot(s), scales.a, scales.a_bytes, full(s));
      ptx::bulk_load(scale_slot(s) + Shape::BM, scales.b, kBScaleBytes, full(s));
    }
  }

  // A math warpgroup is done with stage s: one arrival on its empty barrier.
  __device__ void release(int s) const { ptx::mbarrier_arrive(empty(s)); }

  // load's work without TMA, for an entry TMA cannot read: thread t of `threads` writes its share
  // of stage s (OperandTile::fill) and fences it for the tensor cores; the caller then gathers the
  // threads and one of them arrives on full(s).
  template <class Args>
  __device__ void fill(int s, const Args& args, int m0, int n0, int kb, int t, int threads) const {
    Shape::TileA::fill(a(s), args.A, args.lda, args.m, args.k, m0, kb * Shape::BK, t, threads);
    Shape::TileB::fill(b(s), args.B, args.ldb, args.n, args.k, n0, kb * Shape::BK, t, threads);
    ptx::fence_proxy_async();
  }
};

// The wgmma descriptors of a warpgroup's slices of every stage, from those of stage 0 computed once:
// a descriptor's start-address field is the shared address >> 4 (14 bits; every stage lies below
// 256 KB), so a slice's descriptor is stage 0's plus its byte offset >> 4. Building each descriptor
// from its address instead (a generic-to-shared conversion and masks per wgmma) cost FP8's promoted
// loop 23 of its 198 instructions per warp and stage (design/hopper.md).
template <class Shape>
struct StageDescriptors {
  // The low words (start address, leading-byte offset) of stage 0's: A at this warpgroup's first
  // row, B. The high words (stride-byte offset, swizzle) are constants of the tiles.
  unsigned a_lo, b_lo;
  // (An A through registers has no descriptor: a_lo is unused.)
  __device__ StageDescriptors(const Stages<Shape>& st, int row)
      : a_lo(a_descriptor_lo(st, row)), b_lo(static_cast<unsigned>(Shape::TileB::descriptor(st.b(0), 0, 0))) {}
  // Stage s's A rows 64 mi on (of this warpgroup's) and B, at k offset kk.
  __device__ std::uint64_t a(int s, int mi, int kk) const {
    return join(a_lo + s * (Shape::TileA::kBytes >> 4) + (Shape::TileA::offset(64 * mi, kk) >> 4),
                Shape::TileA::kDescriptorHigh);
  }
  __device__ std::uint64_t b(int s, int kk) const {
    return join(b_lo + s * (Shape::TileB::kBytes >> 4) + (Shape::TileB::offset(0, kk) >> 4),
                Shape::TileB::kDescriptorHigh);
  }

 private:
  __device__ static unsigned a_descriptor_lo(const Stages<Shape>& st, int row) {
    if constexpr (Shape::kRegisterA) return (void)st, (void)row, 0u;
    else return static_cast<unsigned>(Shape::TileA::descriptor(st.a(0), row, 0));
  }
  __device__ static std::uint64_t join(unsigned lo, unsigned hi) {
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
  }
};

// The warpgroup's wgmmas over stage s: its kWgRows x BN block += its A rows x B, or, with
// accumulate = 0, = (the first wgmma ignores what acc holds).
template <class Shape>
__device__ __forceinline__ void mma_stage(float (&acc)[Shape::kMmaM][Shape::kAccRegs], const StageDescriptors<Shape>& d,
                                          int s, int accumulate = 1) {
  static_assert(!Shape::kRegisterA, "mma_stage reads A through its descriptor (consumer.cuh's register_a_mainloop "
                                    "reads it through registers).");
#pragma unroll
  for (int kk = 0; kk < Shape::BK; kk += Shape::Mma::kK) {
    const std::uint64_t desc_b = d.b(s, kk);
#pragma unroll
    for (int mi = 0; mi < Shape::kMmaM; ++mi)
      Shape::Mma::mma(acc[mi], d.a(s, mi, kk), desc_b, kk == 0 ? accumulate : 1);
  }
}

// acc += part, in ordinary fp32 adds (round to nearest).
template <class Shape>
__device__ __forceinline__ void add_accumulators(float (&acc)[Shape::kMmaM][Shape::kAccRegs],
                                                 const float (&part)[Shape::kMmaM][Shape::kAccRegs]) {
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi)
#pragma unroll
    for (int i = 0; i < Shape::kAccRegs; ++i) acc[mi][i] += part[mi][i];
}

template <class Shape>
__device__ __forceinline__ void fence_accumulators(float (&acc)[Shape::kMmaM][Shape::kAccRegs]) {
#pragma unroll
  for (int mi = 0; mi < Shape::kMmaM; ++mi) ptx::wgmma_fence_operands(acc[mi]);
}

// How a promoted mainloop adds a product into the running sum: as it is (3xTF32, and FP8 without
// block scales), or times its rows' and columns' scales for the product's k block (FP8 block scales:
// scaling.cuh). load(kb) fetches what the add of k block kb needs; the mainloop calls it as the
// block's wgmmas are issued, so that the loads are in flight while they run. stages: how many stages
// one product spans before it is added (1 here; BlockScalePromotion's may be more for tensor and row
// scales: scaling.cuh).
struct PlainPromotion {
  struct Factors {};
  static constexpr bool kFromStage = false;  // (load reads the stage's scale slot: before its wgmmas)
  int stages = 1;
  __device__ __forceinline__ Factors load(int, int) const { return {}; }
  template <class Shape>
  __device__ __forceinline__ void add(float (&acc)[Shape::kMmaM][Shape::kAccRegs],
                                      const float (&part)[Shape::kMmaM][Shape::kAccRegs], const Factors&) const {
    add_accumulators<Shape>(acc, part);
  }
};

// A promoted mainloop step (warp-specialised consumers): the next full stage's wgmmas (k block kb)
// overwrite part[P]; once the previous stage's (into part[P ^ 1]) are done, that product is added to
// acc with round-to-nearest adds and its stage handed back to the producer, while this stage's
// wgmmas run. P is a constant so that both sets (and their factors) stay in registers.
template <class Shape, int P, class Promotion>
__device__ __forceinline__ void promoted_step(float (&acc)[Shape::kMmaM][Shape::kAccRegs],
                                              float (&part)[2][Shape::kMmaM][Shape::kAccRegs],
                                              typename Promotion::Factors (&factors)[2], const Promotion& promotion,
                                              const Stages<Shape>& st, const StageDescriptors<Shape>& d,
                                              RingPosition<Shape::kStages>& pos, int& previous, bool leader, int kb) {
  ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
  // (Factors from the stage's scale slot are read here, before the wgmma fence: the warpgroup's leader
  // hands the stage back once its wgmmas are done, and every warp issues its part of them after its
  // reads. compute-sanitizer's racecheck does not follow that order through the tensor cores: it
  // reports the producer's next copy into the slot against these reads.)
  if constexpr (Promotion::kFromStage) factors[P] = promotion.load(kb, pos.stage);
  ptx::wgmma_fence();
  mma_stage<Shape>(part[P], d, pos.stage, 0);
  ptx::wgmma_commit();
  if constexpr (!Promotion::kFromStage) factors[P] = promotion.load(kb, pos.stage);
  ptx::wgmma_wait<1>();  // the previous stage's wgmmas are done
  if (previous >= 0) {
    fence_accumulators<Shape>(part[P ^ 1]);
    if (leader) st.release(previous);
    promotion.template add<Shape>(acc, part[P ^ 1], factors[P ^ 1]);
  }
  previous = pos.stage;
  pos.advance();
}

// A product spanning up to promotion.stages stages from k block kb (of k_blocks): promoted_step's
// first stage (which adds the previous product), then the wgmmas of the others accumulating onto
// part[P], each stage handed back once the wgmmas after it are issued and its own are done. Returns
// the next k block.
template <class Shape, int P, class Promotion>
__device__ __forceinline__ int promoted_product(float (&acc)[Shape::kMmaM][Shape::kAccRegs],
                                                float (&part)[2][Shape::kMmaM][Shape::kAccRegs],
                                                typename Promotion::Factors (&factors)[2], const Promotion& promotion,
                                                const Stages<Shape>& st, const StageDescriptors<Shape>& d,
                                                RingPosition<Shape::kStages>& pos, int& previous, bool leader, int kb,
                                                int k_blocks, int k_begin) {
  promoted_step<Shape, P>(acc, part, factors, promotion, st, d, pos, previous, leader, k_begin + kb);
  const int end = min(kb + promotion.stages, k_blocks);
  for (int j = kb + 1; j < end; ++j) {
    ptx::mbarrier_wait(st.full(pos.stage), pos.phase);
    ptx::wgmma_fence();
    mma_stage<Shape>(part[P], d, pos.stage, 1);
    ptx::wgmma_commit();
    ptx::wgmma_wait<1>();  // the stage before has finished
    if (leader) st.release(previous);
    previous = pos.stage;
    pos.advance();
  }
  return end;
}

// After the last promoted_step or promoted_product (into part[P]): wait for it, add it, hand its
// last stage back.
template <class Shape, int P, class Promotion>
__device__ __forceinline__ void finish_promoted(float (&acc)[Shape::kMmaM][Shape::kAccRegs],
                                                float (&part)[2][Shape::kMmaM][Shape::kAccRegs],
                                                const typename Promotion::Factors (&factors)[2],
                                                const Promotion& promotion, const Stages<Shape>& st, int previous,
                                                bool leader) {
  ptx::wgmma_wait<0>();
  fence_accumulators<Shape>(part[P]);
  if (leader) st.release(previous);
  promotion.template add<Shape>(acc, part[P], factors[P]);
}

}  // namespace gemm::sm90
