// Host tests: run everywhere, no GPU needed.
#if !defined(GEMM_CATCH2_V3)
#define CATCH_CONFIG_RUNNER
#endif
#include "../catch.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
