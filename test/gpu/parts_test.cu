// GPU correctness of the fragment pipeline and stream-K outside Tuned: with both math parts and
// both element types, on the standard cases and on shapes that overflow a whole wave of blocks
// (so that stream-K shares out the leftover tiles).
#include "../common/pipelined_policies.cuh"
#include "check.cuh"

namespace {
using gemm_test::PipelinedAlongK;
using gemm_test::PipelinedAlongM;

// How many 64x64 tiles one wave of Policy's aligned kernel holds on this device.
template <class Policy, class T>
int wave_tiles() {
  using Cfg = typename Policy::template Config<T>;
  int device = 0, sms = 0, per_sm = 0;
  CUDA_REQUIRE(cudaGetDevice(&device));
  CUDA_REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_REQUIRE(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, &gemm::detail::tiled_gemm_kernel<T, Cfg, true>,
                                                             Cfg::kThreads, Cfg::kSmemBytes));
  REQUIRE(per_sm > 0);
  return sms * per_sm;
}

template <class Policy, class T>
void check_pipelined() {
  gemm_test::check_preset<Policy, T>();  // also prepares the kernel (shared-memory limit) for the query below
  // About 1.3 waves of tiles, off a whole number of waves; a long ragged k and one BK step.
  const int wave = wave_tiles<Policy, T>();
  const int tiles_n = 24;
  int tiles_m = (wave + wave / 3) / tiles_n + 1;
  while ((tiles_m * tiles_n) % wave == 0) ++tiles_m;
  INFO(tiles_m * tiles_n << " tiles of 64x64, " << wave << " per wave");
  const int m = tiles_m * 64 - 3, n = tiles_n * 64;
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
