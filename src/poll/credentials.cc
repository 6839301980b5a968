// Credentials from URLs live in .git/feeddiff/credentials (mode 0600), never in a commit, each
// with the origin it was given for: `source<TAB>user:password<TAB>scheme://host:port`. A line
// of two fields is an older feeddiff's, bound by poll at its first use.

#include <fmt/format.h>
#include <filesystem>
#include <sstream>

#include "feeddiff/poll.h"

namespace feeddiff {

namespace {

std::string credentials_path(const Archive& archive) {
  return archive.private_dir() + "/credentials";
}

}  // namespace

std::string url_origin(std::string_view url) {
  const UrlParts parts = split_url(url);
  if (!parts.has_authority || parts.host.empty()) return {};
  const std::string scheme = to_lower(parts.scheme);
  std::string port = parts.port && !parts.port->empty() ? std::string(*parts.port) : "";
  if (port.empty()) port = scheme == "https" ? "443" : scheme == "http" ? "80" : "";
  // `:0443` is port 443 too.
  while (port.size() > 1 && port.front() == '0') port.erase(0, 1);
  return scheme + "://" + to_lower(parts.host) + (port.empty() ? "" : ":" + port);
}

bool credentials_apply(const StoredCredentials& credentials, std::string_view url) {
  return !credentials.origin.empty() && credentials.origin == url_origin(url);
}

Result<std::vector<StoredCredentials>> load_credentials(const Archive& archive) {
  std::vector<StoredCredentials> out;
  const std::string path = credentials_path(archive);
  if (!std::filesystem::exists(path)) return out;
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    auto tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    StoredCredentials entry;
    entry.source = line.substr(0, tab);
    entry.userinfo = line.substr(tab + 1);
    // userinfo has no tab (check_url refuses blanks in a URL): a second tab starts the origin.
    if (auto second = entry.userinfo.find('\t'); second != std::string::npos) {
      entry.origin = entry.userinfo.substr(second + 1);
      entry.userinfo.erase(second);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Status save_credentials(const Archive& archive, const std::string& name,
                        const std::string& credentials, std::string_view url) {
  auto all = load_credentials(archive);
  if (!all) return all.error();
  std::erase_if(*all, [&](const auto& entry) { return entry.source == name; });
  if (!credentials.empty()) all->push_back({name, credentials, url_origin(url)});
  std::string text =
      "# source<TAB>user:password<TAB>the origin they are sent to, kept out of the archive's "
      "commits\n";
  for (const auto& e : *all) {
    text += e.source + "\t" + e.userinfo;
    if (!e.origin.empty()) text += "\t" + e.origin;
    text += "\n";
  }
  const std::string path = credentials_path(archive);
  // 0600 from the moment the temporary exists: a chmod after the rename left the secrets
  // world-readable meanwhile (and its failure went unnoticed).
  return write_file_atomic(path, text, 0600);
}

}  // namespace feeddiff
