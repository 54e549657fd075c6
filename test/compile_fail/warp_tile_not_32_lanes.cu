// EXPECT: must hold exactly 32 thread tiles
#include <gemm/gemm.cuh>
struct Bad : gemm::TiledPolicy<gemm::TileShape<128, 128, 8, 4, 4>, gemm::WarpThreadMap<64, 64, 1, 1>,
                               gemm::VectorLoader<>, gemm::SmemLayout<gemm::Transposed<4>, gemm::RowMajor<0>>,
                               gemm::CpAsyncMultiStage<3>, gemm::OuterProduct, gemm::VectorEpilogue>,
             gemm::Named<Bad> {
  static const char* name() { return "Bad"; }
};
void f(float* p) { gemm::gemm<float, Bad>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
