// robots.txt (RFC 9309), as poll's article phase honours it: the group for feeddiff's product
// token, else the `*` group; the longest matching rule decides.

#include <vector>

#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

struct Rule {
  bool allow = false;
  std::string pattern;
};

// Whether a rule's pattern (with `*` for any run and a final `$` for the end) matches the
// start of path. Iterative with one backtrack point, as glob matching is: linear-ish, and no
// recursion for a hostile file to exhaust.
bool rule_matches(std::string_view pattern, std::string_view path) {
  bool anchored = false;
  if (pattern.ends_with('$')) {
    anchored = true;
    pattern.remove_suffix(1);
  }
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < path.size() || p < pattern.size()) {
    if (p == pattern.size() && !anchored) return true;
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
      continue;
    }
    if (p < pattern.size() && s < path.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
      continue;
    }
    if (star != std::string_view::npos && mark < path.size()) {
      p = star + 1;
      s = ++mark;
      continue;
    }
    return false;
  }
  return true;
}

std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

bool robots_allows(std::string_view text, std::string_view agent, std::string_view path) {
  if (path.empty()) path = "/";
  const std::string wanted = to_lower(agent);
  std::vector<Rule> mine, anyone;
  bool in_mine = false, in_any = false, reading_agents = false, have_mine = false;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key = to_lower(strip(line.substr(0, colon)));
    const std::string_view value = strip(line.substr(colon + 1));
    if (key == "user-agent") {
      if (!reading_agents) in_mine = in_any = false;  // a new group begins
      reading_agents = true;
      const std::string name = to_lower(value);
      if (name == "*")
        in_any = true;
      else if (!name.empty() && wanted.starts_with(name))
        in_mine = have_mine = true;
      continue;
    }
    if (key != "allow" && key != "disallow") continue;  // sitemap, crawl-delay, ...
    reading_agents = false;
    if (value.empty()) continue;  // `Disallow:` with nothing allows everything
    const Rule rule{key == "allow", std::string(value)};
    if (in_mine) mine.push_back(rule);
    if (in_any) anyone.push_back(rule);
  }
  const std::vector<Rule>& rules = have_mine ? mine : anyone;
  const Rule* best = nullptr;
  for (const Rule& r : rules) {
    if (!rule_matches(r.pattern, path)) continue;
    if (!best || r.pattern.size() > best->pattern.size() ||
        (r.pattern.size() == best->pattern.size() && r.allow))
      best = &r;
  }
  return !best || best->allow;
}

}  // namespace feeddiff
