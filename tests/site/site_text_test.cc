// site_text: what `feeddiff site` prints of a run, as a library call.

#include <catch2/catch.hpp>

#include "feeddiff/site.h"

using namespace feeddiff;

TEST_CASE("site_text counts a run's changes, files and search documents in one line", "[site]") {
  SiteReport r;
  r.changes = 12345;
  r.sources = 1;
  r.rendered = 2;
  r.full_build = true;
  r.written = 1;
  r.unchanged = 4000;
  r.indexed = 3;
  r.index = "public/index.html";
  CHECK(site_text(r) ==
        "site: 12,345 changes, 1 source; rendered 2 changes (full build); wrote 1 file, 4,000 "
        "unchanged; 3 item changes for search (public/index.html)\n");
  // A run with nothing new for search says nothing of it; removed pages are counted.
  r.indexed = 0;
  r.full_build = false;
  r.removed = 1;
  CHECK(site_text(r) ==
        "site: 12,345 changes, 1 source; rendered 2 changes; wrote 1 file, 4,000 unchanged, 1 "
        "removed (public/index.html)\n");
}

TEST_CASE("site_text names refused artifacts and ignored rows before the counts", "[site]") {
  SiteReport r;
  r.refused = 2;
  r.first_refused = "raw/a/evil.html in commit 0123";
  r.ignored = 1;
  r.state_dir = "public/.feeddiff-site";
  r.index = "public/index.html";
  const std::string text = site_text(r);
  CHECK(text.rfind("site: did not publish 2 raw artifacts whose name feeddiff never writes", 0) ==
        0);
  CHECK(text.find("first raw/a/evil.html in commit 0123\nsite: ignored 1 malformed row in "
                  "public/.feeddiff-site\nsite: 0 changes, 0 sources;") != std::string::npos);
}
