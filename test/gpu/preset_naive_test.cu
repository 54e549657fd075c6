// GPU correctness of preset::Naive (one file per preset so the suite compiles in parallel).
#include "check.cuh"

GEMM_PRESET_GPU_TESTS(Naive)
