#pragma once
// Catch2 2.x (single header, Debian 12) or 3.x (split headers, newer distributions).
#if defined(GEMM_CATCH2_V3)
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif
