// Host tests: run everywhere, no GPU needed.
#include "../catch_session.hpp"

int main(int argc, char** argv) { return run_catch_session(argc, argv); }
