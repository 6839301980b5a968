// extract_article() on many pages in one process, for bench/article/run.
// Usage: article_bench OUTDIR FILE...
// Writes each page's article text to OUTDIR/<n>.txt and its title to OUTDIR/<n>.title (n
// counts the files from 0) and prints
// one line a page: the file, the milliseconds extract_article took, and "ok" or the error.
// Reading the file is not timed: what is measured is the extraction.

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "feeddiff/article.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: article_bench OUTDIR FILE...\n");
    return 2;
  }
  const std::string out_dir = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string html = bytes.str();
    const auto start = std::chrono::steady_clock::now();
    auto article = feeddiff::extract_article(html);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::string base = out_dir + "/" + std::to_string(i - 2);
    std::ofstream out(base + ".txt", std::ios::binary);
    std::ofstream title(base + ".title", std::ios::binary);
    if (article) {
      out << article->text();
      title << article->title;
    }
    std::printf("%s\t%.3f\t%s\n", argv[i], ms, article ? "ok" : article.error().message.c_str());
  }
  return 0;
}
