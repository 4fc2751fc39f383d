// RRsets, change sets and their diffs: the console's model of a zone's
// records. A change set maps an RRset (owner name and type) to what it
// becomes: its TTL and values, or no values for a deleted RRset.

// canon is an owner name in the form the console compares: lower case,
// without the trailing dot.
export function canon(name) { return String(name).toLowerCase().replace(/\.$/, ''); }

// key identifies an RRset.
export function key(name, type) { return canon(name) + ' ' + String(type).toUpperCase(); }

// absName reads a name typed in a form: @ or empty is the apex, a trailing
// dot is absolute, anything else is relative to the zone.
export function absName(input, zone) {
  const n = String(input).trim();
  if (n === '' || n === '@') return canon(zone);
  if (n.endsWith('.')) return canon(n);
  const z = canon(zone);
  const c = canon(n);
  return c === z || c.endsWith('.' + z) ? c : c + '.' + z;
}

// relName shows an owner name relative to the zone (@ for the apex).
export function relName(name, zone) {
  const n = canon(name);
  const z = canon(zone);
  if (n === z) return '@';
  return n.endsWith('.' + z) ? n.slice(0, -z.length - 1) : n + '.';
}

// snapshot builds the map of RRsets of a records read.
export function snapshot(rrsets) {
  const m = new Map();
  for (const r of rrsets) m.set(key(r.name, r.type), { name: canon(r.name), type: r.type.toUpperCase(), ttl: r.ttl, values: [...r.values] });
  return m;
}

function sameSet(a, b) {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((v) => s.has(v));
}

// same tells whether two RRsets (or their absence) are equal.
export function same(a, b) {
  if (!a || !a.values.length) return !b || !b.values.length;
  if (!b || !b.values.length) return false;
  return a.ttl === b.ttl && sameSet(a.values, b.values);
}

// diff lists, per RRset of the change set, what it is in base and what
// the change set makes it: [{key, name, type, before, after}], without the
// RRsets the change set leaves as they are.
export function diff(base, staged) {
  const out = [];
  for (const [k, after] of staged) {
    const before = base.get(k) || null;
    if (same(before, after)) continue;
    out.push({ key: k, name: after.name, type: after.type, before, after: after.values.length ? after : null });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

// changedBetween lists the RRsets that differ between two snapshots.
export function changedBetween(a, b) {
  const out = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k) || null;
    const y = b.get(k) || null;
    if (!same(x, y)) out.push({ key: k, name: (x || y).name, type: (x || y).type, before: x, after: y });
  }
  return out.sort((p, q) => p.key.localeCompare(q.key));
}

// batch is the body of PATCH /zones/{name}/records for the change set,
// applied by the API as one UPDATE: an RRset deleted is a delete, one
// whose TTL changes a replace, any other the removes and adds of the
// records that differ (so that what is kept is not touched, and the
// history records exactly the records removed and added). owner[i] is
// the index in diff(base, staged) of the RRset of changes[i].
export function batch(base, staged) {
  const changes = [];
  const owner = [];
  for (const [i, d] of diff(base, staged).entries()) {
    const n = changes.length;
    const name = d.name + '.';
    if (!d.after) {
      changes.push({ op: 'delete', name, type: d.type });
    } else if (d.before && d.before.ttl !== d.after.ttl) {
      changes.push({ op: 'replace', name, type: d.type, ttl: d.after.ttl, values: d.after.values });
    } else {
      const before = d.before ? d.before.values : [];
      for (const v of before) if (!d.after.values.includes(v)) changes.push({ op: 'remove', name, type: d.type, value: v });
      for (const v of d.after.values) if (!before.includes(v)) changes.push({ op: 'add', name, type: d.type, ttl: d.after.ttl, value: v });
    }
    for (let j = n; j < changes.length; j++) owner.push(i);
  }
  return { body: { changes }, owner };
}

// lines is the diff's text form of one side: one line per record.
export function lines(rr) {
  return rr ? rr.values.map((v) => `${rr.ttl} ${rr.type} ${v}`) : [];
}

