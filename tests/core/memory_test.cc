// reserve_large: room reserved ahead of the first write, what the buffer holds unchanged.
// Whether the kernel backs it with huge pages is its own business (a hint), not asserted.

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "feeddiff/core.h"

using namespace feeddiff;

TEST_CASE("reserve_large makes room in a string without changing it", "[core]") {
  std::string text = "abc";
  reserve_large(text, std::size_t{8} << 20);
  CHECK(text == "abc");
  CHECK(text.capacity() >= (std::size_t{8} << 20));
}

TEST_CASE("reserve_large makes room in a vector that growing into does not move", "[core]") {
  std::vector<std::uint32_t> ids{1, 2, 3};
  reserve_large(ids, 3'000'000);
  REQUIRE(ids.size() == 3);
  CHECK(ids[2] == 3);
  CHECK(ids.capacity() >= 3'000'000);
  const std::uint32_t* data = ids.data();
  ids.resize(3'000'000, 7);
  CHECK(ids.data() == data);
  CHECK(ids.front() == 1);
  CHECK(ids.back() == 7);

  std::vector<int> small;  // below a huge page: only reserved
  reserve_large(small, 10);
  CHECK(small.empty());
  CHECK(small.capacity() >= 10);
}
