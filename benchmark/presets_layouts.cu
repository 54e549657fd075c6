// The presets that get layout rows (NT, TN, TT), through the op entry point
// gemm::gemm<T, Policy>(op_a, op_b, ...), which compiles all four layouts of
// every kernel a policy may launch. That quadruples their compile time, so
// only these rows have them:
//   every type: Tuned (its kernels come compiled from the gemm_instances library);
//   bf16: also the Hopper presets (Wgmma, WarpSpecialized, WideTile, Persistent).
#include "presets_impl.cuh"

namespace gemm_bench {

template <>
const std::vector<Preset<Float>>& layout_presets<Float>() {
  static const std::vector<Preset<Float>> table =
      detail::make_layout_table<Float>(gemm::TypeList<gemm::preset::Tuned>{});
  return table;
}

template <>
const std::vector<Preset<Bf16>>& layout_presets<Bf16>() {
  static const std::vector<Preset<Bf16>> table = detail::make_layout_table<Bf16>(
      gemm::TypeList<gemm::preset::Wgmma, gemm::preset::WarpSpecialized, gemm::preset::WideTile, gemm::preset::Persistent,
                     gemm::preset::Tuned>{});
  return table;
}

namespace {
template <class B>
const std::vector<Preset<B>>& tuned_only() {
  static const std::vector<Preset<B>> table = detail::make_layout_table<B>(gemm::TypeList<gemm::preset::Tuned>{});
  return table;
}
}  // namespace

template <>
const std::vector<Preset<Tf32>>& layout_presets<Tf32>() { return tuned_only<Tf32>(); }
template <>
const std::vector<Preset<Tf32x3>>& layout_presets<Tf32x3>() { return tuned_only<Tf32x3>(); }
template <>
const std::vector<Preset<Double>>& layout_presets<Double>() { return tuned_only<Double>(); }
template <>
const std::vector<Preset<Fp16>>& layout_presets<Fp16>() { return tuned_only<Fp16>(); }
template <>
const std::vector<Preset<Bf16F32>>& layout_presets<Bf16F32>() { return tuned_only<Bf16F32>(); }
template <>
const std::vector<Preset<Fp16F32>>& layout_presets<Fp16F32>() { return tuned_only<Fp16F32>(); }

}  // namespace gemm_bench
