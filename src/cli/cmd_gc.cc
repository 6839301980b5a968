// feeddiff gc: pack the archive with delta compression.

#include <fmt/format.h>

#include "cli/command.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

namespace {

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 20))
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  if (bytes >= 1024) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024);
  return fmt::format("{} bytes", bytes);
}

Result<int> gc(const Globals& globals, bool wait) {
  auto archive = open_archive(globals);
  if (!archive) return archive.error();
  auto lock = ArchiveLock::acquire(*archive, wait);
  if (!lock) return lock.error();
  auto report = archive->gc();
  if (!report) return report.error();
  const GcReport& r = *report;
  std::string out = fmt::format("Before: {} in {} and {}\n", size_text(r.bytes_before),
                                plural(r.packs_before, "pack", "packs"),
                                plural(r.loose_before, "loose object", "loose objects"));
  out += fmt::format("After:  {} in {}", size_text(r.bytes_after),
                     plural(r.packs_after, "pack", "packs"));
  if (r.loose_after)
    out += fmt::format(" and {}", plural(r.loose_after, "loose object", "loose objects"));
  out += fmt::format(" ({} objects", with_thousands(r.objects));
  if (r.bytes_after && r.bytes_after < r.bytes_before)
    out += fmt::format(", {:.1f}x smaller",
                       static_cast<double>(r.bytes_before) / static_cast<double>(r.bytes_after));
  out += ")\n";
  if (r.cache_files_removed)
    out += fmt::format("Removed {} that earlier versions kept in .git/feeddiff/cache\n",
                       plural(r.cache_files_removed, "file", "files"));
  write_out(out);
  return 0;
}

}  // namespace

Command gc_command(CLI::App& root, const Globals& globals) {
  auto* app = root.add_subcommand("gc", "Pack the archive with delta compression");
  auto wait = std::make_shared<bool>(false);
  app->add_flag("--wait", *wait, "Wait for a running poll instead of failing at once");
  app->footer(
      R"(Each poll writes its new versions as one pack, compressed quickly and without deltas
against earlier polls; past 50 packs a poll rolls the smallest up into one, as
`git repack --geometric=2` does, copying them as they are. gc rewrites everything into one
pack in which each version of a source is stored as a delta against another: a feed that
changes one item at a time shrinks many times over. The raw/ tree, which every change
rewrites in one entry, is stored whole once in 650 versions and as deltas at most 50 deep
otherwise. It prints the size of .git/objects before and after. It also deletes the files
earlier builds kept in .git/feeddiff/cache for each change (items/ and keys/: rows of
cache/entries.sqlite now).

What it keeps: everything reachable from a branch, tag, reflog or the index. Loose objects
nothing reaches are left for `git gc` to judge; packed ones (leftovers of a poll that was
killed before it moved the branch) go. Run it now and then, from cron after a poll:
  0 4 * * 0 feeddiff -C ~/feeds gc --wait)");
  return {app, [wait, &globals] { return gc(globals, *wait); }};
}

}  // namespace feeddiff::cli
