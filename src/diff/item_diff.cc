// Item-level diff of two feed models.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/diff.h"

namespace feeddiff {
namespace {

bool ignored(const std::vector<std::string>& ignore, const std::string& name) {
  return std::find(ignore.begin(), ignore.end(), name) != ignore.end();
}

bool same_enclosures(const std::vector<Enclosure>& a, const std::vector<Enclosure>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].url != b[i].url || a[i].type != b[i].type || a[i].length != b[i].length) return false;
  return true;
}

// Names of fields whose value lists differ; a name's values are compared in order.
// `is_volatile` is set for names that were volatile in either list.
std::vector<std::string> differing_fields(const std::vector<Field>& a, const std::vector<Field>& b,
                                          std::vector<bool>* is_volatile = nullptr) {
  struct Values {
    std::vector<const std::string*> old_values, new_values;
    bool volatile_ = false;
  };
  std::vector<std::string> order;
  std::unordered_map<std::string, Values, TextHash> by_name;
  for (const Field& f : b) {
    auto [it, fresh] = by_name.try_emplace(f.name);
    if (fresh) order.push_back(f.name);
    it->second.new_values.push_back(&f.value);
    it->second.volatile_ = it->second.volatile_ || f.volatile_;
  }
  for (const Field& f : a) {
    auto [it, fresh] = by_name.try_emplace(f.name);
    if (fresh) order.push_back(f.name);
    it->second.old_values.push_back(&f.value);
    it->second.volatile_ = it->second.volatile_ || f.volatile_;
  }
  std::vector<std::string> out;
  for (const std::string& name : order) {
    const Values& v = by_name[name];
    const bool same = std::equal(
        v.old_values.begin(), v.old_values.end(), v.new_values.begin(), v.new_values.end(),
        [](const std::string* x, const std::string* y) { return *x == *y; });
    if (same) continue;
    out.push_back(name);
    if (is_volatile) is_volatile->push_back(v.volatile_);
  }
  return out;
}

std::vector<std::string> differing_item_fields(const Item& a, const Item& b) {
  std::vector<std::string> out;
  if (a.title != b.title) out.emplace_back("title");
  if (a.link != b.link) out.emplace_back("link");
  if (a.published != b.published) out.emplace_back("published");
  if (a.updated != b.updated) out.emplace_back("updated");
  if (a.authors != b.authors) out.emplace_back("authors");
  if (a.categories != b.categories) out.emplace_back("categories");
  if (a.summary != b.summary) out.emplace_back("summary");
  if (a.content != b.content) out.emplace_back("content");
  if (!same_enclosures(a.enclosures, b.enclosures)) out.emplace_back("enclosures");
  for (std::string& name : differing_fields(a.extra, b.extra)) out.push_back(std::move(name));
  return out;
}

std::string joined(const std::vector<std::string>& values, std::string_view separator) {
  std::string out;
  for (const std::string& v : values) {
    if (!out.empty()) out += separator;
    out += v;
  }
  return out;
}

std::string enclosure_list(const std::vector<Enclosure>& enclosures) {
  std::vector<std::string> each;
  for (const Enclosure& e : enclosures) {
    std::string one = e.url;
    std::string details = e.length.empty() ? std::string() : e.length + " bytes";
    if (!e.type.empty()) details += (details.empty() ? "" : ", ") + e.type;
    if (!details.empty()) one += " (" + details + ")";
    each.push_back(std::move(one));
  }
  return joined(each, "; ");
}

// The values of an extra field, joined.
std::string extra_value(const std::vector<Field>& fields, const std::string& name) {
  std::vector<std::string> values;
  for (const Field& f : fields)
    if (f.name == name) values.push_back(f.value);
  return joined(values, ", ");
}

// Cuts a value to kMaxFieldValueChars characters, never inside a UTF-8 sequence, marking
// the cut with "…".
bool cut_value(std::string& value) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if ((static_cast<unsigned char>(value[i]) & 0xC0) == 0x80) continue;
    if (chars++ == kMaxFieldValueChars) {
      value.resize(i);
      value += "…";
      return true;
    }
  }
  return false;
}

