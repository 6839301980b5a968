#include "site/site_memento.h"

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/render.h"
#include "site/site_files.h"

namespace feeddiff::site {

namespace fs = std::filesystem;

namespace {

// The state's first line names its format; a state of another format is not read, and the
// TimeMap is made anew.
constexpr std::string_view kMementoStateFormat = "feeddiff-memento 1";
// Earlier versions looked at for a change page's prev memento: a deleted version has no raw
// copy, and a run of deletions is rare; the link is left out past this many.
constexpr std::size_t kPrevLookBack = 8;

struct MementoRow {
  std::string commit, observed_at, raw_name;
};

struct SealedPage {
  std::string from, until;  // ISO-8601 of its first and last memento
};

// What the TimeMap is at: the newest version looked at, the base URL its pages were written
// with, its sealed pages and the mementos of the entry page (fewer than a page and one).
struct MementoState {
  std::string tip, base;
  std::vector<SealedPage> sealed;
  std::vector<MementoRow> open;
};

fs::path memento_state_dir(const fs::path& state_dir, const std::string& source) {
  return state_dir / "memento" / source;
}

std::string row_fields(const MementoRow& row) {
  std::string out = "m";
  for (const std::string* field : {&row.commit, &row.observed_at, &row.raw_name})
    append_tab_field(out, *field);
  return out + '\n';
}

std::string memento_state_text(const MementoState& state) {
  std::string out(kMementoStateFormat);
  append_tab_field(out, state.tip);
  append_tab_field(out, state.base);
  out += '\n';
  for (const SealedPage& page : state.sealed) {
    out += "page";
    append_tab_field(out, page.from);
    append_tab_field(out, page.until);
    out += '\n';
  }
  for (const MementoRow& row : state.open) out += row_fields(row);
  return out;
}

// The lines of a state or rows file; false when it is cut short or does not read back.
bool read_records(const fs::path& path, std::vector<std::vector<std::string>>& records) {
  auto text = read_file(path.string());
  if (!text) return false;
  std::vector<std::string> fields;
  for (std::size_t at = 0; at < text->size();) {
    const std::size_t end = text->find('\n', at);
    if (end == std::string::npos) return false;
    if (!split_tab_fields(std::string_view(*text).substr(at, end - at), fields)) return false;
    records.push_back(fields);
    at = end + 1;
  }
  return true;
}

std::optional<MementoRow> parse_memento_row(const std::vector<std::string>& f) {
  if (f.size() != 4 || f[0] != "m" || !is_commit_id(f[1])) return std::nullopt;
  return MementoRow{f[1], f[2], f[3]};
}

// The state kept for the source; an empty one (the TimeMap starts over) when it is missing,
// of another format or does not read back.
MementoState load_memento_state(const fs::path& path) {
  std::vector<std::vector<std::string>> records;
  if (!read_records(path, records) || records.empty() || records[0].size() != 3 ||
      records[0][0] != kMementoStateFormat)
    return {};
  MementoState state;
  state.tip = records[0][1];
  state.base = records[0][2];
  for (std::size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i];
    if (f.size() == 3 && f[0] == "page" && state.open.empty()) {
      state.sealed.push_back({f[1], f[2]});
    } else if (auto row = parse_memento_row(f)) {
      state.open.push_back(std::move(*row));
    } else {
      return {};
    }
  }
  return state;
}

// The name of the raw copy the site wrote for commit (change pages come first in a run), or
// "" when it wrote none.
std::string raw_copy_on_site(const fs::path& top, const std::string& commit,
                             const std::function<bool(const fs::path&)>& queued = {}) {
  for (const std::string_view artifact :
       {std::string_view("response.xml"), std::string_view("response.json"), kNotAFeedFile}) {
    const auto name = raw_copy_name("raw/x/" + std::string(artifact));
    if (!name) continue;
    const fs::path path = top / "raw" / commit / *name;
    std::error_code ec;
    // Queued first: once it says no, the file is written if it ever will be.
    if ((queued && queued(path)) || fs::is_regular_file(path, ec)) return *name;
  }
  return "";
}

// Where the TimeMap's links point: relative to sources/NAME/ (where every page of it lives),
// or absolute under the site's base URL.
struct TimeMapHrefs {
  std::string base, source;

