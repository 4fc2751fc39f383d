package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Default refresh intervals of a key set fetched from a URL.
const (
	defaultJWKSRefresh     = 5 * time.Minute
	defaultJWKSMissRefresh = time.Minute
)

// remoteKeySet is a JWKS fetched from a URL, refetched at most once per
// refresh interval, or, for a token whose kid the cached set lacks, at
// most once per miss interval: tokens with made-up kids cannot make the
// identity provider be asked once per request. A token whose kid is
// still unknown is refused (401, a failed authentication). When a fetch
// fails, the keys already known stay in use; a token that needs a key
// not known then gets an error naming the failed fetch (503).
type remoteKeySet struct {
	url    string
	client *http.Client
	algs   []jose.SignatureAlgorithm
	// refresh and miss are the two intervals (see remoteKeySet).
	refresh, miss time.Duration
	now           func() time.Time

	mu       sync.Mutex // held during a fetch, so concurrent misses share it
	keys     []jose.JSONWebKey
	fetched  time.Time // last fetch attempt; zero: never
	fetchErr error     // the last attempt's error, nil when it succeeded
	fetches  int
}

// errFetchingKeys marks key set fetch failures; JWT.Authenticate answers
// them with 503 (the text "fetching keys" survives go-oidc's wrapping).
var errFetchingKeys = errors.New("fetching keys")

// VerifySignature checks a JWS against the key of its kid (or every key
// when it names none), fetching the set when the rules above allow.
func (ks *remoteKeySet) VerifySignature(ctx context.Context, jwt string) ([]byte, error) {
	jws, err := jose.ParseSigned(jwt, ks.algs)
	if err != nil {
		return nil, err
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, err := ks.keysFor(ctx, kid)
	if err != nil {
		return nil, err
	}
	for i := range keys {
		if kid == "" || keys[i].KeyID == kid {
			if payload, err := jws.Verify(&keys[i]); err == nil {
				return payload, nil
			}
		}
	}
	return nil, errors.New("no key of the key set verifies the token")
}

// keysFor returns the keys to try for kid, fetching the set first when it
// is older than the refresh interval, or lacks kid and is older than the
// miss interval.
func (ks *remoteKeySet) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	age := now.Sub(ks.fetched)
	has := ks.has(kid)
	if ks.fetched.IsZero() || age >= ks.refresh || !has && age >= ks.miss {
		ks.fetched = now
		ks.fetches++
		keys, err := ks.fetch(ctx)
		ks.fetchErr = err
		if err == nil {
			ks.keys = keys
		}
		has = ks.has(kid)
	}
	if !has && ks.fetchErr != nil {
		return nil, fmt.Errorf("%w from %s failed: %v", errFetchingKeys, ks.url, ks.fetchErr)
	}
	return ks.keys, nil
}

// has reports whether the cached set holds kid (any key, for "").
func (ks *remoteKeySet) has(kid string) bool {
	for _, k := range ks.keys {
		if kid == "" || k.KeyID == kid {
			return true
		}
	}
	return false
}

// fetch gets the key set and keeps its valid public signing keys.
func (ks *remoteKeySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ks.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("not a key set: %v", err)
	}
	var keys []jose.JSONWebKey
	for _, k := range set.Keys {
		if k.Valid() && k.IsPublic() && k.Use != "enc" {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// Fetches returns how many times the set was fetched (tests).
func (ks *remoteKeySet) Fetches() int {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.fetches
}
