// Rendering of change-history entries and RRset diffs, shared by the
// zone page, the history page and the overview.

import { h } from './dom.js';
import { lines, relName } from './rrsets.js';

// rrsetDiff shows one RRset before and after: removed lines, then added.
export function rrsetDiff(d, zone) {
  const before = lines(d.before);
  const after = lines(d.after);
  const gone = before.filter((l) => !after.includes(l));
  const come = after.filter((l) => !before.includes(l));
  const kept = after.filter((l) => before.includes(l));
  return h('div', { class: 'rrdiff' },
    h('div', { class: 'rrname' }, `${zone ? relName(d.name, zone) : d.name} ${d.type}`,
      h('span', { class: 'what' }, !d.before ? ' (new)' : !d.after ? ' (deleted)' : ' (changed)')),
    h('ul', { class: 'lines' },
      gone.map((l) => h('li', { class: 'del' }, h('span', { class: 'sr' }, 'removed: '), '− ' + l)),
      kept.map((l) => h('li', { class: 'same' }, h('span', { class: 'sr' }, 'unchanged: '), '  ' + l)),
      come.map((l) => h('li', { class: 'add' }, h('span', { class: 'sr' }, 'added: '), '+ ' + l))));
}

// entryDiffs turns a history entry's added and removed groups into
// RRset diffs.
export function entryDiffs(entry) {
  const m = new Map();
  const at = (g) => {
    const k = g.name.toLowerCase() + ' ' + g.type;
    if (!m.has(k)) m.set(k, { name: g.name, type: g.type, before: { ttl: g.ttl, type: g.type, values: [] }, after: { ttl: g.ttl, type: g.type, values: [] } });
    return m.get(k);
  };
  for (const g of entry.removed || []) { const d = at(g); d.before = { ttl: g.ttl, type: g.type, values: g.records }; }
  for (const g of entry.added || []) { const d = at(g); d.after = { ttl: g.ttl, type: g.type, values: g.records }; }
  // The entry lists only what changed: the records on both sides are the
  // ones removed and added.
  return [...m.values()].map((d) => ({ ...d, before: d.before.values.length ? d.before : null, after: d.after.values.length ? d.after : null }));
}

// zoneHref is the console's page of a zone, in its view if it has one
// (the default view's zones have none).
export function zoneHref(zone, view) {
  return '#/zones/' + encodeURIComponent(zone) + (view ? '/records?view=' + encodeURIComponent(view) : '');
}

// entryView shows one change: when, who, through what, and its diff.
export function entryView(entry, { showZone = true, actions = null } = {}) {
  const when = new Date(entry.time);
  return h('li', { class: 'change', 'data-id': entry.id },
    h('div', { class: 'meta' },
      h('time', { datetime: entry.time }, when.toLocaleString()),
      showZone ? h('a', { href: zoneHref(entry.zone, entry.view) }, entry.zone, entry.view ? h('span', { class: 'view' }, ` (${entry.view})`) : null) : null,
      h('span', { class: 'type' }, entry.type),
      h('span', { class: 'by' }, entry.source === 'external' ? 'external (found in named)' : `${entry.identity || ''} via ${entry.frontend || 'api'}`),
      entry.serial_after ? h('span', { class: 'serial' }, `serial ${entry.serial_before ?? '–'} → ${entry.serial_after}`) : null,
      actions),
    entryDiffs(entry).map((d) => rrsetDiff(d, null)));
}

// readLast returns the last n entries of a change list (oldest first)
// without reading the history from its start. The lists are in id order
// and take a cursor (the id after which to start): the last id is found
// by doubling, then halving, a cursor with one entry a request (about
// 2·log2 of the last id requests); then the entries after ever earlier
// cursors (n, 2n, 4n … ids back) are read until n are found.
export async function readLast(request, path, n) {
  const sep = path.includes('?') ? '&' : '?';
  const page = (cursor, limit) => request('GET', `${path}${sep}limit=${limit}${cursor > 0 ? '&cursor=' + cursor : ''}`);
  const any = async (c) => (await page(c, 1)).changes.length > 0;
  if (!(await any(0))) return [];
  let lo = 0; // some entry after lo
  let hi = 1;
  while (await any(hi)) { lo = hi; hi *= 2; }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await any(mid)) lo = mid; else hi = mid;
  }
  const last = hi; // the last id: nothing after it, something after last-1
  for (let back = n; ; back *= 2) {
    const from = Math.max(0, last - back);
    let cursor = from;
    let got = [];
    for (;;) {
      const p = await page(cursor, 1000);
      got = got.concat(p.changes).slice(-n);
      if (!p.next_cursor || !p.changes.length) break;
      cursor = p.next_cursor;
    }
    if (got.length >= n || from === 0) return got;
  }
}
