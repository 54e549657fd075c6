// EXPECT: use at least 2 splits
#include <gemm/gemm.cuh>
gemm::SplitK<1> bad;
