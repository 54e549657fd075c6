#pragma once
// k splitting: how many blocks share one output tile's k range.
//   kSplits: Split-K's number of k slices per tile (1: none), or the most of them where the count is
//            chosen per call (slices());
//   kStreamK: stream-K for the last partial wave (see StreamK).
#include <algorithm>
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

// Split-K: each output tile's k range is cut into Splits slices computed by separate blocks, which
// add alpha * partial into C with atomics after a beta * C pass. For shapes with too few output tiles
// to fill the GPU (a skinny m, say); the summation order then varies from run to run.
struct NoSplitK {
  static constexpr int kSplits = 1;
  static constexpr bool kStreamK = false;
  static int slices(long long, long long, int) { return 1; }
  static std::string describe() { return "NoSplitK"; }
};

template <int Splits>
struct SplitK {
  static_assert(Splits >= 2, "SplitK: use at least 2 splits (NoSplitK for one).");
  static constexpr int kSplits = Splits;
  static constexpr bool kStreamK = false;
  static int slices(long long, long long, int) { return Splits; }
  static std::string describe() { return detail::templated("SplitK", Splits); }
};

// Split-K with the number of slices chosen per call, from MinSplits to MaxSplits (each at least
// MinSliceK long where that leaves more than MinSplits): the count whose blocks fill the SMs most
// evenly. An SM's time follows its share of the blocks (those resident side by side share it), but
// no SM is faster than with BusyFloor of them (a block of a few warps hides little latency alone:
// 2 for the 4-warp 64x64 tiles, 1 for tiles that fill an SM), so a count s costs max(BusyFloor,
// ceil(s x tiles / SMs)) blocks on the busiest SM, each ceil(k / s) + kOverheadK long (its share of
// the beta pass and its atomic adds into C); the cheapest s is taken, the fewest slices among
// equals. For few tiles and a long k (a weight gradient over many tokens: 384 x 384 x 65536 is 36
// tiles of 64x64), where a fixed count leaves the SMs one block each or none, or a last round part
// full. The slices add into C as SplitK's do.
template <int MinSplits, int MaxSplits, int MinSliceK, int BusyFloor>
struct SplitKToFill {
  static_assert(MinSplits >= 2 && MaxSplits >= MinSplits,
                "SplitKToFill: allow at least 2 slices (NoSplitK for one), and MaxSplits >= MinSplits.");
  static_assert(MinSliceK >= 1 && BusyFloor >= 1, "SplitKToFill: the slice length and the busy floor are positive.");
  static constexpr int kSplits = MaxSplits;  // at most
  static constexpr bool kStreamK = false;
  static constexpr long long kOverheadK = 64;
  static long long cost(int slices, long long tiles, long long k, int sms) {
    const long long busiest = std::max(static_cast<long long>(BusyFloor), (slices * tiles + sms - 1) / sms);
    return busiest * ((k + slices - 1) / slices + kOverheadK);
  }
  static int slices(long long tiles, long long k, int sms) {
    const int most = static_cast<int>(std::clamp(k / MinSliceK, static_cast<long long>(MinSplits),
                                                 static_cast<long long>(MaxSplits)));
    int best = MinSplits;
    long long best_cost = cost(best, tiles, k, sms);
    for (int s = MinSplits + 1; s <= most; ++s) {
      const long long c = cost(s, tiles, k, sms);
      if (c < best_cost) best = s, best_cost = c;
    }
    return best;
  }
  static std::string describe() {
    return detail::templated("SplitKToFill", MinSplits, MaxSplits, MinSliceK, BusyFloor);
  }
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
  static int slices(long long, long long, int) { return 1; }
  // A block's share of k iterations is at least this many (fewer blocks when the leftover is small),
  // so that no block spends more time filling its pipeline and adding into C than computing.
  static constexpr int kMinIters = 8;
  static std::string describe() { return "StreamK"; }
};

// How a launch shares out k: split-K's slices per tile, or which blocks do what under StreamK (all
// tiles whole when sk_blocks == 0).
struct KSchedule {
  int dp_tiles;    // tiles 0 .. dp_tiles-1: one block each (blocks 0 .. dp_tiles-1), the whole k range
  int sk_blocks;   // blocks dp_tiles .. dp_tiles+sk_blocks-1 share the k iterations of the other tiles
  int slices = 1;  // split-K: consecutive groups of `tiles` blocks take consecutive k slices
};

}  // namespace gemm
