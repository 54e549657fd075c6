#pragma once
// Policies: a policy is a composition of parts; a preset is a named policy.
//
//   TiledPolicy<TileShape, ThreadMap, Loader, SmemLayout, Pipeline, Math, Epilogue, Raster, KSplit, Targets>
//   DirectPolicy<Mapping>                 (no shared memory: the tutorials' first two kernels)
//   ShortKPolicy<MaxK, Rows>              (k of at most MaxK: bound by writing C)
//   FewRowsPolicy<Rows, Warps, Loads, MaxSlices>  (m of at most Rows: bound by reading B)
//   DotRowsPolicy<Rows, Warps, Loads, MaxSlices>  (the same in fp32 against B stored transposed)
//
// Name a policy by deriving from it and from Named<Self>:
//   struct MyPolicy : gemm::TiledPolicy<...>, gemm::Named<MyPolicy> {
//     static const char* name() { return "MyPolicy"; }
//   };
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include "detail/image.cuh"
#include "detail/launch.cuh"
#include "kernel/direct_kernel.cuh"
#include "kernel/dot_rows_kernel.cuh"
#include "kernel/few_rows_kernel.cuh"
#include "kernel/scale_kernel.cuh"
#include "kernel/short_k_kernel.cuh"
#include "kernel/tiled_kernel.cuh"
#include "parts/epilogue.cuh"
#include "parts/k_split.cuh"
#include "parts/loader.cuh"
#include "parts/outer_product.cuh"
#include "parts/pipeline.cuh"
#include "parts/raster.cuh"
#include "parts/smem_layout.cuh"
#include "parts/targets.cuh"
#include "parts/thread_map.cuh"
#include "parts/tile_shape.cuh"

namespace gemm {

// Gives a policy describe() = "Name: parts", for benchmark labels and error messages.
template <class Self>
struct Named {
  static std::string describe() { return std::string(Self::name()) + ": " + Self::parts(); }
};

// Types served by the CUDA-core (SIMT) policies unless a preset says otherwise: strict fp32 and fp64.
template <class T, class Out>
inline constexpr bool kStrictTypes =
    (std::is_same_v<T, float> || std::is_same_v<T, double>) && std::is_same_v<Out, T>;

template <class Mapping>
struct DirectPolicy {
  static constexpr int kMinArch = 0;
  static const char* name() { return "DirectPolicy"; }
  static std::string parts() { return "DirectPolicy<" + Mapping::describe() + ">, 32x32 threads per block"; }

  template <class T, class Out>
  static constexpr bool kServes = kStrictTypes<T, Out>;

  template <class T>
  static int smem_bytes() { return 0; }

  template <class T, class Args>
  static Status check_alignment(const Args&) { return Status::Success; }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    const long long blocks = detail::ceil_div(args.m, 32) * detail::ceil_div(args.n, 32);
    return detail::launch_kernel<&detail::direct_gemm_kernel<Args, Mapping>>(detail::Grid(blocks, args.batch), 1024, 0,
                                                                             stream, dev, args);
  }
};

// A k of at most MaxK on CUDA cores (kernel/short_k_kernel.cuh): float, double, and bf16 and fp16
// converted to float as they are loaded; any alignment and layout. Such a call is bound by writing
// C; the tiled kernels spend it on a pipeline a k block deep. A longer k is refused before any
// launch (UnsupportedShape).
template <int MaxK, int Rows = 16>
struct ShortKPolicy {
  static_assert(MaxK >= 1 && MaxK <= 64, "ShortKPolicy: MaxK is the longest k it serves, 1 to 64 (B's column lives in "
                                         "registers).");
  static_assert(Rows >= 1, "ShortKPolicy: Rows (rows of C per block) must be at least 1.");
  static constexpr int kThreads = 256;  // columns of C per block
  static constexpr int kMinArch = 0;
  static const char* name() { return "ShortKPolicy"; }
  static std::string parts() {
    return detail::templated("MaxK", MaxK) + ", " + detail::templated("Rows", Rows) + ", " + std::to_string(kThreads) +
           " columns per block";
  }

  template <class T, class Out>
  static constexpr bool kServes = kStrictTypes<T, Out> || (is_16bit<T> && is_supported_output<T, Out>);

  template <class T>
  static int smem_bytes() { return 0; }  // (static shared memory only: Rows x MaxK of A)

