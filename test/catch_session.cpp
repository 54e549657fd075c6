// Catch2's runner, compiled once for every test binary (Catch2 2.x is a single header whose
// implementation goes into the one file that defines CATCH_CONFIG_RUNNER; 3.x ships it compiled).
// The binaries' main() functions only include the header and run a Catch::Session.
#if !defined(GEMM_CATCH2_V3)
#define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"
