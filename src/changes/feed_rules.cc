// A source's diff rules as a commit's feeddiff.toml has them, found without parsing the file
// on every read. `show HEAD` needs the rules to name the cached item summary, and parsing a
// feeddiff.toml of 1,000 sources costs about 10 ms: more than the rest of `show` and than
// `git show` itself (bench/scale). Each version of the file is therefore parsed once per
// archive, and the rules it gives are kept in the cache under the file's blob id: equal ids,
// equal bytes, so the cached rules cannot be stale, and a missing or damaged entry is parsed
// again.

#include <charconv>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"

namespace feeddiff {
namespace {

/// Every source the file configures, with its rules (empty when it has none).
using RulesBySource = std::map<std::string, FeedRules, std::less<>>;

// The cached form, one line per fact, tab-separated: `s NAME` opens a source (every source
// the file names has one, so that `show WORD` learns whether WORD is a source from it), then `i
// FIELD` (ignored), `w` (whitespace), `p` (punctuation), `f FIELD` (insignificant field) and `m N`
// (min_words); `end` closes it, so a value cut short is no value.
constexpr std::string_view kHeader = "feeddiff rules 2";

bool plain(std::string_view s) {
  return s.find_first_of("\t\n\r") == std::string_view::npos;
}

/// The cached form, or nullopt when a name or field holds a tab or a line break (such a
/// file is parsed each time: rare, and never wrong).
std::optional<std::string> encode_rules(const RulesBySource& rules) {
  std::string out{kHeader};
  out += '\n';
  auto line = [&out](char tag, std::string_view value) {
    out += tag;
    if (!value.empty()) (out += '\t') += value;
    out += '\n';
  };
  for (const auto& [name, r] : rules) {
    if (!plain(name)) return std::nullopt;
    line('s', name);
    for (const auto& field : r.ignore) {
      if (!plain(field)) return std::nullopt;
      line('i', field);
    }
    if (r.insignificant.whitespace) line('w', "");
    if (r.insignificant.punctuation) line('p', "");
    for (const auto& field : r.insignificant.fields) {
      if (!plain(field)) return std::nullopt;
      line('f', field);
    }
    if (r.insignificant.min_words > 0) line('m', std::to_string(r.insignificant.min_words));
  }
  out += "end\n";
  return out;
}

// One fact line of a source's block into rules (none: only checked); false for a line that
// is no fact.
bool apply_line(std::string_view line, FeedRules* rules) {
  const std::string_view value = line.size() > 2 ? line.substr(2) : std::string_view{};
  const char tag = line.empty() ? '\0' : line[0];
  if (tag == 'i') {
    if (rules) rules->ignore.emplace_back(value);
  } else if (tag == 'w') {
    if (rules) rules->insignificant.whitespace = true;
  } else if (tag == 'p') {
    if (rules) rules->insignificant.punctuation = true;
  } else if (tag == 'f') {
    if (rules) rules->insignificant.fields.emplace_back(value);
  } else if (tag == 'm') {
    std::size_t n = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), n).ec != std::errc{})
      return false;
    if (rules) rules->insignificant.min_words = n;
  } else {
    return false;
  }
  return true;
}

// The cached form's lines between its header and `end`; nullopt when it is not whole.
std::optional<std::string_view> body_of(std::string_view text) {
  if (!text.starts_with(kHeader) || !text.ends_with("\nend\n")) return std::nullopt;
  text.remove_prefix(kHeader.size() + 1);
  text.remove_suffix(4);
  return text;
}

// Every source of the cached form into out; with no out, whether the form is sound (each line
// a fact of a source opened before it), which costs no allocation.
bool decode_rules(std::string_view text, RulesBySource* out) {
  const auto body = body_of(text);
  if (!body) return false;
  text = *body;
  bool opened = false;
  FeedRules* current = nullptr;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return false;
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    if (!line.empty() && line[0] == 's') {
      opened = true;
      if (out)
        current = &(*out)[std::string(line.size() > 2 ? line.substr(2) : std::string_view{})];
      continue;
    }
    if (!opened || !apply_line(line, current)) return false;
  }
  return true;
}

Insignificant to_insignificant(const InsignificantRules& rules) {
  Insignificant out;
  out.whitespace = rules.whitespace;
  out.punctuation = rules.punctuation;
  out.fields = rules.fields;
  out.min_words = rules.min_words;
  return out;
}

RulesBySource rules_of(const Config& config) {
  RulesBySource out;
  for (const SourceConfig& s : config.sources) {
    out.emplace(s.name, FeedRules{s.ignore, to_insignificant(insignificant_rules(config, s))});
  }
  return out;
}

