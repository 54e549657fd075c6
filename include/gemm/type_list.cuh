#pragma once
// A plain list of types, used to enumerate presets in tests and benchmarks.
namespace gemm {
template <class... Ts>
struct TypeList {
  static constexpr int size = sizeof...(Ts);
};
}  // namespace gemm
