// search.js: the one script of the site, run by search.html alone (its CSP allows this file
// and fetches of the site's own files). It splits the query as for_each_token splits item
// text, loads the manifest and, for each word, one term shard per segment, intersects, then
// loads the document shards of the newest 50 hits. Hits are built with createElement and
// textContent only: a title is feed text.

#include "site/site_search.h"

namespace feeddiff::site {

const char* const kSearchScript = R"js('use strict';
(function () {
  const MAX_TOKEN = 64, MAX_HITS = 50, MAX_WORDS = 16;
  const statusLine = document.getElementById('search-status');
  const list = document.getElementById('search-results');
  const input = document.getElementById('q');
  if (!statusLine || !list || !input) return;
  const say = (text) => { statusLine.textContent = text; };

  // Bytes that are ASCII letters or digits, or >= 0x80 (UTF-8 sequences stay whole).
  const wordByte = (b) => b >= 0x80 || (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

  // The query's words as the index's tokens: split at every other ASCII byte, ASCII letters
  // lowercased, runs over 64 bytes dropped. A '*' right after a word makes it a prefix.
  function parseQuery(q) {
    const bytes = new TextEncoder().encode(q);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const words = [];
    let run = [];
    for (let i = 0; i <= bytes.length; i++) {
      const b = i < bytes.length ? bytes[i] : 0x20;
      if (wordByte(b)) {
        run.push(b >= 0x41 && b <= 0x5a ? b + 0x20 : b);
        continue;
      }
      if (run.length > 0 && run.length <= MAX_TOKEN) {
        try {
          const term = decoder.decode(new Uint8Array(run));
          words.push({ term: term, shard: hex(run.slice(0, 2)), prefix: b === 0x2a,
                       length: run.length });
        } catch (e) {
          // not UTF-8: no token of the index is
        }
      }
      run = [];
    }
    return words;
  }

  const loaded = new Map();
  // A file of the site's as JSON; null for a shard that does not exist (no term of it).
  function getJson(path) {
    if (!loaded.has(path)) {
      loaded.set(path, fetch(path, { credentials: 'same-origin' }).then((r) => {
        if (r.status === 404) return null;
        if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
        return r.json();
      }));
    }
    return loaded.get(path);
  }

  // Documents of one segment holding the word: document -> 1 appeared, 2 gone (or both, for
  // a prefix).
  function postings(shard, word, docs) {
    const found = new Map();
    if (!shard) return found;
    const own = (k) => Object.prototype.hasOwnProperty.call(shard, k);
    const terms = word.prefix ? Object.keys(shard).filter((k) => k.startsWith(word.term))
                              : (own(word.term) ? [word.term] : []);
    for (const term of terms) {
      const list = shard[term];
      if (!Array.isArray(list)) continue;
      for (const p of list) {
        if (typeof p !== 'number') continue;
        const doc = Math.floor(p / 2);
        if (doc < docs) found.set(doc, (found.get(doc) || 0) | (p % 2 ? 2 : 1));
      }
    }
    return found;
  }

  function hitItem(row, kinds) {
    const li = document.createElement('li');
    const cells = Array.isArray(row) ? row.map((c) => String(c)) : [];
    const [id = '', source = '', title = '', , observed = ''] = cells;
    const name = document.createElement('strong');
    name.textContent = source;
    li.append(name, ': ');
    const label = title === '' ? '(untitled item)' : title;
    if (/^[0-9a-f]{40}$/.test(id)) {
      const a = document.createElement('a');
      a.href = 'changes/' + id + '.html';
      a.textContent = label;
      li.append(a);
    } else {
      li.append(label);
    }
    const what = kinds === 1 ? 'appeared' : kinds === 2 ? 'gone' : 'appeared and gone';
    const when = document.createElement('span');
    when.className = 'mono';
    when.textContent = ' · ' + what + ' ' + observed.slice(0, 16).replace('T', ' ') + ' UTC';
    li.append(when);
    return li;
  }

  async function search(q) {
    let words = parseQuery(q);
    const notes = [];
    if (q.includes('"')) notes.push('Quoted phrases are searched as all of their words.');
    if (words.length > MAX_WORDS) {
      words = words.slice(0, MAX_WORDS);
      notes.push('Only the first ' + MAX_WORDS + ' words were searched.');
    }
    if (words.length === 0) return say('Type the words to search for.');
    const short = words.find((w) => w.prefix && w.length < 2);
    if (short) return say('A prefix needs two characters at least: ' + short.term + '*');
    say('Searching...');
    const manifest = await getJson('search/manifest.json');
    if (!manifest) return say('This site has no search index yet: run feeddiff site again.');
    if (manifest.format !== 1 || !Array.isArray(manifest.segments))
      return say('This search index has a format this page does not read.');
    const segments = manifest.segments.filter((s) => /^seg-[0-9]+$/.test(String(s.dir)));
    const shards = await Promise.all(segments.map((s) => Promise.all(
        words.map((w) => getJson('search/' + s.dir + '/t/' + w.shard + '.json')))));
    const hits = [];
    segments.forEach((segment, i) => {
      let matched = null;
      words.forEach((w, j) => {
        const found = postings(shards[i][j], w, Number(segment.docs) || 0);
        if (matched === null) { matched = found; return; }
        const both = new Map();
        for (const [doc, kinds] of matched)
          if (found.has(doc)) both.set(doc, kinds | found.get(doc));
        matched = both;
      });
      const docs = Array.from(matched.keys()).sort((a, b) => b - a);
      for (const doc of docs) hits.push({ segment: segment, doc: doc, kinds: matched.get(doc) });
    });
    const shown = hits.slice(0, MAX_HITS);
    const size = Number(manifest.shard_docs) || 1000;
    const rows = await Promise.all(shown.map((h) =>
        getJson('search/' + h.segment.dir + '/d/' + Math.floor(h.doc / size) + '.json')
            .then((d) => (Array.isArray(d) ? d[h.doc % size] : null))));
    list.textContent = '';
    shown.forEach((h, i) => list.append(hitItem(rows[i], h.kinds)));
    const count = hits.length === 0 ? 'No match: no item gained or lost all of these words.'
        : hits.length + (hits.length === 1 ? ' hit' : ' hits') +
          (hits.length > MAX_HITS ? ', the newest ' + MAX_HITS + ' listed.' : ', newest first.');
    say([count].concat(notes).join(' '));
  }

  const q = new URLSearchParams(window.location.search).get('q') || '';
  input.value = q;
  if (window.location.protocol === 'file:')
    return say('Search reads the index with fetch, which a page opened as a file cannot: ' +
               'serve the site over http(s), for example with python3 -m http.server in ' +
               'its directory.');
  if (q === '') return say('Type the words to search for.');
  search(q).catch((e) => say('The search index could not be read: ' + e.message));
})();
)js";

}  // namespace feeddiff::site
