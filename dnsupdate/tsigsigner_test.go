package dnsupdate

import (
	"bytes"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/miekg/dns"
)

const signerTestSecret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"

// signedUpdate is an UPDATE of example.test. carrying a TSIG record of
// key k. with alg, signed at now.
func signedUpdate(alg string, now int64) *dns.Msg {
	m := new(dns.Msg)
	m.SetUpdate("example.test.")
	m.Id = 4711
	rr, _ := dns.NewRR(`t.example.test. 60 IN TXT "v1"`)
	m.Insert([]dns.RR{rr})
	m.SetTsig("k.", alg, 300, now)
	return m
}

// TestTSIGSignerAsLibrary: the signer gives the MACs miekg/dns's
// TsigSecret gives, for each algorithm and again with a reused HMAC
// state; it checks what the library signs and refuses, with the
// library's errors, another key name, an algorithm it cannot sign with
// and a MAC that does not match.
func TestTSIGSignerAsLibrary(t *testing.T) {
	raw, _ := base64.StdEncoding.DecodeString(signerTestSecret)
	now := time.Now().Unix()
	for _, alg := range []string{dns.HmacSHA1, dns.HmacSHA224, dns.HmacSHA256, dns.HmacSHA384, dns.HmacSHA512} {
		s := newTSIGSigner("k.", alg, raw)
		for round := range 2 { // the second reuses the pooled HMAC state
			want, wantMAC, err := dns.TsigGenerate(signedUpdate(alg, now), signerTestSecret, "", false)
			if err != nil {
				t.Fatal(err)
			}
			got, gotMAC, err := dns.TsigGenerateWithProvider(signedUpdate(alg, now), s, "", false)
			if err != nil || !bytes.Equal(got, want) || gotMAC != wantMAC {
				t.Fatalf("%s round %d: signed %x %s %v, the library %x %s", alg, round, got, gotMAC, err, want, wantMAC)
			}
			if err := dns.TsigVerifyWithProvider(want, s, "", false); err != nil {
				t.Fatalf("%s round %d: the library's signature does not verify: %v", alg, round, err)
			}
		}
		// A message whose MAC does not match.
		bad, _, _ := dns.TsigGenerate(signedUpdate(alg, now), "b3RoZXJzZWNyZXRvdGhlcnNlY3JldA==", "", false)
		if err := dns.TsigVerifyWithProvider(bad, s, "", false); !errors.Is(err, dns.ErrSig) {
			t.Errorf("%s: a MAC of another secret: %v, want ErrSig", alg, err)
		}
	}
	s := newTSIGSigner("k.", dns.HmacSHA256, raw)
	other := signedUpdate(dns.HmacSHA256, now)
	other.Extra[0].(*dns.TSIG).Hdr.Name = "other."
	if _, _, err := dns.TsigGenerateWithProvider(other, s, "", false); !errors.Is(err, dns.ErrSecret) {
		t.Errorf("another key name: %v, want ErrSecret", err)
	}
	if _, _, err := dns.TsigGenerateWithProvider(signedUpdate(dns.HmacMD5, now), s, "", false); !errors.Is(err, dns.ErrKeyAlg) {
		t.Errorf("hmac-md5: %v, want ErrKeyAlg", err)
	}
	// Another algorithm than the key's, which the library would sign with.
	want, _, _ := dns.TsigGenerate(signedUpdate(dns.HmacSHA512, now), signerTestSecret, "", false)
	if got, _, err := dns.TsigGenerateWithProvider(signedUpdate(dns.HmacSHA512, now), s, "", false); err != nil || !bytes.Equal(got, want) {
		t.Errorf("another algorithm: %x %v, the library %x", got, err, want)
	}
}

// BenchmarkTSIGSigner: an UPDATE signed and then checked, by miekg/dns
// with the secret (what the client used before) and by the client's
// signer, alternating in the same loop; ratio-x is the signer's time over
// the library's, and the allocations of each are reported.
func BenchmarkTSIGSigner(b *testing.B) {
	raw, _ := base64.StdEncoding.DecodeString(signerTestSecret)
	s := newTSIGSigner("k.", dns.HmacSHA256, raw)
	now := time.Now().Unix()
	lib := func() {
		out, _, err := dns.TsigGenerate(signedUpdate(dns.HmacSHA256, now), signerTestSecret, "", false)
		if err == nil {
			err = dns.TsigVerify(out, signerTestSecret, "", false)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	ours := func() {
		out, _, err := dns.TsigGenerateWithProvider(signedUpdate(dns.HmacSHA256, now), s, "", false)
		if err == nil {
			err = dns.TsigVerifyWithProvider(out, s, "", false)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	libAllocs, ourAllocs := testing.AllocsPerRun(100, lib), testing.AllocsPerRun(100, ours)
	var libTime, ourTime time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			t := time.Now()
			if (i+j)%2 == 0 { // each first in turn
				lib()
				libTime += time.Since(t)
			} else {
				ours()
				ourTime += time.Since(t)
			}
		}
	}
	b.ReportMetric(float64(ourTime)/float64(libTime), "ratio-x")
	b.ReportMetric(libAllocs, "library-allocs")
	b.ReportMetric(ourAllocs, "signer-allocs")
}
