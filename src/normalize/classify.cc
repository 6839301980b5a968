// Whether a response body is a feed, and when it is not, a one-line reason a person can act
// on (the rule is in normalize.h and docs/not-a-feed.md).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "feeddiff/core.h"
#include "feeddiff/normalize.h"
#include "normalize/internal.h"

namespace feeddiff {

namespace {

// Characters of an HTML title kept in a reason: enough to recognise "Just a moment...",
// "Sign in", "Site under maintenance"; a page's title is text from the data, so it is cut.
constexpr std::size_t kTitleChars = 80;
// Bytes sniffed for an HTML tag or title: challenge and login pages put them in the head.
constexpr std::size_t kSniffBytes = 64 * 1024;

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Position of needle (lower case ASCII) in text, ASCII letters compared without case.
std::size_t find_nocase(std::string_view text, std::string_view needle, std::size_t from = 0) {
  if (needle.empty() || text.size() < needle.size()) return std::string_view::npos;
  for (std::size_t i = from; i + needle.size() <= text.size(); ++i) {
    std::size_t k = 0;
    while (k < needle.size() && normalize_detail::ascii_lower(text[i + k]) == needle[k]) ++k;
    if (k == needle.size()) return i;
  }
  return std::string_view::npos;
}

// The body less a UTF-8 BOM and the whitespace before its first character.
std::string_view content_start(std::string_view body) {
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  while (!body.empty() && space(body.front())) body.remove_prefix(1);
  return body;
}

// The body less comments, processing instructions and declarations before its first element,
// starting at that element's '<' (or empty when there is none).
std::string_view first_element(std::string_view text) {
  for (;;) {
    text = content_start(text);
    if (!text.starts_with('<')) return {};
    std::size_t end = std::string_view::npos;
    if (text.starts_with("<!--"))
      end = text.find("-->", 4), end = end == std::string_view::npos ? end : end + 3;
    else if (text.starts_with("<?"))
      end = text.find("?>", 2), end = end == std::string_view::npos ? end : end + 2;
    else if (text.starts_with("<!"))
      end = text.find('>', 2), end = end == std::string_view::npos ? end : end + 1;
    else
      return text;
    if (end == std::string_view::npos) return {};
    text.remove_prefix(end);
  }
}

// The name of the element text starts at (`<name ...`), at most 40 characters; "" when none.
std::string element_name(std::string_view text) {
  if (!text.starts_with('<')) return {};
  std::string name;
  for (std::size_t i = 1; i < text.size() && name.size() < 40; ++i) {
    const char c = text[i];
    if (space(c) || c == '>' || c == '/' || c == '<' || c == '"' || c == '\'') break;
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) break;
    name += c;
  }
  return name;
}

// Whether the body is an HTML page: a doctype or root element named html, or an html, head
// or body tag near the beginning (pages often open with junk, comments or a BOM).
bool looks_like_html(std::string_view body) {
  const std::string_view head = body.substr(0, kSniffBytes);
  const std::string_view start = content_start(head);
  if (find_nocase(start.substr(0, 15), "<!doctype html") == 0) return true;
  const std::string root = element_name(first_element(head));
  if (root.size() == 4 && find_nocase(root, "html") == 0) return true;
  for (std::string_view tag : {"<html", "<head>", "<head ", "<body", "<meta ", "<title>"}) {
    const std::size_t at = find_nocase(head, tag);
    if (at != std::string_view::npos) {
      // A feed carries HTML inside its items: count a tag only before any feed root.
      const std::size_t feed_at =
          std::min({find_nocase(head, "<rss"), find_nocase(head, "<feed"),
                    find_nocase(head, "<rdf:rdf"), find_nocase(head, "<channel")});
      if (at < feed_at) return true;
    }
  }
  return false;
}

// Removes control characters and folds whitespace; cuts at max characters (code points),
// never inside a UTF-8 sequence, adding "..." when it cut.
std::string one_line_cut(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t chars = 0;
  bool cut = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    // C1 controls (U+0080 to U+009F) are two bytes in UTF-8: C2 80 to C2 9F.
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0 &&
        static_cast<unsigned char>(text[i + 1]) >= 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xC0) != 0x80) {
      if (chars == max) {
        cut = true;
        break;
      }
      ++chars;
    }
    out += static_cast<char>(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (cut) out += "...";
  return out;
}