FieldChange field_change(const Item& a, const Item& b, const std::string& field) {
  FieldChange c;
  c.field = field;
  if (field == "summary" || field == "content") {
    c.text = true;
    const std::string& old_html = field == "summary" ? a.summary : a.content;
    const std::string& new_html = field == "summary" ? b.summary : b.content;
    std::size_t not_compared = 0;
    c.words =
        excerpt_words(diff_words(readable_text(old_html), readable_text(new_html), &not_compared));
    c.words.not_compared_chars = not_compared;
    return c;
  }
  if (field == "title") {
    c.old_value = a.title, c.new_value = b.title;
  } else if (field == "link") {
    c.old_value = a.link, c.new_value = b.link;
  } else if (field == "published") {
    c.old_value = a.published, c.new_value = b.published;
  } else if (field == "updated") {
    c.old_value = a.updated, c.new_value = b.updated;
  } else if (field == "authors") {
    c.old_value = joined(a.authors, ", "), c.new_value = joined(b.authors, ", ");
  } else if (field == "categories") {
    c.old_value = joined(a.categories, ", "), c.new_value = joined(b.categories, ", ");
  } else if (field == "enclosures") {
    c.old_value = enclosure_list(a.enclosures), c.new_value = enclosure_list(b.enclosures);
  } else {
    c.old_value = extra_value(a.extra, field), c.new_value = extra_value(b.extra, field);
  }
  const bool old_cut = cut_value(c.old_value);
  const bool new_cut = cut_value(c.new_value);
  c.cut = old_cut || new_cut;
  return c;
}

// The value of a field of an item as the insignificance rules compare it: the text fields
// as a reader sees them, the others as field_change shows them (uncut).
std::string comparable_value(const Item& item, const std::string& field) {
  if (field == "summary") return readable_text(item.summary);
  if (field == "content") return readable_text(item.content);
  if (field == "title") return item.title;
  if (field == "link") return item.link;
  if (field == "published") return item.published;
  if (field == "updated") return item.updated;
  if (field == "authors") return joined(item.authors, ", ");
  if (field == "categories") return joined(item.categories, ", ");
  if (field == "enclosures") return enclosure_list(item.enclosures);
  return extra_value(item.extra, field);
}

bool ascii_space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// The text with whitespace runs collapsed to one space and trimmed; with no_punctuation,
// ASCII punctuation and whitespace dropped altogether (non-ASCII characters are kept as
// they are, so a change in them is never mistaken for punctuation).
std::string squeezed(std::string_view text, bool no_punctuation) {
  std::string out;
  bool space = false;
  for (unsigned char c : text) {
    if (ascii_space(c)) {
      space = !no_punctuation;
      continue;
    }
    if (no_punctuation && c < 0x80 && std::ispunct(c)) continue;
    if (space && !out.empty()) out += ' ';
    space = false;
    out += static_cast<char>(c);
  }
  return out;
}

// Whether a changed field's change is excused by a rule other than min_words.
bool insignificant_field(const Insignificant& rules, const std::string& field,
                         const std::string& old_value, const std::string& new_value) {
  if (ignored(rules.fields, field)) return true;
  if (rules.whitespace && squeezed(old_value, false) == squeezed(new_value, false)) return true;
  if (rules.punctuation && squeezed(old_value, true) == squeezed(new_value, true)) return true;
  return false;
}

// Words (diff_words's letter-and-digit runs) added or removed between two values.
std::size_t changed_words(const std::string& old_value, const std::string& new_value) {
  std::size_t n = 0;
  for (const WordRun& run : diff_words(old_value, new_value)) {
    if (run.kind == WordRun::Kind::kept) continue;
    bool in_word = false;
    for (unsigned char c : run.text) {
      const bool word = c >= 0x80 || std::isalnum(c);
      if (word && !in_word) ++n;
      in_word = word;
    }
  }
  return n;
}

// Whether every changed field of an item is excused: by the field rules one by one, then by
// min_words for what is left, counted together.
bool minor_item(const Insignificant& rules, const Item& a, const Item& b,
                const std::vector<std::string>& fields) {
  std::size_t words = 0;
  bool left = false;
  for (const std::string& f : fields) {
    if (ignored(rules.fields, f)) continue;
    const std::string old_value = comparable_value(a, f), new_value = comparable_value(b, f);
    if (insignificant_field(rules, f, old_value, new_value)) continue;
    if (rules.min_words == 0) return false;
    left = true;
    words += changed_words(old_value, new_value);
    if (words >= rules.min_words) return false;
  }
  return !left || words < rules.min_words;
}

