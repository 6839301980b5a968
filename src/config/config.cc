// feeddiff.toml: a top-level `layout` ("flat" or "fanout"); `[sources.NAME]` tables with url,
// every, ignore, skip_cosmetic, shard, allow_private_redirects, articles, article_cap and
// article_until;
// `[notify]` and `[sources.NAME.notify]` tables with exec, webhook, timeout, cosmetic, minor,
// kinds, fields, match and after;
// `[insignificant]` and `[sources.NAME.insignificant]` tables with whitespace, punctuation,
// fields and min_words.

#include <fmt/format.h>
#include <toml++/toml.h>
#include <algorithm>
#include <set>
#include <sstream>

#include "feeddiff/config.h"

namespace feeddiff {

namespace {

// A TOML basic string, escaped so any byte sequence round-trips.
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04X}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string key(std::string_view name) {
  bool bare = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  return bare ? std::string(name) : quote(name);
}

// The byte offset of a toml++ position: lines from 1, columns from 1 in code points.
std::optional<std::size_t> byte_offset(std::string_view text, const toml::source_position& at) {
  std::size_t pos = 0;
  for (toml::source_index line = 1; line < at.line; ++line) {
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    ++pos;
  }
  for (toml::source_index column = 1; column < at.column; ++column) {
    if (pos >= text.size() || text[pos] == '\n') return std::nullopt;
    ++pos;
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  }
  return pos;
}

Error config_error(const toml::source_region& where, std::string_view what) {
  return Error{Errc::bad_config, fmt::format("feeddiff.toml line {}: {}", where.begin.line, what)};
}

// Longest time a hook may run: a poll waits for its hooks, one after the other.
constexpr TimeMs kMaxNotifyTimeout = 3'600'000;
// Longest `match` string: a title or a phrase, not a document.
constexpr std::size_t kMaxMatchBytes = 200;

// A `[notify]` table; `where` names it in messages ("notify", "sources.x.notify").
Result<NotifyConfig> parse_notify(const toml::node& node, const std::string& where) {
  const toml::table* t = node.as_table();
  if (!t) return config_error(node.source(), fmt::format("'{}' must be a table", where));
  NotifyConfig out;
  for (const auto& [field, value] : *t) {
    const std::string_view f = field.str();
    if (f == "exec") {
      auto s = value.value<std::string>();
      if (!s) return config_error(value.source(), "exec must be a string (a shell command)");
      out.exec = *s;
    } else if (f == "webhook") {
      auto s = value.value<std::string>();
      if (!s) return config_error(value.source(), "webhook must be a string (an http(s) URL)");
      if (!s->empty()) {
        // fetch checks it fully when it posts; the URL (it may carry a token) is not echoed.
        const UrlParts parts = split_url(*s);
        const std::string scheme = to_lower(parts.scheme);
        if (!parts.has_authority || parts.host.empty() || (scheme != "http" && scheme != "https"))
          return config_error(value.source(), "webhook must be an http:// or https:// URL");
      }
      out.webhook = *s;
    } else if (f == "timeout") {
      auto s = value.value<std::string>();
      if (!s) return config_error(value.source(), "timeout must be a duration such as \"30s\"");
      auto d = parse_duration(*s);
      if (!d) return config_error(value.source(), d.error().message);
      if (*d < 1000 || *d > kMaxNotifyTimeout)
        return config_error(value.source(), "timeout must be between 1s and 1h");
      out.timeout = *d;
    } else if (f == "cosmetic") {
      auto b = value.value<bool>();
      if (!b) return config_error(value.source(), "cosmetic must be true or false");
      out.cosmetic = *b;
    } else if (f == "minor") {
      auto b = value.value<bool>();
      if (!b) return config_error(value.source(), "minor must be true or false");
      out.minor = *b;
    } else if (f == "kinds" || f == "fields" || f == "match") {
      // A bare string is a list of one; an empty list is refused rather than read as "all"
      // or "none": which it means would be a guess.
      std::vector<std::string> list;
      if (auto one = value.value<std::string>()) {
        list.push_back(*one);
      } else if (const toml::array* a = value.as_array()) {
        for (const auto& item : *a) {
          auto s = item.value<std::string>();
          if (!s) return config_error(item.source(), fmt::format("{} must be strings", f));
          list.push_back(*s);
        }
      } else {
        return config_error(value.source(), fmt::format("{} must be a list of strings", f));
      }
      if (list.empty())
        return config_error(value.source(),
                            fmt::format("{} is empty (leave the key out to notify on all)", f));
      for (const std::string& s : list) {
        if (f == "kinds") {
          const bool known = std::any_of(std::begin(kNotifyKinds), std::end(kNotifyKinds),
                                         [&](const char* k) { return s == k; });
          if (!known)
            return config_error(value.source(),
                                fmt::format("kinds: unknown kind '{}' (known: added, removed, "
                                            "aged_out, changed, moved, reappeared, duplicate)",
                                            s));
        } else if (s.empty() || s.size() > kMaxMatchBytes) {
          return config_error(value.source(),
                              fmt::format("{}: each must be 1 to {} bytes", f, kMaxMatchBytes));
        }
      }
      (f == "kinds" ? out.kinds : f == "fields" ? out.fields : out.match) = std::move(list);
    } else if (f == "after") {
      auto n = value.value<std::int64_t>();
      if (!n || *n < 1 || *n > kMaxNotifyAfter)
        return config_error(value.source(), fmt::format("after must be a whole number of polls "
                                                        "from 1 to {}",
                                                        kMaxNotifyAfter));
      out.after = static_cast<unsigned>(*n);
    } else {
      return config_error(value.source(), fmt::format("'{}' has an unknown key '{}'", where, f));
    }
  }
  return out;
}

void format_notify(std::ostringstream& out, const NotifyConfig& n) {
  if (n.exec) out << "exec = " << quote(*n.exec) << "\n";
  if (n.webhook) out << "webhook = " << quote(*n.webhook) << "\n";
  if (n.timeout) out << "timeout = " << quote(format_duration(*n.timeout)) << "\n";
  if (n.cosmetic) out << "cosmetic = " << (*n.cosmetic ? "true" : "false") << "\n";
  if (n.minor) out << "minor = " << (*n.minor ? "true" : "false") << "\n";
  for (const auto& [name, list] : {std::pair{"kinds", &n.kinds}, std::pair{"fields", &n.fields},
                                   std::pair{"match", &n.match}}) {
    if (!*list) continue;
    out << name << " = [";
    for (std::size_t i = 0; i < (*list)->size(); ++i) out << (i ? ", " : "") << quote((**list)[i]);
    out << "]\n";
  }
  if (n.after) out << "after = " << *n.after << "\n";
}

// An `[insignificant]` table; `where` names it in messages.
Result<InsignificantConfig> parse_insignificant(const toml::node& node, const std::string& where) {
  const toml::table* t = node.as_table();
  if (!t) return config_error(node.source(), fmt::format("'{}' must be a table", where));
  InsignificantConfig out;
  for (const auto& [field, value] : *t) {
    const std::string_view f = field.str();
    if (f == "whitespace" || f == "punctuation") {
      auto b = value.value<bool>();
      if (!b) return config_error(value.source(), fmt::format("{} must be true or false", f));
      (f == "whitespace" ? out.whitespace : out.punctuation) = *b;
    } else if (f == "fields") {
      const toml::array* a = value.as_array();
      if (!a) return config_error(value.source(), "fields must be an array of strings");
      out.fields.emplace();
      for (const auto& item : *a) {
        auto s = item.value<std::string>();
        if (!s) return config_error(item.source(), "fields must be an array of strings");
        out.fields->push_back(*s);
      }
    } else if (f == "min_words") {
      auto n = value.value<std::int64_t>();
      if (!n || *n < 0 || *n > 1'000'000)
        return config_error(value.source(), "min_words must be a whole number from 0 to 1000000");
      out.min_words = static_cast<std::size_t>(*n);
    } else {
      return config_error(value.source(), fmt::format("'{}' has an unknown key '{}'", where, f));
    }
  }
  return out;
}

void format_insignificant(std::ostringstream& out, const InsignificantConfig& r) {
  if (r.whitespace) out << "whitespace = " << (*r.whitespace ? "true" : "false") << "\n";
  if (r.punctuation) out << "punctuation = " << (*r.punctuation ? "true" : "false") << "\n";
  if (r.fields) {
    out << "fields = [";
    for (std::size_t i = 0; i < r.fields->size(); ++i)
      out << (i ? ", " : "") << quote((*r.fields)[i]);
    out << "]\n";
  }
  if (r.min_words) out << "min_words = " << *r.min_words << "\n";
}

}  // namespace

