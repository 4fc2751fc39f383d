// Sign-in with an OpenID Connect provider: the authorization code flow
// with PKCE (RFC 7636, S256), run by the browser as a public client. The
// page's meta element zoneapi-oidc names the provider's endpoints (the
// handler read its discovery document); the CSP lets the page connect to
// its token endpoint only.
//
// begin keeps a random state, nonce and code verifier in sessionStorage
// (this tab only) and goes to the authorization endpoint with the
// verifier's SHA-256 as the challenge. The provider sends the browser
// back to the console's page with ?code=…&state=…: finish removes them
// from the URL at once (history.replaceState), refuses an answer whose
// state is not the one this tab kept, and trades the code and the
// verifier for the tokens at the token endpoint. The token the API is
// given then goes where a pasted one goes (api.js's session).

const meta = document.querySelector('meta[name="zoneapi-oidc"]');
export const provider = meta ? JSON.parse(meta.content) : null;
const pendingKey = 'zoneapi.console.oidc';

function b64url(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(n) { return b64url(crypto.getRandomValues(new Uint8Array(n))); }

// redirectURI is the console's page, without query or fragment: the
// redirect URI registered for the client at the provider.
export function redirectURI() { return location.origin + location.pathname; }

// begin goes to the provider's authorization endpoint.
export async function begin() {
  const verifier = random(32);
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const state = random(16);
  const nonce = random(16);
  sessionStorage.setItem(pendingKey, JSON.stringify({ state, nonce, verifier, hash: location.hash }));
  const u = new URL(provider.authorizationEndpoint);
  for (const [k, v] of Object.entries({
    response_type: 'code', client_id: provider.clientId, redirect_uri: redirectURI(), scope: provider.scopes.join(' '),
    state, nonce, code_challenge: challenge, code_challenge_method: 'S256',
  })) u.searchParams.set(k, v);
  location.assign(u.href);
}

// returning tells whether the page is the provider's answer.
export function returning() {
  const q = new URLSearchParams(location.search);
  return !!provider && (q.has('code') || q.has('error')) && q.has('state');
}

// forget drops the flow in progress (at sign-out).
export function forget() { sessionStorage.removeItem(pendingKey); }

// finish takes the provider's answer from the URL (and removes it
// there), checks its state, and returns the token for the API.
export async function finish() {
  const q = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(pendingKey) || 'null');
  forget();
  history.replaceState(null, '', location.pathname + ((pending && pending.hash) || ''));
  if (!pending || q.get('state') !== pending.state) {
    throw new Error(`The answer from ${provider.name} does not belong to a sign-in started in this tab (state), and was ignored. Sign in again.`);
  }
  if (q.has('error')) {
    throw new Error(`${provider.name} refused the sign-in: ${q.get('error')}${q.get('error_description') ? ': ' + q.get('error_description') : ''}`);
  }
  let res;
  try {
    res = await fetch(provider.tokenEndpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code', code: q.get('code'), redirect_uri: redirectURI(),
        client_id: provider.clientId, code_verifier: pending.verifier,
      }),
      credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer',
    });
  } catch (e) {
    throw new Error(`${provider.name}'s token endpoint could not be reached (${e.message}); it must allow this origin (CORS).`);
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new Error(`${provider.name}'s token endpoint answered ${res.status}: ${body.error || ''}${body.error_description ? ': ' + body.error_description : ''}`);
  }
  if (body.id_token) {
    let claims = null;
    try { claims = JSON.parse(atob(body.id_token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))); } catch { /* below */ }
    if (!claims || claims.nonce !== pending.nonce) throw new Error(`The ID token from ${provider.name} is not the answer to this sign-in (nonce).`);
  }
  const token = provider.token === 'access_token' ? body.access_token : body.id_token;
  if (!token) throw new Error(`${provider.name} sent no ${provider.token}.`);
  return token;
}
