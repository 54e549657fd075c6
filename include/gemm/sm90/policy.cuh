#pragma once
// Hopper (sm_90a) policies: TMA loads into 128-byte-swizzled stages, wgmma from shared memory.
//
//   HopperPolicy<BlockTile<BM, BN>, Stages, Schedule, Raster>
//
// Schedule is one of SingleWarpgroup, ProducerConsumer<Consumers>, PersistentProducerConsumer<Consumers>,
// PersistentPingPong (kernels.cuh says what each does). Types: bf16 and fp16 inputs with C in the input type or float,
// gemm::tf32 and gemm::tf32x3 (float data and C), and FP8 (e4m3, e5m2; C bf16, fp16 or float; scales:
// scaling.cuh) on the cooperative schedules whose math warpgroups own at most 64 x 128 of the tile
// (promoted accumulators), every layout of A and B. TF32 (and FP8) wgmma reads its operands only
// K-major (A row-major, B transposed), and so does any type's B on a tile narrower than 64 (BN of 16
// or 32): an operand stored the other way is first copied transposed into stream-ordered scratch
// (detail/workspace.cuh; m x k or n x k elements), which costs a pass over it. What TMA reads must
// suit it: 16-byte-aligned pointers and leading dimensions that are multiples of 16 bytes (else
// Status::MisalignedA/B; preset::Tuned takes another path). C needs only its element alignment: the
// epilogue stores through registers where TMA cannot.
#include <algorithm>
#include <string>
#include <type_traits>
#include <cuda.h>
#include "../detail/describe.cuh"
#include "../detail/launch.cuh"
#include "../detail/turned.cuh"
#include "../detail/vector.cuh"
#include "../detail/k_slices.cuh"
#include "../detail/workspace.cuh"
#include "../grouped_args.cuh"
#include "../kernel/group_units_kernel.cuh"
#include "../kernel/scratch_copies.cuh"
#include "../kernel/split_kernel.cuh"
#include "../kernel/transpose_kernel.cuh"
#include "../parts/k_split.cuh"
#include "../parts/raster.cuh"
#include "../parts/targets.cuh"
#include "../types.cuh"
#include "kernels.cuh"
#include "tensor_map.cuh"

