// What a page says about itself: JSON-LD first (an article's own record), then meta tags
// (Dublin Core, OpenGraph, Twitter, Parse.ly, plain name=author), then <title> without the
// site's name, <html lang> and the first <time datetime>.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "article/internal.h"

namespace feeddiff::article_detail {

namespace {

// JSON-LD nests a few levels; deeper values are dropped while parsing, so no hostile page
// makes a deep value (nlohmann's destructor and dump are not the risk, memory is).
constexpr int kMaxJsonDepth = 32;
// libstdc++'s std::regex recurses once per character matched: a page's strings are matched
// only when shorter than this (a title, a meta name), so a long one cannot exhaust the stack.
constexpr std::size_t kMaxRegexInput = 1000;

std::string trim(std::string_view s) {
  return collapse_space(s);
}

bool is_article_type(const nlohmann::json& type) {
  static const std::regex kTypes(
      "^Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|"
      "BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|"
      "SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|"
      "BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference$");
  // libstdc++'s regex recurses per character: only short strings are matched.
  const auto matches = [&](const nlohmann::json& t) {
    return t.is_string() && t.get_ref<const std::string&>().size() <= kMaxRegexInput &&
           std::regex_search(t.get<std::string>(), kTypes);
  };
  if (matches(type)) return true;
  if (type.is_array())
    for (const auto& t : type)
      if (matches(t)) return true;
  return false;
}

bool is_schema_org(const nlohmann::json& context) {
  static const std::regex kSchema("^https?://schema\\.org/?$");
  const auto matches = [&](const nlohmann::json& c) {
    return c.is_string() && c.get_ref<const std::string&>().size() <= kMaxRegexInput &&
           std::regex_search(c.get<std::string>(), kSchema);
  };
  if (matches(context)) return true;
  return context.is_object() && context.contains("@vocab") && matches(context["@vocab"]);
}

std::string string_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? trim(it->get<std::string>()) : std::string();
}

// The names of one or more authors: {"name": ...}, [{"name": ...}, ...] or a string.
std::string authors_of(const nlohmann::json& author) {
  if (author.is_string()) return trim(author.get<std::string>());
  if (author.is_object()) return string_at(author, "name");
  std::string names;
  if (author.is_array())
    for (const auto& a : author) {
      const std::string name = string_at(a, "name");
      if (name.empty()) continue;
      if (!names.empty()) names += ", ";
      names += name;
    }
  return names;
}

// The first JSON-LD record of an article type.
nlohmann::json json_ld_article(const Tree& tree) {
  for (NodeId id : tree.elements_under(0)) {
    if (!tree.is(id, {"script"}) || lower(tree.attr(id, "type")) != "application/ld+json") continue;
    std::string text;
    for (NodeId c : tree.nodes[id].children) text += tree.nodes[c].text;
    // Some pages wrap the JSON in a CDATA section, as if the page were XHTML.
    std::string_view json = text;
    while (!json.empty() && is_html_space(json.front())) json.remove_prefix(1);
    while (!json.empty() && is_html_space(json.back())) json.remove_suffix(1);
    if (json.starts_with("<![CDATA[") && json.ends_with("]]>"))
      json = json.substr(9, json.size() - 12);
    const auto keep_shallow = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      return depth <= kMaxJsonDepth;
    };
    nlohmann::json parsed = nlohmann::json::parse(json, keep_shallow, false);
    if (parsed.is_discarded()) continue;
    if (parsed.is_array()) {
      nlohmann::json found;
      for (auto& item : parsed)
        if (item.is_object() && item.contains("@type") && is_article_type(item["@type"])) {
          found = std::move(item);
          break;
        }
      parsed = std::move(found);
    }
    if (!parsed.is_object() || !parsed.contains("@context") || !is_schema_org(parsed["@context"]))
      continue;
    if (!parsed.contains("@type") && parsed.contains("@graph") && parsed["@graph"].is_array()) {
      nlohmann::json found;
      for (auto& item : parsed["@graph"])
        if (item.is_object() && item.contains("@type") && is_article_type(item["@type"])) {
          found = std::move(item);
          break;
        }
      parsed = std::move(found);
    }
    if (parsed.is_object() && parsed.contains("@type") && is_article_type(parsed["@type"]))
      return parsed;
  }
  return {};
}