  std::string page(std::size_t number) const {
    const std::string file =
        number == 0 ? std::string("timemap.link") : fmt::format("timemap-{}.link", number);
    return base.empty() ? file : base + "sources/" + source + "/" + file;
  }
  std::string memento(const MementoRow& row) const {
    return (base.empty() ? std::string("../../") : base) + "raw/" + row.commit + "/" + row.raw_name;
  }
};

std::vector<Memento> mementos_of(const std::vector<MementoRow>& rows, const TimeMapHrefs& hrefs) {
  std::vector<Memento> out;
  out.reserve(rows.size());
  for (const MementoRow& row : rows) out.push_back({hrefs.memento(row), row.observed_at});
  return out;
}

// Sealed page `number` (1 the oldest): it names the entry page and the page before it, never
// a later one, and no last memento, so its bytes never change.
std::string sealed_page(const std::vector<MementoRow>& rows, std::size_t number,
                        const MementoState& state, const std::string& original,
                        const TimeMapHrefs& hrefs) {
  TimeMapPage page;
  page.original = original;
  page.self = hrefs.page(number);
  page.pages.push_back({hrefs.page(0), "", ""});
  if (number > 1)
    page.pages.push_back(
        {hrefs.page(number - 1), state.sealed[number - 2].from, state.sealed[number - 2].until});
  page.mementos = mementos_of(rows, hrefs);
  page.holds_first = number == 1;
  return render_timemap(page);
}

std::string rows_text(const std::vector<MementoRow>& rows) {
  std::string out;
  for (const MementoRow& row : rows) out += row_fields(row);
  return out;
}

}  // namespace

std::string timemap_file(const std::string& source) {
  return "sources/" + source + "/timemap.link";
}

bool has_timemap(const fs::path& state_dir, const std::string& source) {
  std::error_code ec;
  return fs::exists(memento_state_dir(state_dir, source) / "state", ec);
}

