#pragma once
// normalize: pure. Feed bytes in (RSS 0.9x/1.0/2.0, Atom 0.3/1.0, JSON Feed 1.x, in any
// encoding their declaration, BOM or a charset hint names), a canonical, diff-friendly
// document and the feed's item model out. Deterministic, locale independent, idempotent:
// normalize(normalize(x)->text)->text == normalize(x)->text.
//
// The canonical XML form:
//  - first line `<?xml version="1.0" encoding="UTF-8"?>` (standalone kept when declared),
//    then the DOCTYPE and top-level comments and PIs as they come, then the root element;
//  - one element a line, two spaces of indent per level, LF line ends, no trailing spaces;
//  - attributes sorted by name; every prefixed namespace is declared once, on the root
//    element, under the conventional prefix of its URI (content, dc, atom, media, itunes, ...;
//    an unknown URI keeps the prefix the document gave it, numbered when that is taken);
//    default-namespace declarations (xmlns="...") stay where they are;
//  - text trimmed and escaped (&amp; &lt; &gt;, control characters as &#xN;); an element with
//    no content is written `<name/>`;
//  - embedded HTML (RSS description, content:encoded, Atom text constructs of type html or
//    xhtml, and any element holding both text and elements) is written one block per line:
//    lines break before opening and after closing block tags (p, div, h1-h6, li, ul, ol, br,
//    pre, blockquote, table rows, figure, img, ...) and at the text's own line ends, each line
//    trimmed and indented one level deeper than its element. HTML held as text is written in
//    one CDATA section (escaped instead when it holds "]]>"), so a one-word edit in a long
//    post changes one line. Whitespace at line ends inside <pre> is not preserved;
//  - volatile lines end with kVolatileMarker: the channel's lastBuildDate and generator, the
//    RSS 1.0 channel dc:date, admin:generatorAgent, Atom feed-level updated/modified and
//    generator, and comments left by page caches ("generated in 0.42 seconds", WP Super Cache,
//    W3 Total Cache, ...). The marker is a comment, so the canonical text stays well-formed
//    XML; normalize drops it when it reads it back.
// JSON Feed (and any other JSON document) becomes JSON with sorted keys, 2-space indent, one
// value a line, non-ASCII characters written as UTF-8.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff {

/// Appended to a canonical line whose change alone makes a change cosmetic.
inline constexpr std::string_view kVolatileMarker = " <!-- feeddiff:volatile -->";

/// A media file attached to an item (RSS enclosure, Atom link rel=enclosure, JSON attachment).
struct Enclosure {
  std::string url;     ///< where the file is
  std::string type;    ///< MIME type, may be empty
  std::string length;  ///< size in bytes as the feed says it, may be empty
};

/// A named value of a channel or item, by canonical name.
struct Field {
  /// Canonical qualified name, e.g. "title", "lastBuildDate", "itunes:duration"; a nested
  /// element is named by its path ("image/url"); a comment is named "comment".
  std::string name;
  /// Trimmed text content; for an element without text, its attributes as `name="value"`
  /// pairs sorted and joined by spaces; for JSON, a string as is and other values as JSON.
  std::string value;
  bool volatile_ = false;  ///< changes on every rebuild (lastBuildDate, generator, ...)
};

/// One entry of a feed, whatever its format.
struct Item {
  /// Identity: RSS guid / Atom id / JSON id, else RSS 1.0 rdf:about, else link, else
  /// "sha1:" + hex SHA-1 of title "\n" date (published, else updated); when both are empty,
  /// of summary, content and first enclosure URL with all whitespace left out.
  std::string id;
  std::string title;  ///< plain text (Atom type=html titles have tags stripped, entities decoded)
  std::string link;   ///< the item's page
  std::string published;                ///< as written in the feed (pubDate, dc:date, published)
  std::string updated;                  ///< as written in the feed (atom updated, modified)
  std::vector<std::string> authors;     ///< names (or emails when no name)
  std::vector<std::string> categories;  ///< terms
  std::string summary;                  ///< description / summary (HTML as written)
  std::string content;                  ///< content:encoded / Atom content / content_html
  std::vector<Enclosure> enclosures;    ///< media attached
  std::vector<Field> extra;             ///< every other child element (or JSON key), in order
};

/// The feed as a model: its format, channel fields and items in feed order.
struct Feed {
  /// "rss2.0", "rss0.91", "rss0.92", "rss" (no version), "rss1.0", "rss0.90", "atom1.0",
  /// "atom0.3", "jsonfeed1.0", "jsonfeed1.1"; "atom1.0-entry" or "atom0.3-entry" for an Atom
  /// Entry Document (RFC 4287 section 4.1.2: the root is an entry), read as a feed of that one
  /// item; "xml" or "json" for a well-formed document that is no feed (it still gets a
  /// canonical form, and no items).
  std::string format;
  /// Channel/feed-level fields, in document order; for an entry document, the fields of its
  /// atom:source (updated and generator volatile, as a feed's), else none.
  std::vector<Field> channel;
  std::vector<Item> items;  ///< in feed order
};

/// A repair made to an ill-formed input, with where it was.
struct Repair {
  /// 1-based line of the original input (after decoding); 0 for a note about the whole input
  /// (how many repairs were left out of the list).
  std::size_t line = 0;
  std::string what;  ///< e.g. "replaced &nbsp; with U+00A0"
};

/// The canonical document and what was learned making it.
struct Document {
  std::string text;             ///< canonical form: UTF-8, LF line ends, one element a line
  std::string encoding;         ///< what the input was decoded from: "utf-8", "utf-16le", ...
  std::vector<Repair> repairs;  ///< what was repaired to parse it (at most ~100, then a count)
  Feed feed;                    ///< the item model
};

