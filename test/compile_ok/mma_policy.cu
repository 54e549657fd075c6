// The positive control for the mma family's compile-fail tests: custom compositions of its parts
// compile for sm_80 (every layout through the op entry point, both copy widths).
#include <gemm/gemm.cuh>
struct SmallMma : gemm::MmaPolicy<gemm::MmaTile<64, 128, 64>, gemm::WarpTile<32, 64>, gemm::CpAsyncMultiStage<3>,
                                  gemm::MmaSyncMath, gemm::RowMajorRaster>,
                  gemm::Named<SmallMma> {
  static const char* name() { return "SmallMma"; }
};
struct SmallDmma : gemm::MmaPolicy<gemm::MmaTile<64, 64, 128>, gemm::WarpTile<32, 32>,
                                   gemm::CpAsyncFragmentPipeline<3>, gemm::DmmaMath>,
                   gemm::Named<SmallDmma> {
  static const char* name() { return "SmallDmma"; }
};
void f(gemm::Op a, gemm::Op b, __nv_bfloat16* h, float* x, double* d) {
  gemm::gemm<__nv_bfloat16, SmallMma>(a, b, 1, 1, 1, 1.f, h, 1, h, 1, 0.f, x, 1);
  gemm::gemm<gemm::tf32, SmallMma>(a, b, 1, 1, 1, 1.f, x, 1, x, 1, 0.f, x, 1);
  gemm::gemm<double, SmallDmma>(a, b, 1, 1, 1, 1.0, d, 1, d, 1, 0.0, d, 1);
}
