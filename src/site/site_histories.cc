#include "site/site_histories.h"

#include <fmt/format.h>

#include <algorithm>

#include "feeddiff/core.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

Status Histories::append(const std::string& list, std::size_t position, const SiteChange& change) {
  const std::size_t number = position / kSitePageSize + 1;
  auto it = open_.find(list);
  if (it != open_.end() && it->second.number != number) {
    if (auto ok = spill(list, it->second); !ok) return ok;
    open_rows_ -= it->second.rows;
    open_.erase(it);
    it = open_.end();
  }
  if (it == open_.end()) {
    Page page{number, 0, {}};
    // Rows at or beyond this position came from a run that did not finish.
    for (const SiteChange& row : load_rows(rows_path(list, number), writes_)) {
      if (page.rows == position % kSitePageSize) break;
      page.text += row_text(row);
      ++page.rows;
    }
    open_rows_ += page.rows;
    it = open_.emplace(list, std::move(page)).first;
  }
  it->second.text += row_text(change);
  ++it->second.rows;
  ++open_rows_;
  if (it->second.rows == kSitePageSize) {
    if (auto ok = write(list, it->second); !ok) return ok;
    pending_.erase({list, number});
    open_rows_ -= it->second.rows;
    open_.erase(it);
  } else if (open_rows_ > open_rows_cap) {
    for (auto& [name, page] : open_)
      if (auto ok = spill(name, page); !ok) return ok;
    open_.clear();
    open_rows_ = 0;
  }
  return Ok{};
}

Status Histories::finish() {
  for (auto& [list, page] : open_) {
    if (auto ok = write(list, page); !ok) return ok;
    pending_.erase({list, page.number});
  }
  open_.clear();
  open_rows_ = 0;
  // A page spilled and not opened again: its rows file is as the spill wrote it.
  for (const auto& [list, number] : pending_) {
    auto text = read_file(rows_path(list, number).string());
    Page page{number, 0, text ? std::move(*text) : std::string()};
    if (auto ok = write_html(list, page); !ok) return ok;
  }
  pending_.clear();
  return Ok{};
}

std::vector<SiteChange> Histories::newest(const std::string& list, std::size_t count,
                                          std::size_t n) {
  std::vector<SiteChange> out;
  for (std::size_t number = pages(count); number >= 1 && out.size() < n; --number) {
    std::vector<SiteChange> rows = load_rows(rows_path(list, number), writes_);
    for (auto row = rows.rbegin(); row != rows.rend() && out.size() < n; ++row)
      out.push_back(std::move(*row));
  }
  return out;
}

fs::path Histories::rows_path(const std::string& list, std::size_t number) const {
  const fs::path dir =
      list.empty() ? top_ / kStateDir / "history" : top_ / kStateDir / "sources" / list;
  return dir / fmt::format("{}.tsv", number);
}

Status Histories::spill(const std::string& list, const Page& page) {
  pending_.insert({list, page.number});
  return write_rows(list, page);
}

Status Histories::write_rows(const std::string& list, const Page& page) {
  Writes not_counted;
  return write_if_changed(rows_path(list, page.number), page.text, not_counted);
}

Status Histories::write(const std::string& list, const Page& page) {
  if (auto ok = write_rows(list, page); !ok) return ok;
  return write_html(list, page);
}

Status Histories::write_html(const std::string& list, const Page& page) {
  SiteHistoryPage html;
  html.source = list;
  html.number = page.number;
  html.changes = parse_rows(page.text, writes_);
  std::reverse(html.changes.begin(), html.changes.end());
  const fs::path path = list.empty()
                            ? top_ / "history" / fmt::format("{}.html", page.number)
                            : top_ / "sources" / list / fmt::format("{}.html", page.number);
  return write_if_changed(path, render_history_page(html), writes_);
}

}  // namespace feeddiff::site
