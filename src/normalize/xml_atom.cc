// Atom 1.0 and 0.3, feed and entry documents: the feed's fields and entries.

#include <string>
#include <string_view>

#include "normalize/xml_model.h"

namespace feeddiff::normalize_detail {

std::string FeedModel::person_of(pugi::xml_node e) {
  std::string email;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    const Name n = tree_.name_of(c);
    if (n.local == "name") {
      std::string v = text_of(c);
      if (!v.empty()) return v;
    } else if (n.local == "email" && email.empty()) {
      email = text_of(c);
    }
  }
  return email.empty() ? text_of(e) : email;
}

Item FeedModel::atom_entry(pugi::xml_node entry) {
  Item it;
  const std::size_t pushed = tree_.push_scope(entry);
  for (pugi::xml_node c = entry.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    const std::size_t p2 = tree_.push_scope(c);
    const Name n = tree_.name_of(c);
    bool used = true;
    if (tree_.in_atom(n)) {
      if (n.local == "id" && it.id.empty())
        it.id = text_of(c);
      else if (n.local == "title" && it.title.empty())
        it.title = title_of(c, true);
      else if (n.local == "link") {
        const std::string_view rel = sv(c.attribute("rel").value());
        if (rel == "enclosure")
          it.enclosures.push_back(enclosure_of(c, "href"));
        else if ((rel.empty() || rel == "alternate") && it.link.empty())
          it.link = atom_href(c);
        else
          used = false;
      } else if ((n.local == "published" || n.local == "issued") && it.published.empty())
        it.published = text_of(c);
      else if ((n.local == "updated" || n.local == "modified") && it.updated.empty())
        it.updated = text_of(c);
      else if (n.local == "author")
        it.authors.push_back(person_of(c));
      else if (n.local == "category") {
        std::string term(trim_space(sv(c.attribute("term").value())));
        it.categories.push_back(term.empty() ? text_of(c) : term);
      } else if (n.local == "summary" && it.summary.empty())
        it.summary = atom_text(c);
      else if (n.local == "content" && it.content.empty())
        it.content = atom_text(c);
      else if (n.local == "source" && tree_.entry_doc() &&
               entry == tree_.doc().document_element()) {
        // An entry document's source is its channel (see walk).
      } else
        used = false;
    } else if (n.uri == kDc && n.local == "creator") {
      it.authors.push_back(text_of(c));
    } else if (n.uri == kDc && n.local == "subject") {
      it.categories.push_back(text_of(c));
    } else {
      used = false;
    }
    tree_.pop_scope(p2);
    if (!used) add_fields(it.extra, c, "", false);
  }
  assign_fallback_id(it);
  tree_.pop_scope(pushed);
  return it;
}

void FeedModel::walk_atom(Feed& feed, pugi::xml_node root, const Name& rn) {
  feed.format =
      rn.uri == kAtom03 || sv(root.attribute("version").value()) == "0.3" ? "atom0.3" : "atom1.0";
  channel_fields(feed, root, "entry");
  elements(root, "entry", [&](pugi::xml_node c) {
    if (keep_item(feed)) feed.items.push_back(atom_entry(c));
  });
}

void FeedModel::walk_entry(Feed& feed, pugi::xml_node root, const Name& rn) {
  feed.format = rn.uri == kAtom03 ? "atom0.3-entry" : "atom1.0-entry";
  // The channel is what the entry says of its feed (atom:source), if anything.
  bool source = false;
  elements(root, "source", [&](pugi::xml_node c) {
    if (source || !tree_.in_atom(tree_.name_of(c))) return;
    source = true;
    channel_fields(feed, c, {});
  });
  if (keep_item(feed)) feed.items.push_back(atom_entry(root));
}

}  // namespace feeddiff::normalize_detail
