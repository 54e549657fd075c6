#pragma once
// k splitting: how many blocks share one output tile's k range.
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

// Split-K: each output tile's k range is cut into Splits slices computed by separate blocks, which
// add alpha * partial into C with atomics after a beta * C pass. For shapes with too few output tiles
// to fill the GPU (a skinny m, say); the summation order then varies from run to run.
struct NoSplitK {
  static constexpr int kSplits = 1;
  static std::string describe() { return "NoSplitK"; }
};

template <int Splits>
struct SplitK {
  static_assert(Splits >= 2, "SplitK: use at least 2 splits (NoSplitK for one).");
  static constexpr int kSplits = Splits;
  static std::string describe() { return detail::templated("SplitK", Splits); }
};

}  // namespace gemm
