// `add` and `remove` edit feeddiff.toml in place: one `[sources.NAME]` table (with its
// sub-tables) appended or taken out, every other byte of the user's file kept.
//
// Hand-written over the text, not toml++: toml++ parses but writes back only what a table
// holds, so comments, blank lines, key order and quoting would all be lost (format_config
// regenerates the file, which is what `add` did, and users lost the comments they had
// committed). The editor works on lines, and each edit is checked by parsing the result:
// it must be the config before with exactly that source added or removed, or the file is
// left as it is and the user is told to edit it by hand.

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/config.h"

namespace feeddiff {

namespace {

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

bool comment(std::string_view line) {
  const std::string_view t = trim(line);
  return !t.empty() && t.front() == '#';
}

// The key path of a table header line (`[sources.name.notify]  # note`), each key unquoted;
// nullopt for any other line (an array of tables `[[x]]` included).
std::optional<std::vector<std::string>> header_keys(std::string_view line) {
  std::string_view t = trim(line);
  if (t.size() < 2 || t[0] != '[' || t[1] == '[') return std::nullopt;
  std::size_t i = 1;
  std::vector<std::string> keys;
  const auto skip_space = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
  };
  for (;;) {
    skip_space();
    if (i >= t.size()) return std::nullopt;
    std::string key;
    if (t[i] == '"' || t[i] == '\'') {
      const char q = t[i++];
      const std::size_t end = t.find(q, i);
      if (end == std::string_view::npos) return std::nullopt;
      key = std::string(t.substr(i, end - i));
      // An escape in a basic string would need unescaping: such a header is not ours to
      // take apart (the result's check would refuse it anyway).
      if (q == '"' && key.find('\\') != std::string::npos) return std::nullopt;
      i = end + 1;
    } else {
      const std::size_t start = i;
      while (i < t.size() &&
             (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_' || t[i] == '-'))
        ++i;
      if (i == start) return std::nullopt;
      key = std::string(t.substr(start, i - start));
    }
    keys.push_back(std::move(key));
    skip_space();
    if (i < t.size() && t[i] == '.') {
      ++i;
      continue;
    }
    if (i < t.size() && t[i] == ']') {
      ++i;
      break;
    }
    return std::nullopt;
  }
  skip_space();
  if (i < t.size() && t[i] != '#') return std::nullopt;
  return keys;
}

std::vector<std::string_view> split_keep_ends(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// The TOML of one source's tables as format_config writes them: `[sources.NAME]`, its keys,
// then its sub-tables.
std::string source_tables(const SourceConfig& source) {
  Config one;
  one.sources.push_back(source);
  std::string text = format_config(one);
  // format_config starts with its own comment line and a blank line: not part of the table.
  const std::size_t at = text.find("\n[");
  return at == std::string::npos ? text : text.substr(at + 1);
}

Error unplaced(std::string_view what, std::string_view name) {
  return Error{Errc::bad_config,
               fmt::format("cannot {} source '{}' in feeddiff.toml without touching the rest of "
                           "it (it is written in a way this editor does not take apart): edit "
                           "the file by hand and commit it",
                           what, name)};
}

}  // namespace

Result<std::string> add_source_table(std::string_view text, const SourceConfig& source) {
  return add_source_tables(text, {source});
}

Result<std::string> add_source_tables(std::string_view text,
                                      const std::vector<SourceConfig>& sources) {
  auto before = parse_config(text);
  if (!before) return before.error();
  std::string out(text);
  Config expected = std::move(*before);
  for (const SourceConfig& source : sources) {
    if (expected.find(source.name))
      return Error{Errc::bad_config,
                   fmt::format("feeddiff.toml has a source '{}' already", source.name)};
    if (!out.empty() && out.back() != '\n') out += '\n';
    // One blank line between the file's last line and the new table, as format_config
    // spaces its tables; none at the top of an empty file.
    if (!out.empty() && !blank(split_keep_ends(out).back())) out += '\n';
    out += source_tables(source);
    expected.sources.push_back(source);
  }
  std::sort(expected.sources.begin(), expected.sources.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  auto after = parse_config(out);
  if (!after || format_config(*after) != format_config(expected))
    return unplaced("add", sources.empty() ? std::string_view() : sources.front().name);
  return out;
}

Result<std::string> remove_source_table(std::string_view text, std::string_view name) {
  auto before = parse_config(text);
  if (!before) return before.error();
  if (!before->find(name))
    return Error{Errc::bad_config, fmt::format("feeddiff.toml has no source '{}'", name)};

  const std::vector<std::string_view> lines = split_keep_ends(text);
  const std::size_t n = lines.size();
  // Each header line, and whether its table is the source's (`[sources.NAME]` or below it).
  std::vector<std::size_t> headers;
  std::vector<bool> ours;
  for (std::size_t i = 0; i < n; ++i)
    if (auto keys = header_keys(lines[i])) {
      headers.push_back(i);
      ours.push_back(keys->size() >= 2 && (*keys)[0] == "sources" && (*keys)[1] == name);
    }
  // The comment lines right above a header (no blank line between) are that table's.
  const auto block_start = [&](std::size_t header) {
    std::size_t s = header;
    while (s > 0 && comment(lines[s - 1])) --s;
    return s;
  };
  std::vector<bool> drop(n, false);
  for (std::size_t h = 0; h < headers.size(); ++h) {
    if (!ours[h]) continue;
    const std::size_t start = block_start(headers[h]);
    const std::size_t end = h + 1 < headers.size() ? block_start(headers[h + 1]) : n;
    for (std::size_t i = start; i < end; ++i) drop[i] = true;
  }
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    if (!drop[i]) out += lines[i];
  // The blank lines that separated what went from what was before it, when nothing follows
  // (a file that ended in blank lines keeps them).
  if (!lines.empty() && !blank(lines.back()))
    while (!out.empty()) {
      // The last line of out: after the '\n' before its own line end.
      const std::size_t from =
          out.size() >= 2 ? out.rfind('\n', out.size() - 2) : std::string::npos;
      const std::size_t begin = from == std::string::npos ? 0 : from + 1;
      if (!blank(std::string_view(out).substr(begin, out.size() - begin - (out.back() == '\n'))))
        break;
      out.erase(begin);
    }

  Config expected = std::move(*before);
  std::erase_if(expected.sources, [&](const SourceConfig& s) { return s.name == name; });
  auto after = parse_config(out);
  if (!after || format_config(*after) != format_config(expected)) return unplaced("remove", name);
  return out;
}

}  // namespace feeddiff
