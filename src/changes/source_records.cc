#include "feeddiff/changes.h"

#include <fmt/format.h>

#include "feeddiff/core.h"

namespace feeddiff {

SourceRecords SourceRecords::load(const Archive& archive, std::string_view kind,
                                  std::string_view source,
                                  const std::vector<std::string>& commits) {
  SourceRecords out(source_cache_name(kind, source),
                    fmt::format("feeddiff {} 1 {}\n", kind, version()));
  auto text = archive.cache_read(out.name_);
  if (!text || !text->starts_with(out.header_)) return out;
  std::vector<std::string> fields;
  std::size_t at = out.header_.size();
  while (at < text->size()) {
    const std::size_t nl = text->find('\n', at);
    if (nl == std::string::npos) return out;  // cut short
    const std::string_view line = std::string_view(*text).substr(at, nl - at);
    at = nl + 1;
    if (!split_tab_fields(line, fields) || fields.size() < 2) return out;
    const std::size_t k = out.records_.size();
    if (k >= commits.size() || fields[1] != commits[k]) return out;
    out.records_.push_back(fields);
    out.on_disk_ = out.records_.size();
  }
  out.whole_ = true;
  return out;
}

void SourceRecords::keep(std::size_t n) {
  if (n >= records_.size()) return;
  records_.resize(n);
  if (n < on_disk_) {
    on_disk_ = n;
    whole_ = false;
  }
}

void SourceRecords::add(std::vector<std::string> fields) {
  records_.push_back(std::move(fields));
}

void SourceRecords::save(const Archive& archive) const {
  if (whole_ && on_disk_ == records_.size()) return;
  auto lines = [this](std::size_t from) {
    std::string text;
    for (std::size_t k = from; k < records_.size(); ++k) {
      const auto& fields = records_[k];
      text += fields.empty() ? std::string() : fields.front();
      for (std::size_t i = 1; i < fields.size(); ++i) append_tab_field(text, fields[i]);
      text += '\n';
    }
    return text;
  };
  if (whole_)
    archive.cache_append(name_, lines(on_disk_));
  else
    archive.cache_write(name_, header_ + lines(0));
}

}  // namespace feeddiff
