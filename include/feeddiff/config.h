#pragma once
// config: feeddiff.toml, the committed list of sources, and the credentials kept apart
// from it (so that user:password never reaches a commit).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/result.h"

namespace feeddiff {

/// The default poll interval of a source: one hour.
inline constexpr TimeMs kDefaultInterval = 3'600'000;
/// Article pages a source fetches at most per poll, by default (`article_cap`).
inline constexpr std::size_t kDefaultArticleCap = 20;
/// How long after its first capture an article is fetched again, by default: 14 days.
inline constexpr TimeMs kDefaultArticleUntil = TimeMs{14} * 86'400'000;

/// A hook's default time limit: 30 seconds.
inline constexpr TimeMs kDefaultNotifyTimeout = 30'000;

/// A `[notify]` table (global, or `[sources.NAME.notify]`): what to run when a poll commits
/// a change. Each key is nullopt when the table does not set it; a source's keys override the
/// global ones one by one (notify_settings), and "" turns a global hook off for a source.
struct NotifyConfig {
  std::optional<std::string> exec;     ///< a command for /bin/sh -c, the change's JSON on stdin
  std::optional<std::string> webhook;  ///< an http(s) URL the change's JSON is POSTed to
  std::optional<TimeMs> timeout;       ///< time limit of one hook run
  std::optional<bool> cosmetic;        ///< also run on a cosmetic-only change
  std::optional<bool> minor;           ///< also run on a minor change (see InsignificantConfig)
  /// `kinds = [...]`: only item changes of these kinds notify (kNotifyKinds).
  std::optional<std::vector<std::string>> kinds;
  /// `fields = [...]`: a changed item notifies only when one of these fields changed.
  std::optional<std::vector<std::string>> fields;
  /// `match = [...]`: only items whose title or text holds one of these (NotifySettings).
  std::optional<std::vector<std::string>> match;
  /// `after = N`: notify only once the change is still there N polls in a row.
  std::optional<unsigned> after;
  /// Whether the table sets no key at all.
  bool empty() const {
    return !exec && !webhook && !timeout && !cosmetic && !minor && !kinds && !fields && !match &&
           !after;
  }
  /// Equal when every key is.
  bool operator==(const NotifyConfig&) const = default;
};

/// The hooks that apply to one source, its keys over the global ones, defaults filled in.
struct NotifySettings {
  std::string exec;                        ///< "" for none
  std::string webhook;                     ///< "" for none
  TimeMs timeout = kDefaultNotifyTimeout;  ///< time limit of one hook run
  bool cosmetic = false;                   ///< also run on a cosmetic-only change
  bool minor = false;                      ///< also run on a minor change
  /// Item change kinds that notify (kNotifyKinds words); empty: every kind.
  std::vector<std::string> kinds;
  /// Fields a changed item must have changed to notify; empty: any field.
  std::vector<std::string> fields;
  /// An item notifies only when its title or its text (summary and content, markup
  /// stripped) holds one of these, ASCII letters compared without case; empty: any item.
  /// Plain substrings, found in time linear in the text: no pattern a feed can make slow.
  std::vector<std::string> match;
  /// Polls in a row (the one that recorded the change included) that must still show a
  /// change before it notifies; 1: at once.
  unsigned after = 1;
  /// Whether there is a hook to run.
  bool any() const { return !exec.empty() || !webhook.empty(); }
  /// Whether kinds, fields or match narrow which item changes notify.
  bool selects_items() const { return !kinds.empty() || !fields.empty() || !match.empty(); }
};

/// The words `kinds` accepts: item change kinds as the JSON page names them, with removals
/// split as they are shown: "removed" (pulled while older items stay) and "aged_out".
inline constexpr const char* kNotifyKinds[] = {"added", "removed",    "aged_out", "changed",
                                               "moved", "reappeared", "duplicate"};

/// The most polls `after` may wait: a change held longer is not news any more.
inline constexpr unsigned kMaxNotifyAfter = 100;

/// An `[insignificant]` table (global, or `[sources.NAME.insignificant]`): which changes
/// are minor. A minor change is committed and shown, marked minor, but runs no hook. Each
/// key is nullopt when the table does not set it; a source's keys override the global ones.
struct InsignificantConfig {
  std::optional<bool> whitespace;                  ///< changes in whitespace only
  std::optional<bool> punctuation;                 ///< changes in punctuation and whitespace only
  std::optional<std::vector<std::string>> fields;  ///< fields whose changes are minor
  std::optional<std::size_t> min_words;            ///< fewer changed words than this are minor
  /// Whether the table sets no key at all.
  bool empty() const { return !whitespace && !punctuation && !fields && !min_words; }
  /// Equal when every key is.
  bool operator==(const InsignificantConfig&) const = default;
};

/// The rules of one source, its keys over the global ones, unset ones off.
struct InsignificantRules {
  bool whitespace = false;          ///< changes in whitespace only are minor
  bool punctuation = false;         ///< changes in punctuation and whitespace only are minor
  std::vector<std::string> fields;  ///< fields whose changes are minor
  std::size_t min_words = 0;        ///< an item changing fewer words is minor (0: off)
};

/// One source: a named feed URL and how to poll it.
struct SourceConfig {
  std::string name;                 ///< safe path component, see check_source_name
  std::string url;                  ///< http(s) URL without credentials
  TimeMs every = kDefaultInterval;  ///< poll interval
  std::vector<std::string> ignore;  ///< extra volatile paths for the item diff
  bool skip_cosmetic = false;       ///< make no commit when only volatile parts changed
  NotifyConfig notify = {};         ///< `[sources.NAME.notify]`: overrides of `[notify]`
  /// `[sources.NAME.insignificant]`: overrides of `[insignificant]`.
  InsignificantConfig insignificant = {};
  /// `shard = K`: polled by `poll --shard K/N` whatever N is, instead of the shard its
  /// URL's host hashes to (shard_of in poll.h).
  std::optional<unsigned> shard = {};
  /// `allow_private_redirects = true`: follow redirects into loopback, private and link-local
  /// addresses (FetchRequest::allow_private_redirects), refused by default.
  bool allow_private_redirects = false;
  /// `articles = true`: after the feed's commit, poll captures the page each item links to
  /// (docs/articles.md).
  bool articles = false;
  /// `article_cap = N`: pages of this source fetched at most per poll (new ones first).
  std::size_t article_cap = kDefaultArticleCap;
  /// `article_until = "14d"`: an article is fetched again (every 6 h for its first 2 days,
  /// then daily) until it is this old, counted from its first capture; "0s": never again.
  TimeMs article_until = kDefaultArticleUntil;
};

/// The largest `shard = K` and `--shard K/N` accept: N is at most this.
inline constexpr unsigned kMaxShards = 4096;

/// The archive's configuration.
struct Config {
  std::vector<SourceConfig> sources;  ///< sorted by name
  NotifyConfig notify;                ///< the global `[notify]` table
  InsignificantConfig insignificant;  ///< the global `[insignificant]` table
  /// `layout = "fanout"`: where poll writes each source's directory (`migrate` moves them).
  Layout layout = Layout::flat;

