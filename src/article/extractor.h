#pragma once
// The extractor's steps as one class, shared by the files that hold them: extract.cc walks,
// scores and picks, clean.cc cleans what was picked. Not part of the contract.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "article/internal.h"

namespace feeddiff::article_detail {

// How far up an enclosing table, code or figure protects an element: a layout table around
// the whole page protects nothing.
inline constexpr int kNearAncestor = 4;

struct Flags {
  bool strip_unlikely = true;
  bool weight_classes = true;
  bool clean_conditionally = true;
};

class Extractor {
 public:
  Extractor(Tree& tree, Flags flags, std::string_view title)
      : t_(tree), flags_(flags), title_(title) {}

  std::vector<NodeId> run(std::string& byline);

 private:
  bool visible(NodeId id) const;
  bool phrasing(NodeId id) const;
  bool has_block_child(NodeId id) const;
  void wrap_phrasing_runs(NodeId div);
  NodeId next_significant(const std::vector<NodeId>& children, std::size_t from) const;
  void replace_brs();
  int class_weight(NodeId id) const;
  void initialize(NodeId id);
  double link_density(NodeId id) const;
  std::vector<NodeId> pick(const std::vector<NodeId>& to_score);
  bool video_player(NodeId id) const;
  void mark_video(NodeId id);
  bool data_table(NodeId id) const;
  bool judge_table(NodeId id) const;
  bool remove_conditionally(NodeId id, std::string_view tag) const;
  void clean(const std::vector<NodeId>& roots);

  Tree& t_;
  Flags flags_;
  std::string_view title_;
  mutable std::vector<signed char> data_tables_;  // by node: -1 not judged yet, 0 or 1
  std::vector<bool> holds_video_;                 // by node: an ancestor of a video player
};

}  // namespace feeddiff::article_detail