NotifySettings notify_settings(const Config& config, const SourceConfig& source) {
  NotifySettings out;
  for (const NotifyConfig* n : {&config.notify, &source.notify}) {
    if (n->exec) out.exec = *n->exec;
    if (n->webhook) out.webhook = *n->webhook;
    if (n->timeout) out.timeout = *n->timeout;
    if (n->cosmetic) out.cosmetic = *n->cosmetic;
    if (n->minor) out.minor = *n->minor;
    if (n->kinds) out.kinds = *n->kinds;
    if (n->fields) out.fields = *n->fields;
    if (n->match) out.match = *n->match;
    if (n->after) out.after = *n->after;
  }
  return out;
}

InsignificantRules insignificant_rules(const Config& config, const SourceConfig& source) {
  InsignificantRules out;
  for (const InsignificantConfig* r : {&config.insignificant, &source.insignificant}) {
    if (r->whitespace) out.whitespace = *r->whitespace;
    if (r->punctuation) out.punctuation = *r->punctuation;
    if (r->fields) out.fields = *r->fields;
    if (r->min_words) out.min_words = *r->min_words;
  }
  return out;
}

const SourceConfig* Config::find(std::string_view name) const {
  for (const auto& s : sources)
    if (s.name == name) return &s;
  return nullptr;
}

