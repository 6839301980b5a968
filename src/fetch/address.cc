// Address classes for the redirect policy (FetchRequest::allow_private_redirects): which
// addresses a redirect may lead to without the source's consent. Pure: no lookup here; the
// transfer classifies the address libcurl is about to connect to, or did connect to.

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "feeddiff/fetch.h"
#include "fetch/internal.h"

namespace feeddiff {

namespace fetch_detail {

AddressClass classify_ipv4(std::uint32_t a) {
  const auto in = [a](std::uint32_t net, int bits) {
    return (a >> (32 - bits)) == (net >> (32 - bits));
  };
  if (in(0x7F000000, 8)) return AddressClass::loopback;     // 127/8
  if (in(0x00000000, 8)) return AddressClass::unspecified;  // 0/8, "this network"
  if (in(0xA9FE0000, 16)) return AddressClass::link_local;  // 169.254/16
  if (in(0x0A000000, 8) || in(0xAC100000, 12) || in(0xC0A80000, 16) || in(0x64400000, 10))
    return AddressClass::private_network;  // 10/8, 172.16/12, 192.168/16, 100.64/10
  return AddressClass::global;
}

AddressClass classify_ipv6(const unsigned char (&b)[16]) {
  const auto embedded_v4 = [&b] {
    return (std::uint32_t{b[12]} << 24) | (std::uint32_t{b[13]} << 16) |
           (std::uint32_t{b[14]} << 8) | std::uint32_t{b[15]};
  };
  const auto zeros = [&b](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      if (b[i]) return false;
    return true;
  };
  if (zeros(16)) return AddressClass::unspecified;
  if (zeros(15) && b[15] == 1) return AddressClass::loopback;
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (the old compatible form), 64:ff9b::a.b.c.d (NAT64).
  if (zeros(10) && b[10] == 0xFF && b[11] == 0xFF) return classify_ipv4(embedded_v4());
  if (zeros(12)) return classify_ipv4(embedded_v4());
  static constexpr unsigned char kNat64[12] = {0, 0x64, 0xFF, 0x9B};
  if (std::memcmp(b, kNat64, 12) == 0) return classify_ipv4(embedded_v4());
  if ((b[0] & 0xFE) == 0xFC) return AddressClass::private_network;                  // fc00::/7
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return AddressClass::link_local;       // fe80::/10
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0xC0) return AddressClass::private_network;  // fec0::/10
  return AddressClass::global;
}

}  // namespace fetch_detail

std::optional<AddressClass> classify_address(std::string_view ip) {
  std::string text(ip);
  if (const auto zone = text.find('%'); zone != std::string::npos) text.resize(zone);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1)
    return fetch_detail::classify_ipv4(ntohl(v4.s_addr));
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) {
    unsigned char bytes[16];
    std::memcpy(bytes, &v6, 16);
    return fetch_detail::classify_ipv6(bytes);
  }
  return std::nullopt;
}

std::string_view address_class_words(AddressClass c) {
  switch (c) {
    case AddressClass::global:
      return "a public address";
    case AddressClass::loopback:
      return "a loopback address";
    case AddressClass::private_network:
      return "a private address";
    case AddressClass::link_local:
      return "a link-local address";
    case AddressClass::unspecified:
      return "an unspecified address";
  }
  return "an address";
}

}  // namespace feeddiff