/// Canonical, diff-friendly form of a feed document.
///
/// `charset_hint` is the charset the transport named: a Content-Type value
/// ("text/xml; charset=iso-8859-1") or a bare charset; empty for none. A BOM wins over it,
/// and it wins over the XML declaration (RFC 7303). Legacy labels decode as browsers do
/// (iso-8859-1 and us-ascii as windows-1252, gb2312/gbk as GB18030, euc-kr as CP949,
/// shift_jis as CP932, big5 as Big5-HKSCS). Bytes invalid in their encoding become U+FFFD;
/// an unknown encoding name is read as UTF-8; both are listed in repairs.
///
/// Repaired (each listed with its line): leading junk or whitespace or a BOM before the first
/// tag, a second XML declaration, control characters XML forbids, HTML named entities
/// (&nbsp;, &eacute;, ...), unknown entities and bare '&' or '<' (kept as text), character
/// references to non-characters, junk after the root element, an input cut off inside its
/// last end tag. A run of one repair on one line is listed once, with " (N times)".
///
/// Errors: Errc::bad_xml "line L, column C: reason" (pugixml's reason, or the JSON parser's)
/// when it still cannot be parsed; L and C (1-based, C counted in characters) point into the
/// original input. Errc::unsupported, saying which limit, for what a hostile publisher could
/// use to exhaust memory or the stack: elements nested more than 1000 deep, JSON nested more
/// than 256 deep, more than 4096 attributes on one element, more than 1024 namespaces, a
/// canonical form over 8 times the input plus 1 MiB, and (only when the item model is asked
/// for) more than 100,000 items. Undecodable bytes are repaired, never an error.
Result<Document> normalize(std::string_view bytes, std::string_view charset_hint = {});

/// What normalize() is asked to make, for the overload that takes them.
struct NormalizeOptions {
  /// As `charset_hint` of normalize(bytes, charset_hint): the transport's charset, or empty.
  std::string_view charset_hint;
  /// False: only the canonical document is made, and Document::feed is left empty (format
  /// included), which saves extracting the item model. text, encoding, repairs and errors are
  /// exactly those of normalize(bytes, charset_hint).
  bool items = true;
  /// False: Document::text is left empty, which saves writing the canonical document when
  /// only the item model is wanted (an item summary). The model, encoding, repairs and
  /// errors are exactly those of normalize(bytes, charset_hint).
  bool text = true;
};

/// normalize(bytes, options.charset_hint), with the item model only when options.items and
/// the canonical text only when options.text.
Result<Document> normalize(std::string_view bytes, const NormalizeOptions& options);

/// Whether a model's format is a feed's: rss*, atom* (entry documents included), jsonfeed*.
bool is_feed_format(std::string_view format);

/// Whether a response body is a feed, and why not when it is not.
struct FeedCheck {
  bool feed = false;  ///< normalize() read it (with its repairs) as a feed
  /// The shape, for a commit title: "empty body", "HTML document", "JSON document", "XML
  /// document", "XML that does not parse" or "text"; "" for a feed.
  std::string kind;
  /// One line saying why it is no feed, e.g. `HTML document "Just a moment..." (text/html)`,
  /// `empty body`, `XML that does not parse: line 3, column 1: ...`, `JSON that is not a JSON
  /// Feed`, `XML whose root <Error> is no feed (application/xml)`; "" for a feed. Text taken
  /// from the body (an HTML title, a root name) has its control characters removed and is
  /// cut (a title at 80 characters), but is otherwise as sent: escape it where it is shown.
  std::string reason;
  /// For a feed: "" when its model was read; else normalize's message when it refused the
  /// body for one of its limits (Errc::unsupported: too deep, too many items, ...). Such a
  /// body is taken for a feed whose items cannot be read, as before: its shape is unknown.
  std::string unreadable;
};

/// Decides whether a response body is a feed (docs/not-a-feed.md). The rule: it is a feed
/// exactly when normalize() (repairs included) reads it as a model of a feed format
/// (is_feed_format), or refuses it for a limit (Errc::unsupported) when it is no HTML page
/// (FeedCheck::unreadable); anything else is not, whatever the Content-Type said. The reason is
/// chosen by shape, in this order: an empty or whitespace-only body; an HTML page (a doctype
/// or root named html, or an html, head, body, meta or title tag in the first 64 KiB before
/// any feed root), named by its <title>; JSON (it opens with { or [) that is no JSON Feed or
/// does not parse; well-formed XML whose root is no feed's (the root named); XML that does
/// not parse (normalize's message); other text (its first words). The media type of
/// `content_type` is appended to the reason, e.g. " (text/html)": it only colours the reason,
/// so a real feed served as text/html is a feed.
FeedCheck check_feed(std::string_view body, std::string_view content_type);
/// check_feed for a body already given to normalize() with the item model (parsed is that
/// result): a poll reads each body once.
FeedCheck check_feed(std::string_view body, std::string_view content_type,
                     const Result<Document>& parsed);

/// HTML (an item's summary or content as the model holds it) as a reader sees its text: tags
/// dropped, with a space where a block (p, li, br, ...) starts or ends; comments and the
/// insides of script, style, template and noscript left out; entities decoded; whitespace runs
/// read as one space, none at either end. Text that holds no markup comes back with only its
/// whitespace folded.
std::string readable_text(std::string_view html);

/// The version of pugixml normalize is built with (PUGIXML_VERSION), e.g. "1.13".
std::string pugixml_version();

}  // namespace feeddiff
