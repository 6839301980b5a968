#!/usr/bin/python3
"""Reads a complete-history feed set as a subscriber would (RFC 5005 section 4.2), for the
site tests: from the current document back through prev-archive (Atom, with feedparser) or
next_url (JSON Feed), each item's newest version (an entry's atom:updated or a tombstone's
`when`, RFC 6721; the newer document on a tie). Prints one line per item id, sorted:
`ID<TAB>entry<TAB>TITLE`, `ID<TAB>backfilled<TAB>TITLE` (an entry from the publisher's archive:
its category, or its JSON `_feeddiff.origin`) or `ID<TAB>deleted<TAB>WHEN`, then `documents N`. Exits 1 on a
document feedparser finds ill-formed, an archive page without fh:archive, or a loop."""

import json
import os
import sys
import xml.etree.ElementTree as ET

import feedparser

TOMBSTONES = "{http://purl.org/atompub/tombstones/1.0}"
HISTORY = "{http://purl.org/syndication/history/1.0}"


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def kind_of(entry):
    """entry, or backfilled for an entry feedparser lists with the publisher-archive tag."""
    for tag in entry.get("tags", []):
        if tag.get("scheme") == "urn:feeddiff:origin" and tag.get("term") == "publisher-archive":
            return "backfilled"
    return "entry"


def read_atom(path):
    """(items, older path or None) of one Atom document; items are (id, time, kind, text)."""
    with open(path, "rb") as f:
        data = f.read()
    parsed = feedparser.parse(data)
    if parsed.bozo:
        fail(f"{path}: not well-formed: {parsed.bozo_exception}")
    root = ET.fromstring(data)
    is_archive = root.find(HISTORY + "archive") is not None
    if os.path.basename(path).startswith("archive-") != is_archive:
        fail(f"{path}: fh:archive is {'present' if is_archive else 'missing'}")
    items = [(e.id, e.updated, kind_of(e), e.title) for e in parsed.entries]
    for d in root.iter(TOMBSTONES + "deleted-entry"):
        items.append((d.get("ref"), d.get("when"), "deleted", d.get("when")))
    older = [l.href for l in parsed.feed.get("links", []) if l.rel == "prev-archive"]
    return items, (os.path.join(os.path.dirname(path), older[0]) if older else None)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("version") != "https://jsonfeed.org/version/1.1":
        fail(f"{path}: not JSON Feed 1.1")
    items = []
    for item in doc["items"]:
        deleted = item.get("_feeddiff", {}).get("deleted")
        if deleted:
            items.append((item["id"], deleted, "deleted", deleted))
        else:
            origin = item.get("_feeddiff", {}).get("origin")
            kind = "backfilled" if origin == "publisher-archive" else "entry"
            items.append((item["id"], item["date_modified"], kind, item.get("title", "")))
    older = doc.get("next_url")
    return items, (os.path.join(os.path.dirname(path), older) if older else None)


def main():
    kind, path = sys.argv[1], sys.argv[2]
    read = read_atom if kind == "atom" else read_json
    newest = {}  # id -> (time, kind, text); the first document read is the newest
    seen = set()
    documents = 0
    while path:
        real = os.path.realpath(path)
        if real in seen:
            fail(f"{path}: a loop in the links")
        seen.add(real)
        documents += 1
        items, path = read(path)
        for item_id, time, what, text in items:
            held = newest.get(item_id)
            if held is None or time > held[0]:
                newest[item_id] = (time, what, text)
    for item_id in sorted(newest):
        _, what, text = newest[item_id]
        print(f"{item_id}\t{what}\t{text}")
    print(f"documents {documents}")


main()