/// The sources of one version of feeddiff.toml with their rules. From a cached form (checked
/// sound), a source's rules are decoded alone: `show` asks about one source of a thousand,
/// and building the whole map cost as much as a tenth of `show HEAD`. Past a few questions
/// (`site`, `log`), the whole map. Guarded: a caller may use threads.
class Rules {
 public:
  explicit Rules(RulesBySource all) : all_(std::move(all)) {}
  explicit Rules(std::string sound_text) : text_(std::move(sound_text)) {}

  /// The source's rules; nullopt when the file does not name it.
  std::optional<FeedRules> find(std::string_view source) const {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!all_ && ++asked_ > kAskedBeforeWhole) {
      RulesBySource all;
      decode_rules(text_, &all);  // sound: checked when read
      all_ = std::move(all);
      text_.clear();
    }
    if (all_) {
      const auto it = all_->find(source);
      if (it == all_->end()) return std::nullopt;
      return it->second;
    }
    return find_in_text(source);
  }

 private:
  static constexpr unsigned kAskedBeforeWhole = 4;

  std::optional<FeedRules> find_in_text(std::string_view source) const {
    const std::string opening = "\ns\t" + std::string(source) + "\n";
    const std::size_t at = text_.find(opening);
    if (at == std::string::npos) return std::nullopt;
    // A name opened twice (a cache written by hand) merges both blocks, as the whole map does.
    FeedRules out;
    for (std::size_t from = at; from != std::string::npos; from = text_.find(opening, from + 1)) {
      std::string_view rest = std::string_view(text_).substr(from + opening.size());
      for (;;) {
        const std::size_t eol = rest.find('\n');
        const std::string_view line = rest.substr(0, eol);
        if (line.empty() || line[0] == 's' || line == "end") break;
        apply_line(line, &out);  // sound: checked when read
        rest.remove_prefix(eol + 1);
      }
    }
    return out;
  }

  mutable std::mutex mutex_;
  mutable std::string text_;
  mutable std::optional<RulesBySource> all_;
  mutable unsigned asked_ = 0;
};

/// The rules of feeddiff.toml's version `blob`: cached, else parsed (and cached). Empty when
/// the file does not parse: a source without rules, as before it had any.
std::shared_ptr<const Rules> load_rules(const Archive& archive, const std::string& blob) {
  const std::string name = "rules/" + blob;
  if (auto cached = archive.cache_read(name))
    if (decode_rules(*cached, nullptr)) return std::make_shared<const Rules>(std::move(*cached));
  auto toml = archive.read_blob(blob);
  if (!toml) return std::make_shared<const Rules>(RulesBySource{});
  auto parsed = parse_config(*toml);
  RulesBySource rules = parsed ? rules_of(*parsed) : RulesBySource{};
  // A file that does not parse is not cached: the next read says the same, and a fixed
  // parser (a new feeddiff) must not be answered from an old verdict.
  if (parsed)
    if (auto text = encode_rules(rules)) archive.cache_write(name, *text);
  return std::make_shared<const Rules>(std::move(rules));
}

}  // namespace

namespace {

/// The sources of feeddiff.toml as the commit has it, with their rules; nullptr when the
/// commit has no such file.
std::shared_ptr<const Rules> rules_at(const Archive& archive, const std::string& commit_id) {
  // `site` and `log` ask for the rules of every change, and feeddiff.toml changes only when a
  // source is added, removed or edited: the last version's rules stay in memory. Guarded: a
  // caller may use threads.
  static std::mutex memo_mutex;
  static std::string memo_blob;
  static std::shared_ptr<const Rules> memo_rules;
  auto blob = archive.blob_id(commit_id, "feeddiff.toml");
  if (!blob || !*blob) return nullptr;
  {
    const std::lock_guard<std::mutex> lock(memo_mutex);
    if (memo_blob == **blob) return memo_rules;
  }
  auto rules = load_rules(archive, **blob);
  const std::lock_guard<std::mutex> lock(memo_mutex);
  memo_blob = **blob;
  memo_rules = rules;
  return rules;
}

}  // namespace

FeedRules feed_rules(const Archive& archive, const std::string& commit_id,
                     const std::string& source) {
  const auto rules = rules_at(archive, commit_id);
  if (!rules) return {};
  return rules->find(source).value_or(FeedRules{});
}

bool configures_source(const Archive& archive, const std::string& commit_id,
                       const std::string& source) {
  const auto rules = rules_at(archive, commit_id);
  return rules && rules->find(source).has_value();
}

}  // namespace feeddiff
