#pragma once
// TileShape: how C is cut into block tiles (BM x BN, stepping BK along k) and thread tiles (TM x TN).
#include <string>
#include "../detail/describe.cuh"

namespace gemm {

template <int BM_, int BN_, int BK_, int TM_, int TN_>
struct TileShape {
  static constexpr int BM = BM_;  // rows of C per block
  static constexpr int BN = BN_;  // columns of C per block
  static constexpr int BK = BK_;  // depth of one k step held in shared memory
  static constexpr int TM = TM_;  // contiguous rows of C per thread group
  static constexpr int TN = TN_;  // contiguous columns of C per thread group

  static_assert(BM > 0 && BN > 0 && BK > 0 && TM > 0 && TN > 0, "TileShape: every extent must be positive.");
  static_assert(BM % TM == 0, "TileShape: BM must be a multiple of TM (each thread tile must fit whole in the block tile).");
  static_assert(BN % TN == 0, "TileShape: BN must be a multiple of TN (each thread tile must fit whole in the block tile).");

  static std::string describe() { return detail::templated("TileShape", BM, BN, BK, TM, TN); }
};

}  // namespace gemm