  /// The source with this name, or nullptr.
  const SourceConfig* find(std::string_view name) const;
  /// The source with this name, or nullptr.
  SourceConfig* find(std::string_view name);
};

/// The hooks of a source: its `[sources.NAME.notify]` keys over the global `[notify]` ones.
NotifySettings notify_settings(const Config& config, const SourceConfig& source);

/// The insignificance rules of a source: its keys over the global ones.
InsignificantRules insignificant_rules(const Config& config, const SourceConfig& source);

/// Parses feeddiff.toml. Errc::bad_config with the line and reason when it is wrong.
Result<Config> parse_config(std::string_view text);
/// The TOML text of a config; parse_config(format_config(c)) == c.
std::string format_config(const Config& config);

/// feeddiff.toml's text with source `name`'s url set to `url` and every other byte kept
/// (comments, order, layout): the user's file, edited, not regenerated. Errc::bad_config when
/// the text does not parse or has no such source.
Result<std::string> set_source_url(std::string_view text, std::string_view name,
                                   std::string_view url);

/// feeddiff.toml's text with the top-level `layout` key set (added after the leading comments
/// when absent) and every other byte kept. Errc::bad_config when the text does not parse.
Result<std::string> set_layout(std::string_view text, Layout layout);

/// feeddiff.toml's text with a `[sources.NAME]` table for source appended (its url, every,
/// and any other key it sets, as format_config writes them) and every other byte kept:
/// comments, order, layout (`add`). Errc::bad_config when the text does not parse, has a
/// source of that name already, or the result does not parse to the config plus the source.
Result<std::string> add_source_table(std::string_view text, const SourceConfig& source);

/// add_source_table for several sources at once, appended in the given order (`import`): the
/// text is parsed twice however many there are.
Result<std::string> add_source_tables(std::string_view text,
                                      const std::vector<SourceConfig>& sources);

/// feeddiff.toml's text without source name's tables (`[sources.NAME]` and its sub-tables
/// such as `[sources.NAME.notify]`, with the comment lines right above each) and every other
/// byte kept (`remove`). Errc::bad_config when the text does not parse, has no such source,
/// or the source is written in a way this editor does not take apart (inline, or dotted keys
/// outside its tables): then the file is left for a hand edit.
Result<std::string> remove_source_table(std::string_view text, std::string_view name);

/// feeddiff.toml as two writers edited it since base (sync replaying a local edit onto the
/// remote's): upstream's sources and tables, with each source table (and the global [notify]
/// and [insignificant] tables) that local added, changed or removed taken from local.
/// Errc::conflict naming the source (or table) when upstream changed it too, differently;
/// Errc::bad_config when a side does not parse. The text is format_config's.
Result<std::string> merge_config(std::string_view base, std::string_view upstream,
                                 std::string_view local);

/// Splits `https://user:pw@host/x` into the URL without credentials and `user:pw`.
struct SplitUrl {
  std::string url;          ///< without user:password@
  std::string credentials;  ///< `user:password`, or empty
};
/// Splits the userinfo out of a URL.
SplitUrl split_credentials(std::string_view url);
/// Puts credentials back into a URL for fetching (never for storing).
std::string join_credentials(std::string_view url, std::string_view credentials);

}  // namespace feeddiff
