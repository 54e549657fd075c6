// GPU correctness of preset::BlockTile1D (one file per preset so the suite compiles in parallel).
#include "check.cuh"

GEMM_PRESET_GPU_TESTS(BlockTile1D)
