#include "app.hpp"

#include <iostream>

int main(int argc, char** argv) { return memtune::cli::run(argc, argv, std::cout, std::cerr); }
