// The suite's costly host work, compiled once and optimised: gpu/check.cuh's fp64 reference for every
// (input, C) type and its random inputs, which every test file declares extern (its own host code is
// built at -O0: test/CMakeLists.txt).
#define GEMM_TEST_HOST_WORK
#include "../gpu/check.cuh"