Result<TimeMapReport> write_timemap(const fs::path& top, const fs::path& state_dir,
                                    const std::string& source, const std::string& original,
                                    const std::string& base, const SourceHistory* history,
                                    std::size_t page_size, const WriteFile& write) {
  page_size = std::max<std::size_t>(page_size, 1);
  TimeMapReport report;
  const fs::path own = memento_state_dir(state_dir, source);
  const fs::path state_path = own / "state";
  MementoState state = load_memento_state(state_path);
  const std::size_t old_pages = state.sealed.size();
  const bool new_base = state.base != base;
  const fs::path dir = top / "sources" / source;
  const TimeMapHrefs hrefs{base, source};
  if (auto ok = make_dirs(own); !ok) return ok.error();

  // Seals the oldest page_size mementos of the entry page: their rows to their file first
  // (a base URL that changes later rewrites the page from them), then the page, once.
  auto seal = [&]() -> Status {
    std::vector<MementoRow> rows(state.open.begin(),
                                 state.open.begin() + static_cast<std::ptrdiff_t>(page_size));
    state.open.erase(state.open.begin(),
                     state.open.begin() + static_cast<std::ptrdiff_t>(page_size));
    state.sealed.push_back({rows.front().observed_at, rows.back().observed_at});
    const std::size_t number = state.sealed.size();
    ++report.sealed;
    if (auto ok =
            write_file_replace((own / fmt::format("{}.tsv", number)).string(), rows_text(rows));
        !ok)
      return ok;
    return write(dir / fmt::format("timemap-{}.link", number),
                 sealed_page(rows, number, state, original, hrefs));
  };

  if (history) {
    const auto& versions = history->versions;
    std::size_t start = 0;
    bool found = false;
    for (std::size_t k = versions.size(); !state.tip.empty() && k-- > 0;)
      if (versions[k].commit == state.tip) {
        start = k + 1;
        found = true;
        break;
      }
    if (!found) {
      // New, or its last version left the branch (a reset): made again from the start; the
      // pages of the versions both histories share come out as they were.
      state = MementoState{};
      report.restarted = true;
    }
    state.base = base;
    for (std::size_t v = start; v < versions.size(); ++v) {
      if (v < history->blobs.size() && history->blobs[v].empty()) continue;  // removed
      std::string raw_name = raw_copy_on_site(top, versions[v].commit);
      if (raw_name.empty()) continue;
      state.open.push_back({versions[v].commit, versions[v].observed_at, std::move(raw_name)});
      ++report.added;
      // Sealed when one more arrives, version by version: a page holds the same mementos
      // however many versions each run brought, and the entry page always holds the last.
      while (state.open.size() > page_size)
        if (auto ok = seal(); !ok) return ok.error();
    }
    if (!versions.empty()) state.tip = versions.back().commit;
  }
  // A new base URL: every sealed page's links change, so each is written again from its rows.
  if (new_base && !report.restarted) {
    state.base = base;
    for (std::size_t n = 1; n <= state.sealed.size(); ++n) {
      std::vector<std::vector<std::string>> records;
      std::vector<MementoRow> rows;
      if (read_records(own / fmt::format("{}.tsv", n), records))
        for (const auto& f : records)
          if (auto row = parse_memento_row(f)) rows.push_back(std::move(*row));
      if (auto ok = write(dir / fmt::format("timemap-{}.link", n),
                          sealed_page(rows, n, state, original, hrefs));
          !ok)
        return ok.error();
      ++report.sealed;
    }
  }

  TimeMapPage entry;
  entry.original = original;
  entry.self = hrefs.page(0);
  for (std::size_t n = 1; n <= state.sealed.size(); ++n)
    entry.pages.push_back({hrefs.page(n), state.sealed[n - 1].from, state.sealed[n - 1].until});
  entry.mementos = mementos_of(state.open, hrefs);
  entry.holds_first = state.sealed.empty();
  entry.holds_last = true;
  if (auto ok = write(dir / "timemap.link", render_timemap(entry)); !ok) return ok.error();
  // Pages of a TimeMap made again that no longer has so many: they named versions that left.
  for (std::size_t n = state.sealed.size() + 1; report.restarted && n <= old_pages; ++n) {
    std::error_code ec;
    fs::remove(dir / fmt::format("timemap-{}.link", n), ec);
    fs::remove(own / fmt::format("{}.tsv", n), ec);
  }
  report.mementos = state.sealed.size() * page_size + state.open.size();
  // The state is the site's, not a page: not counted among the files written.
  const std::string text = memento_state_text(state);
  if (auto old = read_file(state_path.string()); !old || *old != text)
    if (auto ok = write_file_replace(state_path.string(), text); !ok) return ok.error();
  return report;
}

std::map<std::string, std::string> configured_urls(const Archive& archive) {
  std::map<std::string, std::string> out;
  if (auto toml = archive.read_head("feeddiff.toml"); toml && *toml)
    if (auto config = parse_config(**toml))
      for (const auto& s : config->sources) out[s.name] = redact_recorded_url(s.url);
  return out;
}

std::vector<std::pair<std::string, std::string>> memento_links(
    const fs::path& top, const std::string& source, const std::string& original,
    const SourceVersions& versions, const std::string& commit,
    const std::function<bool(const fs::path&)>& queued) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!original.empty()) out.emplace_back("original", original);
  out.emplace_back("timemap", "../" + timemap_file(source));
  const auto ordinal = versions.ordinal(commit);
  if (!ordinal) return out;
  const std::string first = versions.commit_at(0);
  if (const std::string raw = raw_copy_on_site(top, first, queued); !raw.empty())
    out.emplace_back("first memento", "../raw/" + first + "/" + raw);
  for (std::size_t k = *ordinal, looked = 0; k-- > 0 && looked++ < kPrevLookBack;) {
    const std::string prev = versions.commit_at(k);
    if (const std::string raw = raw_copy_on_site(top, prev, queued); !raw.empty()) {
      out.emplace_back("prev memento", "../raw/" + prev + "/" + raw);
      break;
    }
  }
  return out;
}

}  // namespace feeddiff::site
