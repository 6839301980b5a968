// normalize() against its limit, pugixml's own parse + serialize of the same bytes, on the
// same files in the same run. Usage: normalize_bench ROUNDS FILE...
// Prints per-file and total MB/s and the ratio to the limit for two ways of calling it: the
// canonical document only (items = false, as `feeddiff normalize` does) and the canonical
// document with the item model (the default). Each figure is the best of ROUNDS
// runs, as other processes on a shared machine only ever make a run slower.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "feeddiff/normalize.h"

namespace {

struct StringWriter : pugi::xml_writer {
  std::string out;
  void write(const void* data, std::size_t size) override {
    out.append(static_cast<const char*>(data), size);
  }
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: normalize_bench ROUNDS FILE...\n");
    return 2;
  }
  const int rounds = std::atoi(argv[1]);
  double total_bytes = 0, total_pugi = 0, total_text = 0, total_items = 0;
  std::size_t sink = 0;
  // "canonical": normalize() with items = false, what `feeddiff normalize` and `fixtures
  // check` run; "+items": normalize() with the item model too, what show/items/poll run.
  std::printf("%-48s %9s %12s %10s %6s %10s %6s\n", "file", "KB", "pugixml MB/s", "canonical",
              "ratio", "+items", "ratio");
  for (int f = 2; f < argc; ++f) {
    std::ifstream in(argv[f], std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    const std::string body = s.str();
    double pugi_s = 1e9, text_s = 1e9, items_s = 1e9;
    bool ok = true;
    for (int r = 0; r < rounds; ++r) {
      // Interleaved so that all three see the same machine load.
      auto t = std::chrono::steady_clock::now();
      {
        pugi::xml_document doc;
        const auto res = doc.load_buffer(body.data(), body.size());
        StringWriter w;
        doc.save(w, "  ");
        sink += w.out.size() + (res ? 0 : 1);
      }
      pugi_s = std::min(pugi_s, seconds_since(t));
      t = std::chrono::steady_clock::now();
      {
        feeddiff::NormalizeOptions options;
        options.items = false;
        const auto doc = feeddiff::normalize(body, options);
        ok = ok && doc.ok();
        sink += doc ? doc->text.size() : 0;
      }
      text_s = std::min(text_s, seconds_since(t));
      t = std::chrono::steady_clock::now();
      {
        const auto doc = feeddiff::normalize(body);
        ok = ok && doc.ok();
        sink += doc ? doc->text.size() + doc->feed.items.size() : 0;
      }
      items_s = std::min(items_s, seconds_since(t));
    }
    const double mb = static_cast<double>(body.size()) / 1e6;
    std::string name = argv[f];
    if (name.size() > 48) name = "..." + name.substr(name.size() - 45);
    std::printf("%-48s %9.0f %12.1f %10.1f %5.0f%% %10.1f %5.0f%%%s\n", name.c_str(),
                body.size() / 1024.0, mb / pugi_s, mb / text_s, 100.0 * pugi_s / text_s,
                mb / items_s, 100.0 * pugi_s / items_s, ok ? "" : " (error)");
    total_bytes += mb;
    total_pugi += pugi_s;
    total_text += text_s;
    total_items += items_s;
  }
  std::printf("%-48s %9s %12.1f %10.1f %5.0f%% %10.1f %5.0f%%\n", "TOTAL", "",
              total_bytes / total_pugi, total_bytes / total_text, 100.0 * total_pugi / total_text,
              total_bytes / total_items, 100.0 * total_pugi / total_items);
  std::printf("canonical only (feeddiff normalize): %.1f MB/s = %.0f%% of pugixml parse+save\n",
              total_bytes / total_text, 100.0 * total_pugi / total_text);
  std::printf(
      "canonical + item model (normalize() default): %.1f MB/s = %.0f%% of pugixml "
      "parse+save\n",
      total_bytes / total_items, 100.0 * total_pugi / total_items);
  std::fprintf(stderr, "(checksum %zu)\n", sink);
  return 0;
}
