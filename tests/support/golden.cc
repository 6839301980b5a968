#include "support/golden.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "support/process.h"

namespace feeddiff::test {

bool updating_golden() {
  const char* value = std::getenv("FEEDDIFF_UPDATE_GOLDEN");
  return value != nullptr && std::string_view(value) == "1";
}

void check_golden(const std::string& actual, const std::string& path) {
  const bool exists = std::filesystem::exists(path);
  const std::string expected = exists ? slurp(path) : std::string();
  if (updating_golden()) {
    if (exists && actual == expected) return;
    spit(path, actual);
    FAIL_CHECK("FEEDDIFF_UPDATE_GOLDEN=1 rewrote "
               << path
               << "; this run checked nothing there and fails: review `git diff fixtures/`, "
                  "then run the tests again without FEEDDIFF_UPDATE_GOLDEN");
    return;
  }
  INFO("golden file " << path << " (FEEDDIFF_UPDATE_GOLDEN=1 rewrites it)");
  CHECK(exists);
  CHECK(actual == expected);
}

}  // namespace feeddiff::test
