#pragma once
// The tutorials' stages as named policies, in tutorial order. Each preset differs from the one
// before it by the part that the tutorial changed; diff two neighbours to see one idea.
//
// Types: the CUDA-core stages compute float and double (WarpTiled also bf16 and fp16 inputs); the
// warp-level tensor-core stages (Wmma, MmaSync) compute bf16 and fp16 inputs (C in the input type or
// float) and gemm::tf32 (float data, TF32 math, float C), never plain float; Dmma computes double on
// the FP64 tensor cores; the Hopper stages compute bf16 and fp16 inputs (C in the input type or
// float). Every preset takes every layout of A and B (gemm::Op) and both entry points (row-major,
// and blas:: column-major).
// Alignment: the CUDA-core presets accept any pointer aligned to its element type and any leading
// dimension: presets with VectorLoader<> run a scalar-load instantiation of the same kernel when
// A, B or C (or lda, ldb, ldc) are not 16-byte aligned. Wmma needs A and B rows 16-byte aligned
// (pointer and leading dimension) and returns Status::MisalignedA/B otherwise. MmaSync and Dmma copy
// 16 bytes at a time where rows are 16-byte aligned and 4 bytes (Dmma: 8) otherwise; bf16 and fp16
// rows must then still be 4-byte aligned (an even leading dimension), else MisalignedA/B. The Hopper
// presets need A and B as TMA reads them (16-byte-aligned pointers, leading dimensions a multiple of
// 16 bytes) and return Status::MisalignedA/B otherwise. Tuned takes another path for any input a
// composition refuses. C may have any alignment in every preset.
#include <algorithm>
#include <type_traits>
#include "mma/policy.cuh"
#include "policy.cuh"
#include "sm90/policy.cuh"
#include "type_list.cuh"

