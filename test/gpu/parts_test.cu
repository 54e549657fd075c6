// GPU correctness of the fragment pipeline and stream-K outside Tuned: with both math parts and
// both element types, on the standard cases and on shapes that overflow a whole wave of blocks
// (so that stream-K shares out the leftover tiles).
#include "../common/pipelined_policies.cuh"
#include "check.cuh"

namespace {
using gemm_test::PipelinedAlongK;
using gemm_test::PipelinedAlongM;

template <class Policy, class T>
void check_pipelined() {
  gemm_test::check_preset<Policy, T>();
  // Past a whole wave of 64x64 tiles; a long ragged k and one BK step.
  const int tiles_n = 24;
  const auto rows = gemm_test::rows_past_a_wave<Policy, T>(tiles_n);
  INFO(rows.tiles_m * tiles_n << " tiles of 64x64, " << rows.wave << " per wave");
  const int m = rows.tiles_m * 64 - 3, n = tiles_n * 64;
  gemm_test::run_case<Policy, T>(gemm_test::Case{m, n, 150, 1.0, 0.0, 0, 0, 0, 0, 0, 0, true});
  gemm_test::run_case<Policy, T>(gemm_test::Case{m, n, 16, 0.5, -1.0, 4, 4, 4});
  gemm_test::run_case<Policy, T>(gemm_test::Case{m, n - 1, 77, -1.0, 0.5, 1, 3, 1, 1, 0, 1});  // misaligned
}
}  // namespace

TEST_CASE("CpAsyncFragmentPipeline with StreamK, A read along m, is correct", "[gpu][parts]") {
  check_pipelined<PipelinedAlongM, float>();
  check_pipelined<PipelinedAlongM, double>();
}

TEST_CASE("CpAsyncFragmentPipeline with StreamK, A read along k, is correct", "[gpu][parts]") {
  check_pipelined<PipelinedAlongK, float>();
  check_pipelined<PipelinedAlongK, double>();
}
