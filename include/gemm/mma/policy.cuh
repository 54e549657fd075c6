#pragma once
// MmaPolicy: the warp-level tensor-core family (sm_80 and newer: sm_80, sm_86, sm_89, sm_90).
//
//   MmaPolicy<MmaTile<BM, BN, KBytes>, WarpTile<WM, WN>, Pipeline, Math, Raster, OnMisaligned, Targets>
//
//   Math:       WmmaMath (nvcuda::wmma), MmaSyncMath (mma.sync + ldmatrix: bf16, fp16, tf32) or
//               DmmaMath (mma.m8n8k4.f64: double). The math part also picks the shared layouts its
//               fragment loads read without bank conflicts (mma/smem_layout.cuh).
//   Pipeline:   the CUDA-core family's pipelines: CpAsyncMultiStage<S> (whole stages) or
//               CpAsyncFragmentPipeline<S> (fragments double-buffered in registers, the barrier
//               before a stage's last k step) fill the stages with cp.async; RegisterDoubleBuffer
//               loads element by element through registers into two stages, for rows of any
//               alignment (an odd leading dimension of 16-bit elements), at the cost of the
//               registers and instructions of those loads. AlignedOr<CpAsync..., RegisterDoubleBuffer>
//               decides per block: cp.async where the block's A and B rows are 16-byte aligned, else
//               element loads (pointer arrays, whose entries' alignment the host cannot see).
//   OnMisaligned (cp.async pipelines): Misaligned::Reject: A and B rows must be 16-byte aligned
//               (pointer and leading dimension), else Status::MisalignedA/B. Misaligned::ScalarPath:
//               a second kernel copies 4 bytes at a time (8 for double) when rows are not 16-byte
//               aligned; 16-bit inputs then still need 4-byte rows (an even leading dimension, a
//               4-byte-aligned pointer), else MisalignedA/B. tf32 (float) and double rows are always
//               aligned enough for it. A register-staged pipeline takes any alignment.
//   Targets:    which compiled images hold the kernels' bodies (parts/targets.cuh; EveryImage).
// C needs only its element alignment (mma/epilogue.cuh), M, N and K are any size (zero-filled
// edges), every layout of A and B is served, and beta == 0 never reads C.
#include <algorithm>
#include <string>
#include <type_traits>
#include "../detail/k_slices.cuh"
#include "../detail/launch.cuh"
#include "../parts/loader.cuh"
#include "../parts/pipeline.cuh"
#include "../parts/raster.cuh"
#include "../parts/targets.cuh"
#include "../types.cuh"
#include "dmma_math.cuh"
#include "kernel.cuh"
#include "mma_sync_math.cuh"
#include "shape.cuh"
#include "smem_layout.cuh"
#include "wmma_math.cuh"

namespace gemm {

template <class TileP, class WarpsP, class PipelineP, class MathP, class RasterP = SwizzledRaster<8>,
          Misaligned OnMisaligned = Misaligned::ScalarPath, class TargetsP = EveryImage>
struct MmaPolicy {
  using Tile = TileP;
  using Warps = WarpsP;
  using Pipeline = PipelineP;
  using Math = MathP;
  using Raster = RasterP;
  using Targets = TargetsP;
  // The same composition with its kernel bodies in other images (parts/targets.cuh).
  template <class X>
  using WithTargets = MmaPolicy<TileP, WarpsP, PipelineP, MathP, RasterP, OnMisaligned, X>;
  static_assert(Tile::BM % Warps::WM == 0 && Tile::BN % Warps::WN == 0,
                "MmaPolicy: the block tile must be a whole number of warp tiles: BM a multiple of WM and BN of WN.");
  static constexpr int kWarpsM = Tile::BM / Warps::WM;
  static constexpr int kWarpsN = Tile::BN / Warps::WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static_assert(kThreads <= 1024, "MmaPolicy: more than 32 warps per block; use larger warp tiles or a smaller block tile.");
  static constexpr bool kRegisterStaged = Pipeline::kRegisterStaged;
  static_assert(kRegisterStaged || Pipeline::kMinArch == 80,
                "MmaPolicy: use CpAsyncMultiStage<S>, CpAsyncFragmentPipeline<S>, RegisterDoubleBuffer or AlignedOr "
                "of a cp.async one and RegisterDoubleBuffer as the pipeline.");
  // AlignedOr: register-staged as far as the host knows, with cp.async copies where a block can use them.
  static constexpr bool kCopiesWhereAligned = Pipeline::kChoosesPerBlock;
  static constexpr bool kNarrowCopies = OnMisaligned == Misaligned::ScalarPath && !kRegisterStaged;

  static constexpr int kMinArch = 80;
  static const char* name() { return "MmaPolicy"; }
  static std::string parts() {
    return Tile::describe() + ", " + Warps::describe() + ", " + Pipeline::describe() + ", " + Math::describe() +
           ", " + Raster::describe() +
           (kCopiesWhereAligned ? ", CpAsync<16B>-where-aligned|ElementLoads<any-alignment>"
            : kRegisterStaged  ? ", ElementLoads<any-alignment>"
            : kNarrowCopies  ? ", CpAsync<16B,4B|8B-if-misaligned>"
                             : ", CpAsync<16B,reject-misaligned>") +
           (std::is_same_v<Targets, EveryImage> ? std::string() : ", " + Targets::describe());
  }

