#!/usr/bin/python3
"""Writes the input pairs bench/diff times, into the directory given (deterministic: seeded).

  typical-20mb.{old,new}   a ~20 MB RSS feed, and the same with ~1% of its lines edited, 40
                           items published at the top and 40 dropped at the bottom
  worst-20mb.{old,new}     the same feed and a version where nearly every line changed (every
                           item field rewritten; only <item>, </item> and the channel head stay)
  shuffled-20mb.{old,new}  the feed and the same items in another order: every line is still
                           there, few are where they were (hard for any LCS search)
  alphabet-2mb.{old,new}   ~2 MB each of lines drawn at random from eight short lines: the
                           classic worst case of an O(ND) diff (git takes seconds on it)

The items are built from a real feed of the corpus (The Batch, ~225 KB), made unique per copy.
"""

import os
import random
import re
import sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus")
SEED_FEED = "history-olshansk-the-batch/0032.xml"
TARGET = 20 * 1024 * 1024


def load_items(path):
    text = open(path, encoding="utf-8").read()
    head, rest = text.split("    <item>\n", 1)
    items = re.findall(r"    <item>\n(.*?)    </item>\n", "    <item>\n" + rest, re.S)
    tail = "  </channel>\n</rss>\n"
    return head, items, tail


def build_feed(head, items, target, rng):
    """A list of lines (each with its '\n') of about `target` bytes, items made unique."""
    out = []
    size = sum(len(l) for l in head.splitlines(True))
    copy = 0
    while size < target:
        for body in items:
            copy += 1
            tag = f"{copy:06d}"
            lines = ["    <item>\n"]
            for line in body.splitlines(True):
                # Make every field of this copy distinct from the other copies.
                line = re.sub(r"(issue-\d+)", r"\1-" + tag, line)
                line = line.replace("</title>", f" (part {tag})</title>")
                line = line.replace("</description>", f" [{tag}]</description>")
                if "<pubDate>" in line:
                    day = 1 + copy % 28
                    hour = copy % 24
                    line = f"      <pubDate>Fri, {day:02d} May 2026 {hour:02d}:{copy % 60:02d}:00 +0000</pubDate>\n"
                lines.append(line)
            lines.append("    </item>\n")
            out.append(lines)
            size += sum(len(l) for l in lines)
            if size >= target:
                break
    return head.splitlines(True), out


def flatten(head, items, tail):
    lines = list(head)
    for item in items:
        lines.extend(item)
    lines.extend(tail.splitlines(True))
    return "".join(lines)


def write(dirname, name, old, new):
    with open(os.path.join(dirname, name + ".old"), "w", encoding="utf-8") as f:
        f.write(old)
    with open(os.path.join(dirname, name + ".new"), "w", encoding="utf-8") as f:
        f.write(new)


def main():
    dirname = sys.argv[1]
    os.makedirs(dirname, exist_ok=True)
    rng = random.Random(20260601)
    head_text, items, tail = load_items(os.path.join(CORPUS, SEED_FEED))
    head, feed = build_feed(head_text, items, TARGET, rng)
    old = flatten(head, feed, tail)

    # Typical: a rolling feed. New items on top, the oldest ones gone, 1% of lines edited.
    fresh = [[l.replace("-0", "-9", 1) for l in item] for item in feed[:40]]
    kept = [list(item) for item in feed[:-40]]
    for item in kept:
        for k in range(1, len(item) - 1):
            if rng.random() < 0.01:
                item[k] = item[k].replace("</", " (edited)</", 1)
    new_head = [l.replace("<lastBuildDate>Fri, 29", "<lastBuildDate>Sat, 30") for l in head]
    write(dirname, "typical-20mb", old, flatten(new_head, fresh + kept, tail))

    # Worst: every field of every item rewritten.
    rewritten = [[item[0]] + [l.replace("</", " (v2)</", 1) for l in item[1:-1]] + [item[-1]]
                 for item in feed]
    write(dirname, "worst-20mb", old, flatten(new_head, rewritten, tail))

    # Shuffled: the same items, in another order.
    shuffled = list(feed)
    rng.shuffle(shuffled)
    write(dirname, "shuffled-20mb", old, flatten(head, shuffled, tail))

    # Alphabet: random lines from a tiny set.
    alphabet = ["<item>\n", "</item>\n", "  <a>x</a>\n", "  <a>y</a>\n", "\n", "  <b/>\n",
                "<c>\n", "</c>\n"]
    n = 2 * 1024 * 1024 // 8
    write(dirname, "alphabet-2mb", "".join(rng.choice(alphabet) for _ in range(n)),
          "".join(rng.choice(alphabet) for _ in range(n)))


if __name__ == "__main__":
    main()
