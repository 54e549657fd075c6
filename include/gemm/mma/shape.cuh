#pragma once
// The mma family's tiling: a block computes a BM x BN tile of C, stepping through k KBytes of each
// operand row at a time (64 bytes: 32 bf16/fp16 or 16 tf32; 128 bytes: 16 doubles). Counting k in
// bytes keeps a stage's shared rows the same length for every input type, so one swizzle and one
// copy pattern serve them all. Each warp owns a WM x WN tile of the block's.
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

template <int BM_, int BN_, int KBytes_>
struct MmaTile {
  static constexpr int BM = BM_;
  static constexpr int BN = BN_;
  static constexpr int kKBytes = KBytes_;
  // k per stage for input type In.
  template <class In>
  static constexpr int kBK = KBytes_ / static_cast<int>(sizeof(In));

  static_assert(BM > 0 && BN > 0, "MmaTile: BM and BN must be positive.");
  static_assert(KBytes_ % 32 == 0 && KBytes_ >= 32,
                "MmaTile: KBytes (the k depth of a stage, in bytes of an operand row) must be a multiple of 32: "
                "a 16-bit k step of 16 elements is 32 bytes. Use 64 (32 bf16/fp16, 16 tf32) or 128 (16 doubles).");
  static std::string describe() { return detail::templated("MmaTile", BM, BN, KBytes_); }
};

template <int WM_, int WN_>
struct WarpTile {
  static constexpr int WM = WM_;
  static constexpr int WN = WN_;
  static_assert(WM > 0 && WN > 0, "WarpTile: WM and WN must be positive.");
  static std::string describe() { return detail::templated("WarpTile", WM, WN); }
};

}  // namespace gemm
