// extract_article: the page parsed, its metadata read, its article found and written as
// blocks. Nothing here throws: the parser is C, and a std::bad_alloc in the extractor is
// turned into an error rather than left to cross the module's boundary.

#include <new>
#include <string>
#include <string_view>

#include "article/internal.h"
#include "feeddiff/article.h"

namespace feeddiff {

std::string_view block_kind_name(BlockKind kind) {
  switch (kind) {
    case BlockKind::paragraph:
      return "paragraph";
    case BlockKind::heading:
      return "heading";
    case BlockKind::list_item:
      return "list_item";
    case BlockKind::quote:
      return "quote";
    case BlockKind::caption:
      return "caption";
    case BlockKind::preformatted:
      return "preformatted";
  }
  return "paragraph";
}

std::string Article::text() const {
  std::string out;
  for (const Block& block : blocks) {
    if (!out.empty()) out += '\n';
    std::string_view prefix;
    if (block.kind == BlockKind::list_item) prefix = "- ";
    if (block.kind == BlockKind::quote) prefix = "> ";
    std::size_t start = 0;
    while (start <= block.text.size()) {
      std::size_t end = block.text.find('\n', start);
      if (end == std::string::npos) end = block.text.size();
      // A list item's later lines are indented under its first; a quote's each quoted.
      out += start == 0 || block.kind == BlockKind::quote
                 ? prefix
                 : std::string_view(block.kind == BlockKind::list_item ? "  " : "");
      out.append(block.text, start, end - start);
      out += '\n';
      start = end + 1;
    }
  }
  return out;
}

Result<Article> extract_article(std::string_view html, const ArticleOptions& options) {
  try {
    auto tree = article_detail::parse_tree(html, options);
    if (!tree) return tree.error();
    const article_detail::Metadata meta = article_detail::read_metadata(*tree);
    Article article;
    article.title = meta.title;
    article.published = meta.published;
    article.language = meta.language;
    article.site_name = meta.site_name;
    std::string byline = meta.byline;
    article.blocks = article_detail::find_article(*tree, byline, meta.title);
    article.byline = meta.byline.empty() ? byline : meta.byline;
    if (article.blocks.empty()) return Error{Errc::body, "the page has no text to read"};
    return article;
  } catch (const std::bad_alloc&) {
    return Error{Errc::unsupported, "the page needs more memory than there is"};
  }
}

}  // namespace feeddiff
