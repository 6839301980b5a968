#pragma once
// The history lists of the site (the archive's and each source's), cut into pages of
// kSitePageSize changes numbered from the oldest: a run appends its changes and writes each
// page it changed once.

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "feeddiff/render.h"
#include "feeddiff/result.h"
#include "site/site_files.h"

namespace feeddiff::site {

// A change goes to a position of a list; the page it lands on is kept in memory until it is
// full (then its HTML is written, once) or the run ends; rows beyond open_rows_cap go to their
// files early. Memory: the open pages' rows (at most a page a list), however long the history.
class Histories {
 public:
  Histories(std::filesystem::path top, Writes& writes) : top_(std::move(top)), writes_(writes) {}

  // Appends the change at position (0 for a list's first change) of the list.
  Status append(const std::string& list, std::size_t position, const SiteChange& change);
  // Writes every page not yet full that this run changed.
  Status finish();
  // The newest n changes of a list of count changes, newest first (after finish).
  std::vector<SiteChange> newest(const std::string& list, std::size_t count, std::size_t n);

  static std::size_t pages(std::size_t count) {
    return (count + kSitePageSize - 1) / kSitePageSize;
  }
  std::filesystem::path rows_path(const std::string& list, std::size_t number) const;

 private:
  // Its rows as their file holds them (row_text), oldest first: a third of the memory of
  // SiteChange values, and the page reads the same whether or not it was spilled.
  struct Page {
    std::size_t number = 1;
    std::size_t rows = 0;
    std::string text;
  };

  // The page's rows to their file; its HTML waits for the end of the run.
  Status spill(const std::string& list, const Page& page);
  Status write_rows(const std::string& list, const Page& page);
  // Its rows file, then its HTML; or the HTML alone.
  Status write(const std::string& list, const Page& page);
  Status write_html(const std::string& list, const Page& page);

  std::filesystem::path top_;
  Writes& writes_;
  std::map<std::string, Page> open_;
  std::size_t open_rows_ = 0;
  std::set<std::pair<std::string, std::size_t>> pending_;  // spilled, HTML not yet written
};

}  // namespace feeddiff::site
