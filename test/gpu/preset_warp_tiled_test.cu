// GPU correctness of preset::WarpTiled (one file per preset so the suite compiles in parallel).
#include "check.cuh"

GEMM_PRESET_GPU_TESTS(WarpTiled)

// WarpTiled is also the CUDA-core path for 16-bit inputs (converted to float on their way to
// shared memory), with C in the input type or float.
TEST_CASE("WarpTiled<bf16, fp16> matches the fp64 reference on ragged, padded and misaligned input, every layout",
          "[gpu][WarpTiled][bf16][fp16]") {
  gemm_test::check_preset<gemm::preset::WarpTiled, __nv_bfloat16>();
  gemm_test::check_preset<gemm::preset::WarpTiled, __nv_bfloat16, float>();
  gemm_test::check_preset<gemm::preset::WarpTiled, __half>();
  gemm_test::check_preset<gemm::preset::WarpTiled, __half, float>();
}
