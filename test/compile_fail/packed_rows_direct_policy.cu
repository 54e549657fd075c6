// EXPECT: PackedRows<P>: P must be a CUDA-core composition
// PackedRows copies operands for a composition with a loader part; a direct policy has none.
#include <gemm/gemm.cuh>
gemm::PackedRows<gemm::preset::Naive> bad;
