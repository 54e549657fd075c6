// EXPECT: must be a multiple of the loader's vector width
#include <gemm/gemm.cuh>
struct Bad : gemm::TiledPolicy<gemm::TileShape<64, 64, 6, 4, 4>, gemm::BlockThreadMap, gemm::VectorLoader<>,
                               gemm::SmemLayout<gemm::Transposed<4>, gemm::RowMajor<0>>, gemm::SingleStage,
                               gemm::OuterProduct, gemm::VectorEpilogue>,
             gemm::Named<Bad> {
  static const char* name() { return "Bad"; }
};
void f(float* p) { gemm::gemm<float, Bad>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
