// The preset table of fp16: every preset of gemm::preset::All that serves
// __half (C in fp16), row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Fp16>>& presets<Fp16>() {
  return detail::serving_table<Fp16>();
}
}  // namespace gemm_bench
