#pragma once
// A register array of N elements that loads and stores as one aligned access (16 bytes at most).
namespace gemm::detail {

template <class T, int N>
struct alignas(sizeof(T) * N) Vector {
  T v[N];
};

// How many elements of T fit in one 16-byte access.
template <class T>
inline constexpr int kElemsPer16B = 16 / static_cast<int>(sizeof(T));

}  // namespace gemm::detail