SourceConfig* Config::find(std::string_view name) {
  for (auto& s : sources)
    if (s.name == name) return &s;
  return nullptr;
}

Result<Config> parse_config(std::string_view text) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view{"feeddiff.toml"});
  } catch (const toml::parse_error& e) {
    return Error{Errc::bad_config,
                 fmt::format("feeddiff.toml line {}, column {}: {}", e.source().begin.line,
                             e.source().begin.column, e.description())};
  }
  Config config;
  for (const auto& [k, v] : root) {
    if (k.str() == "notify") {
      auto notify = parse_notify(v, "notify");
      if (!notify) return notify.error();
      config.notify = std::move(*notify);
    } else if (k.str() == "insignificant") {
      auto rules = parse_insignificant(v, "insignificant");
      if (!rules) return rules.error();
      config.insignificant = std::move(*rules);
    } else if (k.str() == "layout") {
      auto s = v.value<std::string>();
      auto layout = s ? parse_layout(*s) : std::nullopt;
      if (!layout) return config_error(v.source(), "layout must be \"flat\" or \"fanout\"");
      config.layout = *layout;
    } else if (k.str() != "sources") {
      return config_error(v.source(), fmt::format("unknown key '{}'", k.str()));
    }
  }
  const toml::table* sources = root["sources"].as_table();
  if (!sources) {
    if (root.contains("sources"))
      return config_error(root["sources"].node()->source(), "'sources' must be a table");
    return config;
  }
  for (const auto& [name_key, node] : *sources) {
    SourceConfig source;
    source.name = std::string(name_key.str());
    if (auto ok = check_source_name(source.name); !ok)
      return config_error(node.source(), ok.error().message);
    const toml::table* t = node.as_table();
    if (!t)
      return config_error(node.source(), fmt::format("source '{}' must be a table", source.name));
    for (const auto& [field, value] : *t) {
      const std::string_view f = field.str();
      if (f == "url") {
        auto s = value.value<std::string>();
        if (!s) return config_error(value.source(), "url must be a string");
        source.url = *s;
      } else if (f == "every") {
        if (auto s = value.value<std::string>()) {
          auto d = parse_duration(*s);
          if (!d) return config_error(value.source(), d.error().message);
          source.every = *d;
        } else if (auto n = value.value<std::int64_t>()) {
          // Seconds, bounded before they become ms (a product past int64 is undefined).
          if (*n < 60) return config_error(value.source(), "every must be at least 1m (be polite)");
          if (*n > 100LL * 365 * 86400)
            return config_error(value.source(), "every is too long (100 years at most)");
          source.every = *n * 1000;
        } else {
          return config_error(value.source(), "every must be a duration such as \"1h\"");
        }
        if (source.every < 60'000)
          return config_error(value.source(), "every must be at least 1m (be polite)");
      } else if (f == "ignore") {
        const toml::array* a = value.as_array();
        if (!a) return config_error(value.source(), "ignore must be an array of strings");
        for (const auto& item : *a) {
          auto s = item.value<std::string>();
          if (!s) return config_error(item.source(), "ignore must be an array of strings");
          source.ignore.push_back(*s);
        }
      } else if (f == "skip_cosmetic") {
        auto b = value.value<bool>();
        if (!b) return config_error(value.source(), "skip_cosmetic must be true or false");
        source.skip_cosmetic = *b;
      } else if (f == "allow_private_redirects") {
        auto b = value.value<bool>();
        if (!b)
          return config_error(value.source(), "allow_private_redirects must be true or false");
        source.allow_private_redirects = *b;
      } else if (f == "articles") {
        auto b = value.value<bool>();
        if (!b) return config_error(value.source(), "articles must be true or false");
        source.articles = *b;
      } else if (f == "article_cap") {
        auto n = value.value<std::int64_t>();
        if (!n || *n < 1 || *n > 10'000)
          return config_error(value.source(), "article_cap must be a whole number from 1 to 10000");
        source.article_cap = static_cast<std::size_t>(*n);
      } else if (f == "article_until") {
        auto s = value.value<std::string>();
        if (!s)
          return config_error(value.source(), "article_until must be a duration such as \"14d\"");
        auto d = parse_duration(*s);
        if (!d) return config_error(value.source(), d.error().message);
        source.article_until = *d;
      } else if (f == "shard") {
        auto n = value.value<std::int64_t>();
        if (!n || *n < 0 || *n >= kMaxShards)
          return config_error(
              value.source(),
              fmt::format("shard must be a whole number from 0 to {}", kMaxShards - 1));
        source.shard = static_cast<unsigned>(*n);
      } else if (f == "notify") {
        auto notify = parse_notify(value, "sources." + key(source.name) + ".notify");
        if (!notify) return notify.error();
        source.notify = std::move(*notify);
      } else if (f == "insignificant") {
        auto rules = parse_insignificant(value, "sources." + key(source.name) + ".insignificant");
        if (!rules) return rules.error();
        source.insignificant = std::move(*rules);
      } else {
        return config_error(value.source(),
                            fmt::format("source '{}' has an unknown key '{}'", source.name, f));
      }
    }
    if (source.url.empty())
      return config_error(node.source(), fmt::format("source '{}' has no url", source.name));
    config.sources.push_back(std::move(source));
  }
  std::sort(config.sources.begin(), config.sources.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return config;
}

std::string format_config(const Config& config) {
  std::ostringstream out;
  out << "# feeddiff sources. Change them with `feeddiff add` and `feeddiff remove`, or edit "
         "and commit.\n";
  // Top-level keys come before any table; flat, the default, is left unsaid.
  if (config.layout != Layout::flat)
    out << "layout = " << quote(layout_name(config.layout)) << "\n";
  std::vector<const SourceConfig*> sorted;
  for (const auto& s : config.sources) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  if (!config.notify.empty()) {
    out << "\n[notify]\n";
    format_notify(out, config.notify);
  }
  if (!config.insignificant.empty()) {
    out << "\n[insignificant]\n";
    format_insignificant(out, config.insignificant);
  }
  for (const SourceConfig* s : sorted) {
    out << "\n[sources." << key(s->name) << "]\n";
    out << "url = " << quote(s->url) << "\n";
    out << "every = " << quote(format_duration(s->every)) << "\n";
    if (!s->ignore.empty()) {
      out << "ignore = [";
      for (std::size_t i = 0; i < s->ignore.size(); ++i)
        out << (i ? ", " : "") << quote(s->ignore[i]);
      out << "]\n";
    }
    if (s->skip_cosmetic) out << "skip_cosmetic = true\n";
    if (s->shard) out << "shard = " << *s->shard << "\n";
    if (s->allow_private_redirects) out << "allow_private_redirects = true\n";
    if (s->articles) out << "articles = true\n";
    if (s->article_cap != kDefaultArticleCap) out << "article_cap = " << s->article_cap << "\n";
    if (s->article_until != kDefaultArticleUntil)
      out << "article_until = " << quote(format_duration(s->article_until)) << "\n";
    if (!s->notify.empty()) {
      out << "\n[sources." << key(s->name) << ".notify]\n";
      format_notify(out, s->notify);
    }
    if (!s->insignificant.empty()) {
      out << "\n[sources." << key(s->name) << ".insignificant]\n";
      format_insignificant(out, s->insignificant);
    }
  }
  return out.str();
}

// toml++ parses but does not write back what it read (a serialized table loses comments and
// layout), so the one value is spliced into the text at the place toml++ says it is, and the
// result is parsed again to check that only that url changed.
Result<std::string> set_source_url(std::string_view text, std::string_view name,
                                   std::string_view url) {
  auto before = parse_config(text);
  if (!before) return before.error();
  SourceConfig* source = before->find(name);
  if (!source)
    return Error{Errc::bad_config, fmt::format("feeddiff.toml has no source '{}'", name)};
  toml::table root;
  try {
    root = toml::parse(text, std::string_view{"feeddiff.toml"});
  } catch (const toml::parse_error& e) {
    return Error{Errc::bad_config, fmt::format("feeddiff.toml: {}", e.description())};
  }
  const toml::node* value = root["sources"][name]["url"].node();
  const Error unplaced{Errc::bad_config,
                       fmt::format("cannot find the url of source '{}' in feeddiff.toml", name)};
  if (!value) return unplaced;
  auto begin = byte_offset(text, value->source().begin);
  auto end = byte_offset(text, value->source().end);
  if (!begin || !end || *end <= *begin || *end > text.size()) return unplaced;
  // A string token starts and ends with its quote.
  const char quote_char = text[*begin];
  if ((quote_char != '"' && quote_char != '\'') || text[*end - 1] != quote_char) return unplaced;

  std::string out(text.substr(0, *begin));
  out += quote(url);
  out += text.substr(*end);
  source->url = std::string(url);
  auto after = parse_config(out);
  if (!after || format_config(*after) != format_config(*before)) return unplaced;
  return out;
}

// As set_source_url: the value spliced in where toml++ found it, or a new line after the
// file's leading comments (top-level keys must come before the first table), then checked.
Result<std::string> set_layout(std::string_view text, Layout layout) {
  auto before = parse_config(text);
  if (!before) return before.error();
  toml::table root;
  try {
    root = toml::parse(text, std::string_view{"feeddiff.toml"});
  } catch (const toml::parse_error& e) {
    return Error{Errc::bad_config, fmt::format("feeddiff.toml: {}", e.description())};
  }
  const std::string value = quote(layout_name(layout));
  std::string out;
  const Error unplaced{Errc::bad_config, "cannot find where to set the layout in feeddiff.toml"};
  if (const toml::node* node = root["layout"].node()) {
    auto begin = byte_offset(text, node->source().begin);
    auto end = byte_offset(text, node->source().end);
    if (!begin || !end || *end <= *begin || *end > text.size()) return unplaced;
    out = std::string(text.substr(0, *begin)) + value + std::string(text.substr(*end));
  } else {
    std::size_t at = 0;
    while (at < text.size() && text[at] == '#') {
      const std::size_t nl = text.find('\n', at);
      if (nl == std::string_view::npos) {
        at = text.size();
        break;
      }
      at = nl + 1;
    }
    std::string line = "layout = " + value + "\n";
    if (at == text.size() && !text.empty() && text.back() != '\n') line = "\n" + line;
    out = std::string(text.substr(0, at)) + line + std::string(text.substr(at));
  }
  before->layout = layout;
  auto after = parse_config(out);
  if (!after || format_config(*after) != format_config(*before)) return unplaced;
  return out;
}

SplitUrl split_credentials(std::string_view url) {
  const UrlParts parts = split_url(url);
  return {redact_url(url), std::string(parts.userinfo.value_or(std::string_view()))};
}

std::string join_credentials(std::string_view url, std::string_view credentials) {
  if (credentials.empty()) return std::string(url);
  const UrlParts parts = split_url(url);
  if (!parts.has_authority) return std::string(url);
  const auto authority = static_cast<std::size_t>(parts.host.data() - url.data()) -
                         (parts.userinfo ? parts.userinfo->size() + 1 : 0);
  return std::string(url.substr(0, authority)) + std::string(credentials) + "@" +
         std::string(url.substr(authority));
}

}  // namespace feeddiff

namespace feeddiff {

namespace {

// A source table as format_config writes it: two are the same table when these are equal.
std::string table_text(const SourceConfig* source) {
  if (!source) return {};
  Config one;
  one.sources.push_back(*source);
  return format_config(one);
}

}  // namespace

Result<std::string> merge_config(std::string_view base, std::string_view upstream,
                                 std::string_view local) {
  auto b = parse_config(base);
  if (!b) return b.error();
  auto u = parse_config(upstream);
  if (!u) return u.error();
  auto l = parse_config(local);
  if (!l) return l.error();
  const auto collided = [](const std::string& what) {
    return Error{Errc::conflict,
                 fmt::format("feeddiff.toml: {} was edited both here and on the remote since "
                             "they last met; make that edit on one machine only",
                             what)};
  };
  Config out = *u;
  std::set<std::string> names;
  for (const auto& s : b->sources) names.insert(s.name);
  for (const auto& s : l->sources) names.insert(s.name);
  for (const std::string& name : names) {
    const std::string bt = table_text(b->find(name)), lt = table_text(l->find(name));
    if (bt == lt) continue;
    const std::string ut = table_text(u->find(name));
    if (ut == lt) continue;
    if (ut != bt) return collided(fmt::format("source '{}'", name));
    std::erase_if(out.sources, [&](const SourceConfig& s) { return s.name == name; });
    if (const SourceConfig* mine = l->find(name)) out.sources.push_back(*mine);
  }
  if (!(l->notify == b->notify) && !(u->notify == l->notify)) {
    if (!(u->notify == b->notify)) return collided("[notify]");
    out.notify = l->notify;
  }
  if (!(l->insignificant == b->insignificant) && !(u->insignificant == l->insignificant)) {
    if (!(u->insignificant == b->insignificant)) return collided("[insignificant]");
    out.insignificant = l->insignificant;
  }
  if (l->layout != b->layout && u->layout != l->layout) {
    if (u->layout != b->layout) return collided("layout");
    out.layout = l->layout;
  }
  std::sort(out.sources.begin(), out.sources.end(),
            [](const SourceConfig& x, const SourceConfig& y) { return x.name < y.name; });
  return format_config(out);
}

}  // namespace feeddiff