// inverse builds the change set that undoes a history entry on top of
// the zone as base holds it. It returns {staged, problems}: a problem for
// every RRset that has moved on since the entry (a record the entry added
// is gone, or one it removed is back), in which case nothing is staged.
export function inverse(entry, base) {
  const groups = new Map();
  const at = (g) => {
    const k = key(g.name, g.type);
    if (!groups.has(k)) groups.set(k, { name: canon(g.name), type: g.type.toUpperCase(), added: null, removed: null });
    return groups.get(k);
  };
  for (const g of entry.added || []) at(g).added = g;
  for (const g of entry.removed || []) at(g).removed = g;
  const staged = new Map();
  const problems = [];
  for (const [k, g] of groups) {
    const cur = base.get(k);
    const now = cur ? cur.values : [];
    const added = g.added ? g.added.records : [];
    const removed = g.removed ? g.removed.records : [];
    if (g.removed && !removed.length && g.removed.ttl === 0) {
      problems.push(`${g.name} ${g.type}: the change did not record the records it removed`);
      continue;
    }
    const gone = added.filter((v) => !now.includes(v));
    const back = removed.filter((v) => !added.includes(v) && now.includes(v));
    if (gone.length || back.length) {
      problems.push(`${g.name} ${g.type} has changed since: ` +
        [gone.length ? `${gone.join(', ')} no longer there` : '', back.length ? `${back.join(', ')} there again` : ''].filter(Boolean).join('; '));
      continue;
    }
    const values = now.filter((v) => !added.includes(v)).concat(removed);
    const ttl = g.removed ? g.removed.ttl : cur ? cur.ttl : g.added.ttl;
    staged.set(k, { name: g.name, type: g.type, ttl, values: [...new Set(values)] });
  }
  return { staged: problems.length ? new Map() : staged, problems };
}

// toText renders the RRsets (without the SOA, which named maintains) as
// zone-file lines: name relative to the zone, TTL, type, data.
export function toText(base, zone) {
  const out = [];
  for (const r of [...base.values()].sort((a, b) => key(a.name, a.type).localeCompare(key(b.name, b.type)))) {
    if (r.type === 'SOA') continue;
    for (const v of r.values) out.push(`${relName(r.name, zone)}\t${r.ttl}\t${r.type}\t${v}`);
  }
  return out.join('\n') + '\n';
}

// fromText reads zone-file lines (name, TTL, optional class IN, type,
// data; ; starts a comment line) into the change set that makes the zone
// hold exactly them, leaving the SOA alone. It returns {staged, errors},
// each error naming its line.
export function fromText(text, base, zone) {
  const sets = new Map();
  const errors = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith(';')) return;
    const m = /^(\S+)\s+(\d+)\s+(?:IN\s+)?([A-Za-z][A-Za-z0-9]*)\s+(.+)$/.exec(line);
    if (!m) { errors.push(`line ${i + 1}: want "name TTL TYPE data", got ${line}`); return; }
    const [, name, ttl, type, value] = m;
    const t = type.toUpperCase();
    if (t === 'SOA') { errors.push(`line ${i + 1}: the SOA is kept by named; leave it out`); return; }
    const n = absName(name, zone);
    const k = key(n, t);
    const s = sets.get(k) || { name: n, type: t, ttl: Number(ttl), values: [] };
    if (s.ttl !== Number(ttl)) errors.push(`line ${i + 1}: ${relName(n, zone)} ${t} has TTL ${ttl} here and ${s.ttl} above: one RRset has one TTL`);
    if (!s.values.includes(value.trim())) s.values.push(value.trim());
    sets.set(k, s);
  });
  const staged = new Map();
  for (const [k, r] of base) if (r.type !== 'SOA' && !sets.has(k)) staged.set(k, { name: r.name, type: r.type, ttl: r.ttl, values: [] });
  for (const [k, s] of sets) staged.set(k, s);
  return { staged: errors.length ? new Map() : staged, errors };
}