// Positions (into `seq`) of one longest strictly increasing subsequence.
std::vector<bool> longest_increasing(const std::vector<std::size_t>& seq) {
  std::vector<std::size_t> tails;  // index into seq of the smallest tail of each length
  std::vector<std::size_t> prev(seq.size(), static_cast<std::size_t>(-1));
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                     [&](std::size_t t, std::size_t v) { return seq[t] < v; });
    if (it != tails.begin()) prev[i] = *(it - 1);
    if (it == tails.end())
      tails.push_back(i);
    else
      *it = i;
  }
  std::vector<bool> in(seq.size(), false);
  for (std::size_t i = tails.empty() ? static_cast<std::size_t>(-1) : tails.back();
       i != static_cast<std::size_t>(-1); i = prev[i])
    in[i] = true;
  return in;
}

// Seconds since 1970 of a civil date (proleptic Gregorian), Howard Hinnant's days_from_civil.
std::int64_t epoch_seconds(int y, unsigned m, unsigned d, unsigned hh, unsigned mm, unsigned ss) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (era * 146097 + static_cast<std::int64_t>(doe) - 719468) * 86400 + hh * 3600 + mm * 60 +
         ss;
}

// Digits at text[at..at+n) as a number; advances at. nullopt when they are not n digits.
std::optional<unsigned> digits(std::string_view text, std::size_t& at, std::size_t n) {
  if (at + n > text.size()) return std::nullopt;
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = text[at + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  at += n;
  return v;
}

// The zone offset in seconds east of UTC of an RFC 822/3339 zone (`Z`, `GMT`, `+0200`,
// `-07:00`, `EST`, ...); 0 for one not known (the order of a feed's own items is what counts,
// and a feed writes its dates one way).
std::int64_t zone_offset(std::string_view zone) {
  while (!zone.empty() && zone.front() == ' ') zone.remove_prefix(1);
  if (zone.empty()) return 0;
  if (zone[0] == '+' || zone[0] == '-') {
    std::string d;
    for (char c : zone.substr(1))
      if (c >= '0' && c <= '9') d += c;
    if (d.size() < 4) return 0;
    const std::int64_t s =
        ((d[0] - '0') * 10 + (d[1] - '0')) * 3600 + ((d[2] - '0') * 10 + (d[3] - '0')) * 60;
    return zone[0] == '-' ? -s : s;
  }
  static constexpr std::pair<std::string_view, int> kZones[] = {
      {"EST", -5}, {"EDT", -4}, {"CST", -6}, {"CDT", -5},
      {"MST", -7}, {"MDT", -6}, {"PST", -8}, {"PDT", -7}};
  for (const auto& [name, hours] : kZones)
    if (zone.starts_with(name)) return hours * 3600;
  return 0;
}

// A feed date as seconds since 1970: RFC 3339 (Atom, JSON Feed, dc:date: `2026-12-05T10:00:00Z`,
// a date alone too) or RFC 822 (RSS pubDate: `Sat, 05 Dec 2026 10:00:00 +0000`, the weekday
// optional, two-digit years); nullopt for anything else.
std::optional<std::int64_t> feed_time(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  std::size_t at = 0;
  if (auto y = digits(text, at, 4); y && at < text.size() && text[at] == '-') {
    ++at;
    auto m = digits(text, at, 2);
    if (!m || at >= text.size() || text[at] != '-') return std::nullopt;
    ++at;
    auto d = digits(text, at, 2);
    if (!d || *m < 1 || *m > 12 || *d < 1 || *d > 31) return std::nullopt;
    unsigned hh = 0, mm = 0, ss = 0;
    if (at < text.size() && (text[at] == 'T' || text[at] == 't' || text[at] == ' ')) {
      ++at;
      auto h = digits(text, at, 2);
      if (!h || at >= text.size() || text[at] != ':') return std::nullopt;
      ++at;
      auto mi = digits(text, at, 2);
      if (!mi) return std::nullopt;
      hh = *h, mm = *mi;
      if (at < text.size() && text[at] == ':') {
        ++at;
        if (auto s = digits(text, at, 2)) ss = *s;
      }
      while (at < text.size() && (text[at] == '.' || (text[at] >= '0' && text[at] <= '9'))) ++at;
    }
    const std::string_view zone = text.substr(at);
    return epoch_seconds(static_cast<int>(*y), *m, *d, hh, mm, ss) -
           (zone == "Z" || zone == "z" ? 0 : zone_offset(zone));
  }
  // RFC 822: [Day, ] D Mon YYYY hh:mm[:ss] zone
  if (auto comma = text.find(','); comma != std::string_view::npos && comma < 12)
    text.remove_prefix(comma + 1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  at = 0;
  std::size_t day_len = 0;
  while (day_len < 2 && at + day_len < text.size() && text[at + day_len] >= '0' &&
         text[at + day_len] <= '9')
    ++day_len;
  auto d = day_len ? digits(text, at, day_len) : std::nullopt;
  if (!d || at + 5 > text.size() || text[at] != ' ') return std::nullopt;
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  unsigned m = 0;
  for (unsigned i = 0; i < 12; ++i)
    if (text.substr(at + 1, 3) == kMonths[i]) m = i + 1;
  if (m == 0) return std::nullopt;
  at += 4;
  while (at < text.size() && text[at] != ' ') ++at;  // "December" as well as "Dec"
  ++at;
  std::size_t year_len = 0;
  while (at + year_len < text.size() && text[at + year_len] >= '0' && text[at + year_len] <= '9')
    ++year_len;
  if (year_len != 2 && year_len != 4) return std::nullopt;
  auto y = digits(text, at, year_len);
  int year = static_cast<int>(*y);
  if (year_len == 2) year += year < 50 ? 2000 : 1900;
  unsigned hh = 0, mm = 0, ss = 0;
  if (at + 1 < text.size() && text[at] == ' ') {
    std::size_t t = at + 1;
    auto h = digits(text, t, 2);
    if (h && t < text.size() && text[t] == ':') {
      ++t;
      if (auto mi = digits(text, t, 2)) {
        hh = *h, mm = *mi, at = t;
        if (at < text.size() && text[at] == ':') {
          ++at;
          if (auto s = digits(text, at, 2)) ss = *s;
        }
      }
    }
  }
  if (*d < 1 || *d > 31) return std::nullopt;
  return epoch_seconds(year, m, *d, hh, mm, ss) - zone_offset(text.substr(at));
}

// Votes on a feed's order from its dated items, each against the dated item before it: a
// newer date after an older one says oldest first, an older after a newer newest first.
void vote_order(const Feed& feed, std::size_t& oldest_first, std::size_t& newest_first) {
  std::optional<std::int64_t> previous;
  for (const Item& item : feed.items) {
    const auto t = feed_time(item.published.empty() ? item.updated : item.published);
    if (!t) continue;
    if (previous && *t > *previous) ++oldest_first;
    if (previous && *t < *previous) ++newest_first;
    previous = t;
  }
}

// Which old items aged out of the window (see diff_items in diff.h): of those gone (not
// matched), each run's oldest end, as far as every item there is gone; none when nothing
// arrived and nothing stayed (a feed emptied is not a window moving on). The feed is read
// from its old end (the last item, or the first when its dated items mostly rise); a dated
// item older than the dated one before it in that reading starts another run: feeds made of
// sections (news, then filings, each newest first) age out at the end of each section.
std::vector<bool> aged_out_items(const Feed& old_feed, const Feed& new_feed,
                                 const std::vector<bool>& old_matched, std::size_t common) {
  const std::size_t n = old_feed.items.size();
  std::vector<bool> aged(n, false);
  if (common == n || (common == 0 && new_feed.items.size() == 0)) return aged;
  std::size_t oldest_first = 0, newest_first = 0;
  vote_order(old_feed, oldest_first, newest_first);
  if (oldest_first == newest_first) vote_order(new_feed, oldest_first, newest_first);
  bool at_old_end = true;  // every item read so far in this run is gone
  std::optional<std::int64_t> last;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = oldest_first > newest_first ? k : n - 1 - k;
    const Item& item = old_feed.items[i];
    if (const auto t = feed_time(item.published.empty() ? item.updated : item.published)) {
      if (last && *t < *last) at_old_end = true;  // the old end of another run
      last = t;
    }
    if (old_matched[i])
      at_old_end = false;
    else
      aged[i] = at_old_end;
  }
  return aged;
}

}  // namespace

