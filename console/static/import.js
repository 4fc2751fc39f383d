// Import a zone: a zone file pasted or uploaded, previewed record by
// record before it is sent, or a transfer (AXFR) from another server,
// previewed by the API's dry run (?dryRun=true: the zone transferred and
// checked, nothing written) before it is applied; then POST
// /zones/{name}/import, with the time it takes shown, and the API's
// answer (its checker's warnings, or its refusal at the line it names).

import { h, replace, errorBox, field } from './dom.js';
import { request, session, zonePath } from './api.js';

// previewRows is how many records the preview lists.
const previewRows = 200;

// parseZoneFile reads a zone file the way the preview shows it: $ORIGIN,
// $TTL, relative names, @, a blank owner (the previous one), parentheses
// over several lines, comments and quoted strings. It returns {records:
// [{line, name, ttl, type, data}], notes: [{line, message}]}. The API's
// parser is the one that counts: the preview shows what will be sent.
export function parseZoneFile(text, zone) {
  const records = [];
  const notes = [];
  let origin = zone.replace(/\.$/, '') + '.';
  let ttl = null;
  let ttlSet = false;
  let owner = null;
  const abs = (n) => (n === '@' ? origin : n.endsWith('.') ? n : n + '.' + origin);
  for (const { line, words, blank } of logicalLines(text)) {
    if (!words.length) continue;
    const w0 = words[0].toUpperCase();
    if (!blank && w0.startsWith('$')) {
      if (w0 === '$ORIGIN' && words[1]) origin = abs(words[1]);
      else if (w0 === '$TTL' && words[1]) { ttl = seconds(words[1]); ttlSet = true; }
      else if (w0 === '$GENERATE') notes.push({ line, message: '$GENERATE: the API expands it' });
      else notes.push({ line, message: `${words[0]}: the API refuses it` });
      continue;
    }
    let i = 0;
    if (!blank) owner = abs(words[i++]);
    if (owner === null) { notes.push({ line, message: 'a record without an owner' }); continue; }
    let rttl = null;
    for (; i < words.length - 1; i++) {
      const u = words[i].toUpperCase();
      if (u === 'IN') continue;
      const s = seconds(words[i]);
      if (s === null) break;
      rttl = s;
    }
    const type = (words[i] || '').toUpperCase();
    const data = words.slice(i + 1).join(' ');
    if (!type || !data) { notes.push({ line, message: 'a record without a type or data' }); continue; }
    if (!ttlSet && rttl !== null) ttl = rttl; // without $TTL, the last TTL written
    records.push({ line, name: owner, ttl: rttl ?? ttl, type, data });
  }
  return { records, notes };
}

// seconds reads a TTL (3600, 1h, 1h30m) or returns null.
function seconds(word) {
  if (/^\d+$/.test(word)) return Number(word);
  const m = /^(?:\d+[smhdw])+$/i.exec(word);
  if (!m) return null;
  const unit = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  let n = 0;
  for (const [, v, u] of word.matchAll(/(\d+)([smhdw])/gi)) n += Number(v) * unit[u.toLowerCase()];
  return n;
}

// logicalLines splits the text into records: comments dropped, the
// lines inside parentheses joined; each with the number of its first
// line, its words (quoted strings kept whole) and whether it began with
// a blank (no owner).
function* logicalLines(text) {
  let words = [];
  let depth = 0;
  let start = 0;
  let blank = false;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n].replace(/\r$/, '');
    if (depth === 0) { start = n + 1; blank = /^[ \t]/.test(raw); words = []; }
    let w = '';
    let quoted = false;
    const flush = () => { if (w) words.push(w); w = ''; };
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i];
      if (quoted) {
        w += c;
        if (c === '\\' && i + 1 < raw.length) w += raw[++i];
        else if (c === '"') quoted = false;
      } else if (c === '"') { w += c; quoted = true; }
      else if (c === ';') break;
      else if (c === '(') { flush(); depth++; }
      else if (c === ')') { flush(); depth = Math.max(0, depth - 1); }
      else if (c === ' ' || c === '\t') flush();
      else {
        w += c;
        if (c === '\\' && i + 1 < raw.length) w += raw[++i];
      }
    }
    flush();
    if (depth === 0) yield { line: start, words, blank };
  }
  if (depth > 0) yield { line: start, words, blank };
}

