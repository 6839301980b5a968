// The site's search page. Without script it is a form and a sentence saying what search
// needs; search.js (written beside it by the site) reads the query, loads the index's shards
// and lists the hits with DOM calls only.

#include <string>

#include "feeddiff/render.h"
#include "render/html_page.h"

namespace feeddiff {

std::string render_search_page() {
  std::string out = html::head("Search · feeddiff archive", {}, {}, {}, kSearchPageCsp);
  out += html::nav({{"Archive", "index.html"}});
  out +=
      "<header>\n<p class=\"kicker\">feeddiff archive</p>\n<h1>Search</h1>\n</header>\n"
      "<form method=\"get\" action=\"search.html\" role=\"search\">\n"
      "<label for=\"q\">Words</label> <input type=\"search\" id=\"q\" name=\"q\" "
      "maxlength=\"500\"> <button type=\"submit\">Search</button>\n</form>\n"
      "<p id=\"search-status\">Search needs JavaScript, and the site served over http(s): from a "
      "static host, or locally with <code>python3 -m http.server</code> in the site's "
      "directory (a page opened as a file cannot read the index). <code>feeddiff search "
      "QUERY</code> in the archive searches every version of every item, with phrases, "
      "prefixes and boolean queries.</p>\n"
      "<ol id=\"search-results\"></ol>\n"
      "<h2>What it finds</h2>\n"
      "<p>Each hit is one item in one change: the words of the query <strong>appeared</strong> "
      "in the item's title, summary or content with that change, or were <strong>gone</strong> "
      "from it. Every word must match. <code>word*</code> matches the words that begin with it "
      "(two characters at least). A \"quoted phrase\" is searched as all of its words, "
      "anywhere in the item. Words are split at every ASCII character that is not a letter or "
      "a digit; ASCII letters match in either case, other letters only as written (no Unicode "
      "case folding). The newest 50 hits are listed, newest first.</p>\n"
      "<script src=\"search.js\"></script>\n";
  return out + html::tail();
}

}  // namespace feeddiff
