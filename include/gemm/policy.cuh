#pragma once
// Policies: a policy is a composition of parts; a preset is a named policy.
//
//   TiledPolicy<TileShape, ThreadMap, Loader, SmemLayout, Pipeline, Math, Epilogue, Raster>
//   DirectPolicy<Mapping>                 (no shared memory: the tutorials' first two kernels)
//
// Name a policy by deriving from it and from Named<Self>:
//   struct MyPolicy : gemm::TiledPolicy<...>, gemm::Named<MyPolicy> {
//     static const char* name() { return "MyPolicy"; }
//   };
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include "detail/launch.cuh"
#include "kernel/direct_kernel.cuh"
#include "kernel/scale_kernel.cuh"
#include "kernel/tiled_kernel.cuh"
#include "parts/epilogue.cuh"
#include "parts/k_split.cuh"
#include "parts/loader.cuh"
#include "parts/outer_product.cuh"
#include "parts/pipeline.cuh"
#include "parts/raster.cuh"
#include "parts/smem_layout.cuh"
#include "parts/thread_map.cuh"
#include "parts/tile_shape.cuh"

namespace gemm {

// Gives a policy describe() = "Name: parts", for benchmark labels and error messages.
template <class Self>
struct Named {
  static std::string describe() { return std::string(Self::name()) + ": " + Self::parts(); }
};

template <class Mapping>
struct DirectPolicy {
  static constexpr int kMinArch = 0;
  static const char* name() { return "DirectPolicy"; }
  static std::string parts() { return "DirectPolicy<" + Mapping::describe() + ">, 32x32 threads per block"; }

  template <class T>
  static int smem_bytes() { return 0; }

  template <class T>
  static Status check_alignment(const GemmArgs<T>&) { return Status::Success; }

  template <class T>
  static Status launch(const GemmArgs<T>& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    const long long blocks = detail::ceil_div(args.m, 32) * detail::ceil_div(args.n, 32);
    return detail::launch_kernel<&detail::direct_gemm_kernel<T, Mapping>>(blocks, 1024, 0, stream, dev, args);
  }
};

template <class ShapeP, class ThreadMapP, class LoaderP, class LayoutP, class PipelineP, class MathP, class EpilogueP,
          class RasterP = RowMajorRaster, class KSplitP = NoSplitK>
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

  // The parts resolved for one element type: what the kernel template reads.
  template <class T>
  struct Config {
    using Shape = ShapeP;
    using Map = typename ThreadMapP::template Map<ShapeP>;
    using Tiles = typename LayoutP::template Tiles<T, ShapeP>;
    using Pipeline = PipelineP;
    using Math = MathP;
    using Epilogue = EpilogueP;
    using Raster = RasterP;
    using KSplit = KSplitP;
    static constexpr int kThreads = Map::kThreads;
    static constexpr int kLoadWidth = LoaderP::template kWidth<T>;
    static constexpr int kSmemBytes = PipelineP::kStages * Tiles::kStageElems * static_cast<int>(sizeof(T));
    static_assert(kThreads % 32 == 0, "TiledPolicy: the thread map must give a whole number of warps.");
  };

  static constexpr int kMinArch = Pipeline::kMinArch;
  static const char* name() { return "TiledPolicy"; }
  static std::string parts() {
    return Shape::describe() + ", " + ThreadMap::describe() + ", " + Loader::describe() + ", " + Layout::describe() +
           ", " + Pipeline::describe() + ", " + Math::describe() + ", " + Epilogue::describe() + ", " +
           Raster::describe() + (KSplit::kSplits > 1 || KSplit::kStreamK ? ", " + KSplit::describe() : std::string());
  }

  template <class T>
  static int smem_bytes() { return Config<T>::kSmemBytes; }

  template <class T>
  static Status check_alignment(const GemmArgs<T>& args) {
    if constexpr (Loader::kRejectsMisaligned) {
      if (detail::reads_ab(args) && !detail::vector_aligned(args.A, args.lda)) return Status::MisalignedA;
      if (detail::reads_ab(args) && !detail::vector_aligned(args.B, args.ldb)) return Status::MisalignedB;
      if (!detail::vector_aligned(args.C, args.ldc)) return Status::MisalignedC;
    }
    (void)args;
    return Status::Success;
  }

  // StreamK: whole waves of tiles run one per block; when the tiles leave a partial wave (more tiles
  // than the GPU holds at once, not a multiple of it), the leftover tiles' k iterations are shared
  // out among up to one wave of blocks, after a beta pass over those tiles (their blocks add into C).
  template <class T, auto Kernel>
  static Status stream_k_schedule(const GemmArgs<T>& args, const detail::DeviceInfo& dev, cudaStream_t stream,
                                  long long tiles, StreamKSchedule& sk) {
    using Cfg = Config<T>;
    if (Status s = detail::prepare_kernel<Kernel>(Cfg::kSmemBytes, dev); s != Status::Success) return s;
    int per_sm = 0;
    if (Status s = detail::resident_blocks<Kernel>(Cfg::kThreads, Cfg::kSmemBytes, dev, per_sm); s != Status::Success)
      return s;
    const long long wave = static_cast<long long>(per_sm) * dev.sms;
    const long long left = wave > 0 ? tiles % wave : 0;
    if (tiles <= wave || left == 0 || tiles > INT_MAX) return Status::Success;  // nothing to share out
    const long long iters = left * detail::ceil_div(args.k, Shape::BK);
    sk.dp_tiles = static_cast<int>(tiles - left);
    sk.sk_blocks = static_cast<int>(std::max(1LL, std::min(wave, iters / KSplit::kMinIters)));
    if (args.beta == T(1)) return Status::Success;
    return detail::launch_kernel<&detail::scale_tiles_kernel<T, Cfg>>(left, 256, 0, stream, dev, args, sk.dp_tiles);
  }

  template <class T>
  static Status launch(const GemmArgs<T>& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using Cfg = Config<T>;
    if (dev.arch < kMinArch) return Status::UnsupportedArchitecture;
    if (Cfg::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    const long long tiles = detail::ceil_div(args.m, Shape::BM) * detail::ceil_div(args.n, Shape::BN);
    if constexpr (KSplit::kSplits > 1) {  // slices add into C: apply beta first
      if (Status s = detail::scale_c(args, dev, stream); s != Status::Success) return s;
    }
    auto run = [&](auto aligned) {
      constexpr auto kKernel = &detail::tiled_gemm_kernel<T, Cfg, decltype(aligned)::value>;
      long long blocks = tiles * KSplit::kSplits;
      StreamKSchedule sk{static_cast<int>(std::min<long long>(tiles, INT_MAX)), 0};
      if constexpr (KSplit::kStreamK) {
        if (Status s = stream_k_schedule<T, kKernel>(args, dev, stream, tiles, sk); s != Status::Success) return s;
        blocks = sk.dp_tiles + static_cast<long long>(sk.sk_blocks);
      }
      return detail::launch_kernel<kKernel>(blocks, Cfg::kThreads, Cfg::kSmemBytes, stream, dev, args, sk);
    };
    // Only vector loaders need the aligned/unaligned pair; a rejecting loader never sees misaligned input.
    if constexpr (Cfg::kLoadWidth == 1) {
      return run(std::false_type{});
    } else if constexpr (Loader::kRejectsMisaligned) {
      return run(std::true_type{});
    } else {
      return detail::all_vector_aligned(args) ? run(std::true_type{}) : run(std::false_type{});
    }
  }
};

}  // namespace gemm