namespace gemm {

template <int BM_, int BN_>
struct BlockTile {
  static constexpr int BM = BM_, BN = BN_;
  static std::string describe() { return detail::templated("BlockTile", BM, BN); }
};

// One warpgroup of 128 threads loads (one thread issues TMA) and multiplies.
struct SingleWarpgroup {
  static constexpr int kConsumers = 1;
  static constexpr bool kWarpSpecialized = false, kPersistent = false, kPingPong = false;
  static std::string describe() { return "SingleWarpgroup"; }
};

// A producer warpgroup and Consumers math warpgroups; one block per tile.
template <int Consumers>
struct ProducerConsumer {
  static constexpr int kConsumers = Consumers;
  static constexpr bool kWarpSpecialized = true, kPersistent = false, kPingPong = false;
  static std::string describe() { return detail::templated("ProducerConsumer", Consumers); }
};

// ProducerConsumer with one block per SM looping over tiles.
template <int Consumers>
struct PersistentProducerConsumer {
  static constexpr int kConsumers = Consumers;
  static constexpr bool kWarpSpecialized = true, kPersistent = true, kPingPong = false;
  static std::string describe() { return detail::templated("PersistentProducerConsumer", Consumers); }
};

// PersistentProducerConsumer<2> where each math warpgroup owns whole tiles and the two take turns
// (kernels.cuh): one's epilogue runs under the other's mainloop, for epilogues with math (a fused
// activation). A tile is one warpgroup's accumulators: BM 64 or 128, BM x BN at most 128 x 128.
struct PersistentPingPong {
  static constexpr int kConsumers = 2;
  static constexpr bool kWarpSpecialized = true, kPersistent = true, kPingPong = true;
  static std::string describe() { return "PersistentPingPong"; }
};

// Results straight from registers to C (any C, any beta).
struct RegisterEpilogue {
  static constexpr int kBuffers = 0;
  static constexpr bool kTurned = false;
  static std::string describe() { return "RegisterEpilogue"; }
};

// The call turned around (detail/turned.cuh): the kernel computes C^T = op(B)^T op(A)^T, B's rows on
// the tile's BM side and A's on its BN side, and stores each result from registers at its place in
// C (any C, any beta). For a few rows of C against a wide B: 16 tokens against a weight fill 16 of a
// 64x16 tile's columns, where as the tile's rows they would fill 16 of its 64. Single products.
struct TurnedRegisterEpilogue {
  static constexpr int kBuffers = 0;
  static constexpr bool kTurned = true;
  static std::string describe() { return "TurnedRegisterEpilogue"; }
};

// Results through two swizzled shared buffers per math warpgroup and TMA stores, when beta == 0
// and C is as TMA needs it (16-byte-aligned pointer and rows); the register epilogue otherwise.
// Needs a warp-specialised schedule.
struct TmaStoreEpilogue {
  static constexpr int kBuffers = 2 * 64 * 128;
  static constexpr bool kTurned = false;
  static std::string describe() { return "TmaStoreEpilogue"; }
};

// A and B must be as TMA reads them (16-byte-aligned base, rows a multiple of 16 bytes); anything
// else is refused with Status::MisalignedA/B before any CUDA call.
struct TmaAlignedOperands {
  static constexpr bool kPack = false;
  static std::string describe() { return "TmaAlignedOperands"; }
};

// An A or B that TMA cannot read (odd leading dimensions of bf16, a matrix one element into its
// allocation, rows of 8-byte multiples) is first copied, in one pass, into stream-ordered scratch
// with 16-byte-aligned rows (rows x round_up(row length, 16 bytes) elements per operand).
struct PackMisalignedOperands {
  static constexpr bool kPack = true;
  static std::string describe() { return "PackMisalignedOperands"; }
};

// How wgmma reads A: from shared memory through a descriptor, as TMA wrote it (WgmmaSS), or, for a
// TF32 A stored k x m, through registers: each math warpgroup loads its fragments from the stage
// (WgmmaRegisterA; sm90/operand.cuh's RegisterFragments). TF32 descriptors read only K-major
// operands, so without it such an A is first copied transposed, a pass over A; a row-major A still
// goes through its descriptor. The cooperative schedules, single TF32 products, math warpgroups of
// 64 rows (BlockTile<128, BN> with two consumers).
struct WgmmaSS {
  static constexpr bool kRegisterA = false;
  static std::string describe() { return "WgmmaSS"; }
};
struct WgmmaRegisterA {
  static constexpr bool kRegisterA = true;
  static std::string describe() { return "WgmmaRegisterA"; }
};

// What a split-K part cuts: `splits` k slices of each tile after the first `whole` (1: none).
struct HopperKSlices {
  int splits = 1;
  long long whole = 0;
  bool separate = false;  // the partial tiles added by a kernel of their own (split_k.cuh)
};

// Split-K with a fixup (split_k.cuh): where a call's tiles fill at most 1 / FillDen of the SMs (a
// weight gradient over many tokens: 768 x 768 x 65536 is 36 tiles of 128x128; decode: 16 x 4096 x
// 4096 is 32 tiles of 64x128), each tile's k range is cut into slices that different blocks compute
// at once: as many as fit in one round of the SMs (at most MaxSlices, each of at least MinBlocks k
// blocks); the block that finishes a tile's last slice adds the slices in slice order (bitwise
// reproducible) and stores the tile, or from kSeparateFrom slices split_k_fixup_kernel does, after
// the kernel, a block per chunk of accumulators (the same sums). Single products on the cooperative
// schedules; batches, 3xTF32 and the ping-pong schedule run whole tiles. The partial tiles take scratch memory
// (workspace_bytes). Measured on an H200 (tools/plan_audit.cu --splits, bf16 NN, calls, 128x128
// tiles): 768 x 768 x 65536 298 us whole, 159 / 135 in 2 / 3 slices (72 / 108 blocks), but 207 in 4
// (144 blocks: a second round) and 175 in 6; 1024 x 1024 x 32768 154 whole, 108 in 2 slices (cuBLAS
// 107); 768 x 768 x 8192 42 whole, 25 in 3; 384 x 384 x 65536 (9 tiles) 60 in 8, 63 in 12 (the
// last block reads every slice's partial tile). A second round of slices costs far more than the rounds
// count (a round of every SM runs each slower: the clocks and L2 are shared), and with more tiles
// than half the SMs the slices gain nothing (2304 x 768 x 8192, 108 tiles: 45 us whole, 65 in 2
// slices), hence one round and FillDen = 2. Decode is bound by reading B, which 48 SMs already do
// at about the rate twice as many reach (16 x 6144 x 4096, 64x128 tiles: 21.2 us whole, 22.3 in 2
// slices; 64 x 8192 x 8192 37.6 and 42.0; 16 x 4096 x 4096, 32 tiles: 17.1 and 16.3 in 4): it
// splits only below a quarter of the SMs (FillDen = 4), in slices as short as 4 k blocks.
//
// TailMinBlocks > 0 adds the tail split (split_k.cuh): where the tiles make whole rounds of the SMs
// and a last round at most half full, the whole rounds run whole tiles and the last round's tiles
// are cut into as many slices as fill it (at most 8 and MaxSlices, each at least TailMinBlocks k
// blocks), where that round then costs less than a whole one: its slices' k blocks, plus
// kTailSliceBlocks per slice and kTailFixedBlocks once (split_k_fixup_kernel's launch and reads, from
// kTailSeparateFrom slices), or kTailLastBlockBlocks once below that (each tile's last block reads
// every slice's partial tile alone), against the tile's k blocks. H200, bf16, 128x128 tiles, the
// tail cut in 2, 4 and 8 slices whatever the model says, against the same tiles whole (2 rounds) on
// calls of 32-49 k blocks: the separate fixup costs 4.5-6.3 us (12-16 k blocks; 1.3 us more in 8
// slices than in 4), the last block's 8-10 us (15-24); the first fit (3 a slice, 19 once) was made
// before the separate fixup existed. Against the widths Tuned weighs the split with, over the 149
// seeded random shapes of one to six rounds whose choice the refit changed: 1.080x the speed
// (geometric mean; 124 faster by over 2%, 9 slower, the slowest 0.86x: 8536 x 931 x 6785 NT, 128x192
// tiles 2.5 rounds), and on the shape space's 3072 x 768 x 8192 TN 0.86 -> 1.04 of cuBLAS.
//
// HalfMinBlocks > 0 (with FillDen > 2): tiles that fill more than 1 / FillDen of the SMs but at
// most half of them split too, where each slice keeps at least HalfMinBlocks k blocks: a long k
// pays for the fixup that a short one does not. H200, bf16 NT, decode's 64x128 tiles (64 of them),
// in 2 slices against whole: 128 x 4096 x 14336 (112 k blocks a slice) 0.96 of cuBLAS against 0.87,
// 96 x 4096 x 14336 0.97 against 0.86, 33-64 x 8192 x 28672 (224) 1.05-1.06 against 1.02-1.07; but
// 64 x 8192 x 8192 (64) 0.92 against 1.01, 64 x 6144 x 4096 (48 tiles, 32) 0.84 against 0.92.
//
// MinSplitBlocks > 0: a tile of fewer k blocks runs whole, however few the tiles (a short k whose
// fixup, a second kernel from SeparateFrom slices, costs more than its slices save).
//
// SeparateFrom: the slice count from which split_k_fixup_kernel adds the partial tiles
// (kSeparateFrom; the tail split's from 4 whatever it is). H200, bf16, 128x128 tiles, the same
// slices added either way, beside cuBLAS in the same run: 3 slices, 768 x 768 x 8192 TN 0.80 of
// cuBLAS separate against 0.74 by the last block, 512 x 576 x 7168 NT 0.83 against 0.72, 576 x 576
// x 6144 NT 1.28 against 1.12, 768 x 768 x 16384 TN 0.94 against 0.91, 768 x 768 x 131072 TN 0.84
// both; 2 slices, 256 x 1024 x 4096 NN 1.07 against 0.92, 1024 x 1024 x 8192 NT 0.87 against 0.82,
// at k = 16384 to 65536 within 1% (four shapes; design/hopper.md has the runs).
template <int MaxSlices, int FillDen = 2, int MinBlocks = 16, int TailMinBlocks = 0, int HalfMinBlocks = 0,
          int SeparateFrom = 4, int MinSplitBlocks = 0>
struct HopperSplitK {
  static_assert(MaxSlices >= 2, "HopperSplitK: at least 2 slices (NoSplitK for none).");
  static_assert(FillDen >= 2 && MinBlocks >= 1 && TailMinBlocks >= 0,
                "HopperSplitK: split only where the tiles fill at most half the SMs (FillDen >= 2), in slices of at "
                "least one k block (TailMinBlocks 0: no tail split).");
  static_assert(HalfMinBlocks == 0 || (FillDen > 2 && HalfMinBlocks >= MinBlocks),
                "HopperSplitK: HalfMinBlocks (long slices up to half the SMs) extends a FillDen above 2, with slices "
                "at least MinBlocks long.");
  static constexpr int kMaxSlices = MaxSlices;
  static constexpr int kMinBlocks = MinBlocks;
  static_assert(SeparateFrom >= 2, "HopperSplitK: SeparateFrom counts slices (2: every split call's fixup separate).");
  static_assert(MinSplitBlocks >= 0, "HopperSplitK: MinSplitBlocks counts k blocks (0: any k may split).");
  static std::string describe() {
    constexpr int d = detail::kNoDefault;
    return detail::templated_with_defaults("HopperSplitK",
                                           {MaxSlices, FillDen, MinBlocks, TailMinBlocks, HalfMinBlocks, SeparateFrom,
                                            MinSplitBlocks},
                                           {d, d, d, 0, 0, 4, 0});
  }