  template <class T, class Args>
  static Status check_alignment(const Args&) { return Status::Success; }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if (args.k > MaxK) return Status::UnsupportedShape;
    const long long blocks = detail::ceil_div(args.m, Rows) * detail::ceil_div(args.n, kThreads);
    return detail::launch_kernel<&detail::short_k_kernel<Args, MaxK, Rows, kThreads>>(
        detail::Grid(blocks, args.batch), kThreads, 0, stream, dev, args);
  }
};

// An m of at most Rows on CUDA cores (kernel/few_rows_kernel.cuh): bf16 and fp16 converted to float
// as they are loaded, any alignment and layout; each block 64 columns of C over all of k (or a slice
// of it, below), its Warps along k, each with Loads rows of B in flight (the kernel for m rounded up to a power of two).
// Such a call is bound by reading B: fast where B's rows run along n (B row-major) and m and k are
// not both large (rules.cuh: hopper.few_rows_max_m2k). A larger m is refused before any launch
// (UnsupportedShape).
//
// MaxSlices > 1: on sm_90, where the spans of 64 columns fill fewer than half the SMs, k is cut into
// as many slices as fill them (at most MaxSlices, at least kFewRowsMinSlice k each), the slices of a
// span the blocks of one thread block cluster, which adds their sums in rank order (the kernel).
template <int Rows = 8, int Warps = 32, int Loads = 4, int MaxSlices = 8>
struct FewRowsPolicy {
  static_assert(Rows >= 1 && Rows <= 16, "FewRowsPolicy: Rows (the most rows of C it serves) must be 1 to 16: each "
                                         "thread holds two columns of every row in registers.");
  static_assert(Warps >= 1 && Warps <= 32, "FewRowsPolicy: Warps (along k, per block) must be 1 to 32.");
  static_assert(Loads >= 1 && Loads <= 16, "FewRowsPolicy: Loads (rows of B a warp loads before using them) must "
                                           "be 1 to 16.");
  static_assert(MaxSlices >= 1 && MaxSlices <= 8, "FewRowsPolicy: MaxSlices (k slices of a span, the blocks of one "
                                                  "cluster) must be 1 to 8, the portable cluster size.");
  static constexpr int kMinArch = 0;
  static const char* name() { return "FewRowsPolicy"; }
  static std::string parts() {
    return detail::templated("Rows", Rows) + ", " + detail::templated("Warps", Warps) + ", " +
           detail::templated("Loads", Loads) + ", " + detail::templated("MaxSlices", MaxSlices) + ", " +
           std::to_string(detail::kFewRowsCols) + " columns per block, warps along k";
  }

  template <class T, class Out>
  static constexpr bool kServes = is_16bit<T> && is_supported_output<T, Out>;

  // (Dynamic shared memory of at most kFewRowsSmemBytes, 48 KB, which every device gives a block
  // without asking: nothing for the plan to check.)
  template <class T>
  static int smem_bytes() { return 0; }

  template <class T, class Args>
  static Status check_alignment(const Args&) { return Status::Success; }

  // The kernel for m rounded up to a power of two (its rows past m are zeros); a larger m than Rows is
  // refused (detail::with_rows_rounded).
  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using S = typename Args::Scalar;
    const long long spans = detail::ceil_div(args.n, detail::kFewRowsCols);
    const int slices = k_slices(spans, args.k, dev);
    return detail::with_rows_rounded<Rows>(args.m, [&](auto rows) {
      constexpr int R = decltype(rows)::value;
      const int chunk = detail::few_rows_chunk(R, detail::ceil_div(args.k, slices), sizeof(S));
      const int smem = std::max(R * chunk, (Warps + R) * detail::kFewRowsCols) * static_cast<int>(sizeof(S));
      return detail::launch_kernel_in_clusters<&detail::few_rows_kernel<Args, R, Warps, Loads>>(
          slices, detail::Grid(spans * slices, args.batch), 32 * Warps, smem, stream, dev, args, chunk, slices);
    });
  }

 private:
  // k slices per span of 64 columns: 1, or on sm_90 where the spans fill fewer than half the SMs, as
  // many as fill them (detail::cluster_k_slices: within MaxSlices and kFewRowsMinSlice k each).
  static int k_slices(long long spans, int k, const detail::DeviceInfo& dev) {
    return detail::cluster_k_slices(2 * spans >= dev.sms ? 1 : dev.sms / spans, k, MaxSlices,
                                    detail::kFewRowsMinSlice, dev);
  }
};

