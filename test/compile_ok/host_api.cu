// gemm::host compiles on its own, for sm_80 too (the Hopper paths are compiled, never chosen),
// through each form: row-major, op(A)/op(B) asynchronous with float C, column-major.
#include <gemm/host.cuh>
void f(float* p, __nv_bfloat16* h, float* out, double* d, cudaStream_t s) {
  gemm::host::Options o;
  gemm::host::Report r;
  o.report = &r;
  gemm::host::gemm<float>(1, 1, 1, 1.f, p, 1, p, 1, 0.f, p, 1, o);
  gemm::host::gemm_async<__nv_bfloat16, gemm::preset::WarpTiled>(gemm::Op::T, gemm::Op::N, 1, 1, 1, 1.f, h, 1, h, 1,
                                                                  0.f, out, 1, s);
  gemm::host::blas::gemm<double, gemm::preset::WarpTiled>(gemm::Op::N, gemm::Op::T, 1, 1, 1, 1.0, d, 1, d, 1, 0.0, d,
                                                          1);
  gemm::host::release_cache();
  (void)gemm::host::cache_stats();
}
