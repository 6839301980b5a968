// Credentials from URLs live in .git/feeddiff/credentials (mode 0600), never in a commit.

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

Result<std::vector<std::pair<std::string, std::string>>> load_credentials(const Archive& archive) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string path = credentials_path(archive);
  if (!std::filesystem::exists(path)) return out;
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    auto tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    out.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

Status save_credentials(const Archive& archive, const std::string& name,
                        const std::string& credentials) {
  auto all = load_credentials(archive);
  if (!all) return all.error();
  std::erase_if(*all, [&](const auto& entry) { return entry.first == name; });
  if (!credentials.empty()) all->emplace_back(name, credentials);
  std::string text = "# source<TAB>user:password, kept out of the archive's commits\n";
  for (const auto& [n, c] : *all) text += n + "\t" + c + "\n";
  const std::string path = credentials_path(archive);
  // 0600 from the moment the temporary exists: a chmod after the rename left the secrets
  // world-readable meanwhile (and its failure went unnoticed).
  return write_file_atomic(path, text, 0600);
}

}  // namespace feeddiff
