// The model suite's own main: it runs on any machine, GPU or not.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