// An m of at most Rows in strict fp32 against B stored transposed (n x k, 16-byte-aligned rows), on
// CUDA cores (kernel/dot_rows_kernel.cuh): each block 4 Warps columns of C over all of k (or a slice
// of it), each warp 4 rows of B with its lanes along k, Loads 16-byte loads of each row in flight per
// lane (the kernel for m rounded up to a power of two). Such a call (decode in fp32) is bound by
// reading B. Another layout of B is refused before any launch (UnsupportedLayout), a larger m too
// (UnsupportedShape), and B's rows not 16-byte aligned (MisalignedB).
//
// MaxSlices > 1: on sm_90, k may be cut into slices (at most MaxSlices, at least kDotRowsMinSlice k
// each), the slices of a block's columns the blocks of one thread block cluster, which adds their
// sums in rank order. The count is the one whose rounds of resident clusters cost least
// (detail::dot_rows_slices).
template <int Rows = 16, int Warps = 4, int Loads = 2, int MaxSlices = 8>
struct DotRowsPolicy {
  static_assert(Rows >= 1 && Rows <= 16 && Warps >= 1 && Warps <= 32 && Loads >= 1 && Loads <= 8,
                "DotRowsPolicy: Rows (the most rows of C, whose sums of four columns each lane holds) 1 to 16, Warps "
                "(per block, four columns of C each) 1 to 32, Loads (16-byte loads of each row of B a lane has in "
                "flight) 1 to 8.");
  static_assert(MaxSlices >= 1 && MaxSlices <= 8, "DotRowsPolicy: MaxSlices (k slices of a block's columns, the "
                                                  "blocks of one cluster) must be 1 to 8, the portable cluster size.");
  static constexpr int kMinArch = 0;
  static constexpr int kBlockCols = Warps * detail::kDotRowsColsPerWarp;
  static const char* name() { return "DotRowsPolicy"; }
  static std::string parts() {
    return detail::templated("Rows", Rows) + ", " + detail::templated("Warps", Warps) + ", " +
           detail::templated("Loads", Loads) + ", " + detail::templated("MaxSlices", MaxSlices) + ", " +
           std::to_string(kBlockCols) + " columns per block, lanes along k";
  }

  template <class T, class Out>
  static constexpr bool kServes = std::is_same_v<T, float> && std::is_same_v<Out, float>;

  // (Dynamic shared memory of at most kDotRowsSmemBytes, 48 KB: nothing for the plan to check.)
  template <class T>
  static int smem_bytes() { return 0; }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    return args.op_b != Op::T || detail::b_aligned(args, 16) ? Status::Success : Status::MisalignedB;
  }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if (args.op_b != Op::T) return Status::UnsupportedLayout;
    const long long spans = detail::ceil_div(args.n, kBlockCols);
    return detail::with_rows_rounded<Rows>(args.m, [&](auto rows) {  // (m past Rows: UnsupportedShape)
      constexpr int R = decltype(rows)::value;
      constexpr auto kKernel = &detail::dot_rows_kernel<Args, R, Warps, Loads>;
      int slices = 1;
      if (const Status s = k_slices<kKernel>(spans, args.k, dev, slices); s != Status::Success) return s;
      const int block_k = static_cast<int>(detail::ceil_div(args.k, slices));
      const int chunk = detail::dot_rows_chunk(R, block_k);
      return detail::launch_kernel_in_clusters<kKernel>(slices, detail::Grid(spans * slices, args.batch), 32 * Warps,
                                                        detail::dot_rows_smem_bytes(R, kBlockCols, block_k, chunk),
                                                        stream, dev, args, chunk, slices);
    });
  }

 private:
  // k slices per block's columns (detail::dot_rows_slices), the resident clusters of each size read
  // from the device (detail::resident_clusters, cached).
  template <auto Kernel>
  static Status k_slices(long long spans, int k, const detail::DeviceInfo& dev, int& slices) {
    slices = 1;
    const int most = detail::cluster_k_slices(MaxSlices, k, MaxSlices, detail::kDotRowsMinSlice, dev);
    if (most <= 1) return Status::Success;  // (off sm_90, or k too short to cut)
    int clusters[8] = {};
    for (const int s : detail::kDotRowsSliceCounts) {
      if (s > most) break;
      if (const Status st = detail::resident_clusters<Kernel>(s, 32 * Warps, detail::kDotRowsSmemBytes, dev, clusters[s - 1]);
          st != Status::Success)
        return st;
    }
    slices = detail::dot_rows_slices(spans, k, most, clusters);
    return Status::Success;
  }
};

template <class ShapeP, class ThreadMapP, class LoaderP, class LayoutP, class PipelineP, class MathP, class EpilogueP,
          class RasterP = RowMajorRaster, class KSplitP = NoSplitK, class TargetsP = EveryImage>
