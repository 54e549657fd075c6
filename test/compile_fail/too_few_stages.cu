// EXPECT: needs at least 2 stages
#include <gemm/gemm.cuh>
gemm::CpAsyncMultiStage<1> bad;
