// The tests' main: Catch2's, then the scratch directories of a run that passed are removed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/process.h"

int main(int argc, char* argv[]) {
  const int failed = Catch::Session().run(argc, argv);
  if (failed == 0) feeddiff::test::remove_temp_dirs();
  return failed;
}