struct TiledPolicy {
  using Shape = ShapeP;
  using ThreadMap = ThreadMapP;
  using Loader = LoaderP;
  using Layout = LayoutP;
  using Pipeline = PipelineP;
  using Math = MathP;
  using Epilogue = EpilogueP;
  using Raster = RasterP;
  using KSplit = KSplitP;
  using Targets = TargetsP;
  // The same composition with its kernel bodies in other images (parts/targets.cuh).
  template <class X>
  using WithTargets = TiledPolicy<ShapeP, ThreadMapP, LoaderP, LayoutP, PipelineP, MathP, EpilogueP, RasterP, KSplitP, X>;

  // The parts resolved for what A and B hold (In): what the kernel template reads. Shared memory and
  // the accumulators hold Acc (float for 16-bit inputs, which the loader converts on the way).
  template <class In>
  struct Config {
    using Acc = std::conditional_t<std::is_same_v<In, double>, double, float>;
    using Shape = ShapeP;
    using Map = typename ThreadMapP::template Map<ShapeP>;
    using Tiles = typename LayoutP::template Tiles<Acc, ShapeP>;
    using Pipeline = PipelineP;
    using Math = MathP;
    using Epilogue = EpilogueP;
    using Raster = RasterP;
    using KSplit = KSplitP;
    using Targets = TargetsP;
    static constexpr int kThreads = Map::kThreads;
    static constexpr int kLoadWidth = LoaderP::template kWidth<Acc>;
    static constexpr int kSmemBytes = PipelineP::kStages * Tiles::kStageElems * static_cast<int>(sizeof(Acc));
    // Bytes of one vector load of A or B (16 for float and double, 8 for 4 converted 16-bit elements).
    static constexpr int kLoadBytes = kLoadWidth * static_cast<int>(sizeof(In));
    static_assert(kThreads % 32 == 0, "TiledPolicy: the thread map must give a whole number of warps.");
  };

  static constexpr int kMinArch = Pipeline::kMinArch;
  static const char* name() { return "TiledPolicy"; }
  static std::string parts() {
    return Shape::describe() + ", " + ThreadMap::describe() + ", " + Loader::describe() + ", " + Layout::describe() +
           ", " + Pipeline::describe() + ", " + Math::describe() + ", " + Epilogue::describe() + ", " +
           Raster::describe() + (KSplit::kSplits > 1 || KSplit::kStreamK ? ", " + KSplit::describe() : std::string()) +
           (std::is_same_v<Targets, EveryImage> ? std::string() : ", " + Targets::describe());
  }

  // float and double; a preset may add 16-bit inputs where its pipeline stages through registers
  // (cp.async cannot convert) and it splits no k (partial sums add into C in its own type).
  template <class T, class Out>
  static constexpr bool kServes = kStrictTypes<T, Out>;
  static constexpr bool kCanConvert16Bit = Pipeline::kRegisterStaged && KSplit::kSplits == 1 && !KSplit::kStreamK;

  template <class In>
  static int smem_bytes() { return Config<In>::kSmemBytes; }

