// The preset table of bf16: every preset of gemm::preset::All that serves
// __nv_bfloat16 (C in bf16), row-major entry point.
#include "presets_impl.cuh"

namespace gemm_bench {
template <>
const std::vector<Preset<Bf16>>& presets<Bf16>() {
  return detail::serving_table<Bf16>();
}
}  // namespace gemm_bench