namespace gemm::preset {

// Stage 1, naive: one thread per element of C; consecutive threads take consecutive rows, so a
// warp's loads of A stride across rows and nothing coalesces.
struct Naive : DirectPolicy<RowPerLane>, Named<Naive> {
  static const char* name() { return "Naive"; }
};

// Stage 2, global memory coalescing: consecutive threads take consecutive columns, so a warp reads
// one contiguous row segment of B and writes one of C, instead of 32 scattered words.
struct Coalesced : DirectPolicy<ColumnPerLane>, Named<Coalesced> {
  static const char* name() { return "Coalesced"; }
};

// Stage 3, shared-memory cache blocking: a block stages 32x32 tiles of A and B in shared memory
// and every element loaded from global memory is used 32 times from there.
struct SmemTiled : TiledPolicy<TileShape<32, 32, 32, 1, 1>, BlockThreadMap, ScalarLoader,
                               SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                   Named<SmemTiled> {
  static const char* name() { return "SmemTiled"; }
};

// Stage 4, 1D block tiling: each thread computes a column of TM = 8 results, reusing each B value
// from shared memory 8 times in a register: fewer shared loads per FMA.
struct BlockTile1D : TiledPolicy<TileShape<64, 64, 8, 8, 1>, BlockThreadMap, ScalarLoader,
                                 SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                     Named<BlockTile1D> {
  static const char* name() { return "BlockTile1D"; }
};

// Stage 5, 2D block tiling (inner product -> outer product): each thread owns an 8x8 register tile
// and adds the outer product of 8 A and 8 B values per k: 64 FMAs for 16 shared loads.
struct BlockTile2D : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, ScalarLoader,
                                 SmemLayout<RowMajor<0>, RowMajor<0>>, SingleStage, OuterProduct, ScalarEpilogue>,
                     Named<BlockTile2D> {
  static const char* name() { return "BlockTile2D"; }
};

// Stage 6, vectorised access: 16-byte global loads and C stores, and A stored transposed (k-major)
// in shared memory so the math step reads A's fragment as vectors too.
struct Vectorized : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                SmemLayout<Transposed<0>, RowMajor<0>>, SingleStage, OuterProduct, VectorEpilogue>,
                    Named<Vectorized> {
  static const char* name() { return "Vectorized"; }
};

// Stage 7, bank-conflict-free shared memory: the transposing stores of A hit the same bank from
// threads that differ only in k; 4 padding words per row spread them over all 32 banks.
// (TransposedSwizzled does the same with no extra memory; see docs/performance.md for which measured faster.)
struct BankConflictFree : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                      SmemLayout<Transposed<4>, RowMajor<0>>, SingleStage, OuterProduct, VectorEpilogue>,
                          Named<BankConflictFree> {
  static const char* name() { return "BankConflictFree"; }
};

// Stage 8, double buffering: two shared buffers; the next tile's global loads are in flight
// while the current tile computes, and one barrier per k step instead of two.
struct DoubleBuffered : TiledPolicy<TileShape<128, 128, 8, 8, 8>, BlockThreadMap, VectorLoader<>,
                                    SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                                    VectorEpilogue>,
                        Named<DoubleBuffered> {
  static const char* name() { return "DoubleBuffered"; }
};

// Stage 9, warp tiling: block tile -> 32x64 warp tiles -> 4x4 thread tiles, twice in each direction.
// A warp's lanes read adjacent shared-memory words (no conflicts on B) and a warp's fragment
// footprint is small, so its operands are reused from registers.
// WarpTiled is also the CUDA-core path for bf16 and fp16 inputs (converted to float as they pass
// through registers into shared memory, fp32 accumulation, C in the input type or float): the
// correct fallback on any GPU, alignment and layout, not the fast path.
struct WarpTiled : TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                               SmemLayout<Transposed<4>, RowMajor<0>>, RegisterDoubleBuffer, OuterProduct,
                               VectorEpilogue>,
                   Named<WarpTiled> {
  static const char* name() { return "WarpTiled"; }
  template <class T, class Out>
  static constexpr bool kServes = kStrictTypes<T, Out> || (is_16bit<T> && is_supported_output<T, Out>);
};

// Stage 10, multi-stage cp.async pipeline (sm_80+): three shared stages filled by asynchronous
// copies two tiles ahead of the math, with no registers spent on staging.
struct MultiStage : TiledPolicy<TileShape<128, 128, 8, 4, 4>, WarpThreadMap<32, 64, 2, 2>, VectorLoader<>,
                                SmemLayout<Transposed<4>, RowMajor<0>>, CpAsyncMultiStage<3>, OuterProduct,
                                VectorEpilogue>,
                    Named<MultiStage> {
  static const char* name() { return "MultiStage"; }
};

// ---------------------------------------------------------------------------------------------
// Tensor cores at warp level (sm_80 and newer: sm_80, sm_86, sm_89, sm_90): bf16 and fp16 inputs with
// C in the input type or float, gemm::tf32 with float C, and (Dmma) double. Every layout, any M, N, K.

// Stage 11, WMMA: the math moves to tensor cores through CUDA's nvcuda::wmma fragments (16x16x16
// for bf16 and fp16, 16x16x8 for tf32, fp32 accumulators): 8 warps of 64x32 over 128x128 block tiles,
// shared tiles filled as MultiStage fills them (3 cp.async stages), here 32 bf16 (16 tf32) deep and
// padded by 16 bytes per row so that wmma's loads do not conflict. Results leave through a per-warp
// shared buffer, since wmma's accumulator layout is opaque. A and B rows must be 16-byte aligned.
struct Wmma : MmaPolicy<MmaTile<128, 128, 64>, WarpTile<64, 32>, CpAsyncMultiStage<3>, WmmaMath, RowMajorRaster,
                        Misaligned::Reject>,
              Named<Wmma> {
  static const char* name() { return "Wmma"; }
};

// Stage 12, mma.sync: the PTX instructions behind wmma, with layouts we choose. mma.m16n8k16
// (tf32: m16n8k8) with fragments loaded by ldmatrix.x4 (.trans for operands stored MN-major) from
// XOR-swizzled shared tiles with no padding and no bank conflicts (Nsight Compute on the H100: 94
// conflicts in 35.6 million shared wavefronts at 4096^3); 128x256 block tiles of 8 warps of 64x64
// (128 fp32 accumulators per thread), 3 cp.async stages 64 bf16 (32 tf32) deep, i.e. 144 KB (measured
// on the H100 at 4096^3: 55-57% of cuBLAS, against 45-48% with 4 stages 32 deep: half the barriers
// per k, and 8 warps, one block per SM, need the longer run of mma between them), fragments
// double-buffered in registers with the barrier before a stage's last k step
// (CpAsyncFragmentPipeline), tiles handed out in groups of 8 rows (L2 reuse), and accumulators stored
// straight from registers. Rows that are not 16-byte aligned are copied 4 bytes at a time (bf16 and
// fp16 need an even leading dimension). Needs 144 KB of shared memory per block (sm_80, sm_90; not
// sm_86 or sm_89, which answer SharedMemoryTooLarge; Tuned takes a smaller tile there).
struct MmaSync : MmaPolicy<MmaTile<128, 256, 128>, WarpTile<64, 64>, CpAsyncFragmentPipeline<3>, MmaSyncMath,
                           SwizzledRaster<8>>,
                 Named<MmaSync> {
  static const char* name() { return "MmaSync"; }
};

// FP64 tensor cores (beside stage 12): double on DMMA (mma.m8n8k4.f64 on sm_80, m16n8k4 on sm_90), which
// runs at twice the CUDA-core FP64 rate (67 TFLOP/s on the H100). 128x128 block tiles of 8 warps of 64x32
// (64 fp64 accumulators per thread), 16 doubles of k per stage, 4 cp.async stages with the fragment
// pipeline, 64-bit fragment loads from a pair-swizzled layout (conflict-free), grouped tile order.
// Rows that are not 16-byte aligned are copied 8 bytes at a time. Tuned uses it for double on sm_80+.
struct Dmma : MmaPolicy<MmaTile<128, 128, 128>, WarpTile<64, 32>, CpAsyncFragmentPipeline<4>, DmmaMath,
                        SwizzledRaster<8>>,
              Named<Dmma> {
  static const char* name() { return "Dmma"; }
};

// ---------------------------------------------------------------------------------------------
// Tensor cores on Hopper (sm_90a): bf16 and fp16 inputs, C in the input type or float, every layout.

// Stage 13, TMA + wgmma: the copy engine fills 128-byte-swizzled shared stages (one thread issues
// a whole tile per copy, completing on an mbarrier), and one warpgroup multiplies them with wgmma
// straight from shared memory: 128x128 tiles, four stages in flight, the math waits for its own
// tensor cores before a stage is refilled.
struct Wgmma : HopperPolicy<BlockTile<128, 128>, 4, SingleWarpgroup, RowMajorRaster>, Named<Wgmma> {
  static const char* name() { return "Wgmma"; }
};

// Stage 14, warp specialisation: a producer warpgroup only issues TMA, two consumer warpgroups only
// multiply (64 rows of Wgmma's 128x128 tile each), and full/empty barriers pass each stage between
// them, so the loads never wait for the math to drain; setmaxnreg gives the producer's registers to
// the consumers.
struct WarpSpecialized : HopperPolicy<BlockTile<128, 128>, 4, ProducerConsumer<2>, RowMajorRaster>,
                         Named<WarpSpecialized> {
  static const char* name() { return "WarpSpecialized"; }
};

// Stage 15, a wider tile: the same kernel over 128x256 tiles (each consumer an m64n256 wgmma per k
// step, 128 accumulators per thread), half the shared-memory traffic per flop of 128x128.
struct WideTile : HopperPolicy<BlockTile<128, 256>, 4, ProducerConsumer<2>, RowMajorRaster>, Named<WideTile> {
  static const char* name() { return "WideTile"; }
};

// Stage 16, persistent: one block per SM walks the tiles in a grouped order (8 tile rows at a time,
// so the blocks in flight share rows of A and columns of B in L2), the producer fills the next
// tile's stages while the consumers store this one, and the results leave through shared memory
// and TMA stores, so the consumers start the next tile while they drain.
// (It also takes FP8 calls that never promote, Scales::promote_every(0): its 128x256 tiles have
// registers for one set of accumulators.)
struct Persistent : HopperPolicy<BlockTile<128, 256>, 4, PersistentProducerConsumer<2>, SwizzledRaster<8>,
                                 TmaStoreEpilogue>,
                    Named<Persistent> {
  static const char* name() { return "Persistent"; }
};

// Stage 17, FP8: Persistent's kernel reading FP8 (e4m3, e5m2), whose wgmma does twice bf16's work
// per instruction. Its tensor cores accumulate with fewer bits than fp32, so each 128-deep stage's
// product goes into registers of its own and is added to the fp32 sum with ordinary adds (promotion),
// multiplied there by its 1 x 128 and 128 x 128 block scales, or after the k loop by tensor or row
// scales (sm90/scaling.cuh); with tensor or row scales a product may span several stages
// (Scales::promote_every). Three sets of accumulators: 128x128 tiles (six stages of 32 KB). FP8
// types only.
struct Fp8 : HopperPolicy<BlockTile<128, 128>, 6, PersistentProducerConsumer<2>, SwizzledRaster<8>, TmaStoreEpilogue>,
             Named<Fp8> {
  using Base = HopperPolicy<BlockTile<128, 128>, 6, PersistentProducerConsumer<2>, SwizzledRaster<8>, TmaStoreEpilogue>;
  template <class T, class Out>
  static constexpr bool kServes = is_fp8<T> && Base::kServes<T, Out>;
  static const char* name() { return "Fp8"; }
};

}  // namespace gemm::preset