  // A slice's cost beyond its k blocks, in k blocks: its pipeline's fill and the partial tile's
  // store and reload.
  static constexpr int kFixupBlocks = 4;
  // The tail split's fixup, in k blocks: per slice, and once (split_k_fixup_kernel from
  // kTailSeparateFrom slices; each tile's last block below that).
  static constexpr int kTailSliceBlocks = 1;
  static constexpr int kTailFixedBlocks = 10;
  static constexpr int kTailLastBlockBlocks = 20;
  // From this many slices (SeparateFrom; the tail split's from kTailSeparateFrom) a tile's partial
  // tiles are added by split_k_fixup_kernel, many blocks to a tile, instead of by the tile's last
  // block alone (split_k.cuh). H100, bf16, the same
  // composition either way: 16 x 4096 x 4096 NT (64x128 tiles, 4 slices) 0.85 -> 0.99 of cuBLAS,
  // 64 x 4096 x 14336 0.97 -> 1.04; 128x128 tiles in 8 slices: 384 x 384 x 65536 TN 0.75 -> 0.82,
  // 768 x 768 x 8192 TN 0.48 -> 0.72.
  static constexpr int kSeparateFrom = SeparateFrom;
  static constexpr int kTailSeparateFrom = 4;
  static bool separate(int slices, bool tail) { return slices >= (tail ? kTailSeparateFrom : kSeparateFrom); }
  // The tail split cuts a tile into at most this many slices (what tail_round_blocks was fitted on).
  static constexpr int kTailMaxSlices = MaxSlices < 8 ? MaxSlices : 8;
  // The cost of a tail split's round in k blocks: a slice's, and the fixup's.
  static int tail_round_blocks(int k_blocks, int slices) {
    return detail::ceil_div(k_blocks, slices) + kTailSliceBlocks * slices +
           (separate(slices, /*tail=*/true) ? kTailFixedBlocks : kTailLastBlockBlocks);
  }

  // Slices per tile for `tiles` tiles of k_blocks k blocks on `sms` SMs: the most that keep every
  // slice in one round of the SMs; 1 where the tiles fill more than 1 / FillDen of them (half of
  // them with slices of HalfMinBlocks), where a slice and its fixup would take as long as the whole
  // k, or where k has fewer than MinSplitBlocks blocks.
  static int slices(long long tiles, int k_blocks, int sms) {
    if (tiles <= 0 || k_blocks < MinSplitBlocks) return 1;
    if (FillDen * tiles <= sms) return fitting(tiles, k_blocks, sms, MinBlocks, kMaxSlices);
    if (HalfMinBlocks > 0 && 2 * tiles <= sms) return fitting(tiles, k_blocks, sms, HalfMinBlocks, kMaxSlices);
    return 1;
  }

  // The cut of a call: slices(), or else the tail split.
  static HopperKSlices cut(long long tiles, int k_blocks, int sms) {
    if (const int s = slices(tiles, k_blocks, sms); s > 1) return {s, 0};
    if constexpr (TailMinBlocks > 0) {
      const long long whole = tiles / sms * sms, tail = tiles - whole;
      if (whole > 0 && tail > 0 && 2 * tail <= sms && k_blocks >= MinSplitBlocks) {
        const int s = fitting(tail, k_blocks, sms, TailMinBlocks, kTailMaxSlices);
        if (s > 1 && tail_round_blocks(k_blocks, s) < k_blocks) return {s, whole};
      }
    }
    return {};
  }

 private:
  // The most slices of `tiles` tiles that fit in one round, within max_slices and min_blocks each; 1
  // where a slice and its fixup would take as long as the whole k.
  static int fitting(long long tiles, int k_blocks, int sms, int min_blocks, int max_slices) {
    long long s = sms / tiles;
    if (s > max_slices) s = max_slices;
    if (s > k_blocks / min_blocks) s = k_blocks / min_blocks;
    if (s < 2 || detail::ceil_div(k_blocks, static_cast<int>(s)) + kFixupBlocks >= k_blocks) return 1;
    return static_cast<int>(s);
  }
};

// Exactly Slices k slices per tile, whatever the tile count (fewer only where k has fewer than
// Slices x kMinBlocks k blocks): the measurement behind HopperSplitK's cost model
// (tools/plan_audit.cu --splits times each count), and a part for a caller who knows the shape.
// Separate: the partial tiles added by split_k_fixup_kernel (else by each tile's last block).
template <int Slices, bool Separate = false>
struct HopperFixedSplitK {
  static_assert(Slices >= 2, "HopperFixedSplitK: at least 2 slices (NoSplitK for none).");
  static constexpr int kMaxSlices = Slices;
  static constexpr int kMinBlocks = 4;
  static std::string describe() {
    return Separate ? detail::templated("HopperFixedSplitK", Slices, 1) : detail::templated("HopperFixedSplitK", Slices);
  }
  static bool separate(int, bool) { return Separate; }
  static int slices(long long tiles, int k_blocks, int /*sms*/) {
    if (tiles <= 0) return 1;
    const int s = k_blocks / kMinBlocks < Slices ? k_blocks / kMinBlocks : Slices;
    return s > 1 ? s : 1;
  }
  static HopperKSlices cut(long long tiles, int k_blocks, int sms) { return {slices(tiles, k_blocks, sms), 0}; }
};

template <class TileP, int Stages, class ScheduleP, class RasterP = SwizzledRaster<8>,
          class EpilogueP = RegisterEpilogue, class OperandsP = TmaAlignedOperands, class KSplitP = NoSplitK,
          class MathP = WgmmaSS>
struct HopperPolicy {
  using Tile = TileP;
  using Schedule = ScheduleP;
  using Raster = RasterP;
  using Epilogue = EpilogueP;
  using Operands = OperandsP;
  using KSplit = KSplitP;
  using Math = MathP;
  static constexpr int kStages = Stages;
  static_assert(!Math::kRegisterA || (Schedule::kWarpSpecialized && !Schedule::kPingPong),
                "HopperPolicy: WgmmaRegisterA needs a cooperative warp-specialised schedule (ProducerConsumer or "
                "PersistentProducerConsumer).");
  // A TF32 A stored k x m read through registers (WgmmaRegisterA), not copied transposed.
  template <class T>
  static constexpr bool kRegisterA = Math::kRegisterA && std::is_same_v<T, tf32>;

  static constexpr bool kSplitsK = !std::is_same_v<KSplit, NoSplitK>;
  static_assert(!kSplitsK || (Schedule::kWarpSpecialized && !Schedule::kPingPong),
                "HopperPolicy: HopperSplitK needs a cooperative warp-specialised schedule (ProducerConsumer or "
                "PersistentProducerConsumer).");
  static_assert(Epilogue::kBuffers == 0 || Schedule::kWarpSpecialized,
                "HopperPolicy: TmaStoreEpilogue needs a warp-specialised schedule (ProducerConsumer or "
                "PersistentProducerConsumer).");
  static_assert(Stages >= 2, "HopperPolicy: needs at least 2 stages (one computing, one loading).");
  static_assert(!Epilogue::kTurned || Schedule::kWarpSpecialized,
                "HopperPolicy: TurnedRegisterEpilogue runs on the warp-specialised schedules.");

  // The call as the kernel computes it: turned around with TurnedRegisterEpilogue.
  template <class Args>
  static auto computed(const Args& args) {
    if constexpr (Epilogue::kTurned && !detail::is_turned<Args>)
      return detail::turned(args);
    else
      return args;
  }

  static constexpr int kMinArch = 90;
  static const char* name() { return "HopperPolicy"; }
  static std::string parts() {
    return Tile::describe() + ", " + detail::templated("TmaStages", Stages) + ", " + Schedule::describe() +
           ", " + Math::describe() + ", " + Raster::describe() + ", " + Epilogue::describe() + ", " + Operands::describe() +
           (kSplitsK ? ", " + KSplit::describe() : std::string());
  }

