#!/usr/bin/python3
"""Compares feeddiff's items with python3-feedparser's on every feed of the corpus.

For each file: item count, and per item its identity (feedparser's id, else link, as
feeddiff falls back) and title. Builds tools/items_dump.cc against a release build first
(until `feeddiff items --json` exists). Run with /usr/bin/python3 (it has feedparser).

  [BUILD=build/release] tools/compare_feedparser.py [--list] [CORPUS]

BUILD is the (Release) build directory to build the normalize library and items_dump in.

Prints agreement percentages for the well-formed files (feedparser bozo == 0 and
feeddiff parses) and for feedparser-tests/encoding; --list prints every disagreement.
Known disagreements and their reasons are in tools/feedparser-disagreements.tsv.
"""
import html
import json
import re
import os
import subprocess
import sys
import warnings

import feedparser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTS = ('.xml', '.rss', '.atom', '.rdf', '.json')


def build():
    out = os.path.join(ROOT, os.environ.get('BUILD') or 'build/release')
    subprocess.run(['cmake', '-S', ROOT, '-B', out, '-G', 'Ninja',
                    '-DCMAKE_BUILD_TYPE=Release', '-DFEEDDIFF_TESTS=OFF'],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(['cmake', '--build', out, '-j2', '--target',
                    'feeddiff_normalize', 'feeddiff_core'], check=True, stdout=subprocess.DEVNULL)
    exe = f'{out}/items_dump'
    subprocess.run(['g++', '-std=c++20', '-O2', f'-I{ROOT}/include',
                    f'{ROOT}/tools/items_dump.cc',
                    f'{out}/libfeeddiff_normalize.a',
                    f'{out}/libfeeddiff_core.a', '-lpugixml', '-o', exe],
                   check=True)
    return exe


def feeds(corpus):
    for d, _, files in os.walk(corpus):
        for f in sorted(files):
            if not f.endswith(EXTS):
                continue
            path = os.path.join(d, f)
            if f.endswith('.json'):
                with open(path, 'rb') as fh:
                    if b'jsonfeed.org/version' not in fh.read():
                        continue  # parser test expectations, not feeds
            yield path


def ours(exe, paths):
    out = {}
    for i in range(0, len(paths), 200):
        r = subprocess.run([exe] + paths[i:i + 200], capture_output=True, check=True)
        for line in r.stdout.decode('utf-8', 'replace').splitlines():
            j = json.loads(line)
            if 'items' in j or 'error' in j:
                out[j['file']] = {'error': j.get('error'), 'items': []}
            else:
                out[j['file']]['items'].append((j['id'], j['title']))
    return out


def as_text(title):
    """A title as plain text: feedparser keeps (sanitized) markup in titles, feeddiff keeps
    text; compare what a reader sees."""
    t = re.sub(r'<[^>]*>', ' ', title)
    return ' '.join(html.unescape(t).split())


def theirs(path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            d = feedparser.parse(path)
        except Exception as e:  # feedparser itself crashes on a few inputs
            return None, repr(e)
    items = []
    for e in d.entries:
        ident = e.get('id') or e.get('link') or ''
        items.append((ident.strip(), (e.get('title') or '').strip()))
    return bool(d.bozo), items


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    listing = '--list' in sys.argv
    corpus = args[0] if args else os.path.join(ROOT, '..', 'shared', 'corpus')
    corpus = os.path.normpath(corpus)
    exe = build()
    paths = list(feeds(corpus))
    mine = ours(exe, paths)
    total = agree = wf = wf_agree = enc = enc_agree = crashed = 0
    for p in paths:
        rel = os.path.relpath(p, corpus)
        bozo, their_items = theirs(p)
        m = mine[p]
        if bozo is None:
            crashed += 1
            if listing:
                print(f'{rel}\tfeedparser-crash\t{their_items[:200]}')
            continue
        if m['error']:
            same = len(their_items) == 0
            why = 'feeddiff: ' + m['error']
        else:
            my_ids = [(i, t) for i, t in m['items']]
            # feeddiff gives an id to every item (hash fallback); feedparser leaves it empty.
            norm = [(i if ti else '', as_text(t)) for (i, t), (ti, _) in zip(my_ids, their_items)]
            their_items = [(i, as_text(t)) for i, t in their_items]
            same = len(my_ids) == len(their_items) and norm == their_items
            why = f'count {len(my_ids)} vs {len(their_items)}'
            if len(my_ids) == len(their_items):
                for a, b in zip(norm, their_items):
                    if a != b:
                        why = f'first difference: ours {a!r} theirs {b!r}'
                        break
        total += 1
        agree += same
        if not bozo and not m['error']:
            wf += 1
            wf_agree += same
        if rel.startswith('feedparser-tests/encoding/'):
            enc += 1
            enc_agree += same
        if listing and not same:
            print(f'{rel}\t{"bozo" if bozo else "wellformed"}\t{why[:300]}')
    print(f'feedparser crashed on {crashed} files (left out)', file=sys.stderr)
    print(f'all files: {agree}/{total} agree ({100.0 * agree / total:.1f}%)', file=sys.stderr)
    print(f'well-formed: {wf_agree}/{wf} agree ({100.0 * wf_agree / max(wf, 1):.1f}%)',
          file=sys.stderr)
    print(f'feedparser-tests/encoding: {enc_agree}/{enc} agree '
          f'({100.0 * enc_agree / max(enc, 1):.1f}%)', file=sys.stderr)


if __name__ == '__main__':
    main()
