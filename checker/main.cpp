#include "checker/cli.hpp"

int main(int argc, char** argv) { return collcheck::cli_main(argc, argv); }