  // FP8 promotes its accumulators (three sets of them: scaling.cuh) on the cooperative schedules
  // whose math warpgroups own at most 64 x 128 of the tile. Wider cooperative tiles serve FP8 calls
  // that never promote (Scales::promote_every(0)): the tensor cores' own sums, in one set.
  static constexpr bool kPromotedTiles = Schedule::kWarpSpecialized && !Schedule::kPingPong &&
                                         Tile::BM / Schedule::kConsumers == 64 && Tile::BN <= 128;
  static constexpr bool kFp8Tiles = Schedule::kWarpSpecialized && !Schedule::kPingPong;
  template <class T, class Out>
  static constexpr bool kServes =
      (is_16bit<T> && is_supported_output<T, Out>) ||
      ((std::is_same_v<T, tf32> || std::is_same_v<T, tf32x3>) && std::is_same_v<Out, float>) ||
      (is_fp8<T> && is_supported_output<T, Out> && kFp8Tiles);

  // An FP8 call on tiles that cannot promote: only one whose scales say never.
  template <class T, class Args>
  static bool promotes_as_asked(const Args& args) {
    if constexpr (!is_fp8<T> || kPromotedTiles) {
      (void)args;
      return true;
    } else if constexpr (detail::has_scales<Args>) {
      return detail::scales_of(args).promote_k == 0;
    } else {
      (void)args;
      return false;  // (no scales: promoted every 128 k)
    }
  }

  template <class In, Op OpA = Op::N, Op OpB = Op::N, bool ScaleSlots = false>
  using Shape = sm90::BlockShape<In, Tile::BM, Tile::BN, Stages, Schedule::kConsumers, OpA, OpB, Epilogue::kBuffers,
                                 Schedule::kPingPong, ScaleSlots, Math::kRegisterA && std::is_same_v<In, float>>;
  // The block shape of the kernel a call's arguments launch: single FP8 products with scales on the
  // promoted tiles of two math warpgroups carry their block scales in the stages (BlockShape's
  // ScaleSlots: the scales' loads held the math warpgroups back 10-12%, design/fp8.md); tensor and
  // row scales run a kernel of their own on the plain shape (launch_layout), as do grouped calls
  // (their groups start at any row) and one math warpgroup's tiles (their factor ring).
  template <class Args, Op OpA, Op OpB>
  using KernelShape = Shape<typename Args::Element, OpA, OpB,
                            is_fp8<typename Args::Element> && kPromotedTiles && Schedule::kConsumers == 2 &&
                                detail::has_scales<Args> && Args::kBatching == Batch::None>;

  // wgmma reads an MN-major operand in boxes of 64 elements along M or N: a tile narrower than that
  // (BN of 16 or 32: decode's turned tiles) reads B only K-major, so a B stored k x n (in a turned
  // call, an A stored k x m) is first copied transposed, as TF32's operands are (plan_staging). A
  // wider tile that is not a whole number of boxes (BN = 96) loads its last box whole and reads part.
  static constexpr bool kNarrowB = Tile::BN < 64;
  template <class T>
  static constexpr bool kKMajorB = is_k_major_only<T> || kNarrowB;
  // And A: K-major only for TF32 and FP8, unless TF32 reads it through registers (WgmmaRegisterA).
  template <class T>
  static constexpr bool kKMajorA = is_k_major_only<T> && !kRegisterA<T>;

  template <class In>
  static int smem_bytes() { return Shape<In, Op::N, kNarrowB ? Op::T : Op::N>::kSmemBytes; }

  // Whether TMA reads A (B) as the caller stores it: always for 16-bit types; for TF32 and FP8 only
  // when it is K-major (otherwise the transposing pass reads it, element by element), or for TF32's A
  // read through registers; never for 3xTF32 (the split reads it).
  template <class T, class Args>
  static bool tma_reads_a(const Args& a) {
    return kKMajorA<T> ? a.op_a == Op::N : !std::is_same_v<T, tf32x3>;
  }
  template <class T, class Args>
  static bool tma_reads_b(const Args& a) {
    return kKMajorB<T> ? a.op_b == Op::T : !std::is_same_v<T, tf32x3>;
  }

  // What TMA cannot read is refused before any CUDA call (unless the operands policy copies it),
  // named in the caller's frame: a turned-around call's A is the caller's B (detail::swap_ab).
  template <class T, class Args>
  static Status check_alignment(const Args& caller_args) {
    if (turns_block_scales(caller_args)) return Status::UnsupportedScales;
    const Status s = check_reads<T>(computed(caller_args));
    return Epilogue::kTurned && !detail::is_turned<Args> ? detail::swap_ab(s) : s;
  }
  // FP8 block scales on a call this composition turns around: their 1 x 128 blocks would lie along
  // the tile's narrow side, which no kernel reads. Refused by check_alignment, before the call writes
  // anything, and again by launch (for compositions that launch this one without its check).
  template <class Args>
  static bool turns_block_scales(const Args& caller_args) {
    if constexpr (Epilogue::kTurned && !detail::is_turned<Args>)
      return detail::block_scaled(caller_args);
    else
      return (void)caller_args, false;
  }
  template <class T, class Args>
  static Status check_reads(const Args& args) {
    if (!detail::reads_ab(args)) return Status::Success;
    if (!promotes_as_asked<T>(args)) return Status::UnsupportedPromotion;
    if (!runs_batch<T>(args)) return Status::UnsupportedBatch;
    if (Operands::kPack) return Status::Success;
    if (tma_reads_a<T>(args) && !detail::a_aligned(args, 16)) return Status::MisalignedA;
    if (tma_reads_b<T>(args) && !detail::b_aligned(args, 16)) return Status::MisalignedB;
    return Status::Success;
  }

  // Batches run with no staging, where TMA reads A and B as stored (TF32 only with A row-major and
  // B transposed; not 3xTF32, whose split is a staging pass):
  //   strided:        as 3-D tensor maps (batch the outer dimension): 16-byte-aligned pointers, rows
  //                   and strides, each stride 0 (one operand for all) or at least one stored entry
  //                   (rows x ld);
  //   pointer arrays: every entry through one address map per operand (tensor_map.cuh), in the
  //                   warp-specialised kernels: rows a multiple of 16 bytes (an entry whose A or B
  //                   is not 16-byte aligned is loaded by the producer's threads instead of TMA).
  static bool stride_spans_entry(long long stride, long long rows, long long ld) {
    return stride == 0 || stride >= rows * ld;
  }
  template <class T, class Args>
  static bool runs_batch(const Args& a) {
    if constexpr (Args::kBatching == Batch::None) {
      return true;
    } else if constexpr (std::is_same_v<T, tf32x3> || (Args::kBatching == Batch::Pointers && !Schedule::kWarpSpecialized)) {
      return false;
    } else if constexpr (Args::kBatching == Batch::Pointers) {
      using In = typename Args::Element;
      return tma_reads_a<T>(a) && tma_reads_b<T>(a) && sm90::tma_rows<In>(a.lda) && sm90::tma_rows<In>(a.ldb);
    } else {
      const int rows_a = a.op_a == Op::N ? a.m : a.k, rows_b = a.op_b == Op::N ? a.k : a.n;
      return tma_reads_a<T>(a) && tma_reads_b<T>(a) && detail::a_aligned(a, 16) && detail::b_aligned(a, 16) &&
             stride_spans_entry(a.stride_a, rows_a, a.lda) && stride_spans_entry(a.stride_b, rows_b, a.ldb);
    }
  }

