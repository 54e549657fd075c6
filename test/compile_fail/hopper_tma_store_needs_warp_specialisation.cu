// EXPECT: TmaStoreEpilogue needs a warp-specialised schedule
#include <gemm/gemm.cuh>
struct Bad : gemm::HopperPolicy<gemm::BlockTile<128, 128>, 4, gemm::SingleWarpgroup, gemm::RowMajorRaster,
                                gemm::TmaStoreEpilogue>,
             gemm::Named<Bad> {
  static const char* name() { return "Bad"; }
};
void f(__nv_bfloat16* p) { gemm::gemm<__nv_bfloat16, Bad>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
