// The fragment pipeline and stream-K compose with both math parts and both element types
// (Tuned uses them for float only, so this is where double and the other combinations compile).
#include "../common/pipelined_policies.cuh"

template <class T>
void f(T* p) {
  gemm::gemm<T, gemm_test::PipelinedAlongM>(1, 1, 1, T(1), p, 1, p, 1, T(0), p, 1);
  gemm::gemm<T, gemm_test::PipelinedAlongK>(1, 1, 1, T(1), p, 1, p, 1, T(0), p, 1);
}
template void f<float>(float*);
template void f<double>(double*);
