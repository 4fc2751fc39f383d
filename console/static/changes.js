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

// entryView shows one change: when, who, through what, and its diff.
export function entryView(entry, { showZone = true, actions = null } = {}) {
  const when = new Date(entry.time);
  return h('li', { class: 'change', 'data-id': entry.id },
    h('div', { class: 'meta' },
      h('time', { datetime: entry.time }, when.toLocaleString()),
      showZone ? h('a', { href: '#/zones/' + encodeURIComponent(entry.zone) }, entry.zone) : null,
      h('span', { class: 'type' }, entry.type),
      h('span', { class: 'by' }, entry.source === 'external' ? 'external (found in named)' : `${entry.identity || ''} via ${entry.frontend || 'api'}`),
      entry.serial_after ? h('span', { class: 'serial' }, `serial ${entry.serial_before ?? '–'} → ${entry.serial_after}`) : null,
      actions),
    entryDiffs(entry).map((d) => rrsetDiff(d, null)));
}

// readAll reads a change list to its end (oldest first) and returns the
// last n entries and the last id; at most pages pages are read.
export async function readLast(request, path, n, pages = 50) {
  let cursor = '';
  let all = [];
  for (let i = 0; i < pages; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await request('GET', `${path}${sep}limit=1000${cursor ? '&cursor=' + cursor : ''}`);
    all = all.concat(page.changes).slice(-n);
    if (!page.next_cursor || !page.changes.length) break;
    cursor = page.next_cursor;
  }
  return all;
}
