#pragma once
// k splitting: how many blocks share one output tile's k range.
//   kSplits: Split-K's fixed number of k slices per tile (1: none);
//   kStreamK: stream-K for the last partial wave (see StreamK).
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

// Split-K: each output tile's k range is cut into Splits slices computed by separate blocks, which
// add alpha * partial into C with atomics after a beta * C pass. For shapes with too few output tiles
// to fill the GPU (a skinny m, say); the summation order then varies from run to run.
struct NoSplitK {
  static constexpr int kSplits = 1;
  static constexpr bool kStreamK = false;
  static std::string describe() { return "NoSplitK"; }
};

template <int Splits>
struct SplitK {
  static_assert(Splits >= 2, "SplitK: use at least 2 splits (NoSplitK for one).");
  static constexpr int kSplits = Splits;
  static constexpr bool kStreamK = false;
  static std::string describe() { return detail::templated("SplitK", Splits); }
};

// Stream-K for the last wave. When the output tiles do not fill whole waves of the GPU (4096^2 in
// 128x256 tiles is 512 tiles: 3 waves of 132 and 116 left over), the whole waves run one tile per
// block as usual, and the k iterations of the leftover tiles are shared out evenly among up to one
// block per SM, so the last wave ends with every SM busy instead of 16 idle. A leftover tile's
// blocks add alpha * partial into C with atomics after a beta * C pass over those tiles only; their
// summation order varies from run to run.
struct StreamK {
  static constexpr int kSplits = 1;
  static constexpr bool kStreamK = true;
  // A block's share of k iterations is at least this many (fewer blocks when the leftover is small),
  // so that no block spends more time filling its pipeline and adding into C than computing.
  static constexpr int kMinIters = 8;
  static std::string describe() { return "StreamK"; }
};

// Which blocks do what under StreamK (all tiles whole when sk_blocks == 0).
struct StreamKSchedule {
  int dp_tiles;   // tiles 0 .. dp_tiles-1: one block each (blocks 0 .. dp_tiles-1), the whole k range
  int sk_blocks;  // blocks dp_tiles .. dp_tiles+sk_blocks-1 share the k iterations of the other tiles
};

}  // namespace gemm
