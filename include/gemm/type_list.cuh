#pragma once
// A plain list of types, used to enumerate presets in tests and benchmarks.
namespace gemm {
template <class... Ts>
struct TypeList {
  static constexpr int size = sizeof...(Ts);
  template <class Other>
  struct AppendImpl;
  template <class... Us>
  struct AppendImpl<TypeList<Us...>> {
    using type = TypeList<Ts..., Us...>;
  };
  template <class Other>
  using Append = typename AppendImpl<Other>::type;
};
}  // namespace gemm