  // kPromote: 3xTF32's large term; FP8 promotes on the tiles that can (scaling.cuh), and splits k as
  // the plain kernels do.
  // kFixedScales: FP8 with tensor or row scales (kernels.cuh), a kernel of their own.
  template <class Args, class S, bool kPromote = false, bool kFixedScales = false>
  static constexpr auto kernel() {
    constexpr bool kFp8 = is_fp8<typename Args::Element>;
    if constexpr (!Schedule::kWarpSpecialized)
      return &sm90::wgmma_kernel<Args, S, Raster, kPromote>;
    else if constexpr (S::kPingPong)
      return &sm90::pingpong_kernel<Args, S, Raster>;
    else
      return &sm90::cooperative_kernel<Args, S, Raster, Schedule::kPersistent, kPromote || (kFp8 && kPromotedTiles),
                                        kSplitsK && (!kPromote || kFp8) && Args::kBatching == Batch::None, kFixedScales>;
  }

  // Split-K's cut of a call with block shape S (1 slice: whole tiles), and the scratch its partial
  // tiles and counters take.
  template <class S, class Args>
  static HopperKSlices k_slices(const Args& args, const detail::DeviceInfo& dev) {
    if constexpr (!kSplitsK || Args::kBatching != Batch::None || S::kPingPong) {
      (void)args, (void)dev;
      return {};
    } else {
      const long long tiles = detail::ceil_div(args.m, S::BM) * detail::ceil_div(args.n, S::BN);
      const int k_blocks = static_cast<int>(detail::ceil_div(args.k, S::BK));
      HopperKSlices cut = KSplit::cut(tiles, k_blocks, dev.sms);
      // As many slices as ceil(k_blocks / s) blocks each make: none empty (with 65 blocks in 16
      // slices of 5, the last three would hold none).
      if (cut.splits > 1)
        cut.splits = static_cast<int>(detail::ceil_div(k_blocks, static_cast<int>(detail::ceil_div(k_blocks, cut.splits))));
      if (cut.splits <= 1) cut = {};
      cut.separate = cut.splits > 1 && KSplit::separate(cut.splits, cut.whole > 0);
      return cut;
    }
  }
  // (The partial tiles, then a counter per split tile in a block of its own at the end.)
  static std::size_t k_counter_bytes(long long tiles) { return (static_cast<std::size_t>(tiles) * 4 + 255) / 256 * 256; }
  template <class S, class Args>
  static long long split_tiles(const Args& args, const HopperKSlices& cut) {
    return detail::ceil_div(args.m, S::BM) * detail::ceil_div(args.n, S::BN) - cut.whole;
  }
  template <class S, class Args>
  static std::size_t k_slices_bytes(const Args& args, const HopperKSlices& cut) {
    if (cut.splits <= 1) return 0;
    const long long tiles = split_tiles<S>(args, cut);
    return static_cast<std::size_t>(tiles) * cut.splits * sm90::SplitKPartials<S>::kFloats * 4 + k_counter_bytes(tiles);
  }

  // 3xTF32's kernel: the accumulators are promoted stage by stage (kernels.cuh), which needs a
  // second set of them, so the tile is at most 128 wide, with as many 32-k stages as fit.
  static constexpr int kSplitBN = Tile::BN < 128 ? Tile::BN : 128;
  static constexpr int kSplitStages = [] {
    constexpr int stage = (Tile::BM + kSplitBN) * 32 * 4;
    constexpr int budget = 227 * 1024 - Schedule::kConsumers * Epilogue::kBuffers - 2048;
    return budget / stage < 8 ? budget / stage : 8;
  }();
  // (Cooperative even under PersistentPingPong: the promoted kernel does not take turns.)
  using SplitShape = sm90::BlockShape<float, Tile::BM, kSplitBN, kSplitStages, Schedule::kConsumers, Op::N, Op::T,
                                      Epilogue::kBuffers>;

  template <class T, class Layouts, class Args>
  static Status launch(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (Epilogue::kTurned && !detail::is_turned<Args>) {
      static_assert(Args::kBatching == Batch::None && !std::is_same_v<T, tf32x3>,
                    "TurnedRegisterEpilogue: single products of 16-bit, TF32 or FP8 types.");
      if (turns_block_scales(caller_args)) return Status::UnsupportedScales;
      return launch<T, typename detail::TurnedLayouts<Layouts>::type>(detail::turned(caller_args), dev, stream);
    } else {
      return launch_computed<T, Layouts>(caller_args, dev, stream);  // (the call as it is: only this branch
                                                                     // compiles its kernels)
    }
  }

  template <class T, class Layouts, class Args>
  static Status launch_computed(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if (dev.arch != 90) return Status::UnsupportedArchitecture;  // wgmma is sm_90a's alone
    if (detail::reads_ab(caller_args) && !runs_batch<T>(caller_args)) return Status::UnsupportedBatch;
    if constexpr ((Args::kBatching == Batch::Pointers && !Schedule::kWarpSpecialized) ||
                  (Args::kBatching != Batch::None && std::is_same_v<T, tf32x3>)) {
      return Status::UnsupportedBatch;  // (runs_batch refused it above; no kernel is compiled for it)
    } else if constexpr (std::is_same_v<T, tf32x3>) {
      return launch_tf32x3(caller_args, dev, stream);
    } else {
      return launch_staged<T, Layouts>(caller_args, dev, stream);
    }
  }

  template <class T, class Layouts, class Args>
  static Status launch_staged(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    // The layouts the kernel reads: TF32 and FP8 only A row-major and B transposed (see plan_staging),
    // TF32 with WgmmaRegisterA A either way. A tile narrower than 64 on B reads B transposed (kNarrowB).
    using Reads = std::conditional_t<kKMajorA<T>, detail::Ops<Op::N, Op::T>, Layouts>;
    return detail::with_ops<Reads>(caller_args.op_a, caller_args.op_b, [&](auto layouts) {
      using L = detail::Ops<decltype(layouts)::a, kKMajorB<T> ? Op::T : decltype(layouts)::b>;
      using S = KernelShape<Args, L::a, L::b>;
      // Whether the kernel can run here is known before anything is copied.
      if (Status s = prepare<S, kernel<Args, S>()>(dev); s != Status::Success) return s;
      const Staging staging = plan_staging<T>(caller_args);
      const HopperKSlices cut = k_slices<S>(caller_args, dev);
      const std::size_t slices_bytes = k_slices_bytes<S>(caller_args, cut);
      if (staging.bytes == 0 && slices_bytes == 0) return launch_layout<L>(caller_args, dev, stream, {});
      detail::StreamWorkspace workspace(stream, dev.device);  // freed in stream order after the last kernel below
      char* scratch = nullptr;
      if (Status s = workspace.allocate(scratch, staging.bytes + slices_bytes); s != Status::Success) return s;
      Args args = caller_args;
      if (Status s = staging.stage_in(args, scratch, dev, stream); s != Status::Success) return s;
      sm90::SplitKWork split_k;
      if (cut.splits > 1) {
        const long long tiles = split_tiles<S>(args, cut);
        split_k.splits = cut.splits;
        split_k.whole = static_cast<int>(cut.whole);
        split_k.partials = reinterpret_cast<float*>(scratch + staging.bytes);
        split_k.counters = reinterpret_cast<unsigned*>(scratch + staging.bytes + slices_bytes - k_counter_bytes(tiles));
        split_k.separate = cut.separate;
        if (!split_k.separate) {
          if (Status s = detail::zero_slice_counters(split_k.counters, tiles, stream); s != Status::Success) return s;
        }
      }
      if (Status s = launch_layout<L>(args, dev, stream, split_k); s != Status::Success) return s;
      if constexpr (kSplitsK && Args::kBatching == Batch::None) {
        if (split_k.separate) {
          if (Status s = launch_fixup<S>(args, dev, stream, split_k, split_tiles<S>(args, cut)); s != Status::Success)
            return s;
        }
      }
      return staging.stage_out(caller_args, args, dev, stream);
    });
  }

