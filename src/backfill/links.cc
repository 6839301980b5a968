// The links of a feed document that lead to its older entries (RFC 5005 prev-archive, a
// paged feed's next, JSON Feed's next_url), read from normalize's model of its channel, and
// resolved against the page's URL.

#include <vector>

#include "feeddiff/backfill.h"
#include "feeddiff/normalize.h"

namespace feeddiff {

namespace {

// An attribute's value in a field's `name="value" ...` form (normalize's attribute list,
// sorted by name). A URL holds no '"' (RFC 3986), so the value ends at the next quote.
std::optional<std::string> attribute(std::string_view field, std::string_view name) {
  const std::string key = std::string(name) + "=\"";
  for (std::size_t at = field.find(key); at != std::string_view::npos;
       at = field.find(key, at + 1)) {
    if (at != 0 && field[at - 1] != ' ') continue;
    const std::size_t start = at + key.size();
    const std::size_t end = field.find('"', start);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(trim(field.substr(start, end - start)));
  }
  return std::nullopt;
}

// The path of base's directory merged with a relative path (RFC 3986 section 5.2.3).
std::string merge_paths(bool base_has_authority, std::string_view base_path,
                        std::string_view path) {
  if (base_has_authority && base_path.empty()) return "/" + std::string(path);
  const std::size_t slash = base_path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(base_path.substr(0, slash + 1)) + std::string(path);
}

// RFC 3986 section 5.2.4.
std::string remove_dot_segments(std::string_view path) {
  std::vector<std::string_view> out;
  const bool absolute = path.starts_with('/');
  std::size_t at = absolute ? 1 : 0;
  bool trailing = false;
  while (at <= path.size()) {
    std::size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(at, end - at);
    trailing = false;
    if (segment == "..") {
      if (!out.empty()) out.pop_back();
      trailing = true;
    } else if (segment == ".") {
      trailing = true;
    } else {
      out.push_back(segment);
    }
    at = end + 1;
  }
  std::string result = absolute ? "/" : "";
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i) result += '/';
    result += out[i];
  }
  if (trailing && !result.ends_with('/')) result += '/';
  return result;
}

std::string authority_of(const UrlParts& parts) {
  std::string out;
  if (parts.userinfo) out += std::string(*parts.userinfo) + "@";
  out += parts.host;
  if (parts.port) out += ":" + std::string(*parts.port);
  return out;
}

}  // namespace

std::string resolve_url(std::string_view base, std::string_view reference) {
  reference = trim(reference);
  if (const std::size_t hash = reference.find('#'); hash != std::string_view::npos)
    reference = reference.substr(0, hash);
  const UrlParts ref = split_url(reference);
  const UrlParts b = split_url(base);
  const std::string base_scheme(b.scheme);
  std::string out;
  if (!ref.scheme.empty()) return std::string(reference);  // absolute already
  out = base_scheme + ":";
  if (ref.has_authority) {
    out += "//" + authority_of(ref) + remove_dot_segments(ref.path);
    if (ref.query) out += "?" + std::string(*ref.query);
    return out;
  }
  if (b.has_authority) out += "//" + authority_of(b);
  if (ref.path.empty()) {
    out += b.path;
    if (ref.query)
      out += "?" + std::string(*ref.query);
    else if (b.query)
      out += "?" + std::string(*b.query);
    return out;
  }
  const std::string merged = ref.path.starts_with('/')
                                 ? std::string(ref.path)
                                 : merge_paths(b.has_authority, b.path, ref.path);
  out += remove_dot_segments(merged);
  if (ref.query) out += "?" + std::string(*ref.query);
  return out;
}

ArchiveLinks archive_links(std::string_view body, std::string_view base_url) {
  ArchiveLinks out;
  auto doc = normalize(body, NormalizeOptions{{}, true, false});
  if (!doc) return out;
  const bool json = doc->feed.format.starts_with("jsonfeed");
  for (const Field& f : doc->feed.channel) {
    if (json) {
      if (f.name == "next_url" && !f.value.empty() && !out.next_url)
        out.next_url = resolve_url(base_url, f.value);
      continue;
    }
    // Atom's own link, or atom:link in an RSS channel (normalize names the Atom namespace
    // `atom` there).
    if (f.name != "link" && f.name != "atom:link") continue;
    const auto rel = attribute(f.value, "rel");
    const auto href = attribute(f.value, "href");
    if (!rel || !href || href->empty()) continue;
    // A rel may be a full IANA URI (RFC 4287 section 4.2.7.2).
    std::string_view name = *rel;
    if (name.starts_with("http://www.iana.org/assignments/relation/"))
      name.remove_prefix(std::string_view("http://www.iana.org/assignments/relation/").size());
    const std::string lower = to_lower(name);
    if (lower == "prev-archive" && !out.prev_archive)
      out.prev_archive = resolve_url(base_url, *href);
    else if (lower == "next" && !out.next_page)
      out.next_page = resolve_url(base_url, *href);
  }
  return out;
}

std::optional<std::pair<std::string, BackfillLink>> next_archive_link(const ArchiveLinks& links) {
  if (links.prev_archive) return std::pair{*links.prev_archive, BackfillLink::prev_archive};
  if (links.next_page) return std::pair{*links.next_page, BackfillLink::next_page};
  if (links.next_url) return std::pair{*links.next_url, BackfillLink::next_url};
  return std::nullopt;
}

}  // namespace feeddiff
