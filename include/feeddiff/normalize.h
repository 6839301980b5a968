#pragma once
// normalize: pure. Feed bytes in (RSS 0.9x/1.0/2.0, Atom 0.3/1.0, JSON Feed 1.x, in any
// encoding their declaration, BOM or a charset hint names), a canonical, diff-friendly
// document and the feed's item model out. Deterministic, locale independent, idempotent.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff {

/// A media file attached to an item (RSS enclosure, Atom link rel=enclosure, JSON attachment).
struct Enclosure {
  std::string url;     ///< where the file is
  std::string type;    ///< MIME type, may be empty
  std::string length;  ///< size in bytes as the feed says it, may be empty
};

/// One entry of a feed, whatever its format.
struct Item {
  std::string id;     ///< identity: guid / Atom id / JSON id, else link, else a hash of title+date
  std::string title;  ///< plain text
  std::string link;   ///< the item's page
  std::string published;                ///< as written in the feed
  std::string updated;                  ///< as written in the feed
  std::vector<std::string> authors;     ///< names (or emails when no name)
  std::vector<std::string> categories;  ///< terms
  std::string summary;                  ///< description / summary
  std::string content;                  ///< content:encoded / Atom content / content_html
  std::vector<Enclosure> enclosures;    ///< media attached
};

/// A channel-level field (title, link, lastBuildDate, ...), by canonical name.
struct Field {
  std::string name;        ///< e.g. "title", "lastBuildDate", "updated"
  std::string value;       ///< text content
  bool volatile_ = false;  ///< changes on every rebuild (lastBuildDate, generator, ...)
};

/// The feed as a model: its format, channel fields and items in feed order.
struct Feed {
  std::string format;          ///< "rss2.0", "rss1.0", "rss0.91", "atom1.0", "jsonfeed1.1", ...
  std::vector<Field> channel;  ///< channel/feed-level fields
  std::vector<Item> items;     ///< in feed order
};

/// A repair made to an ill-formed input, with where it was.
struct Repair {
  std::size_t line = 0;  ///< 1-based line of the original input
  std::string what;      ///< e.g. "replaced &nbsp; with U+00A0"
};

/// The canonical document and what was learned making it.
struct Document {
  std::string text;             ///< canonical form: UTF-8, LF line ends, one element a line
  std::string encoding;         ///< the encoding the input was decoded from
  std::vector<Repair> repairs;  ///< what was repaired to parse it
  Feed feed;                    ///< the item model
};

/// Canonical, diff-friendly form of a feed document. Errc::bad_xml (with line, column and
/// reason) when it cannot be parsed even after repairs; Errc::bad_encoding when the bytes
/// cannot be decoded; Errc::unsupported when it is well-formed but no feed.
Result<Document> normalize(std::string_view bytes);

}  // namespace feeddiff
