// .git/feeddiff/articles/NAME.json: a source's article validators and recheck schedule.

#include "poll/article_book.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace feeddiff::articles {

namespace {

constexpr TimeMs kHour = 3'600'000;
constexpr TimeMs kYoung = 2 * 24 * kHour;  // rechecked every 6 h while younger than this

std::string book_path(const Archive& archive, const std::string& source) {
  return archive.private_dir() + "/articles/" + source + ".json";
}

template <class T>
void get_to(const nlohmann::json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

}  // namespace

Book load_book(const Archive& archive, const std::string& source) {
  Book book;
  auto text = read_file(book_path(archive, source));
  if (!text) return book;
  try {
    const auto j = nlohmann::json::parse(*text);
    get_to(j, "backlog", book.backlog);
    get_to(j, "feed_class", book.feed_class);
    for (const auto& [id, e] : j.at("articles").items()) {
      Entry& out = book.entries[id];
      get_to(e, "url", out.url);
      get_to(e, "etag", out.etag);
      get_to(e, "last_modified", out.last_modified);
      get_to(e, "first_seen", out.first_seen);
      get_to(e, "last_fetch", out.last_fetch);
      get_to(e, "next_due", out.next_due);
      get_to(e, "failures", out.failures);
      get_to(e, "result", out.result);
      get_to(e, "note", out.note);
    }
  } catch (const std::exception&) {
    return Book{};
  }
  return book;
}

Status save_book(const Archive& archive, const std::string& source, const Book& book) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::object();
  for (const auto& [id, e] : book.entries)
    entries[id] = {{"url", e.url},
                   {"etag", e.etag},
                   {"last_modified", e.last_modified},
                   {"first_seen", e.first_seen},
                   {"last_fetch", e.last_fetch},
                   {"next_due", e.next_due},
                   {"failures", e.failures},
                   {"result", e.result},
                   {"note", e.note}};
  nlohmann::ordered_json j = {{"version", 1},
                              {"backlog", book.backlog},
                              {"feed_class", book.feed_class},
                              {"articles", entries}};
  std::error_code ec;
  std::filesystem::create_directories(archive.private_dir() + "/articles", ec);
  // Invalid UTF-8 from a page (an ETag, a note) is replaced, not thrown.
  return write_file_atomic(book_path(archive, source),
                           j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

TimeMs next_recheck(TimeMs first_seen, TimeMs now, TimeMs until) {
  const TimeMs age = now - first_seen;
  if (age >= until) return 0;
  return now + (age < kYoung ? 6 * kHour : 24 * kHour);
}

}  // namespace feeddiff::articles
