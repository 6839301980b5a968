#pragma once
// article: pure. An HTML page's bytes in, its readable article out: the title, the byline,
// when it was published, its language and site, and the body as a list of blocks (paragraphs,
// headings, list items, quotes, figure captions, preformatted text) with the page's
// navigation, ads, related links, comments, cookie banners and share bars left out.
// Deterministic: the same bytes give the same article, so two versions of a page can be
// diffed by their article text alone. The heuristics, their limits and the score they reach
// on Readability.js's test pages are in docs/article.md.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff {

/// What kind of text a block of the body is.
enum class BlockKind {
  paragraph,     ///< running text (a <p>, or text standing in a container)
  heading,       ///< a section title (<h1>-<h6>); Block::level says which
  list_item,     ///< one <li> (or <dt>/<dd>)
  quote,         ///< text inside a <blockquote>
  caption,       ///< a <figcaption> or <caption>
  preformatted,  ///< a <pre>: whitespace kept as the page has it
};

/// One block of the body: a kind and its text.
struct Block {
  BlockKind kind = BlockKind::paragraph;  ///< what it is
  int level = 0;                          ///< a heading's level, 1-6; 0 for every other kind
  std::string text;  ///< UTF-8, whitespace collapsed (but for preformatted), trimmed; a <br> is
                     ///< '\n' (two in a row end the block)
};

/// The readable article of a page.
struct Article {
  std::string title;   ///< the headline: JSON-LD, OpenGraph or <title> without the site name
  std::string byline;  ///< the author(s) as the page names them; may be empty
  std::string
      published;  ///< as the page states it (ISO 8601 from meta, JSON-LD, <time>); may be empty
  std::string language;   ///< <html lang> or a content-language meta, e.g. "en-GB"; may be empty
  std::string site_name;  ///< og:site_name or the JSON-LD publisher; may be empty
  std::vector<Block> blocks;  ///< the body, in page order

  /// The body as plain text: one block a paragraph, a blank line between blocks, a list item
  /// prefixed "- ", a quote "> ", a heading as its text; ends with '\n' unless empty.
  std::string text() const;
};

/// The limits extract_article holds a page to; a page over one is an error saying which.
struct ArticleOptions {
  /// Bytes of HTML; the default is fetch's body cap (FetchRequest::max_body_bytes).
  std::size_t max_bytes = std::size_t{50} << 20;
  /// Start tags ("<" and a letter, counted before parsing: an upper bound on elements).
  std::size_t max_tags = 200'000;
  /// Elements open inside each other, estimated before parsing and checked after it.
  std::size_t max_depth = 1'000;
};

/// The readable article of an HTML page (UTF-8, or ASCII-compatible bytes; invalid UTF-8 is
/// replaced by U+FFFD by the parser). Never throws. Errors: Errc::unsupported naming the
/// limit for a page over one of options' limits ("page is 60000000 bytes, more than the
/// 52428800 allowed", "more than 200000 tags", "elements nested deeper than 1000 levels"),
/// or "the page needs more memory than there is" when an allocation fails; Errc::body, "the
/// page has no text to read", when the page has no block of text at all.
Result<Article> extract_article(std::string_view html, const ArticleOptions& options = {});

/// The name of a block kind as docs/article.md and the JSON output spell it: "paragraph",
/// "heading", "list_item", "quote", "caption", "preformatted".
std::string_view block_kind_name(BlockKind kind);

/// The article as one JSON document (`feeddiff article --json`, schema feeddiff.article/1):
/// its fields, its blocks (kind, level, text) and its whole text. Text that is not valid
/// UTF-8 is replaced, never an error.
std::string article_json(const Article& article);
}  // namespace feeddiff
