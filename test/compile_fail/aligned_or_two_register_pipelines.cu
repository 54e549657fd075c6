// EXPECT: Fast is a cp.async pipeline
#include <gemm/gemm.cuh>
gemm::AlignedOr<gemm::RegisterDoubleBuffer, gemm::RegisterDoubleBuffer> bad;
