// EXPECT: MmaSyncMath: the warp tile must be a multiple of 16 x 16
#include <gemm/gemm.cuh>
// 64 x 8 warp tiles: one ldmatrix.x4 loads B for 16 columns, so WN must be a multiple of 16.
struct Bad : gemm::MmaPolicy<gemm::MmaTile<128, 16, 128>, gemm::WarpTile<64, 8>, gemm::CpAsyncMultiStage<3>,
                             gemm::MmaSyncMath>,
             gemm::Named<Bad> {
  static const char* name() { return "Bad"; }
};
void f(__nv_bfloat16* p) { gemm::gemm<__nv_bfloat16, Bad>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
