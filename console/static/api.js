// The REST API client: every request carries the signed-in token in the
// Authorization header (never in a URL); a 401 asks for sign-in again and
// then repeats the request, so that nothing in progress is lost.

const base = document.querySelector('meta[name="zoneapi-api"]')?.content || '/api/v1';
const storageKey = 'zoneapi.console.token';

let token = sessionStorage.getItem(storageKey) || '';
let waiters = [];

// APIError is an answer with an error status; message is the API's own.
export class APIError extends Error {
  constructor(status, body) {
    super((body && body.message) || `the API answered ${status}`);
    this.status = status;
    this.error = body && body.error;
    this.body = body;
  }
}

export const session = {
  me: null,
  get signedIn() { return token !== ''; },
  // signIn keeps the token for this tab only (sessionStorage) and
  // repeats the requests that were waiting for it.
  async signIn(t) {
    token = t;
    sessionStorage.setItem(storageKey, t);
    try {
      this.me = await request('GET', '/auth/whoami', { noRetry: true });
    } catch (e) {
      token = '';
      sessionStorage.removeItem(storageKey);
      throw e;
    }
    const w = waiters;
    waiters = [];
    w.forEach((resolve) => resolve());
    window.dispatchEvent(new CustomEvent('za:session'));
    return this.me;
  },
  // signOut forgets the token everywhere.
  signOut() {
    token = '';
    this.me = null;
    sessionStorage.removeItem(storageKey);
    window.dispatchEvent(new CustomEvent('za:session'));
  },
  // restrictsRecords tells whether a scope limits record names or types
  // (the API then refuses what covers the whole zone: export).
  restrictsRecords() { return !!this.me && this.me.scopes.some((s) => (s.names && s.names.length) || (s.types && s.types.length)); },
  // can tells whether the identity may take the action somewhere.
  can(action) { return !!this.me && this.me.actions.includes(action); },
};

// needSignIn shows the sign-in and resolves once signed in again.
export function needSignIn(message) {
  return new Promise((resolve) => {
    waiters.push(resolve);
    window.dispatchEvent(new CustomEvent('za:signin', { detail: message }));
  });
}

// authHeaders are the headers that carry the token.
export function authHeaders() { return { Authorization: 'Bearer ' + token }; }

// apiURL is the URL of an API path.
export function apiURL(path) { return base + path; }

// request sends one API request and returns the decoded JSON answer
// (with its headers as .headers when raw is set).
export async function request(method, path, opts = {}) {
  for (;;) {
    const headers = { Accept: 'application/json', ...authHeaders(), ...(opts.headers || {}) };
    let body;
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(apiURL(path), { method, headers, body, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
    const text = await res.text();
    if (res.ok && opts.text) return text;
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = { message: text }; }
    if (res.status === 401 && !opts.noRetry) {
      await needSignIn(data && data.message);
      continue;
    }
    if (!res.ok) throw new APIError(res.status, data);
    if (opts.raw) return { status: res.status, headers: res.headers, body: data };
    return data;
  }
}

// zonePath is the API path of a zone (and an optional sub-path).
export function zonePath(zone, sub = '') {
  return '/zones/' + encodeURIComponent(zone) + sub;
}
