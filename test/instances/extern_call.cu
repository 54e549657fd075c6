// Compiled twice by check_extern.sh: with GEMM_EXTERN in force this file must hold no kernel of
// its own (every call goes to the instantiations another file defines), without it the same calls
// compile their kernels here (so the check can tell the two apart).
#include <gemm/instances.cuh>

#ifdef GEMM_TEST_EXTERN
GEMM_EXTERN(float, float, gemm::preset::Naive)
GEMM_FUSED_EXTERN(float, float, gemm::preset::Naive, gemm::act::ReLU, float)
#endif

int call_every_entry_point(const float* a, const float* b, float* c, const float* const* pa, const float* const* pb,
                           float* const* pc) {
  using P = gemm::preset::Naive;
  using gemm::Op;
  int failures = 0;
  failures += gemm::gemm<float, P>(4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4) != gemm::Status::Success;
  failures += gemm::gemm<float, P>(Op::T, Op::N, 4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4) != gemm::Status::Success;
  failures += gemm::blas::gemm<float, P>(Op::N, Op::T, 4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4) != gemm::Status::Success;
  failures += gemm::gemm_strided_batched<float, P>(Op::N, Op::N, 4, 4, 4, 1.0f, a, 4, 16, b, 4, 16, 0.0f, c, 4, 16,
                                                   2) != gemm::Status::Success;
  failures += gemm::gemm_batched<float, P>(Op::N, Op::N, 4, 4, 4, 1.0f, pa, 4, pb, 4, 0.0f, pc, 4, 2) !=
              gemm::Status::Success;
  const gemm::Epilogue<float, gemm::act::ReLU, float> relu{c, 4};  // the row-major fused entry point
  failures += gemm::gemm<float, P>(4, 4, 4, 1.0f, a, 4, b, 4, 0.0f, c, 4, relu) != gemm::Status::Success;
  return failures;
}
