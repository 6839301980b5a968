#pragma once
// fixtures: recorded feeds kept for CI. A fixtures directory holds a manifest (fixtures.toml,
// in feeddiff.toml's form: one [sources.NAME] table with the url) and, per fixture, the body
// as received (NAME/response.xml or .json), the response as the trailers of a commit would
// record it (NAME/response.headers, feeddiff/message.h) and the canonical document made from
// the body (NAME/canonical.xml or .json). Checking fetches each URL (conditionally, with the
// recorded validators) and reports the fixtures whose body changed, updating rewrites them;
// offline, the canonical documents are checked against, or regenerated from, the recorded
// bodies. Nothing here prints: each fixture's outcome goes to the caller as it is known, so
// that `feeddiff fixtures` prints in the order it learns.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/message.h"
#include "feeddiff/result.h"

namespace feeddiff {

/// What is recorded of one fixture.
struct Fixture {
  std::string name;                 ///< its name in fixtures.toml
  std::string url;                  ///< where it is fetched from
  std::string dir;                  ///< DIR/NAME, where its files are
  std::optional<std::string> body;  ///< the recorded body; nullopt: never recorded
  std::string extension = "xml";    ///< of response.* and canonical.*
  CommitMessage response;           ///< response.headers (empty when missing)
};

/// Reads DIR/fixtures.toml and what is recorded of each fixture it lists, in its order.
/// Errc::not_found without a manifest, Errc::bad_config for one that does not parse.
Result<std::vector<Fixture>> load_fixtures(const std::string& dir);

/// What became of one fixture, as a check or an update learnt it.
struct FixtureOutcome {
  /// The kinds, offline first, then online.
  enum class Kind {
    failed,        ///< no recorded body (offline), or the fetch failed: detail says why
    no_canonical,  ///< offline: the body has no canonical document; detail says why
    up_to_date,    ///< offline: the canonical document matches the body
    stale,         ///< offline check: the canonical file (detail) does not match
    regenerated,   ///< offline update: the canonical file (detail) was rewritten
    not_modified,  ///< online: HTTP 304 to the recorded validators
    unchanged,     ///< online: the body fetched is the one recorded
    changed,  ///< online: the body differs; page is its change page (drifted or updated follow)
    drifted,  ///< online check: the change was not recorded
    updated,  ///< online update: the new body, response and canonical document are recorded
  };
  Kind kind = Kind::failed;  ///< what happened
  std::string name;          ///< the fixture
  std::string detail;        ///< why it failed, or the canonical file's name
  std::string page;          ///< changed: the change page, as `show` prints one (text)
};

/// An outcome as `fixtures` prints it, escaped for a terminal: `NAME: up to date`, `NAME:
/// failed: WHY` (for stderr), the change page of a changed one, ... ending in a newline.
std::string fixture_text(const FixtureOutcome& outcome);
/// Whether an outcome fails the check (exit 1): failed, stale, drifted.
bool fixture_failed(const FixtureOutcome& outcome);

/// Receives each fixture's outcomes as they are known.
using FixtureSink = std::function<void(const FixtureOutcome&)>;

/// Offline: checks (or with update, regenerates) each fixture's canonical document from its
/// recorded body; fetches nothing. Errc::io when a regenerated file cannot be written (the
/// outcomes reported until then stand).
Status check_fixtures_offline(const std::vector<Fixture>& fixtures, bool update,
                              const FixtureSink& sink);

/// How an online check runs.
struct FixtureCheck {
  bool update = false;         ///< record what changed
  std::size_t max_lines = 40;  ///< diff lines on a change page at most
  TimeMs now = 0;              ///< when the responses are observed (their trailers say so)
};

/// Online: fetches every fixture's URL at once (conditionally, with its recorded validators)
/// and reports each, in the manifest's order: a change with its page, then recorded (with
/// update: the body, its trailers exactly as a poll would commit them, and its canonical
/// document, each file replaced atomically, the body last) or reported as drifted. Stops with
/// the error when a fixture cannot be written.
Status check_fixtures_online(const std::vector<Fixture>& fixtures, const FixtureCheck& check,
                             const FixtureSink& sink);

}  // namespace feeddiff
