// EXPECT: even number of math steps
// BK = 4 is one OuterProductAlongK step for float: the fragment pipeline needs an even number.
#include <gemm/gemm.cuh>
struct Odd : gemm::TiledPolicy<gemm::TileShape<64, 64, 4, 1, 4>, gemm::WarpThreadMap<32, 32, 8, 1>, gemm::VectorLoader<>,
                               gemm::SmemLayout<gemm::RowMajor<4>, gemm::RowMajor<0>>, gemm::CpAsyncFragmentPipeline<3>,
                               gemm::OuterProductAlongK, gemm::VectorEpilogue>,
             gemm::Named<Odd> {
  static const char* name() { return "Odd"; }
};
void f(float* p) { gemm::gemm<float, Odd>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1); }