std::optional<std::int64_t> parse_feed_date(std::string_view text) {
  return feed_time(text);
}

ItemDiff diff_items(const Feed& old_feed, const Feed& new_feed,
                    const std::vector<std::string>& ignore, bool field_values,
                    const Insignificant& insignificant) {
  ItemDiff d;
  bool cosmetic_changes = false;
  // Substantive changes, and among them those no insignificant rule excuses.
  bool significant = false;

  std::vector<bool> channel_volatile;
  d.channel_fields = differing_fields(old_feed.channel, new_feed.channel, &channel_volatile);
  bool substantive = false;
  for (std::size_t i = 0; i < d.channel_fields.size(); ++i) {
    const std::string& name = d.channel_fields[i];
    if (channel_volatile[i] || ignored(ignore, name)) {
      cosmetic_changes = true;
      continue;
    }
    substantive = true;
    if (!insignificant_field(insignificant, name, extra_value(old_feed.channel, name),
                             extra_value(new_feed.channel, name)))
      significant = true;
  }

  // Match the k-th occurrence of an id in the old feed with its k-th in the new one. The maps
  // key on views of the feeds' own ids (no copy of each id: a 20 MB feed has 60,000 items),
  // hashed with a key the feed cannot know (TextHash), and repeated ids are chained through
  // next_same rather than kept in a vector per id.
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Occurrences {
    std::size_t first, last;
  };
  std::unordered_map<std::string_view, Occurrences, TextHash> old_ids;
  old_ids.reserve(old_feed.items.size());
  std::vector<std::size_t> next_same(old_feed.items.size(), kNone);
  for (std::size_t i = 0; i < old_feed.items.size(); ++i) {
    if (auto [it, fresh] = old_ids.try_emplace(old_feed.items[i].id, Occurrences{i, i}); !fresh) {
      next_same[it->second.last] = i;
      it->second.last = i;
    }
  }
  // Per id of the new feed: its occurrences so far, and the old occurrence the next one
  // matches (one step along next_same each time, so a feed of one id repeated stays linear).
  struct Seen {
    std::size_t count = 0;
    std::size_t next_old = kNone;
  };
  std::unordered_map<std::string_view, Seen, TextHash> seen;
  seen.reserve(new_feed.items.size());
  std::vector<std::size_t> match(new_feed.items.size(), kNone);
  std::vector<bool> old_matched(old_feed.items.size(), false);
  std::vector<std::size_t> new_occurrence(new_feed.items.size(), 0);
  for (std::size_t j = 0; j < new_feed.items.size(); ++j) {
    const std::string_view id = new_feed.items[j].id;
    auto [it, fresh] = seen.try_emplace(id);
    Seen& s = it->second;
    if (fresh)
      if (auto old = old_ids.find(id); old != old_ids.end()) s.next_old = old->second.first;
    new_occurrence[j] = s.count++;
    if (s.next_old != kNone) {
      match[j] = s.next_old;
      old_matched[s.next_old] = true;
      s.next_old = next_same[s.next_old];
    }
  }

  std::vector<std::size_t> common_old;  // old positions of common items, in new order
  for (std::size_t j = 0; j < match.size(); ++j)
    if (match[j] != kNone) common_old.push_back(match[j]);
  const std::vector<bool> in_order = longest_increasing(common_old);

  // At most one change per new item and per old one left unmatched, reserved at once: a
  // vector grown by doubling moves every change again and faults in fresh pages each time
  // (a rewritten 20 MB feed has ~65,000 changes), while reserved pages never written cost
  // nothing.
  reserve_large(d.items, new_feed.items.size() + old_feed.items.size() - common_old.size());
  std::size_t c = 0;
  for (std::size_t j = 0; j < new_feed.items.size(); ++j) {
    const Item& n = new_feed.items[j];
    ItemChange ch;
    ch.id = n.id;
    ch.title = n.title;
    ch.new_index = j;
    if (match[j] == kNone) {
      // A second occurrence of an id is a duplicate, whether or not the old feed held it.
      ch.kind = new_occurrence[j] > 0 ? ItemChange::Kind::duplicate : ItemChange::Kind::added;
      d.items.push_back(std::move(ch));
      substantive = significant = true;
      continue;
    }
    ch.old_index = match[j];
    ch.moved = !in_order[c++];
    for (std::string& f : differing_item_fields(old_feed.items[match[j]], n)) {
      if (ignored(ignore, f))
        d.ignored_changes = cosmetic_changes = true;
      else
        ch.fields.push_back(std::move(f));
    }
    if (!ch.fields.empty()) {
      ch.kind = ItemChange::Kind::changed;
      ch.minor = insignificant.any() &&
                 minor_item(insignificant, old_feed.items[match[j]], n, ch.fields) && !ch.moved;
      if (field_values)
        for (const std::string& f : ch.fields)
          ch.changes.push_back(field_change(old_feed.items[match[j]], n, f));
    } else if (ch.moved)
      ch.kind = ItemChange::Kind::moved;
    else
      continue;
    substantive = true;
    if (!ch.minor) significant = true;
    d.items.push_back(std::move(ch));
  }
  // An old occurrence left unmatched is removed, or, when it was a second occurrence of an
  // id the new feed still holds, a duplicate that went.
  std::vector<bool> repeated(old_feed.items.size(), false);  // not the id's first occurrence
  for (std::size_t i = 0; i < old_feed.items.size(); ++i)
    if (next_same[i] != kNone) repeated[next_same[i]] = true;
  const std::vector<bool> aged = aged_out_items(old_feed, new_feed, old_matched, common_old.size());
  for (std::size_t i = 0; i < old_feed.items.size(); ++i) {
    if (old_matched[i]) continue;
    ItemChange ch;
    ch.kind = repeated[i] && seen.count(old_feed.items[i].id) ? ItemChange::Kind::duplicate
                                                              : ItemChange::Kind::removed;
    ch.id = old_feed.items[i].id;
    ch.title = old_feed.items[i].title;
    ch.old_index = i;
    ch.aged_out = ch.kind == ItemChange::Kind::removed && aged[i];
    d.items.push_back(std::move(ch));
    substantive = significant = true;
  }
  d.cosmetic_only = cosmetic_changes && !substantive;
  d.minor = substantive && !significant;
  return d;
}