std::size_t word_count(std::string_view s) {
  std::size_t words = 0;
  bool in_word = false;
  for (char c : s) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

// <title> without the site's name: "Headline | Site", "Site: Headline" and the like.
std::string title_from_page(const Tree& tree) {
  std::string original;
  std::vector<NodeId> headings;
  for (NodeId id : tree.elements_under(0)) {
    if (original.empty() && tree.is(id, {"title"})) original = tree.inner_text(id);
    if (tree.is(id, {"h1", "h2"})) headings.push_back(id);
  }
  std::string title = original;
  if (original.size() > kMaxRegexInput) return trim(original);
  bool hierarchical = false;
  // Alternations, not bracket expressions: the en and em dash and the guillemet are more
  // than one byte of UTF-8.
  static const std::string kSep = "(?:\\||-|\xE2\x80\x93|\xE2\x80\x94|\\\\|/|>|\xC2\xBB)";
  static const std::regex kSeparator(" " + kSep + " ");
  static const std::regex kHierarchical(" (?:\\\\|/|>|\xC2\xBB) ");
  std::smatch last;
  for (auto it = std::sregex_iterator(original.begin(), original.end(), kSeparator);
       it != std::sregex_iterator(); ++it)
    last = *it;
  if (!last.empty()) {
    hierarchical = std::regex_search(original, kHierarchical);
    title = original.substr(0, static_cast<std::size_t>(last.position(0)));
    if (word_count(title) < 3) {
      static const std::regex kFirstPart("^(?:(?!" + kSep + ").)*" + kSep);
      title = std::regex_replace(original, kFirstPart, "", std::regex_constants::format_first_only);
    }
  } else if (original.find(": ") != std::string::npos) {
    bool heading_matches = false;
    for (NodeId h : headings) heading_matches = heading_matches || tree.inner_text(h) == original;
    if (!heading_matches) {
      title = original.substr(original.rfind(':') + 1);
      if (word_count(title) < 3)
        title = original.substr(original.find(':') + 1);
      else if (word_count(original.substr(0, original.find(':'))) > 5)
        title = original;
    }
  } else if (utf8_length(original) > 150 || utf8_length(original) < 15) {
    std::vector<NodeId> h1s;
    for (NodeId h : headings)
      if (tree.is(h, {"h1"})) h1s.push_back(h);
    if (h1s.size() == 1) title = tree.inner_text(h1s[0]);
  }
  title = trim(title);
  const std::size_t words = word_count(title);
  if (words <= 4) {
    static const std::regex kSeparators("(?:" + kSep + ")+");
    if (!hierarchical || words != word_count(std::regex_replace(original, kSeparators, "")) - 1)
      title = original;
  }
  return title;
}

bool looks_like_url(std::string_view s) {
  return s.starts_with("http://") || s.starts_with("https://");
}

}  // namespace

double text_similarity(std::string_view a, std::string_view b) {
  const auto tokens = [](std::string_view s) {
    std::vector<std::string> out;
    std::string token;
    for (char c : s) {
      const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || (c & 0x80);
      if (word) {
        token += ascii_lower(c);
      } else if (!token.empty()) {
        out.push_back(std::move(token));
        token.clear();
      }
    }
    if (!token.empty()) out.push_back(std::move(token));
    return out;
  };
  const auto ta_list = tokens(a);
  const auto tb = tokens(b);
  if (ta_list.empty() || tb.empty()) return 0;
  const std::unordered_set<std::string> ta(ta_list.begin(), ta_list.end());
  std::size_t all = 0;
  std::size_t unique = 0;
  std::size_t unique_count = 0;
  for (const auto& t : tb) {
    all += t.size() + 1;
    if (!ta.contains(t)) {
      unique += t.size() + 1;
      ++unique_count;
    }
  }
  // Lengths of the tokens joined by single spaces, as the ratio of their texts.
  const double unique_chars = unique_count ? static_cast<double>(unique - 1) : 0.0;
  return 1 - unique_chars / static_cast<double>(all - 1);
}