  // 3xTF32's split planes (kernel/split_kernel.cuh), k padded to ld = round_up(k, 4) floats: per
  // operand a hi plane of rows x ld and a cross plane of rows x 2 ld, 256-byte aligned.
  struct SplitPlanes {
    int ld;
    long long a, b;  // floats per hi plane of A, of B (the cross planes take twice that)
    template <class Args>
    explicit SplitPlanes(const Args& args)
        : ld(static_cast<int>(detail::ceil_div(args.k, 4) * 4)),
          a((static_cast<long long>(args.m) * ld + 63) / 64 * 64),
          b((static_cast<long long>(args.n) * ld + 63) / 64 * 64) {}
    std::size_t bytes() const { return static_cast<std::size_t>(3 * (a + b)) * sizeof(float); }
  };

  // Scratch memory a call takes (stream-ordered, or from a gemm::CallerWorkspace): the staging copies
  // of operands TMA cannot read, and for 3xTF32 the split planes. What gemm::plan reports.
  template <class T, class Args>
  static std::size_t workspace_bytes(const Args& caller_args, const detail::DeviceInfo& dev) {
    const auto args = computed(caller_args);
    if (!detail::reads_ab(args)) return 0;
    if constexpr (Args::kBatching == Batch::Pointers) {
      return 0;  // (no staging: misaligned entries are loaded by the kernel itself)
    } else if constexpr (std::is_same_v<T, tf32x3>) {
      return plan_staging<tf32x3>(args).bytes + SplitPlanes(args).bytes();
    } else {
      // (Every layout's block shape has the same tile and depth.)
      using S = Shape<typename Args::Element, Op::N, kKMajorB<T> ? Op::T : Op::N>;
      return plan_staging<T>(args).bytes + k_slices_bytes<S>(args, k_slices<S>(args, dev));
    }
  }

  // 3xTF32: split A and B into TF32 planes (kernel/split_kernel.cuh), then two GEMMs into C:
  //   C = alpha (a_lo b_hi + a_hi b_lo) + beta C   the cross planes, k = 2 ld, this policy's tile
  //   C = epilogue(C + alpha a_hi b_hi)            the hi planes, promoted accumulators, in k slices
  //                                                of at most kSliceK, each added to C
  // Only the large term needs the promotion: the tensor cores' truncating accumulation errs relative
  // to what it sums, and the cross terms are 2^-11 of the result, so their truncation stays below
  // fp32 rounding (measured with tools/accuracy.cu). The cross GEMM runs the plain TF32 kernel (the
  // large tile, no second set of accumulators), one launch for both terms.
  // Scratch: 3 (m + n) round_up(k, 4) floats (and C's staging copy, as for other types).
  static constexpr int kSliceK = 4096;

  template <class Args>
  static Status launch_tf32x3(const Args& caller_args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using S = SplitShape;
    static_assert(!Schedule::kWarpSpecialized || S::kMmaM == 1,
                  "3xTF32 in the warp-specialised kernels keeps three sets of accumulators: each math warpgroup can "
                  "own only 64 rows (BlockTile<128, BN> with two consumers, or <64, BN> with one).");
    using Cross = Shape<float, Op::N, Op::T>;
    constexpr auto kKernel = kernel<Args, S, true>();
    using Partial = decltype(detail::without_epilogue(caller_args));
    constexpr auto kCrossKernel = kernel<Partial, Cross>();
    if (Status s = prepare<S, kKernel>(dev); s != Status::Success) return s;
    if (Status s = prepare<Cross, kCrossKernel>(dev); s != Status::Success) return s;
    if constexpr (detail::has_epilogue<Args>) {  // the k slices before the last
      if (Status s = prepare<S, kernel<Partial, S, true>()>(dev); s != Status::Success) return s;
    }
    const Staging staging = plan_staging<tf32x3>(caller_args);  // C only: A and B are split instead
    const SplitPlanes planes(caller_args);
    const int ld = planes.ld;
    detail::StreamWorkspace workspace(stream, dev.device);
    char* scratch = nullptr;
    if (Status s = workspace.allocate(scratch, staging.bytes + planes.bytes()); s != Status::Success) return s;
    float* hi_a = reinterpret_cast<float*>(scratch + staging.bytes);
    float* cross_a = hi_a + planes.a;
    float* hi_b = hi_a + 3 * planes.a;
    float* cross_b = hi_b + planes.b;
    const Args& c = caller_args;
    Status s = c.op_a == Op::N ? detail::split_tf32<false>(c.A, c.lda, c.m, c.k, hi_a, cross_a, ld, true, dev, stream)
                               : detail::split_tf32<true>(c.A, c.lda, c.k, c.m, hi_a, cross_a, ld, true, dev, stream);
    if (s != Status::Success) return s;
    s = c.op_b == Op::T ? detail::split_tf32<false>(c.B, c.ldb, c.n, c.k, hi_b, cross_b, ld, false, dev, stream)
                        : detail::split_tf32<true>(c.B, c.ldb, c.k, c.n, hi_b, cross_b, ld, false, dev, stream);
    if (s != Status::Success) return s;
    Args args = caller_args;
    if (Status st = staging.stage_in(args, scratch, dev, stream); st != Status::Success) return st;
    args.op_a = Op::N, args.op_b = Op::T;
    // A fused epilogue applies to the complete sum only: the cross pass runs without it.
    Partial cross = detail::without_epilogue(args);
    cross.A = cross_a, cross.B = cross_b;
    cross.k = 2 * ld, cross.lda = cross.ldb = 2 * ld;
    if (Status st = launch_shape<Cross, kCrossKernel>(cross, dev, stream); st != Status::Success) return st;
    // The large term in k slices of at most kSliceK, each added to C: a promoted accumulator is one
    // chain of fp32 adds (one per 32 k), whose rounding grows like its square root; slices shorten it
    // (measured at k = 16384, wide exponents: 2.08x cuBLAS SGEMM's error as one chain).
    args.A = hi_a, args.B = hi_b, args.lda = args.ldb = ld;
    args.beta = 1.0f;
    const Status st = detail::in_k_slices(args, kSliceK, 32, [&](const auto& slice) {
      if constexpr (std::is_same_v<std::decay_t<decltype(slice)>, Args>)
        return launch_shape<S, kKernel>(slice, dev, stream);
      else
        return launch_shape<S, kernel<Partial, S, true>()>(slice, dev, stream);
    });
    if (st != Status::Success) return st;
    return staging.stage_out(caller_args, args, dev, stream);
  }

