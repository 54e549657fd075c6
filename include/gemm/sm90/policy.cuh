#pragma once
// Hopper (sm_90a) policies: TMA loads into 128-byte-swizzled stages, wgmma from shared memory.
//
//   HopperPolicy<BlockTile<BM, BN>, Stages, Schedule, Raster>
//
// Schedule is one of SingleWarpgroup, ProducerConsumer<Consumers>, PersistentProducerConsumer<Consumers>
// (kernels.cuh says what each does). Types: bf16 and fp16 inputs with C in the input type or float,
// and gemm::tf32 (float data and C), every layout of A and B. TF32 wgmma reads its operands only
// K-major (A row-major, B transposed): an operand stored the other way is first copied transposed
// into stream-ordered scratch (detail/workspace.cuh; m x k or n x k floats), which costs a pass over
// it. What TMA reads must suit it: 16-byte-aligned pointers and leading dimensions that are
// multiples of 16 bytes (else Status::MisalignedA/B; preset::Tuned takes another path). C needs only
// its element alignment: the epilogue stores through registers where TMA cannot.
#include <algorithm>
#include <string>
#include <type_traits>
#include <cuda.h>
#include "../detail/describe.cuh"
#include "../detail/launch.cuh"
#include "../detail/workspace.cuh"
#include "../kernel/transpose_kernel.cuh"
#include "../parts/raster.cuh"
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
  static constexpr bool kWarpSpecialized = false, kPersistent = false;
  static std::string describe() { return "SingleWarpgroup"; }
};

// A producer warpgroup and Consumers math warpgroups; one block per tile.
template <int Consumers>
struct ProducerConsumer {
  static constexpr int kConsumers = Consumers;
  static constexpr bool kWarpSpecialized = true, kPersistent = false;
  static std::string describe() { return detail::templated("ProducerConsumer", Consumers); }
};

// ProducerConsumer with one block per SM looping over tiles.
template <int Consumers>
struct PersistentProducerConsumer {
  static constexpr int kConsumers = Consumers;
  static constexpr bool kWarpSpecialized = true, kPersistent = true;
  static std::string describe() { return detail::templated("PersistentProducerConsumer", Consumers); }
};

// Results straight from registers to C (any C, any beta).
struct RegisterEpilogue {
  static constexpr int kBuffers = 0;
  static std::string describe() { return "RegisterEpilogue"; }
};

// Results through two swizzled shared buffers per math warpgroup and TMA stores, when beta == 0
// and C is as TMA needs it (16-byte-aligned pointer and rows); the register epilogue otherwise.
// Needs a warp-specialised schedule.
struct TmaStoreEpilogue {
  static constexpr int kBuffers = 2 * 64 * 128;
  static std::string describe() { return "TmaStoreEpilogue"; }
};

template <class TileP, int Stages, class ScheduleP, class RasterP = SwizzledRaster<8>,
          class EpilogueP = RegisterEpilogue>
struct HopperPolicy {
  using Tile = TileP;
  using Schedule = ScheduleP;
  using Raster = RasterP;
  using Epilogue = EpilogueP;
  static_assert(Epilogue::kBuffers == 0 || Schedule::kWarpSpecialized,
                "HopperPolicy: TmaStoreEpilogue needs a warp-specialised schedule (ProducerConsumer or "
                "PersistentProducerConsumer).");
  static_assert(Stages >= 2, "HopperPolicy: needs at least 2 stages (one computing, one loading).");

  static constexpr int kMinArch = 90;
  static const char* name() { return "HopperPolicy"; }
  static std::string parts() {
    return Tile::describe() + ", " + detail::templated("TmaStages", Stages) + ", " + Schedule::describe() +
           ", WgmmaSS, " + Raster::describe() + ", " + Epilogue::describe();
  }

  template <class T, class Out>
  static constexpr bool kServes =
      (is_16bit<T> && is_supported_output<T, Out>) || (std::is_same_v<T, tf32> && std::is_same_v<Out, float>);

  template <class In, Op OpA = Op::N, Op OpB = Op::N>
  using Shape = sm90::BlockShape<In, Tile::BM, Tile::BN, Stages, Schedule::kConsumers, OpA, OpB, Epilogue::kBuffers>;

  template <class In>
  static int smem_bytes() { return Shape<In>::kSmemBytes; }

  // Whether TMA reads A (B) as the caller stores it: always for 16-bit types; for TF32 only when it
  // is K-major (otherwise the transposing pass reads it, element by element).
  template <class T, class Args>
  static bool tma_reads_a(const Args& a) {
    return !std::is_same_v<T, tf32> || a.op_a == Op::N;
  }
  template <class T, class Args>
  static bool tma_reads_b(const Args& a) {
    return !std::is_same_v<T, tf32> || a.op_b == Op::T;
  }

