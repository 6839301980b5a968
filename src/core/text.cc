#include <string>

#include "feeddiff/core.h"

namespace feeddiff {

std::string with_thousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string_view version() {
  return FEEDDIFF_VERSION;
}

std::string_view project_url() {
  return "https://github.com/feeddiff/feeddiff";
}

Status check_source_name(std::string_view name) {
  auto bad = [&](std::string_view why) {
    return Error{Errc::bad_name, "source name '" + std::string(name.substr(0, 100)) + "' " +
                                     std::string(why) +
                                     " (use letters, digits, '.', '_' and '-', starting with a "
                                     "letter or digit)"};
  };
  if (name.empty()) return bad("is empty");
  if (name.size() > 100) return bad("is longer than 100 characters");
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return bad("must start with a letter or digit");
  for (char c : name)
    if (!alnum(c) && c != '.' && c != '_' && c != '-')
      return bad("has a character that is not allowed");
  if (name.find("..") != std::string_view::npos) return bad("contains '..'");
  if (name.ends_with(".lock") || name.ends_with(".")) return bad("ends with '.' or '.lock'");
  return Ok{};
}

std::string_view trim(std::string_view s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace feeddiff