  // Kernel (for block shape S) fits this device and has sm_90a code in the binary.
  template <class S, auto kKernel>
  static Status prepare(const detail::DeviceInfo& dev) {
    if (S::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    // Code built for plain sm_90 (no sm_90a features) holds only the kernels' trapping stubs.
    if (Status s = detail::runs_here<WithWgmma>(dev); s != Status::Success) return s;
    return detail::prepare_kernel<kKernel>(S::kSmemBytes, dev, 90);
  }

  // Where the call's operands go before and after the kernel: scratch copies that TMA and wgmma can
  // read (and that TMA can store to), in one stream-ordered allocation.
  //   A, B: TF32 wgmma reads only K-major operands, so an A stored k x m or a B stored k x n is copied
  //         transposed (k contiguous); with PackMisalignedOperands, an operand TMA cannot read is
  //         copied with 64-byte-aligned rows, and so is an MN-major operand (A stored k x m, B k x n)
  //         whose rows TMA reads but slowly: rows not on 64-byte multiples, for a C at least
  //         kPackSlowRowsFrom wide on the operand's other side (the copy costs less there than it
  //         saves). Measured on the H100, bf16 NN, 128x256 tiles: B rows of 8080 bytes (n = 4040)
  //         made 4096 x 4040 x 4096 237.0 us against 174.6 for n = 4096, 8192 x 8120 x 8120 2136
  //         against 1373 for 8192^3; K-major rows cost little (A rows of 8080 bytes: 179.3), and
  //         rows on 64-byte multiples nothing (n = 4000, rows of 8000 bytes: 172.6). With B copied:
  //         8192 x 8120 x 8120 1503 us (cuBLAS 1512), 4096 x 4040 x 4096 205 (cuBLAS 192), 5000 x
  //         3000 x 2000 109 (122); but 3000 x 2000 x 1000 took 33.3 against 29.5, hence 4096.
  //   C:    with PackMisalignedOperands, a C of at least 2^22 elements whose rows are not 16-byte
  //         aligned (an odd ldc of bf16) that the kernel reads (beta != 0, or 3xTF32's later passes)
  //         is computed in an aligned copy (which first receives C) and copied back after the
  //         kernel, instead of being read and stored element by element from registers (measured:
  //         4096 x 4097 bf16, 150 us of stores). With beta == 0 the consumers store such a C
  //         through shared memory in row order (CStore::Direct) and nothing is staged.
  using Staging = detail::ScratchCopies;

  static constexpr long long kStageCFromElements = 1 << 22;
  static constexpr int kPackSlowRowsFrom = 4096;

  template <class T, class Args>
  static Staging plan_staging(const Args& args) {
    using In = typename Args::Element;
    using Out = typename Args::Output;
    Staging st;
    const Op ops[2] = {args.op_a, args.op_b};
    const int mn[2] = {args.m, args.n};
    const In* stored[2] = {args.A, args.B};
    const int lds[2] = {args.lda, args.ldb};
    for (int x = 0; x < 2 && !std::is_same_v<T, tf32x3>; ++x) {
      const bool k_major = (x == 0) == (ops[x] == Op::N);  // op N of A and op T of B keep k contiguous
      // (An operand TMA cannot read is never a batch's: runs_batch.)
      const bool slow_rows = Args::kBatching == Batch::None && !k_major && mn[1 - x] >= kPackSlowRowsFrom &&
                             (static_cast<long long>(lds[x]) * sizeof(In)) % Staging::kRowBytes != 0;
      if ((x == 0 ? kKMajorA<T> : kKMajorB<T>) && !k_major)
        st.add(x, mn[x], args.k, sizeof(In), /*transpose=*/true);
      else if (Operands::kPack && (!sm90::tma_compatible(stored[x], lds[x]) || slow_rows))
        st.add(x, k_major ? mn[x] : args.k, k_major ? args.k : mn[x], sizeof(In));
    }
    // A small C costs more in the extra launch and allocation than its stores from registers do.
    // A batch's C stores from registers where TMA cannot (no staging for batches).
    // (A turned-around call's C is m x n in the caller's frame, not the kernel's: never copied.)
    const bool c_by_copy = args.beta != 0 || std::is_same_v<T, tf32x3> || Epilogue::kBuffers == 0;
    if (Operands::kPack && Args::kBatching == Batch::None && !Epilogue::kTurned && c_by_copy &&
        !sm90::tma_compatible(args.C, args.ldc) &&
        static_cast<long long>(args.m) * args.n >= kStageCFromElements) {
      st.add(2, args.m, args.n, sizeof(Out));
    }
    // FP8 block scales that travel in the stages (KernelShape) are copied in 16-byte runs: A's need m
    // floats from one k block to the next, B's ceil(k / 128) from one column block to the next, each a
    // multiple of 4 from a 16-byte-aligned start; scales that are not so are first copied so.
    if constexpr (KernelShape<Args, Op::N, Op::T>::kScaleSlots) {
      const Scales& sc = detail::scales_of(args);
      if (sc.mode == ScaleMode::Block) {
        const int k_blocks = static_cast<int>(Scales::k_blocks(args.k));
        const int n_blocks = static_cast<int>(detail::ceil_div(args.n, kScaleBlock));
        if (!detail::vector_aligned(sc.a, static_cast<int>(sc.a_step(args.m))))
          st.add(3, k_blocks, args.m, sizeof(float));
        if (!detail::vector_aligned(sc.b, static_cast<int>(sc.b_step(args.k))))
          st.add(4, n_blocks, k_blocks, sizeof(float));
      }
    }
    return st;
  }

  template <class L, class Args>
  static Status launch_layout(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                              const sm90::SplitKWork& split_k) {
    using S = KernelShape<Args, L::a, L::b>;
    if constexpr (is_fp8<typename Args::Element> && kPromotedTiles && detail::has_scales<Args>) {
      // Tensor and row scales (and with them the products of several stages that
      // Scales::promote_every allows): their own kernel, whose products are added without factors;
      // the only kernel of a call turned around (launch refused its block scales).
      if (detail::is_turned<Args> || detail::scales_of(args).mode != ScaleMode::Block) {
        using Plain = Shape<typename Args::Element, L::a, L::b>;
        constexpr auto kFixedScalesKernel = kernel<Args, Plain, false, true>();
        if (Status s = prepare<Plain, kFixedScalesKernel>(dev); s != Status::Success) return s;
        return launch_shape<Plain, kFixedScalesKernel>(args, dev, stream, split_k);
      }
      if constexpr (detail::is_turned<Args>)
        return Status::UnsupportedScales;  // (unreachable: no block-scale kernel is compiled for it)
      else
        return launch_shape<S, kernel<Args, S>()>(args, dev, stream, split_k);
    } else {
      return launch_shape<S, kernel<Args, S>()>(args, dev, stream, split_k);
    }
  }

  // Split-K's separate fixup (split_k.cuh): a block per chunk of accumulators of each split tile.
  template <class S, class Args>
  static Status launch_fixup(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                             const sm90::SplitKWork& split_k, long long tiles) {
    return detail::launch_kernel<&sm90::split_k_fixup_kernel<Args, S, Raster>>(
        detail::Grid(tiles * sm90::SplitKPartials<S>::kChunks), 128 * S::kConsumers, 0, stream, dev, args, split_k);
  }

  // Encodes the tensor maps and launches Kernel (prepared already) for block shape S.
  template <class S, auto kKernel, class Args>
  static Status launch_shape(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                             const sm90::SplitKWork& split_k = {}) {
    if constexpr (Args::kBatching == Batch::Pointers)
      return launch_pointers<S, kKernel>(args, dev, stream);
    else
      return launch_host_maps<S, kKernel>(args, dev, stream, split_k);
  }

  // The kernel's grid: one block per SM walking the units (persistent), or one per unit (a tile, or
  // a k slice of one) and entry.
  template <class S, class Args>
  static detail::Grid grid_of(const Args& args, const detail::DeviceInfo& dev, int slices = 1, long long whole = 0) {
    const long long units =
        whole + (detail::ceil_div(args.m, S::BM) * detail::ceil_div(args.n, S::BN) - whole) * slices;
    return Schedule::kPersistent ? detail::Grid(std::min<long long>(units * args.batch, dev.sms))
                                 : detail::Grid(units, args.batch);
  }

  // How the consumers store C: beta == 0 goes through shared memory, by TMA where it can write C
  // (tma_writes_c), else by the consumers in row order; any other beta from registers, as FP8 C and
  // an FP8 call that scales its output or asks for its amax (sm90::OutputStage).
  template <class Args>
  static sm90::CStore c_store_of(const Args& args, bool tma_writes_c) {
    if (Epilogue::kBuffers == 0 || args.beta != 0 || is_fp8<typename Args::Output>) return sm90::CStore::Registers;
    if constexpr (detail::has_scales<Args>) {
      if (detail::scales_of(args).scales_output()) return sm90::CStore::Registers;
    }
    return tma_writes_c ? sm90::CStore::Tma : sm90::CStore::Direct;
  }

  // C's map for the TMA stores of BN-wide tiles (batch > 0: a 3-D map of entries stride_c apart).
  template <int BN, class Out>
  static Status make_c_map(CUtensorMap& map, const Out* base, int m, int n, int ldc, long long batch = 0,
                           long long stride_c = 0) {
    using Chunk = sm90::StoreChunkFor<Out, BN>;
    return sm90::make_tensor_map(map, base, m, n, ldc, Chunk::kRows, Chunk::kCols, batch, stride_c);
  }

  // A grouped call (grouped.cuh; A stored as written, B either way for 16-bit types): the groups'
  // tiles counted on the device into stream-ordered scratch (count_group_units), then the persistent
  // cooperative kernel over exactly those tiles. Nothing is staged: the host cannot see the groups.
  template <class T, class Args>
  static Status launch_grouped(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    static_assert(Schedule::kPersistent && !Schedule::kPingPong,
                  "Grouped calls run on the persistent cooperative schedule (PersistentProducerConsumer).");
    static_assert(!kNarrowB, "Grouped calls read B as stored: BlockTile's BN must be at least 64.");
    if (dev.arch != 90) return Status::UnsupportedArchitecture;
    const auto run = [&](auto layouts) {
      using L = decltype(layouts);
      using S = Shape<typename Args::Element, Op::N, L::b>;
      constexpr auto kKernel = kernel<Args, S>();
      if (Status s = prepare<S, kKernel>(dev); s != Status::Success) return s;
      detail::StreamWorkspace workspace(stream, dev.device);
      char* scratch = nullptr;
      // The units table (groups + 1 words), then the counter the kernel claims units from.
      if (Status s = workspace.allocate(scratch, (static_cast<std::size_t>(args.batch) + 2) * sizeof(int));
          s != Status::Success)
        return s;
      Args a = args;
      int* units = reinterpret_cast<int*>(scratch);
      a.claims = units + args.batch + 1;
      if (Status s = detail::count_group_units(a, S::BM, S::BN, units, dev, stream); s != Status::Success) return s;
      a.units = units;
      return launch_host_maps<S, kKernel>(a, dev, stream, sm90::SplitKWork{});
    };
    if constexpr (is_k_major_only<T>) return run(detail::Ops<Op::N, Op::T>{});
    else return args.op_b == Op::T ? run(detail::Ops<Op::N, Op::T>{}) : run(detail::Ops<Op::N, Op::N>{});
  }

  // One call or a strided batch: every map encoded here.
  template <class S, auto kKernel, class Args>
  static Status launch_host_maps(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                                 const sm90::SplitKWork& split_k) {
    // A batch: 3-D maps of `batch` entries (one entry for a stride of 0, read at z = 0).
    constexpr bool kBatched = Args::kBatching != Batch::None;
    const auto depth = [&](long long stride) -> long long { return !kBatched ? 0 : stride == 0 ? 1 : args.batch; };
    const auto spacing = [](long long stride, long long rows, long long ld) { return stride == 0 ? rows * ld : stride; };
    const int rows_a = S::TileA::kKMajorTile ? args.m : args.k, rows_b = S::TileB::kKMajorTile ? args.n : args.k;
    CUtensorMap map_a, map_b;
    if (Status s = S::TileA::make_map(map_a, args.A, args.m, args.k, args.lda, depth(args.stride_a),
                                      spacing(args.stride_a, rows_a, args.lda));
        s != Status::Success)
      return s;
    if (Status s = S::TileB::make_map(map_b, args.B, args.n, args.k, args.ldb, depth(args.stride_b),
                                      spacing(args.stride_b, rows_b, args.ldb));
        s != Status::Success)
      return s;
    const detail::Grid grid = grid_of<S>(args, dev, split_k.splits, split_k.whole);
    const int threads = 128 * (S::kConsumers + Schedule::kWarpSpecialized);
    if constexpr (Schedule::kWarpSpecialized) {
      CUtensorMap map_c{};
      // TMA writes C where it is aligned and a batch's C entries are whole 3-D slices (stride >= m x ldc);
      // a contiguous grouped call's C is one matrix of m (max_rows) rows, its groups placed by row.
      long long c_depth = kBatched ? args.batch : 0, c_stride = args.stride_c;
      bool c_by_tma = detail::c_aligned(args, 16) && (!kBatched || args.stride_c >= static_cast<long long>(args.m) * args.ldc);
      if constexpr (detail::is_grouped<Args>) {
        if (args.form == GroupedForm::Contiguous) {
          c_depth = 1, c_stride = static_cast<long long>(args.m) * args.ldc;
          c_by_tma = detail::c_aligned(args, 16);
        }
      }
      const sm90::CStore c_store = c_store_of(args, c_by_tma);
      if (c_store == sm90::CStore::Tma) {
        if (Status s = make_c_map<S::BN>(map_c, args.C, args.m, args.n, args.ldc, c_depth, c_stride);
            s != Status::Success)
          return s;
      }
      return detail::launch_kernel<kKernel>(grid, threads, S::kSmemBytes, stream, dev, map_a, map_b, map_c, args,
                                            c_store, split_k);
    } else {
      return detail::launch_kernel<kKernel>(grid, threads, S::kSmemBytes, stream, dev, map_a, map_b, args);
    }
  }

  // A pointer array (warp-specialised schedules): one address map per operand for the entries'
  // shape, the kernel placing each entry by its pointers (tensor_map.cuh).
  template <class S, auto kKernel, class Args>
  static Status launch_pointers(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using Out = typename Args::Output;
    using Chunk = sm90::StoreChunkFor<Out, S::BN>;
    CUtensorMap map_a, map_b, map_c{};
    if (Status s = S::TileA::make_address_map(map_a, args.m, args.k, args.lda); s != Status::Success) return s;
    if (Status s = S::TileB::make_address_map(map_b, args.n, args.k, args.ldb); s != Status::Success) return s;
    // TMA writes C where its rows allow (here) and the entry is aligned (in the kernel).
    const sm90::CStore c_store = c_store_of(args, sm90::tma_rows<Out>(args.ldc));
    if (c_store == sm90::CStore::Tma) {
      if (Status s = sm90::make_address_map<Out>(map_c, args.m, args.n, args.ldc, Chunk::kRows, Chunk::kCols);
          s != Status::Success)
        return s;
    }
    return detail::launch_kernel<kKernel>(grid_of<S>(args, dev), 128 * (S::kConsumers + 1), S::kSmemBytes, stream, dev,
                                          map_a, map_b, map_c, args, c_store, sm90::SplitKWork{});
  }
};

}  // namespace gemm
