// The address classes of the redirect policy (FetchRequest::allow_private_redirects): which
// addresses libcurl reports count as loopback, private, link-local, unspecified or public.
// A redirect refused end to end is in tests/poll/poll_redirect_config_test.cc.

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "feeddiff/fetch.h"

namespace feeddiff::test {
namespace {

TEST_CASE("the address classifier knows loopback, private, link-local and unspecified addresses",
          "[fetch]") {
  using C = AddressClass;
  const std::vector<std::pair<std::string, C>> cases = {
      // IPv4
      {"127.0.0.1", C::loopback},
      {"127.255.255.254", C::loopback},
      {"10.0.0.1", C::private_network},
      {"10.255.255.255", C::private_network},
      {"172.16.0.1", C::private_network},
      {"172.31.255.255", C::private_network},
      {"172.15.255.255", C::global},
      {"172.32.0.0", C::global},
      {"192.168.1.1", C::private_network},
      {"192.169.0.1", C::global},
      {"100.64.0.1", C::private_network},
      {"100.100.100.200", C::private_network},  // a cloud's metadata service
      {"100.128.0.1", C::global},
      {"169.254.169.254", C::link_local},
      {"169.254.0.1", C::link_local},
      {"169.253.255.255", C::global},
      {"0.0.0.0", C::unspecified},
      {"0.1.2.3", C::unspecified},
      {"8.8.8.8", C::global},
      {"1.1.1.1", C::global},
      {"128.0.0.1", C::global},
      // IPv6
      {"::1", C::loopback},
      {"::", C::unspecified},
      {"fc00::1", C::private_network},
      {"fd12:3456:789a::1", C::private_network},
      {"fe80::1", C::link_local},
      {"fe80::1%eth0", C::link_local},
      {"febf::1", C::link_local},
      {"fec0::1", C::private_network},
      {"2001:db8::1", C::global},
      {"2606:4700:4700::1111", C::global},
      {"ff02::1", C::global},
      // IPv4 inside IPv6: the IPv4 address's class.
      {"::ffff:127.0.0.1", C::loopback},
      {"::ffff:7f00:1", C::loopback},
      {"::ffff:169.254.169.254", C::link_local},
      {"::ffff:10.1.2.3", C::private_network},
      {"::ffff:8.8.8.8", C::global},
      {"::127.0.0.1", C::loopback},
      {"64:ff9b::a9fe:a9fe", C::link_local},
      {"64:ff9b::808:808", C::global},
  };
  for (const auto& [ip, expected] : cases) {
    INFO(ip);
    const std::optional<AddressClass> got = classify_address(ip);
    REQUIRE(got.has_value());
    CHECK(*got == expected);
  }
}

TEST_CASE("text that is not a numeric address has no class", "[fetch]") {
  // Host names and the other spellings of IPv4 are the resolver's; libcurl reports what it
  // connected to in the forms above.
  for (const char* text : {"", "localhost", "example.com", "127.1", "0x7f.0.0.1", "2130706433",
                           "127.0.0.1.", "[::1]", "1.2.3.4:80", "::ffff:1.2.3"}) {
    INFO(text);
    CHECK_FALSE(classify_address(text).has_value());
  }
}

TEST_CASE("every address class has words for an error message", "[fetch]") {
  CHECK(address_class_words(AddressClass::loopback) == "a loopback address");
  CHECK(address_class_words(AddressClass::private_network) == "a private address");
  CHECK(address_class_words(AddressClass::link_local) == "a link-local address");
  CHECK(address_class_words(AddressClass::unspecified) == "an unspecified address");
  CHECK(address_class_words(AddressClass::global) == "a public address");
}

}  // namespace
}  // namespace feeddiff::test
