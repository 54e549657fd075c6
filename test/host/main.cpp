// Host tests: run everywhere, no GPU needed.
#include "../catch.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