const char* item_kind_name(ItemChange::Kind kind) {
  switch (kind) {
    case ItemChange::Kind::added:
      return "added";
    case ItemChange::Kind::removed:
      return "removed";
    case ItemChange::Kind::changed:
      return "changed";
    case ItemChange::Kind::moved:
      return "moved";
    case ItemChange::Kind::reappeared:
      return "reappeared";
    case ItemChange::Kind::duplicate:
      return "duplicate";
  }
  return "changed";
}

const char* item_change_word(const ItemChange& change) {
  if (change.kind == ItemChange::Kind::removed && change.aged_out) return "aged out";
  return item_kind_name(change.kind);
}

const char* item_diff_class(const ItemDiff& diff) {
  if (diff.cosmetic_only || diff.empty()) return "cosmetic";
  using Kind = ItemChange::Kind;
  for (const ItemChange& c : diff.items)
    if (c.kind == Kind::added || c.kind == Kind::removed || c.kind == Kind::reappeared ||
        c.kind == Kind::duplicate || (c.kind == Kind::changed && !c.minor))
      return "items";
  // Only ignored item fields changed: nothing a reader would call a change.
  if (diff.items.empty() && diff.channel_fields.empty()) return "cosmetic";
  return "minor";
}

std::optional<ItemChange::Kind> item_kind_from_name(std::string_view name) {
  for (ItemChange::Kind kind : kItemKinds)
    if (name == item_kind_name(kind)) return kind;
  return std::nullopt;
}

std::optional<TimeMs> feed_date(std::string_view text) {
  const auto seconds = feed_time(text);
  if (!seconds) return std::nullopt;
  return *seconds * 1000;
}

}  // namespace feeddiff