  // What TMA can read: anything else is refused before any CUDA call.
  template <class T, class Args>
  static bool tma_compatible(const Args& a) {
    return (!tma_reads_a<T>(a) || sm90::tma_compatible(a.A, a.lda)) &&
           (!tma_reads_b<T>(a) || sm90::tma_compatible(a.B, a.ldb));
  }

  template <class T, class Args>
  static Status check_alignment(const Args& args) {
    if (!detail::reads_ab(args)) return Status::Success;
    if (tma_reads_a<T>(args) && !sm90::tma_compatible(args.A, args.lda)) return Status::MisalignedA;
    if (tma_reads_b<T>(args) && !sm90::tma_compatible(args.B, args.ldb)) return Status::MisalignedB;
    return Status::Success;
  }

  template <class Args, class S>
  static constexpr auto kernel() {
    if constexpr (Schedule::kWarpSpecialized)
      return &sm90::warp_specialized_kernel<Args, S, Raster, Schedule::kPersistent>;
    else
      return &sm90::wgmma_kernel<Args, S, Raster>;
  }

  template <class T, class Layouts, class Args>
  static Status launch(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    if (dev.arch != 90) return Status::UnsupportedArchitecture;  // wgmma is sm_90a's alone
    if constexpr (std::is_same_v<T, tf32>) {
      return launch_tf32(args, dev, stream);
    } else {
      return detail::with_ops<Layouts>(args.op_a, args.op_b,
                                       [&](auto layouts) { return launch_layout<decltype(layouts)>(args, dev, stream); });
    }
  }

  // TF32: A as m x k and B as n x k, k contiguous; an operand stored otherwise is transposed into
  // scratch first (freed in stream order after the kernel).
  template <class Args>
  static Status launch_tf32(Args args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using L = detail::Ops<Op::N, Op::T>;
    using S = Shape<float, L::a, L::b>;
    if (S::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    if (Status s = detail::prepare_kernel<kernel<Args, S>()>(S::kSmemBytes, dev, 90); s != Status::Success) return s;
    detail::StreamWorkspace scratch(stream);
    const int ld = static_cast<int>(detail::ceil_div(args.k, 4) * 4);  // rows of whole 16-byte units
    if (args.op_a == Op::T) {  // stored k x m
      float* a = nullptr;
      if (Status s = scratch.allocate(a, static_cast<std::size_t>(args.m) * ld); s != Status::Success) return s;
      if (Status s = detail::transpose(args.A, args.lda, args.k, args.m, a, ld, dev, stream); s != Status::Success)
        return s;
      args.A = a, args.lda = ld, args.op_a = Op::N;
    }
    if (args.op_b == Op::N) {  // stored k x n
      float* b = nullptr;
      if (Status s = scratch.allocate(b, static_cast<std::size_t>(args.n) * ld); s != Status::Success) return s;
      if (Status s = detail::transpose(args.B, args.ldb, args.k, args.n, b, ld, dev, stream); s != Status::Success)
        return s;
      args.B = b, args.ldb = ld, args.op_b = Op::T;
    }
    return launch_layout<L>(args, dev, stream);
  }

  template <class L, class Args>
  static Status launch_layout(const Args& args, const detail::DeviceInfo& dev, cudaStream_t stream) {
    using In = typename Args::Element;
    using S = Shape<In, L::a, L::b>;
    constexpr auto kKernel = kernel<Args, S>();
    if (S::kSmemBytes > dev.smem_optin) return Status::SharedMemoryTooLarge;
    if (Status s = detail::prepare_kernel<kKernel>(S::kSmemBytes, dev, 90); s != Status::Success) return s;
    CUtensorMap map_a, map_b;
    if (Status s = S::TileA::make_map(map_a, args.A, args.m, args.k, args.lda); s != Status::Success) return s;
    if (Status s = S::TileB::make_map(map_b, args.B, args.n, args.k, args.ldb); s != Status::Success) return s;
    const long long tiles = detail::ceil_div(args.m, S::BM) * detail::ceil_div(args.n, S::BN);
    const long long blocks = Schedule::kPersistent ? std::min<long long>(tiles, dev.sms) : tiles;
    const int threads = 128 * (S::kConsumers + Schedule::kWarpSpecialized);
    if constexpr (Schedule::kWarpSpecialized) {
      using Out = typename Args::Output;
      CUtensorMap map_c{};
      const int tma_store = Epilogue::kBuffers > 0 && args.beta == 0 && sm90::tma_compatible(args.C, args.ldc);
      if (tma_store) {
        using Chunk = sm90::StoreChunk<Out>;
        if (Status s = sm90::make_tensor_map(map_c, args.C, args.m, args.n, args.ldc, Chunk::kRows, Chunk::kCols);
            s != Status::Success)
          return s;
      }
      return detail::launch_kernel<kKernel>(blocks, threads, S::kSmemBytes, stream, dev, map_a, map_b, map_c, args,
                                            tma_store);
    } else {
      return detail::launch_kernel<kKernel>(blocks, threads, S::kSmemBytes, stream, dev, map_a, map_b, args);
    }
  }
};

}  // namespace gemm
