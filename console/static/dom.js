// Small DOM helpers: elements are built with textContent, never from
// HTML strings, so no text from the API is ever parsed as markup.

// h builds an element: props sets attributes (class, aria-*, ...),
// properties (value, checked, disabled) and listeners (onclick, ...).
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// replace empties el and appends the children.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// errorBox shows an API error's message as the API wrote it.
export function errorBox(err) {
  const status = err && err.status ? `${err.status} ${err.error || ''}`.trim() : 'Error';
  return h('div', { class: 'error', role: 'alert' },
    h('strong', {}, status + ': '), err && err.message ? err.message : String(err),
    err && err.status === 403 ? h('p', {}, 'Your token is not allowed to do this. Ask for a token whose scope includes it.') : null);
}

let ids = 0;
// uid returns a fresh element id with the prefix.
export function uid(prefix) { return `${prefix}-${++ids}`; }

// field is a labelled input.
export function field(label, input, hint) {
  if (!input.id) input.id = uid('f');
  const hintEl = hint ? h('span', { class: 'hint', id: input.id + '-hint' }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hintEl);
}