  // Whether A, B and C allow this policy's vector accesses.
  template <class Args>
  static bool vector_aligned(const Args& a) {
    constexpr int kAB = Config<typename Args::Element>::kLoadBytes;
    return detail::a_aligned(a, kAB) && detail::b_aligned(a, kAB) &&
           detail::c_aligned(a);
  }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    if constexpr (Loader::kRejectsMisaligned) {
      constexpr int kAB = Config<typename Args::Element>::kLoadBytes;
      if (detail::reads_ab(args) && !detail::a_aligned(args, kAB)) return Status::MisalignedA;
      if (detail::reads_ab(args) && !detail::b_aligned(args, kAB)) return Status::MisalignedB;
      if (!detail::c_aligned(args)) return Status::MisalignedC;
    }
    (void)args;
    return Status::Success;
  }

  // StreamK: whole waves of tiles run one per block; when the tiles leave a partial wave (more tiles
  // than the GPU holds at once, not a multiple of it), the leftover tiles' k iterations are shared
  // out among up to one wave of blocks, after a beta pass over those tiles (their blocks add into C).
  template <class Args, class Cfg, auto Kernel>
  static Status stream_k_schedule(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                                  long long tiles, KSchedule& sk) {
    if (Status s = detail::prepare_kernel<Kernel>(Cfg::kSmemBytes, dev); s != Status::Success) return s;
    int per_sm = 0;
    if (Status s = detail::resident_blocks<Kernel>(Cfg::kThreads, Cfg::kSmemBytes, dev, per_sm); s != Status::Success)
      return s;
    const long long wave = static_cast<long long>(per_sm) * dev.sms;
    const long long left = wave > 0 ? tiles % wave : 0;
    // A batch's entries fill the waves themselves: every tile runs whole.
    if (Args::kBatching != Batch::None || tiles <= wave || left == 0 || tiles > INT_MAX) return Status::Success;
    const long long iters = left * detail::ceil_div(args.k, Shape::BK);
    sk.dp_tiles = static_cast<int>(tiles - left);
    sk.sk_blocks = static_cast<int>(std::max(1LL, std::min(wave, iters / KSplit::kMinIters)));
    if (args.beta == 1) return Status::Success;
    auto plain = detail::without_epilogue(args);  // the epilogue comes after the sums (finish_k_split)
    return detail::launch_kernel<&detail::scale_tiles_kernel<decltype(plain), Cfg>>(left, 256, 0, stream, dev, plain,
                                                                                   sk.dp_tiles);
  }

  // After a kernel whose blocks added partial sums into C: a fused epilogue applied once to the
  // complete sums (split-K: all of C; stream-K: the tiles it shared out).
  template <class Args, class Cfg>
  static Status finish_k_split(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                               const KSchedule& sk, long long tiles) {
    if constexpr (!detail::has_epilogue<Args>) {
      return Status::Success;
    } else if constexpr (KSplit::kSplits > 1) {
      return detail::scale_c(detail::finishing(args), dev, stream);
    } else if constexpr (KSplit::kStreamK) {
      if (sk.sk_blocks == 0) return Status::Success;
      return detail::launch_kernel<&detail::scale_tiles_kernel<Args, Cfg>>(tiles - sk.dp_tiles, 256, 0, stream, dev,
                                                                           detail::finishing(args), sk.dp_tiles);
    } else {
      return Status::Success;
    }
  }

  // The kernel of one alignment path and layout combination.
  template <class Args, bool kVec, class Layouts>
  static constexpr auto kKernel = &detail::tiled_gemm_kernel<Args, Config<typename Args::Element>, kVec, Layouts>;

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using Cfg = Config<typename Args::Element>;
    static_assert(kStrictTypes<T, typename Args::Output> || kCanConvert16Bit,
                  "TiledPolicy: 16-bit inputs are converted to float on their way through registers, so they need a "
                  "register-staged pipeline (SingleStage or RegisterDoubleBuffer) and no split-K or stream-K.");
    if (dev.arch < kMinArch) return Status::UnsupportedArchitecture;
    if (Cfg::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    if (Status s = detail::runs_here<Targets>(dev); s != Status::Success) return s;
    const long long tiles = detail::ceil_div(args.m, Shape::BM) * detail::ceil_div(args.n, Shape::BN);
    if constexpr (KSplit::kSplits > 1) {  // slices add into C: apply beta first
      if (Status s = detail::scale_c(detail::without_epilogue(args), dev, stream); s != Status::Success) return s;
    }
    auto run = [&](auto aligned) {
      return detail::with_ops<Layouts>(args.op_a, args.op_b, [&](auto layouts) {
        constexpr auto kK = kKernel<Args, decltype(aligned)::value, decltype(layouts)>;
        // (The slice count weighs a batch's tiles together: its entries run side by side.)
        KSchedule sk{static_cast<int>(std::min<long long>(tiles, INT_MAX)), 0,
                     KSplit::slices(tiles * static_cast<long long>(args.batch), args.k, dev.sms)};
        long long blocks = tiles * sk.slices;
        if constexpr (KSplit::kStreamK) {
          if (Status s = stream_k_schedule<Args, Cfg, kK>(args, dev, stream, tiles, sk); s != Status::Success) return s;
          blocks = sk.dp_tiles + static_cast<long long>(sk.sk_blocks);
        }
        if (Status s = detail::launch_kernel<kK>(detail::Grid(blocks, args.batch), Cfg::kThreads, Cfg::kSmemBytes,
                                                 stream, dev, args, sk);
            s != Status::Success)
          return s;
        return finish_k_split<Args, Cfg>(args, dev, stream, sk, tiles);
      });
    };
    // Only vector loaders need the aligned/unaligned pair; a rejecting loader never sees misaligned input.
    if constexpr (Cfg::kLoadWidth == 1) {
      return run(std::false_type{});
    } else if constexpr (Loader::kRejectsMisaligned) {
      return run(std::true_type{});
    } else {
      return vector_aligned(args) ? run(std::true_type{}) : run(std::false_type{});
    }
  }
};

}  // namespace gemm
