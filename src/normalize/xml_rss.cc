// RSS 0.9x, 2.0 and 1.0 (RDF): the channel's fields and items.

#include <string>
#include <string_view>

#include "normalize/xml_model.h"

namespace feeddiff::normalize_detail {
namespace {

bool rss_core(std::string_view uri) {
  return uri.empty() || uri == kRss10 || uri == kRss090 ||
         uri == "http://backend.userland.com/rss2" ||
         uri == "http://blogs.law.harvard.edu/tech/rss" || uri == "http://backend.userland.com/rss";
}

}  // namespace

Item FeedModel::rss_item(pugi::xml_node item) {
  Item it;
  const std::size_t pushed = tree_.push_scope(item);
  std::string guid, about(trim_space(sv(item.attribute("rdf:about").value())));
  std::string dc_date, atom_id, atom_link, dc_title, dc_description;
  for (pugi::xml_node c = item.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    const std::size_t p2 = tree_.push_scope(c);
    const Name n = tree_.name_of(c);
    bool used = true;
    if (rss_core(n.uri)) {
      if (n.local == "title" && it.title.empty())
        it.title = title_of(c, false);
      else if (n.local == "link" && it.link.empty())
        it.link = text_of(c);
      else if (n.local == "guid" && guid.empty())
        guid = text_of(c);
      else if (n.local == "pubDate" && it.published.empty())
        it.published = text_of(c);
      else if (n.local == "description" && it.summary.empty())
        it.summary = text_of(c);
      else if (n.local == "author")
        it.authors.push_back(text_of(c));
      else if (n.local == "category")
        it.categories.push_back(text_of(c));
      else if (n.local == "enclosure")
        it.enclosures.push_back(enclosure_of(c, "url"));
      else
        used = false;
    } else if (n.uri == kDc) {
      if (n.local == "creator" || n.local == "author")
        it.authors.push_back(text_of(c));
      else if (n.local == "date" && dc_date.empty())
        dc_date = text_of(c);
      else if (n.local == "subject")
        it.categories.push_back(text_of(c));
      else if (n.local == "title" && dc_title.empty())
        dc_title = text_of(c);
      else if (n.local == "description" && dc_description.empty())
        dc_description = text_of(c);
      else
        used = false;
    } else if (n.uri == kContent && n.local == "encoded" && it.content.empty()) {
      it.content = text_of(c);
    } else if (n.uri == kAtom10 || n.uri == kAtom03) {
      if (n.local == "link") {
        const std::string_view rel = sv(c.attribute("rel").value());
        if (rel == "enclosure")
          it.enclosures.push_back(enclosure_of(c, "href"));
        else if ((rel.empty() || rel == "alternate") && atom_link.empty())
          atom_link = atom_href(c);
        else
          used = false;
      } else if (n.local == "id" && atom_id.empty()) {
        atom_id = text_of(c);
      } else if (n.local == "updated" && it.updated.empty()) {
        it.updated = text_of(c);
      } else {
        used = false;
      }
    } else if (n.uri == kDcTerms && n.local == "modified" && it.updated.empty()) {
      it.updated = text_of(c);
    } else {
      used = false;
    }
    tree_.pop_scope(p2);
    if (!used) add_fields(it.extra, c, "", false);
  }
  if (it.published.empty()) it.published = dc_date;
  if (it.title.empty()) it.title = dc_title;
  if (it.summary.empty()) it.summary = dc_description;
  if (it.link.empty()) it.link = atom_link;
  it.id = !guid.empty() ? guid : !atom_id.empty() ? atom_id : about;
  assign_fallback_id(it);
  tree_.pop_scope(pushed);
  return it;
}

void FeedModel::walk_rss(Feed& feed, pugi::xml_node root) {
  const std::string_view version = trim_space(sv(root.attribute("version").value()));
  feed.format = version == "2.0" || version == "2.00" ? "rss2.0"
                : version.empty()                     ? "rss"
                                                      : "rss" + std::string(version);
  if (feed.format.size() > 12) feed.format = "rss";
  // Items belong to the channel; a wrapper rss/channel around a second feed (as some
  // mirrors serve) is looked through.
  pugi::xml_node channel;
  elements(root, "channel", [&](pugi::xml_node c) {
    if (!channel) channel = c;
  });
  if (channel) {
    const std::size_t pc = tree_.push_scope(channel);
    bool any = false;
    elements(channel, "item", [&](pugi::xml_node) { any = true; });
    pugi::xml_node inner;
    if (!any) elements(channel, "rss", [&](pugi::xml_node c) { inner = c; });
    if (inner) {
      const std::size_t pi = tree_.push_scope(inner);
      pugi::xml_node ic;
      elements(inner, "channel", [&](pugi::xml_node c) {
        if (!ic) ic = c;
      });
      if (ic) {
        const std::size_t pj = tree_.push_scope(ic);
        channel_fields(feed, ic, "item");
        elements(ic, "item", [&](pugi::xml_node c) {
          if (keep_item(feed)) feed.items.push_back(rss_item(c));
        });
        tree_.pop_scope(pj);
      }
      tree_.pop_scope(pi);
    } else {
      channel_fields(feed, channel, "item");
      elements(channel, "item", [&](pugi::xml_node c) {
        if (keep_item(feed)) feed.items.push_back(rss_item(c));
      });
    }
    tree_.pop_scope(pc);
  }
  // RSS 0.9x feeds in the wild sometimes put items beside the channel.
  elements(root, "item", [&](pugi::xml_node c) {
    if (keep_item(feed)) feed.items.push_back(rss_item(c));
  });
}

void FeedModel::walk_rdf(Feed& feed, pugi::xml_node root) {
  std::string_view def;
  tree_.resolve({}, def);
  feed.format = def == kRss090 ? "rss0.90" : "rss1.0";
  elements(root, "channel", [&](pugi::xml_node c) { channel_fields(feed, c, "item"); });
  elements(root, "item", [&](pugi::xml_node c) {
    if (keep_item(feed)) feed.items.push_back(rss_item(c));
  });
}

}  // namespace feeddiff::normalize_detail