Metadata read_metadata(const Tree& tree) {
  std::map<std::string, std::string> values;
  static const std::regex kProperty(
      "\\s*(article|dc|dcterm|og|twitter)\\s*:\\s*"
      "(author|creator|description|published_time|title|site_name)\\s*",
      std::regex::icase);
  static const std::regex kName(
      "^\\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(article|webpage))\\s*[-\\.:]\\s*)?"
      "(author|creator|pub-date|description|title|site_name)\\s*$",
      std::regex::icase);
  std::string time_datetime;
  std::string item_published;
  std::string content_language;
  for (NodeId id : tree.elements_under(0)) {
    if (tree.is(id, {"time"}) && time_datetime.empty())
      time_datetime = trim(tree.attr(id, "datetime"));
    if (item_published.empty() && lower(tree.attr(id, "itemprop")) == "datepublished") {
      item_published = trim(tree.attr(id, "content"));
      if (item_published.empty()) item_published = trim(tree.attr(id, "datetime"));
    }
    if (!tree.is(id, {"meta"})) continue;
    const std::string content = trim(tree.attr(id, "content"));
    if (content.empty()) continue;
    if (lower(tree.attr(id, "http-equiv")) == "content-language") content_language = content;
    const std::string property(tree.attr(id, "property"));
    std::smatch m;
    if (!property.empty() && property.size() <= kMaxRegexInput &&
        std::regex_search(property, m, kProperty)) {
      std::string key = lower(m.str(0));
      std::erase_if(key, [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
      values[key] = content;
      continue;
    }
    const std::string name(tree.attr(id, "name"));
    if (!name.empty() && name.size() <= kMaxRegexInput && std::regex_search(name, kName)) {
      std::string key = lower(name);
      std::erase_if(key, [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
      for (char& c : key)
        if (c == '.') c = ':';
      values[key] = content;
    }
  }
  const auto first = [&](std::initializer_list<const char*> keys) {
    for (const char* key : keys)
      if (auto it = values.find(key); it != values.end() && !it->second.empty()) return it->second;
    return std::string();
  };

  Metadata meta;
  const nlohmann::json ld = json_ld_article(tree);
  const std::string page_title = title_from_page(tree);
  if (!ld.is_null()) {
    const std::string name = string_at(ld, "name");
    const std::string headline = string_at(ld, "headline");
    if (!name.empty() && !headline.empty() && name != headline) {
      const bool name_matches = text_similarity(name, page_title) > 0.75;
      const bool headline_matches = text_similarity(headline, page_title) > 0.75;
      meta.title = headline_matches && !name_matches ? headline : name;
    } else {
      meta.title = !name.empty() ? name : headline;
    }
    if (ld.contains("author")) meta.byline = authors_of(ld["author"]);
    if (ld.contains("publisher")) meta.site_name = string_at(ld["publisher"], "name");
    meta.published = string_at(ld, "datePublished");
  }
  if (meta.title.empty())
    meta.title = first({"dc:title", "dcterm:title", "og:title", "weibo:article:title",
                        "weibo:webpage:title", "title", "twitter:title", "parsely-title"});
  if (meta.title.empty()) meta.title = page_title;
  if (meta.byline.empty()) {
    meta.byline = first({"dc:creator", "dcterm:creator", "author", "parsely-author"});
    const std::string article_author = first({"article:author"});
    if (meta.byline.empty() && !looks_like_url(article_author)) meta.byline = article_author;
  }
  if (meta.site_name.empty()) meta.site_name = first({"og:site_name"});
  if (meta.published.empty())
    meta.published = first(
        {"article:published_time", "parsely-pub-date", "dc:date", "dcterm:created", "pub-date"});
  if (meta.published.empty()) meta.published = item_published;
  if (meta.published.empty()) meta.published = time_datetime;
  if (tree.html != kNone) meta.language = trim(tree.attr(tree.html, "lang"));
  if (meta.language.empty()) meta.language = content_language;
  return meta;
}

}  // namespace feeddiff::article_detail
