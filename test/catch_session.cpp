// Catch2's runner, compiled once for every test binary (Catch2 2.x is a single header whose
// implementation, Catch::Session included, goes into the one file that defines CATCH_CONFIG_RUNNER;
// 3.x ships it compiled). The binaries' main() functions call run_catch_session.
#if !defined(GEMM_CATCH2_V3)
#define CATCH_CONFIG_RUNNER
#endif
#include "catch.hpp"
#include "catch_session.hpp"

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
