// article.txt: an archived article's readable text, written by poll and read by show. Plain
// text, so that `git log -p` over an article's directory reads as prose.

#include <fmt/format.h>

#include "feeddiff/message.h"

namespace feeddiff {

namespace {

// The value of `Key: value` when line is that key's line.
std::optional<std::string> header_value(std::string_view line, std::string_view key) {
  if (!line.starts_with(key) || line.size() < key.size() + 1 || line[key.size()] != ':')
    return std::nullopt;
  line.remove_prefix(key.size() + 1);
  if (line.starts_with(' ')) line.remove_prefix(1);
  return std::string(line);
}

}  // namespace

std::string format_article_file(const ArticleFile& a) {
  // Each header on one line: a line break in a headline would end the header block.
  std::string out = fmt::format("Title: {}\nByline: {}\nPublished: {}\n\n", one_line(a.title),
                                one_line(a.byline), one_line(a.published));
  out += a.body;
  if (!a.body.empty() && a.body.back() != '\n') out += '\n';
  return out;
}

ArticleFile parse_article_file(std::string_view text) {
  ArticleFile out;
  std::string_view rest = text;
  std::string* fields[] = {&out.title, &out.byline, &out.published};
  const std::string_view keys[] = {"Title", "Byline", "Published"};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    auto value = header_value(line, keys[i]);
    if (!value) {
      out = ArticleFile{};
      out.body = std::string(text);
      return out;
    }
    *fields[i] = std::move(*value);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  }
  if (rest.starts_with('\n')) rest.remove_prefix(1);
  out.body = std::string(rest);
  return out;
}

}  // namespace feeddiff