// importForm is the import panel; done is called with the zone's name
// once it is imported.
export function importForm(onClose, done) {
  const name = h('input', { name: 'importName', required: true, placeholder: 'example.com' });
  const canAXFR = session.can('server');
  const source = h('select', { name: 'source', onchange: () => { show(); stale(); } },
    h('option', { value: 'file' }, 'a zone file'), canAXFR ? h('option', { value: 'axfr' }, 'a transfer (AXFR) from a server') : null);
  const text = h('textarea', { name: 'zonefile', rows: '12', spellcheck: 'false', placeholder: '$TTL 3600\n@ SOA ns1 hostmaster 1 3600 600 604800 300\n@ NS ns1\nns1 A 192.0.2.53',
    oninput: () => replace(preview) });
  const upload = h('input', { type: 'file', name: 'upload', accept: '.zone,.db,.txt,text/*', onchange: async () => {
    const f = upload.files[0];
    if (!f) return;
    text.value = await f.text();
    if (!name.value.trim()) name.value = f.name.replace(/\.(zone|db|txt)$/i, '');
    renderPreview();
  } });
  // A transfer's dry run is for the name, server and key it was made
  // with: a change of any of them asks for a new preview.
  const stale = () => { previewed = null; replace(dryRun); go.textContent = goLabel(); };
  const address = h('input', { name: 'axfrAddress', placeholder: '192.0.2.10 or [2001:db8::1]:53', oninput: stale });
  const keyName = h('input', { name: 'tsigName', placeholder: 'transfer-key (optional)', oninput: stale });
  const keyAlg = h('select', { name: 'tsigAlgorithm', onchange: stale }, ['hmac-sha256', 'hmac-sha512', 'hmac-sha384', 'hmac-sha224', 'hmac-sha1', 'hmac-md5'].map((a) => h('option', { value: a }, a)));
  const keySecret = h('input', { name: 'tsigSecret', type: 'password', autocomplete: 'off', placeholder: 'base64', oninput: stale });
  name.addEventListener('input', stale);
  let previewed = null; // the request body the shown dry run answered
  const preview = h('div', { class: 'preview', 'aria-live': 'polite' });
  const dryRun = h('div', { class: 'preview axfrpreview', 'aria-live': 'polite' });
  const transferred = h('div', { class: 'preview transferred' });
  const out = h('div', { class: 'importmsg', 'aria-live': 'polite' });
  const fileBox = h('div', {}, field('Zone file', text, 'Paste it, or choose a file: its records are previewed before anything is sent.'),
    field('Or upload a file', upload),
    h('button', { type: 'button', class: 'previewbtn', onclick: () => renderPreview() }, 'Preview records'), preview);
  const axfrBox = h('div', {}, field('Server address', address, 'ip, ip:port or [v6]:port; port 53 by default'),
    h('div', { class: 'row' }, field('TSIG key name', keyName), field('Algorithm', keyAlg), field('Secret', keySecret)),
    h('p', { class: 'hint' }, 'The API transfers the zone from that server and checks it without importing it (a dry run): its records are listed here, then "Apply import" imports it.'),
    dryRun, transferred);
  const goLabel = () => (source.value === 'axfr' && !previewed ? 'Preview transfer' : source.value === 'axfr' ? 'Apply import' : 'Import');
  const go = h('button', { type: 'submit', class: 'primary' }, 'Import');
  const show = () => { fileBox.hidden = source.value !== 'file'; axfrBox.hidden = source.value !== 'axfr'; go.textContent = goLabel(); };

  // renderPreview lists the records the file holds, as the browser
  // reads it, with the line each comes from.
  function renderPreview() {
    const z = name.value.trim() || 'example.com';
    const { records, notes } = parseZoneFile(text.value, z);
    const byType = new Map();
    for (const r of records) byType.set(r.type, (byType.get(r.type) || 0) + 1);
    replace(preview,
      h('p', { role: 'status', class: 'count' }, `${records.length} records: ` + [...byType].map(([t, n]) => `${n} ${t}`).join(', ') +
        (records.length > previewRows ? `; the first ${previewRows} below` : '')),
      notes.length ? h('ul', { class: 'notes' }, notes.map((x) => h('li', { 'data-line': x.line }, `line ${x.line}: ${x.message}`))) : null,
      records.length ? h('table', {}, h('caption', { class: 'sr' }, `Records of the zone file for ${z}`),
        h('thead', {}, h('tr', {}, ['Line', 'Name', 'TTL', 'Type', 'Data'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, records.slice(0, previewRows).map((r) => h('tr', { 'data-line': r.line },
          h('td', {}, String(r.line)), h('td', {}, r.name), h('td', {}, r.ttl === null ? '' : String(r.ttl)), h('td', {}, r.type), h('td', { class: 'data' }, r.data))))) : null);
  }

  // recordTable is a table of RRsets, one row per record (the first
  // previewRows).
  function recordTable(caption, rows) {
    return h('table', {}, h('caption', { class: 'sr' }, caption),
      h('thead', {}, h('tr', {}, ['Name', 'TTL', 'Type', 'Data'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.slice(0, previewRows).map((r) => h('tr', {}, h('td', {}, r.name), h('td', {}, String(r.ttl)), h('td', {}, r.type), h('td', { class: 'data' }, r.value)))));
  }

  // showDryRun lists the records a transfer's dry run answered: the zone
  // the import would make.
  function showDryRun(z, p) {
    const rows = p.rrsets.flatMap((r) => r.values.map((v) => ({ ...r, value: v })));
    replace(dryRun,
      h('p', { role: 'status', class: 'count' }, `Would import: ${p.records} records in ${p.rrsets.length} RRsets, serial ${p.serial}, checked by ${p.checkedBy}` +
        (rows.length > previewRows ? `; the first ${previewRows} below` : '') + '. Nothing is written until you apply.'),
      p.warnings && p.warnings.length ? h('ul', { class: 'warnings' }, p.warnings.map((w) => h('li', {}, w))) : null,
      recordTable(`Records ${z} would have`, rows));
  }

  // showTransferred lists the records a transfer brought, as the API
  // now serves them (the first previewRows RRsets).
  async function showTransferred(z) {
    try {
      const p = await request('GET', zonePath(z, `/records?limit=${previewRows}`));
      const rows = p.rrsets.flatMap((r) => r.values.map((v) => ({ ...r, value: v })));
      replace(transferred,
        h('p', { role: 'status', class: 'count' }, `Transferred: ${rows.length} records in ${p.rrsets.length} RRsets${p.nextCursor ? ' (the first ' + previewRows + ' RRsets below)' : ''}`),
        recordTable(`Records transferred for ${z}`, rows));
    } catch (err) { replace(transferred, errorBox(err)); }
  }

  // submit sends the import and shows how long it has been running.
  async function submit(e) {
    e.preventDefault();
    const z = name.value.trim().replace(/\.$/, '');
    const axfr = source.value === 'axfr';
    if (!axfr) renderPreview();
    let opts;
    if (axfr) {
      const body = { axfr: { address: address.value.trim() } };
      if (keyName.value.trim()) body.axfr.tsig = { name: keyName.value.trim(), algorithm: keyAlg.value, secret: keySecret.value.trim() };
      opts = { body };
    } else {
      opts = { send: text.value, contentType: 'text/dns' };
    }
    // A transfer is previewed first (the dry run), applied only on the
    // next submit with the same name, server and key.
    const key = axfr ? z + '\n' + JSON.stringify(opts.body) : null;
    const dry = axfr && previewed !== key;
    const started = performance.now();
    const status = h('span', {}, axfr ? 'Transferring and checking…' : 'Sending and checking…');
    replace(out, h('div', { class: 'progress' }, h('progress', { 'aria-label': 'Importing ' + z }), ' ', status));
    const tick = setInterval(() => { status.textContent = `${axfr ? 'Transferring' : 'Sending'} and checking… ${Math.round((performance.now() - started) / 1000)} s`; }, 500);
    go.disabled = true;
    replace(transferred);
    if (dry) stale();
    try {
      if (dry) {
        const p = await request('POST', zonePath(z, '/import?dryRun=true'), opts);
        replace(out);
        showDryRun(z, p);
        previewed = key;
        go.textContent = goLabel();
        return;
      }
      const r = await request('POST', zonePath(z, '/import'), opts);
      if (axfr) stale();
      replace(out, h('div', { class: 'ok', role: 'status' },
        h('p', {}, `Imported ${z}: ${r.records} records, serial ${r.serial}, checked by ${r.checkedBy}.`),
        r.warnings && r.warnings.length ? h('ul', { class: 'warnings' }, r.warnings.map((w) => h('li', {}, w))) : null,
        h('p', {}, h('a', { href: '#/zones/' + encodeURIComponent(z) + '/records' }, 'Open ' + z))));
      if (axfr) await showTransferred(z);
      if (done) done(z);
    } catch (err) {
      replace(out, errorBox(err));
      const line = err.body && err.body.line;
      const row = line && preview.querySelector(`tr[data-line="${line}"]`);
      if (row) { row.classList.add('refused'); row.setAttribute('aria-describedby', 'import-refused'); out.firstChild.id = 'import-refused'; }
    } finally {
      clearInterval(tick);
      go.disabled = false;
    }
  }

  const form = h('form', { class: 'panel import', 'aria-labelledby': 'import-title', onsubmit: submit },
    h('h2', { id: 'import-title' }, 'Import a zone'),
    h('div', { class: 'row' }, field('Zone name', name), field('From', source)),
    fileBox, axfrBox, out,
    h('div', { class: 'actions' }, go, h('button', { type: 'button', onclick: onClose }, 'Close')));
  show();
  setTimeout(() => name.focus());
  return form;
}
