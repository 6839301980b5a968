// feeddiff article FILE|URL|- [--json]

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "cli/input.h"
#include "feeddiff/article.h"
#include "feeddiff/core.h"
#include "feeddiff/fetch.h"

namespace feeddiff::cli {

namespace {

struct ArticleArgs {
  std::string input;
  bool json = false;
};

struct Page {
  std::string bytes;
  std::string label;  // the file, <stdin>, or the URL that answered
};

bool is_url(std::string_view s) {
  return s.starts_with("http://") || s.starts_with("https://");
}

Result<Page> read_page(std::string_view what) {
  Page page;
  if (what == "-") {
    page.bytes = read_stdin();
    page.label = "<stdin>";
    return page;
  }
  if (is_url(what)) {
    // One GET with fetch's own limits (body size, timeouts, redirects, address classes).
    FetchRequest request;
    request.url = std::string(what);
    auto response = fetch(request);
    if (!response) return response.error();
    if (response->status != 200)
      return Error{Errc::http_status,
                   fmt::format("{}: HTTP {}", redact_url(what), response->status)};
    page.bytes = std::move(response->body);
    page.label = response->final_url;  // credentials already removed
    return page;
  }
  auto bytes = read_file(std::string(what));
  if (!bytes) return bytes.error();
  page.bytes = std::move(*bytes);
  page.label = std::string(what);
  return page;
}

// Page text made safe for a terminal line by line: controls, bidi overrides and invalid
// UTF-8 become visible escapes, the line breaks stay.
std::string terminal_safe(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    out += escape_terminal(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

Result<int> run_article(const ArticleArgs& options) {
  auto page = read_page(options.input);
  if (!page) return page.error();
  auto article = extract_article(page->bytes);
  if (!article)
    return Error{article.error().code, fmt::format("{}: {}", page->label, article.error().message)};
  if (options.json) {
    write_out(article_json(*article));
    return 0;
  }
  std::string out;
  const auto field = [&](std::string_view name, const std::string& value) {
    if (!value.empty()) out += fmt::format("{}: {}\n", name, terminal_safe(value));
  };
  field("title", article->title);
  field("byline", article->byline);
  field("published", article->published);
  field("language", article->language);
  out += '\n';
  out += terminal_safe(article->text());
  write_out(out);
  return 0;
}

}  // namespace

Command article_command(CLI::App& root, const Globals&) {
  auto* app = root.add_subcommand("article", "Print the readable article of an HTML page");
  auto options = std::make_shared<ArticleArgs>();
  app->add_option("INPUT", options->input, "An HTML file, an http(s) URL, or - for stdin")
      ->required();
  app->add_flag("--json", options->json,
                "JSON: {schema: feeddiff.article/1, title, byline, published, language, "
                "site_name, blocks: [{kind, level, text}], text}");
  app->footer(R"(The article: the page's headline, byline, publication time and language, then its
body as plain text, one block a paragraph with a blank line between; navigation, ads, related
links, comments, cookie banners and share bars are left out. A URL is fetched with one GET
(50 MiB at most). Pages over 50 MiB, 200,000 tags or 1,000 levels of nesting are refused.
How the article is found: docs/article.md.

Examples:
  feeddiff article page.html
  feeddiff article https://example.com/news/story --json | jq -r .text
  curl -s https://example.com/news/story | feeddiff article -)");
  return {app, [options] { return run_article(*options); }};
}

}  // namespace feeddiff::cli
