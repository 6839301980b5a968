// Golden files: each fixtures/normalize/<name>.<ext> has its canonical text in
// <name>.canonical and its item model in <name>.items.txt. FEEDDIFF_UPDATE_GOLDEN=1 rewrites
// those that differ and fails, naming them (support/golden.h).

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/normalize.h"
#include "support/golden.h"
#include "support/process.h"

namespace feeddiff {
namespace {

// At most 160 characters of a value, on one line, cut at a character boundary.
std::string shown(const std::string& s) {
  std::string out;
  std::size_t chars = 0, i = 0;
  for (; i < s.size() && chars < 160; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80) ++chars;
    if (c == '\n')
      out += "\\n";
    else
      out += s[i];
  }
  while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) out += s[i++];
  if (i < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : " | ") + shown(s);
  return out;
}

std::string describe(const Document& d) {
  std::string out = "format: " + d.feed.format + "\nencoding: " + d.encoding + "\n";
  out += "repairs: " + std::to_string(d.repairs.size()) + "\n";
  for (const Repair& r : d.repairs)
    out += "  line " + std::to_string(r.line) + ": " + r.what + "\n";
  out += "channel:\n";
  for (const Field& f : d.feed.channel)
    out += "  " + f.name + (f.volatile_ ? " (volatile)" : "") + " = " + shown(f.value) + "\n";
  out += "items: " + std::to_string(d.feed.items.size()) + "\n";
  for (const Item& it : d.feed.items) {
    out += "- id: " + shown(it.id) + "\n";
    auto field = [&](const char* name, const std::string& v) {
      if (!v.empty()) out += std::string("  ") + name + ": " + shown(v) + "\n";
    };
    field("title", it.title);
    field("link", it.link);
    field("published", it.published);
    field("updated", it.updated);
    field("authors", joined(it.authors));
    field("categories", joined(it.categories));
    field("summary", it.summary);
    field("content", it.content);
    for (const Enclosure& e : it.enclosures)
      out += "  enclosure: " + e.url + " type=" + e.type + " length=" + e.length + "\n";
    for (const Field& f : it.extra) out += "  " + f.name + " = " + shown(f.value) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("canonical documents and item models of the fixtures match their golden files",
          "[normalize]") {
  const std::string dir = test::fixture_path("normalize");
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && ext != ".canonical" && ext != ".txt" && ext != ".md")
      inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  REQUIRE(inputs.size() >= 12);
  for (const auto& input : inputs) {
    const std::string stem = (input.parent_path() / input.stem()).string();
    const Result<Document> r = normalize(test::slurp(input.string()));
    const std::string canonical = r ? r->text : "error: " + r.error().message + "\n";
    const std::string items = r ? describe(*r) : "error: " + r.error().message + "\n";
    INFO(input.filename().string());
    test::check_golden(canonical, stem + ".canonical");
    test::check_golden(items, stem + ".items.txt");
    if (r) CHECK(normalize(canonical)->text == canonical);
  }
}

}  // namespace feeddiff
