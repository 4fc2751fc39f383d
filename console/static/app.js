// The console's shell: the sign-in, the navigation and the router. Pages
// are custom elements (views/*.js) rendered into <main>; the location's
// fragment (#/zones/example.com) names the page, so no token or other
// secret is ever in a URL.

import { h, replace, errorBox, field } from './dom.js';
import { session } from './api.js';
import * as oidc from './oidc.js';
import './overview.js';
import './zones.js';
import './zone.js';
import './history.js';
import './search.js';

const pages = [
  { hash: '#/', label: 'Overview' },
  { hash: '#/zones', label: 'Zones' },
  { hash: '#/search', label: 'Search' },
  { hash: '#/history', label: 'History' },
];

// route maps the fragment to a page element.
function route(hash) {
  const [path, query] = (hash || '#/').replace(/^#\/?/, '').split('?');
  const parts = path.split('/').map(decodeURIComponent);
  switch (parts[0]) {
    case 'zones':
      if (parts[1]) {
        const el = document.createElement('za-zone');
        el.zone = parts[1];
        el.tab = parts[2] || 'records';
        el.view = new URLSearchParams(query || '').get('view') || '';
        return el;
      }
      return document.createElement('za-zones');
    case 'search': return document.createElement('za-search');
    case 'history': return document.createElement('za-history');
    default: return document.createElement('za-overview');
  }
}

class App extends HTMLElement {
  connectedCallback() {
    this.nav = h('nav', { 'aria-label': 'Main' });
    this.who = h('div', { class: 'who' });
    this.main = h('main', { id: 'main', tabindex: '-1' });
    this.dialog = this.signInDialog();
    replace(this, h('header', { class: 'top' }, h('a', { class: 'brand', href: '#/' }, 'zoneapi'), this.nav, this.who), this.main, this.dialog);
    window.addEventListener('hashchange', () => this.show());
    window.addEventListener('za:signin', (e) => this.askSignIn(e.detail));
    window.addEventListener('za:session', () => this.renderChrome());
    this.start();
  }

  async start() {
    let problem;
    if (oidc.returning()) {
      // The provider's answer: the code and state leave the URL first.
      try {
        await session.signIn(await oidc.finish());
      } catch (e) { problem = e; }
    } else if (session.signedIn) {
      try {
        await session.signIn(sessionStorage.getItem('zoneapi.console.token'));
      } catch { /* the sign-in form follows */ }
    }
    this.renderChrome();
    if (!session.me) this.askSignIn(problem);
    else this.show();
  }

  renderChrome() {
    const cur = location.hash || '#/';
    replace(this.nav, h('ul', {}, pages.map((p) => h('li', {}, h('a', {
      href: p.hash, 'aria-current': (p.hash === '#/' ? cur === '#/' || cur === '#' : cur.startsWith(p.hash)) ? 'page' : null,
    }, p.label)))));
    if (!session.me) { replace(this.who); return; }
    const roles = session.me.actions.join(', ') || 'nothing';
    replace(this.who,
      h('span', { class: 'id', title: 'May: ' + roles }, session.me.id),
      h('span', { class: 'badge', 'aria-label': 'allowed actions: ' + roles }, session.can('records') || session.can('zones') ? 'can edit' : 'read-only'),
      h('button', { type: 'button', onclick: () => this.signOut() }, 'Sign out'));
  }

  show() {
    this.renderChrome();
    if (!session.me) return;
    const page = route(location.hash);
    const cur = this.main.firstChild;
    // Another tab of the same zone keeps the page, and its pending edits.
    if (cur && cur.localName === 'za-zone' && page.localName === 'za-zone' && cur.zone === page.zone && cur.view === page.view) {
      cur.setTab(page.tab);
      return;
    }
    replace(this.main, page);
  }

  signOut() {
    session.signOut();
    oidc.forget();
    sessionStorage.removeItem('zoneapi.console.draft');
    replace(this.main);
    this.askSignIn('Signed out.');
  }

  signInDialog() {
    this.tokenInput = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true });
    this.signInMsg = h('div', { class: 'signin-msg', 'aria-live': 'polite' });
    const p = oidc.provider;
    this.oidcNote = h('p', { class: 'hint', hidden: true }, `Signing in with ${p ? p.name : ''} leaves this page for a moment: changes not yet applied are kept in this tab and staged again when you are back.`);
    const form = h('form', { onsubmit: (e) => { e.preventDefault(); this.submitToken(); } },
      h('h2', { id: 'signin-title' }, 'Sign in'),
      this.signInMsg,
      p ? h('div', { class: 'oidc' },
        h('button', { type: 'button', class: 'primary oidcbtn', disabled: !!p.error, onclick: () => {
          // The page is left: pending edits wait in this tab (zone.js).
          window.dispatchEvent(new CustomEvent('za:leaving'));
          oidc.begin().catch((e) => replace(this.signInMsg, errorBox(e)));
        } }, `Sign in with ${p.name}`),
        p.error ? h('p', { class: 'hint reason' }, `Unavailable: ${p.error}`) : this.oidcNote,
        h('p', { class: 'or' }, 'or paste a token')) : null,
      field('API token', this.tokenInput, 'The bearer token you use with the API. It is kept in this tab only and forgotten at sign-out.'),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')));
    return h('dialog', { class: 'signin', 'aria-labelledby': 'signin-title', oncancel: (e) => e.preventDefault() }, form);
  }

  askSignIn(message) {
    replace(this.signInMsg, message instanceof Error ? errorBox(message) : message ? h('p', {}, message) : null);
    this.oidcNote.hidden = !this.main.firstChild;
    this.tokenInput.value = '';
    if (!this.dialog.open) this.dialog.showModal();
    this.tokenInput.focus();
  }

  async submitToken() {
    const t = this.tokenInput.value.trim();
    if (!t) return;
    try {
      const hadPage = this.main.firstChild;
      await session.signIn(t);
      this.tokenInput.value = '';
      this.dialog.close();
      // A sign-in after a 401 keeps the page (and the edit in progress).
      if (!hadPage) this.show(); else this.renderChrome();
    } catch (e) {
      replace(this.signInMsg, errorBox(e));
    }
  }
}
customElements.define('za-app', App);
