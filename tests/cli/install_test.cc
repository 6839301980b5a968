// What an installed feeddiff brings beside the binary, checked against the binary itself so
// that none of it drifts: the manual pages, the shell completions; and how the command line
// greets a typo and says which versions it runs.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_helpers.h"
#include "feeddiff/config.h"

using namespace feeddiff::test;

namespace {

using Names = std::set<std::string>;

// The commands `feeddiff --help` lists.
Names help_commands() {
  auto r = run_feeddiff({"--help"});
  REQUIRE(r.exit_code == 0);
  Names out;
  bool in_section = false;
  for (const auto& line : lines_of(r.out)) {
    if (line.empty() || line[0] != ' ') {
      in_section = line == "Subcommands:";
      continue;
    }
    if (in_section && line.size() > 2 && line[2] != ' ')
      out.insert(line.substr(2, line.find(' ', 2) - 2));
  }
  return out;
}

// The arguments and options a `--help` lists (command empty: feeddiff's own): the first word
// of each entry of its Positionals and Options sections, split at commas.
Names help_entries(const std::string& command) {
  std::vector<std::string> args;
  if (!command.empty()) args.push_back(command);
  args.push_back("--help");
  auto r = run_feeddiff(args);
  INFO(command << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  Names out;
  bool in_section = false;
  for (const auto& line : lines_of(r.out)) {
    if (line.empty() || line[0] != ' ') {
      in_section = line == "Options:" || line == "Positionals:";
      continue;
    }
    if (!in_section || line.size() < 3 || line[2] == ' ') continue;
    std::istringstream words(line.substr(2, line.find(' ', 2) - 2));
    for (std::string name; std::getline(words, name, ',');) out.insert(name);
  }
  return out;
}

// The manual page's entries: the bold names of each tagged paragraph, by section: "" for the
// OPTIONS of feeddiff itself, else the command its subsection describes.
std::map<std::string, Names> man_entries(const std::string& page) {
  std::map<std::string, Names> out;
  std::string section;
  bool listing = false;
  bool tag_next = false;
  const std::regex bold(R"(\\fB(.*?)\\fR)");
  for (const auto& line : lines_of(page)) {
    if (line.starts_with(".SH ")) {
      listing = line == ".SH OPTIONS";
      section = "";
    } else if (line.starts_with(".SS \"feeddiff ")) {
      listing = true;
      section =
          std::regex_replace(line.substr(14, line.find(' ', 14) - 14), std::regex(R"(\\-)"), "-");
      out[section];
    } else if (line == ".TP") {
      tag_next = listing;
    } else if (tag_next) {
      tag_next = false;
      for (std::sregex_iterator it(line.begin(), line.end(), bold), end; it != end; ++it)
        out[section].insert(std::regex_replace((*it)[1].str(), std::regex(R"(\\-)"), "-"));
    }
  }
  return out;
}

// Runs the bash completion function on a command line (the last word is being completed) and
// returns its candidates.
Names complete_bash(const std::vector<std::string>& words, const std::string& cwd = ".") {
  std::string script =
      "cd \"$1\" && source \"$2\" && COMP_WORDS=(\"${@:3}\") && "
      "COMP_CWORD=$(($# - 3)) && _feeddiff && printf '%s\\n' \"${COMPREPLY[@]}\"";
  std::vector<std::string> argv = {
      "bash",        "--norc",
      "--noprofile", "-c",
      script,        "bash",
      cwd,           std::string(FEEDDIFF_SOURCE_DIR) + "/dist/completion/feeddiff.bash"};
  argv.insert(argv.end(), words.begin(), words.end());
  auto r = run(argv);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Names out;
  for (const auto& line : lines_of(r.out))
    if (!line.empty()) out.insert(line);
  return out;
}

Names options_of(const Names& entries) {
  Names out;
  for (const auto& e : entries)
    if (e.starts_with("-")) out.insert(e);
  return out;
}

}  // namespace

TEST_CASE("an unknown command is named with the nearest ones and exits 2", "[cli]") {
  auto r = run_feeddiff({"shwo"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "feeddiff: error: 'shwo' is not a feeddiff command; did you mean 'show'?\n");

  // Even with --help after it: the typo is the error, not a reason to print the main help.
  r = run_feeddiff({"-C", "/nonexistent", "stauts", "--help"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "feeddiff: error: 'stauts' is not a feeddiff command; did you mean 'status'?\n");

  r = run_feeddiff({"--color=never", "stat"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "feeddiff: error: 'stat' is not a feeddiff command; did you mean 'status'?\n");

  r = run_feeddiff({"nosuch"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "feeddiff: error: 'nosuch' is not a feeddiff command (see `feeddiff --help`)\n");

  r = run_feeddiff({"nosuch", "--help"});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
}

TEST_CASE("feeddiff --version names the version, the commit built from and the libraries in use",
          "[cli]") {
  auto r = run_feeddiff({"--version"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 4);
  std::smatch m;
  REQUIRE(std::regex_match(lines[0], m, std::regex(R"(feeddiff (\S+) \(commit (\S+)\))")));
  CHECK(m[1].str() == FEEDDIFF_VERSION);
  auto head = run({"git", "-C", FEEDDIFF_SOURCE_DIR, "rev-parse", "--short=12", "HEAD"});
  if (head.exit_code == 0 && head.out.size() > 12)
    CHECK(m[2].str().starts_with(head.out.substr(0, 12)));
  CHECK(std::regex_match(lines[1], std::regex(R"(libgit2 \d+\.\d+\.\d+)")));
  CHECK(std::regex_match(lines[2], std::regex(R"(libcurl \d+\.\d+\.\d+.*)")));
  CHECK(std::regex_match(lines[3], std::regex(R"(pugixml \d+\.\d+)")));
}

TEST_CASE("the manual page lists every command, argument and option that --help does", "[cli]") {
  const std::string page = slurp(std::string(FEEDDIFF_MAN_DIR) + "/feeddiff.1");
  auto man = man_entries(page);
  const Names commands = help_commands();
  REQUIRE(commands.size() >= 17);
  Names man_commands;
  for (const auto& [name, entries] : man)
    if (!name.empty()) man_commands.insert(name);
  CHECK(man_commands == commands);
  CHECK(man[""] == help_entries(""));
  for (const auto& command : commands) {
    INFO(command);
    CHECK(man[command] == help_entries(command));
  }
  // What man(1) itself makes of it: it renders, with the sections a reader looks for.
  auto rendered = run({"man", "--warnings", "-l", std::string(FEEDDIFF_MAN_DIR) + "/feeddiff.1"},
                      {{"MANWIDTH", "80"}, {"MAN_KEEP_FORMATTING", ""}});
  if (rendered.exit_code != 127) {
    INFO(rendered.err);
    CHECK(rendered.exit_code == 0);
    CHECK(rendered.err.empty());
    CHECK(rendered.out.find("EXIT STATUS") != std::string::npos);
    CHECK(rendered.out.find("feeddiff poll [OPTIONS] [NAME...]") != std::string::npos);
  }
}

TEST_CASE("feeddiff.toml(5) documents exactly the keys of a [notify] table", "[cli]") {
  const std::string page = slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/dist/man/feeddiff.toml.5");
  Names documented;
  bool notify = false;
  bool tag_next = false;
  for (const auto& line : lines_of(page)) {
    if (line.starts_with(".SH ")) notify = line == ".SH NOTIFY";
    if (line == ".TP")
      tag_next = notify;
    else if (tag_next && line.starts_with(".B ")) {
      documented.insert(line.substr(3));
      tag_next = false;
    }
  }
  CHECK(documented == Names{"exec", "webhook", "timeout", "cosmetic", "minor", "kinds", "fields",
                            "match", "after"});
  for (const auto& key : documented) {
    INFO(key);
    auto config = feeddiff::parse_config("[notify]\n" + key + " = true\n");
    if (!config) CHECK(config.error().message.find("unknown key") == std::string::npos);
  }
  feeddiff::Config config;
  config.notify = {"true",
                   "https://example.org/hook",
                   60'000,
                   true,
                   true,
                   std::vector<std::string>{"added"},
                   std::vector<std::string>{"title"},
                   std::vector<std::string>{"CVE-"},
                   2u};
  std::smatch m;
  std::size_t written = 0;
  for (const auto& line : lines_of(feeddiff::format_config(config))) {
    if (!std::regex_match(line, m, std::regex(R"(([a-z_]+) = .*)"))) continue;
    INFO(line);
    CHECK(documented.count(m[1].str()) == 1);
    ++written;
  }
  CHECK(written == 9);
  auto unknown = feeddiff::parse_config("[notify]\nnot_a_key = true\n");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("unknown key") != std::string::npos);
}

TEST_CASE("feeddiff.toml(5) documents exactly the keys of an [insignificant] table", "[cli]") {
  const std::string page = slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/dist/man/feeddiff.toml.5");
  Names documented;
  bool section = false;
  bool tag_next = false;
  for (const auto& line : lines_of(page)) {
    if (line.starts_with(".SH ")) section = line == ".SH INSIGNIFICANT";
    if (line == ".TP")
      tag_next = section;
    else if (tag_next && line.starts_with(".B ")) {
      documented.insert(line.substr(3));
      tag_next = false;
    }
  }
  CHECK(documented == Names{"whitespace", "punctuation", "fields", "min_words"});
  feeddiff::Config config;
  config.insignificant = {true, true, std::vector<std::string>{"updated"}, 3};
  std::smatch m;
  std::size_t written = 0;
  for (const auto& line : lines_of(feeddiff::format_config(config))) {
    if (!std::regex_match(line, m, std::regex(R"(([a-z_]+) = .*)"))) continue;
    INFO(line);
    CHECK(documented.count(m[1].str()) == 1);
    ++written;
  }
  CHECK(written == 4);
  auto unknown = feeddiff::parse_config("[insignificant]\nnot_a_key = true\n");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("unknown key") != std::string::npos);
}

TEST_CASE("feeddiff.toml(5) documents exactly the keys the configuration parser accepts", "[cli]") {
  const std::string page = slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/dist/man/feeddiff.toml.5");
  Names documented;
  bool keys = false;
  bool tag_next = false;
  for (const auto& line : lines_of(page)) {
    if (line.starts_with(".SH ")) keys = line == ".SH KEYS";
    if (line == ".TP")
      tag_next = keys;
    else if (tag_next && line.starts_with(".B ")) {
      documented.insert(line.substr(3));
      tag_next = false;
    }
  }
  REQUIRE(documented.size() >= 4);
  // Every documented key is one the parser knows (a wrong value is another error).
  for (const auto& key : documented) {
    INFO(key);
    auto config =
        feeddiff::parse_config("[sources.a]\nurl = \"https://example.org/\"\n" + key + " = true\n");
    if (!config) CHECK(config.error().message.find("unknown key") == std::string::npos);
  }
  // Every key the parser writes, with every field set, is documented.
  feeddiff::Config config;
  feeddiff::SourceConfig source;
  source.name = "a";
  source.url = "https://example.org/";
  source.every = 120'000;
  source.ignore = {"updated"};
  source.skip_cosmetic = true;
  source.articles = true;
  source.article_cap = 5;
  source.article_until = 7 * 86'400'000LL;
  config.sources.push_back(source);
  std::smatch m;
  for (const auto& line : lines_of(feeddiff::format_config(config))) {
    if (!std::regex_match(line, m, std::regex(R"(([a-z_]+) = .*)"))) continue;
    INFO(line);
    CHECK(documented.count(m[1].str()) == 1);
  }
  // And an undocumented key is refused, so the parser has no key this check cannot see.
  auto unknown =
      feeddiff::parse_config("[sources.a]\nurl = \"https://example.org/\"\nnot_a_key = true\n");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.find("unknown key") != std::string::npos);
}

TEST_CASE("the bash completion offers the commands, options, sources and commits", "[cli]") {
  const Names commands = help_commands();
  CHECK(complete_bash({"feeddiff", ""}) == commands);
  CHECK(complete_bash({"feeddiff", "sh"}) == Names{"show"});
  CHECK(complete_bash({"feeddiff", "-"}) == options_of(help_entries("")));
  for (const auto& command : commands) {
    INFO(command);
    CHECK(complete_bash({"feeddiff", command, "-"}) == options_of(help_entries(command)));
  }
  CHECK(complete_bash({"feeddiff", "--color", "=", "al"}) == Names{"always"});
  CHECK(complete_bash({"feeddiff", "show", "--format", ""}) ==
        Names{"text", "markdown", "json", "html"});
  CHECK(complete_bash({"feeddiff", "fixtures", ""}) == Names{"check", "update"});

  CliArchive archive("completion");
  REQUIRE(archive({"add", "pytorch", "https://pytorch.org/blog/feed/"}).exit_code == 0);
  REQUIRE(archive({"add", "hn.front", "https://news.ycombinator.com/rss"}).exit_code == 0);
  const std::string head = archive.git({"rev-parse", "--short", "HEAD"}).out.substr(0, 7);
  const std::string first = archive.git({"rev-parse", "--short", "HEAD~1"}).out.substr(0, 7);

  // Sources: from -C's archive, or the one the current directory is in.
  CHECK(complete_bash({"feeddiff", "-C", archive.dir(), "poll", ""}) ==
        Names{"pytorch", "hn.front"});
  CHECK(complete_bash({"feeddiff", "-C", archive.dir(), "poll", "pytorch", "h"}) ==
        Names{"hn.front"});
  std::filesystem::create_directories(archive.dir() + "/notes");
  CHECK(complete_bash({"feeddiff", "log", "-n", "5", "p"}, archive.dir() + "/notes") ==
        Names{"pytorch"});
  // Commits for a COMMIT argument, then the source for NAME.
  auto commits = complete_bash({"feeddiff", "-C", archive.dir(), "show", ""});
  CHECK(commits.count("HEAD") == 1);
  CHECK(commits.count(head) == 1);
  CHECK(commits.count(first) == 1);
  CHECK(complete_bash({"feeddiff", "-C", archive.dir(), "show", head, ""}) ==
        Names{"pytorch", "hn.front"});
  // Outside any archive: no sources, no error.
  CHECK(complete_bash({"feeddiff", "-C", "/nonexistent", "remove", ""}).empty());
}

TEST_CASE("the zsh and fish completions know every command and option --help lists", "[cli]") {
  const std::string zsh = slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/dist/completion/_feeddiff");
  const std::string fish =
      slurp(std::string(FEEDDIFF_SOURCE_DIR) + "/dist/completion/feeddiff.fish");
  for (const auto& command : help_commands()) {
    INFO(command);
    CHECK(zsh.find("'" + command + ":") != std::string::npos);
    CHECK(fish.find("-a " + command + " ") != std::string::npos);
    for (const auto& option : options_of(help_entries(command))) {
      INFO(option);
      // _arguments specs: '--jobs[...]', or {-j,--jobs}'[...]' for an option with two names.
      CHECK((zsh.find(option + "[") != std::string::npos ||
             zsh.find("{" + option + ",") != std::string::npos ||
             zsh.find("," + option + "}") != std::string::npos));
      if (option.starts_with("--"))
        CHECK(fish.find("-l " + option.substr(2)) != std::string::npos);
      else
        CHECK(fish.find("-s " + option.substr(1)) != std::string::npos);
    }
  }
}
