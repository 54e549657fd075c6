#pragma once
// Runs the test binary's Catch2 test cases with the command line's options (catch_session.cpp).
int run_catch_session(int argc, char** argv);
