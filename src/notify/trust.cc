// .git/feeddiff/trust: the SHA-256 fingerprints of the hook values this machine consented to
// run, one a line with the kind and a label for people. Fingerprints only: a webhook URL
// often carries a token, which need not be copied into one more file.

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "feeddiff/notify.h"
#include "notify/internal.h"

namespace feeddiff {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader =
    "# feeddiff: the hooks this machine consented to run (`feeddiff trust`); never committed.\n"
    "# sha256<TAB>kind<TAB>label\n";

std::string trust_path(const Archive& archive) {
  return archive.private_dir() + "/trust";
}

// The words of a command line that could name a file: split at blanks, quotes and the
// shell's operators, and after a `NAME=` prefix. Not a shell parser: a word it misses is
// still covered by the command's own fingerprint, only not by the file's contents.
std::vector<std::string> words_of(std::string_view command) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (const auto eq = word.find('='); eq != std::string::npos) word.erase(0, eq + 1);
    if (!word.empty()) out.push_back(word);
    word.clear();
  };
  for (char c : command) {
    if (std::string_view(" \t\n;|&()<>`\"'$").find(c) != std::string_view::npos)
      flush();
    else
      word += c;
  }
  flush();
  return out;
}

// The work-tree files (outside .git) that the words of an exec command name, relative to the
// work tree, sorted and each once.
std::vector<std::string> named_files(const Archive& archive, std::string_view command) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(archive.work_dir(), ec);
  if (ec) return {};
  std::set<std::string> found;
  for (const std::string& word : words_of(command)) {
    const fs::path p = fs::path(word).is_absolute() ? fs::path(word) : root / word;
    if (!fs::is_regular_file(p, ec)) continue;
    const fs::path real = fs::weakly_canonical(p, ec);
    if (ec) continue;
    const fs::path rel = real.lexically_relative(root);
    if (rel.empty() || *rel.begin() == ".." || *rel.begin() == ".git") continue;
    found.insert(rel.generic_string());
  }
  return {found.begin(), found.end()};
}

std::string fingerprint(const Archive& archive, const HookValue& hook) {
  std::string text = "feeddiff-trust 1\n" + hook.kind + "\n" + std::to_string(hook.value.size()) +
                     "\n" + hook.value;
  for (const std::string& file : hook.files) {
    auto contents = read_file(archive.work_dir() + "/" + file);
    // Unreadable now: a fingerprint no trusted one can match.
    const std::string body = contents ? *contents : "unreadable\n" + contents.error().message;
    text += fmt::format("\nfile {}\n{}\n{}", file, body.size(), body);
  }
  return sha256_hex(text);
}

Result<std::set<std::string>> load_trusted(const Archive& archive) {
  std::set<std::string> out;
  const std::string path = trust_path(archive);
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    out.insert(line.substr(0, line.find('\t')));
  }
  return out;
}

}  // namespace

std::string hook_label(const HookValue& hook) {
  if (hook.kind == "exec") return "exec \"" + hook.value + "\"";
  return "webhook " + notify_detail::webhook_origin(hook.value);
}

Result<std::vector<HookValue>> hook_values(const Archive& archive, const Config& config) {
  std::vector<HookValue> out;
  auto add = [&](const std::string& kind, const std::optional<std::string>& value) {
    if (!value || value->empty()) return;
    for (const HookValue& h : out)
      if (h.kind == kind && h.value == *value) return;
    HookValue hook;
    hook.kind = kind;
    hook.value = *value;
    out.push_back(std::move(hook));
  };
  add("exec", config.notify.exec);
  add("webhook", config.notify.webhook);
  for (const SourceConfig& source : config.sources) {
    add("exec", source.notify.exec);
    add("webhook", source.notify.webhook);
  }
  auto trusted = load_trusted(archive);
  if (!trusted) return trusted.error();
  for (HookValue& hook : out) {
    for (const SourceConfig& source : config.sources) {
      const NotifySettings settings = notify_settings(config, source);
      if ((hook.kind == "exec" ? settings.exec : settings.webhook) == hook.value)
        hook.sources.push_back(source.name);
    }
    if (hook.kind == "exec") hook.files = named_files(archive, hook.value);
    hook.fingerprint = fingerprint(archive, hook);
    hook.trusted = trusted->contains(hook.fingerprint);
  }
  return out;
}

Status trust_hooks(const Archive& archive, const std::vector<HookValue>& values,
                   const std::vector<std::string>& kinds) {
  const std::string path = trust_path(archive);
  std::vector<std::string> kept;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    auto text = read_file(path);
    if (!text) return text.error();
    std::istringstream lines(*text);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> fields;
      if (!split_tab_fields(line, fields) || fields.size() < 2) continue;
      if (std::find(kinds.begin(), kinds.end(), fields[1]) == kinds.end()) kept.push_back(line);
    }
  }
  std::string text(kHeader);
  for (const std::string& line : kept) text += line + "\n";
  for (const HookValue& hook : values) {
    if (std::find(kinds.begin(), kinds.end(), hook.kind) == kinds.end()) continue;
    std::string line = hook.fingerprint;
    append_tab_field(line, hook.kind);
    append_tab_field(line, hook_label(hook));
    text += line + "\n";
  }
  return write_file_atomic(path, text, 0600);
}

}  // namespace feeddiff
