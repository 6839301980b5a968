// The manual page feeddiff(1), written from the parser itself: the commands, their
// arguments, options and help texts are the ones `--help` prints, through CLI11's own
// formatter, so the page cannot drift from the program. The build runs `feeddiff --man`
// (cmake/man.cmake); tests/cli/install_test.cc compares the page with --help.

#include <fmt/format.h>

#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "feeddiff/core.h"

namespace feeddiff::cli {

namespace {

// Text for roff: backslashes and dashes escaped (a dash stays the ASCII one a shell needs),
// and a line never starts with a control character.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

// A block printed as written (examples, tables of the footers), indented.
std::string verbatim(std::string_view text) {
  if (text.empty()) return {};
  return ".PP\n.RS 4\n.nf\n" + roff(text) + "\n.fi\n.RE\n";
}

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(' ');
  return text.substr(first, last - first + 1);
}

// One argument or option as a tagged paragraph: its names in bold, what it takes in italics,
// then its help text.
std::string entry(const CLI::Formatter& formatter, const CLI::Option* opt, bool positional) {
  std::string names;
  std::string name_list = formatter.make_option_name(opt, positional);
  std::size_t start = 0;
  while (start <= name_list.size()) {
    std::size_t comma = name_list.find(',', start);
    if (comma == std::string::npos) comma = name_list.size();
    if (!names.empty()) names += ", ";
    names += "\\fB" + roff(trim(name_list.substr(start, comma - start))) + "\\fR";
    start = comma + 1;
  }
  const std::string takes = trim(formatter.make_option_opts(opt));
  if (!takes.empty()) names += " \\fI" + roff(takes) + "\\fR";
  return ".TP\n" + names + "\n" + roff(opt->get_description()) + "\n";
}

// The arguments, then the options, of a command or of feeddiff itself, as --help lists them.
std::string arguments(const CLI::Formatter& formatter, const CLI::App& app) {
  std::string out;
  for (const CLI::Option* opt : app.get_options(
           [](const CLI::Option* o) { return !o->get_group().empty() && o->get_positional(); }))
    out += entry(formatter, opt, true);
  for (const CLI::Option* opt : app.get_options(
           [](const CLI::Option* o) { return !o->get_group().empty() && o->nonpositional(); }))
    out += entry(formatter, opt, false);
  return out;
}

std::string usage(const CLI::Formatter& formatter, const CLI::App& app, const std::string& name) {
  std::string line = formatter.make_usage(&app, name);
  if (const auto colon = line.find(": "); colon != std::string::npos) line.erase(0, colon + 2);
  return trim(line.substr(0, line.find('\n')));
}

constexpr std::string_view kDescription =
    R"(feeddiff archives web feeds (RSS, Atom, JSON Feed) in an ordinary git repository, the
archive, and tells you what changed. `feeddiff poll`, run from a timer or cron, fetches each
source when it is due, politely (conditional requests, intervals, backoff); every response
that changed becomes one commit holding the raw body byte for byte and the HTTP headers it came
with. `feeddiff log` lists the changes and `feeddiff show` prints one: which source, how many
lines came and went, the items added, removed and changed, and the diff. The archive is plain
git: `git log`, `git push` and any forge work on it.)";

constexpr std::string_view kEnvironment = R"(.TP
.B NO_COLOR
When set and not empty, no colour (unless \fB\-\-color always\fR).
.TP
.B FEEDDIFF_NOW
An ISO 8601 UTC time (2026\-10\-01T05:54:04Z) that feeddiff takes for the current time,
for tests and reproducible runs.
.TP
.B FEEDDIFF_PACK_LIMIT
How many packs \fBpoll\fR lets .git/objects/pack hold before it rolls the smallest up into
one, geometrically (default 50; 0: never).
.TP
.B FEEDDIFF_SYNC_BACKOFF
\fIBASE_MS\fR[,\fICAP_MS\fR]: the wait of \fBsync\fR after a rejected push, doubling from
BASE_MS up to CAP_MS, each wait a random one between half of that and all of it (default
50,2000).
)";

