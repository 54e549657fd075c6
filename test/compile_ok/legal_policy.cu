// The positive control for the compile-fail tests: a legal custom policy compiles.
#include <gemm/gemm.cuh>
struct Good : gemm::TiledPolicy<gemm::TileShape<64, 64, 8, 4, 4>, gemm::WarpThreadMap<32, 32, 2, 1>,
                                gemm::VectorLoader<>, gemm::SmemLayout<gemm::TransposedSwizzled, gemm::RowMajor<4>>,
                                gemm::CpAsyncMultiStage<2>, gemm::OuterProduct, gemm::VectorEpilogue,
                                gemm::SwizzledRaster<4>>,
              gemm::Named<Good> {
  static const char* name() { return "Good"; }
};
void f(float* p) { gemm::gemm<float, Good>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