// The text of an HTML page's <title>, entities decoded, one line, cut; "" when none.
std::string html_title(std::string_view body) {
  const std::string_view head = body.substr(0, kSniffBytes);
  std::size_t open = find_nocase(head, "<title");
  while (open != std::string_view::npos && open + 6 < head.size() && head[open + 6] != '>' &&
         !space(head[open + 6]))
    open = find_nocase(head, "<title", open + 6);  // <titlefoo> is another element
  if (open == std::string_view::npos) return {};
  const std::size_t gt = head.find('>', open);
  if (gt == std::string_view::npos) return {};
  const std::size_t close = find_nocase(head, "</title", gt);
  const std::string_view raw =
      head.substr(gt + 1, close == std::string_view::npos ? std::min<std::size_t>(400, head.size())
                                                          : close - gt - 1);
  return one_line_cut(readable_text(raw.substr(0, 2000)), kTitleChars);
}

// The media type of a Content-Type value, lower case, without parameters; "" for none.
std::string media_type(std::string_view content_type) {
  std::string_view type = trim(content_type.substr(0, content_type.find(';')));
  std::string out;
  for (char c : type.substr(0, 60)) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return {};
    out += normalize_detail::ascii_lower(c);
  }
  return out;
}

}  // namespace

bool is_feed_format(std::string_view format) {
  return format.starts_with("rss") || format.starts_with("atom") || format.starts_with("jsonfeed");
}

FeedCheck check_feed(std::string_view body, std::string_view content_type,
                     const Result<Document>& parsed) {
  FeedCheck out;
  if (parsed && is_feed_format(parsed->feed.format)) {
    out.feed = true;
    return out;
  }
  if (!parsed && parsed.error().code == Errc::unsupported && !looks_like_html(body)) {
    out.feed = true;
    out.unreadable = parsed.error().message;
    return out;
  }
  const std::string type = media_type(content_type);
  const std::string served = type.empty() ? std::string() : " (" + type + ")";
  const std::string_view start = content_start(body);
  if (start.empty()) {
    out.kind = "empty body";
    out.reason = body.empty() ? "empty body" : "empty body (whitespace only)";
    out.reason += served;
    return out;
  }
  if (looks_like_html(body)) {
    out.kind = "HTML document";
    const std::string title = html_title(body);
    out.reason = title.empty() ? "HTML document" : "HTML document \"" + title + "\"";
    out.reason += served;
    return out;
  }
  if (start.front() == '{' || start.front() == '[') {
    out.kind = "JSON document";
    if (parsed)
      out.reason = "JSON that is not a JSON Feed";
    else
      out.reason = "JSON that does not parse: " + one_line_cut(parsed.error().message, 160);
    out.reason += served;
    return out;
  }
  if (parsed) {
    // Well-formed XML (repairs included) with a root that is no feed's: an S3 <Error>, an
    // OPML list, a sitemap.
    const std::string root = one_line_cut(element_name(first_element(body)), 40);
    out.kind = "XML document";
    out.reason =
        root.empty() ? "XML whose root is no feed" : "XML whose root <" + root + "> is no feed";
    out.reason += served;
    return out;
  }
  // UTF-16 (a BOM) is XML too, though its bytes do not start with '<'.
  if (start.front() == '<' || body.starts_with("\xFF\xFE") || body.starts_with("\xFE\xFF")) {
    out.kind = "XML that does not parse";
    out.reason = "XML that does not parse: " + one_line_cut(parsed.error().message, 160);
  } else {
    out.kind = "text";
    out.reason =
        "text that is no feed, beginning \"" + one_line_cut(start.substr(0, 200), 40) + "\"";
  }
  out.reason += served;
  return out;
}

FeedCheck check_feed(std::string_view body, std::string_view content_type) {
  return check_feed(body, content_type,
                    normalize(body, NormalizeOptions{content_type, true, false}));
}

}  // namespace feeddiff