  // 3xTF32 keeps two sets of accumulators and the split fragments: at most 32 x 64 per warp (64 x 64
  // spills hundreds of bytes).
  template <class T, class Out>
  static constexpr bool kServes =
      Math::template kServes<T, Out> && (!std::is_same_v<T, tf32x3> || Warps::WM * Warps::WN <= 32 * 64);

  // 3xTF32 runs in k slices of at most this many, each added to C (detail/k_slices.cuh): with the
  // stage-deep partial sums, an accumulator is then a chain of at most 128 fp32 adds (measured: one
  // chain over k = 16384 gave 2.15x cuBLAS SGEMM's error with wide exponents).
  static constexpr int kSplitSliceK = 4096;

  // The composition resolved for math type T, the layouts of A and B, and the copy width.
  template <class T, class Layouts, bool kWideP>
  struct Config {
    using Tile = TileP;
    using Pipeline = PipelineP;
    using Raster = RasterP;
    using Targets = TargetsP;
    using Warp = typename MathP::template Warp<T, TileP, WarpsP, Layouts>;
    static constexpr int kThreads = MmaPolicy::kThreads;
    static constexpr int kWarpsN = MmaPolicy::kWarpsN;
    static constexpr bool kWide = kWideP;
    static constexpr int kStageBytes = Warp::StageA::kBytes + Warp::StageB::kBytes;
    // The stages (or the epilogue's buffers), plus slack to align them to 128 bytes (mma/kernel.cuh).
    static constexpr int kSmemBytes =
        std::max(Pipeline::kStages * kStageBytes, (kThreads / 32) * Warp::kEpilogueBytesPerWarp) + 128;
  };

  // Shared memory per block for math type X (float counts as tf32; 0 for a type not served), the
  // largest over the layouts of A and B (padded tiles differ by layout).
  template <class X>
  static int smem_bytes() {
    using T = std::conditional_t<std::is_same_v<X, float>, tf32, X>;
    if constexpr (!kServes<T, storage_t<T>>) {
      return 0;
    } else {
      using detail::Ops;
      return std::max({Config<T, Ops<Op::N, Op::N>, true>::kSmemBytes, Config<T, Ops<Op::N, Op::T>, true>::kSmemBytes,
                       Config<T, Ops<Op::T, Op::N>, true>::kSmemBytes, Config<T, Ops<Op::T, Op::T>, true>::kSmemBytes});
    }
  }

  // The row alignment (bytes) the copies need of A and B: 16, or with narrow copies 4 (8 for double);
  // element loads need only the element's own.
  template <class In>
  static constexpr int kRowAlignment = kRegisterStaged ? static_cast<int>(sizeof(In))
                                       : kNarrowCopies ? std::max(4, static_cast<int>(sizeof(In)))
                                                       : 16;

  template <class Args>
  static bool copies_can_read(const Args& a) {
    using In = typename Args::Element;
    return detail::a_aligned(a, kRowAlignment<In>) && detail::b_aligned(a, kRowAlignment<In>);
  }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    using In = typename Args::Element;
    if (!detail::reads_ab(args)) return Status::Success;
    if (!detail::a_aligned(args, kRowAlignment<In>)) return Status::MisalignedA;
    if (!detail::b_aligned(args, kRowAlignment<In>)) return Status::MisalignedB;
    return Status::Success;
  }

  template <class Args, class Cfg>
  static Status run(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if (Cfg::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    const long long blocks = detail::ceil_div(args.m, Tile::BM) * detail::ceil_div(args.n, Tile::BN);
    return detail::launch_kernel<&mma::mma_gemm_kernel<Args, Cfg>>(detail::Grid(blocks, args.batch), kThreads,
                                                                    Cfg::kSmemBytes, stream, dev, args);
  }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if constexpr (!kServes<T, typename Args::Output>) {
      (void)args, (void)dev, (void)stream;
      return Status::UnsupportedArchitecture;  // unreachable: gemm::gemm's static_assert refuses the call
    } else {
      if (dev.arch < kMinArch) return Status::UnsupportedArchitecture;
      if (Status s = detail::runs_here<Targets>(dev); s != Status::Success) return s;
      if constexpr (std::is_same_v<T, tf32x3> && Args::kBatching != Batch::Pointers) {
        if (args.k > kSplitSliceK)
          return detail::in_k_slices(args, kSplitSliceK, Tile::template kBK<float>,
                                     [&](const auto& slice) { return launch_all_k<T, Layouts>(slice, dev, stream); });
      }
      return launch_all_k<T, Layouts>(args, dev, stream);
    }
  }

  template <class T, class Layouts, class Args>
  static Status launch_all_k(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    const bool wide = detail::a_aligned(args) && detail::b_aligned(args);
    return detail::with_ops<Layouts>(args.op_a, args.op_b, [&](auto layouts) {
      using L = decltype(layouts);
      if constexpr (kNarrowCopies) {
        return wide ? run<Args, Config<T, L, true>>(args, dev, stream) : run<Args, Config<T, L, false>>(args, dev, stream);
      } else {
        // Reject: check_alignment let only 16-byte rows through; register-staged: one kernel for all.
        (void)wide;
        return run<Args, Config<T, L, true>>(args, dev, stream);
      }
    });
  }
};

}  // namespace gemm
