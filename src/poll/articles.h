#pragma once
// The article phase of a poll (docs/articles.md): after the feeds' commits are durable and
// the state saved, the pages that new items link to, and the articles due a recheck, are
// fetched politely and archived, one commit per version that a reader should see.

#include "feeddiff/poll.h"

namespace feeddiff::articles {

/// Captures the articles of the sources in `report` (those this poll considered) whose
/// config says `articles = true`, adding their outcomes to report.articles. Never fails the
/// poll: an error that stops the phase goes to report.articles_error.
void capture(Archive& archive, const Config& config, const PollOptions& options, TimeMs now,
             PollReport& report);

}  // namespace feeddiff::articles