constexpr std::string_view kFiles = R"(.TP
.I feeddiff.toml
The sources, committed in the archive; see \fBfeeddiff.toml\fR(5).
.TP
.I raw/SOURCE/response.xml
The raw body of the source's last change (\fIresponse.json\fR for JSON Feed); in the
fan-out layout (\fBlayout = "fanout"\fR, see \fBmigrate\fR),
\fIraw/HH/SOURCE/response.xml\fR, HH being the first two hex digits of the SHA-1 of SOURCE.
.TP
.I raw/SOURCE/not-a-feed
The source's last response when it was not a feed (an HTML, login or challenge page, an
empty body), byte for byte; \fIresponse.xml\fR keeps the last feed version meanwhile, and
the next feed version deletes it. Such a commit is titled \fBSOURCE: not a feed (...)\fR.
.TP
.I .git/feeddiff/state.json
Poll state, not committed: validators, next due time, failures, redirects.
.TP
.I .git/feeddiff/credentials
user:password from URLs given to \fBadd\fR (mode 0600), never committed, each with the
origin (scheme, host, port) it was given for: it is sent to that origin only.
.TP
.I .git/feeddiff/trust
The SHA\-256 of each hook value this machine consented to run (\fBtrust\fR), never
committed: a \fI[notify]\fR exec or webhook that arrived with a clone, a sync or a pull, or
was edited by hand, does not run until it is trusted.
.TP
.I .git/feeddiff/lock
Held while a command writes.
.TP
.I .git/feeddiff/sync-seen
Per remote branch, the tip \fBsync\fR last fetched; a remote branch that no longer descends
from it was rewritten, and sync stops.
.TP
.I refs/feeddiff/unsynced
The branch as it was before \fBsync\fR last replayed it, until a push succeeds.
)";

constexpr std::string_view kSeeAlso =
    R"(\fBfeeddiff.toml\fR(5), \fBgit\fR(1), \fBsystemd.timer\fR(5), \fBcron\fR(8).
The systemd units \fIfeeddiff\-poll@.service\fR and \fIfeeddiff\-poll@.timer\fR poll an archive
on a schedule; see /usr/share/doc/feeddiff/README.md.
)";

}  // namespace

std::string man_page(const CLI::App& app) {
  auto shared = std::dynamic_pointer_cast<CLI::Formatter>(app.get_formatter());
  const CLI::Formatter fallback;
  const CLI::Formatter& formatter = shared ? *shared : fallback;

  std::ostringstream out;
  out << ".\\\" Generated by `feeddiff --man` (src/cli/man.cc) from the command-line parser.\n";
  out << fmt::format(".TH FEEDDIFF 1 \"\" \"feeddiff {}\" \"User Commands\"\n", version());
  out << ".SH NAME\nfeeddiff \\- archive web feeds in git and see what changed\n";
  out << ".SH SYNOPSIS\n.B feeddiff\n[\\fB\\-C\\fR \\fIDIR\\fR] [\\fB\\-\\-color\\fR "
         "\\fIWHEN\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n.B feeddiff \\-\\-version\n";
  out << ".SH DESCRIPTION\n" << roff(kDescription) << "\n";
  out << ".SH OPTIONS\nThese come before the command.\n" << arguments(formatter, app);
  out << ".SH COMMANDS\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string name = sub->get_name();
    out << ".SS \"" << roff(usage(formatter, *sub, "feeddiff " + name)) << "\"\n";
    out << roff(sub->get_description()) << "\n";
    out << arguments(formatter, *sub);
    out << verbatim(sub->get_footer());
  }
  out << ".SH EXAMPLES\n" << verbatim(app.get_footer());
  out << ".SH EXIT STATUS\n.TP\n.B 0\nSuccess.\n.TP\n.B 1\nSome sources failed (the others were "
         "recorded), or drift found (\\fBfixtures check\\fR), or the versions differ "
         "(\\fBdiff\\fR), or \\fBsync\\fR could not publish (the remote unreachable, or every "
         "push rejected; the local commits stay).\n.TP\n.B 2\nAn error or a usage error; one line "
         "on standard error "
         "starting with \\(lqfeeddiff: error:\\(rq.\n";
  out << ".SH ENVIRONMENT\n" << kEnvironment;
  out << ".SH FILES\nIn the archive:\n" << kFiles;
  out << ".SH SEE ALSO\n" << kSeeAlso;
  return out.str();
}

}  // namespace feeddiff::cli
