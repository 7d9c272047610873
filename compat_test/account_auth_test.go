package compat_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cosmos-emulator/cosmos-emulator/emulatortest"
)

func TestAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	u, err := url.Parse(f.e.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(u.Host, ":")

	for _, host := range []string{u.Host, "localhost:" + port} {
		t.Run(host, func(t *testing.T) {
			r := f.rawFor(t).req(http.MethodGet, "/", nil)
			r.Header.Del("Authorization") // the Go SDK reads the account unsigned
			r.Host = host
			resp := f.rawFor(t).send(r)
			wantStatus(t, resp, http.StatusOK)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q", ct)
			}
			acct := object(t, resp.Body)
			want := "https://" + host + "/"
			for _, key := range []string{"writableLocations", "readableLocations"} {
				locs, ok := acct[key].([]any)
				if !ok || len(locs) != 1 {
					t.Fatalf("%s = %v, want exactly one region", key, acct[key])
				}
				loc := locs[0].(map[string]any)
				if loc["databaseAccountEndpoint"] != want {
					t.Errorf("%s endpoint = %v, want %s", key, loc["databaseAccountEndpoint"], want)
				}
				if name, _ := loc["name"].(string); name == "" {
					t.Errorf("%s region has no name", key)
				}
			}
			cp, _ := acct["userConsistencyPolicy"].(map[string]any)
			if cp["defaultConsistencyLevel"] != "Session" {
				t.Errorf("consistency = %v, want Session", acct["userConsistencyPolicy"])
			}
			if acct["enableMultipleWriteLocations"] != false {
				t.Errorf("enableMultipleWriteLocations = %v", acct["enableMultipleWriteLocations"])
			}
			if _, ok := acct["queryEngineConfiguration"].(string); !ok {
				t.Errorf("queryEngineConfiguration is not a JSON string: %v", acct["queryEngineConfiguration"])
			}
		})
	}

	t.Run("signed", func(t *testing.T) {
		resp := f.rawFor(t).do(http.MethodGet, "/", nil)
		wantStatus(t, resp, http.StatusOK)
	})
}

// lowerHexEscapes rewrites %XX escapes with lower-case hex, as .NET does.
func lowerHexEscapes(s string) string {
	return regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(s, strings.ToLower)
}

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// aadToken builds an emulator-style AAD token whose signature segment is
// the given string.
func aadToken(sig string) string {
	return b64url(`{"alg":"RS256","typ":"JWT"}`) + "." + b64url(`{"aud":"https://localhost","iss":"emulator"}`) + "." + b64url(sig)
}

func TestAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sigFor := func(r *http.Request) string {
		typ, link := typeAndLink(r.URL.EscapedPath())
		return signature(masterKey(t), r.Method, typ, link, r.Header.Get("x-ms-date"))
	}
	otherKey := make([]byte, 64)
	for i := range otherKey {
		otherKey[i] = byte(i)
	}

	cases := []struct {
		name   string
		modify func(c *rawClient, r *http.Request)
		status int
	}{
		{"valid", func(c *rawClient, r *http.Request) {}, http.StatusOK},
		{"missing header", func(c *rawClient, r *http.Request) { r.Header.Del("Authorization") }, http.StatusUnauthorized},
		{"empty header", func(c *rawClient, r *http.Request) { r.Header.Set("Authorization", "") }, http.StatusUnauthorized},
		{"garbage header", func(c *rawClient, r *http.Request) { r.Header.Set("Authorization", "hello") }, http.StatusUnauthorized},
		{"wrong key", func(c *rawClient, r *http.Request) {
			typ, link := typeAndLink(r.URL.EscapedPath())
			r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(otherKey, r.Method, typ, link, r.Header.Get("x-ms-date"))))
		}, http.StatusUnauthorized},
		{"signed for another verb", func(c *rawClient, r *http.Request) {
			typ, link := typeAndLink(r.URL.EscapedPath())
			r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(masterKey(t), "POST", typ, link, r.Header.Get("x-ms-date"))))
		}, http.StatusUnauthorized},
		{"signed for another link", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+signature(masterKey(t), r.Method, "dbs", "dbs/other", r.Header.Get("x-ms-date"))))
		}, http.StatusUnauthorized},
		{"missing x-ms-date", func(c *rawClient, r *http.Request) { r.Header.Del("x-ms-date") }, http.StatusUnauthorized},
		{"unparsable x-ms-date", func(c *rawClient, r *http.Request) { c.resign(r, "yesterday") }, http.StatusUnauthorized},
		{"date 20 minutes old", func(c *rawClient, r *http.Request) { c.resign(r, rfc1123(time.Now().Add(-20*time.Minute))) }, http.StatusUnauthorized},
		{"date 20 minutes ahead", func(c *rawClient, r *http.Request) { c.resign(r, rfc1123(time.Now().Add(20*time.Minute))) }, http.StatusUnauthorized},
		{"date 10 minutes old", func(c *rawClient, r *http.Request) { c.resign(r, rfc1123(time.Now().Add(-10*time.Minute))) }, http.StatusOK},
		{"date 10 minutes ahead", func(c *rawClient, r *http.Request) { c.resign(r, rfc1123(time.Now().Add(10*time.Minute))) }, http.StatusOK},
		{"lower-case date", func(c *rawClient, r *http.Request) { c.resign(r, strings.ToLower(rfc1123(time.Now()))) }, http.StatusOK},
		{"lower-case hex escapes (.NET)", func(c *rawClient, r *http.Request) {
			h := lowerHexEscapes(r.Header.Get("Authorization"))
			if !strings.HasPrefix(h, "type%3dmaster%26ver%3d1.0%26sig%3d") {
				t.Fatalf("bad test header %q", h)
			}
			r.Header.Set("Authorization", h)
		}, http.StatusOK},
		{"unencoded header", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", "type=master&ver=1.0&sig="+sigFor(r))
		}, http.StatusOK},
		{"aad emulator token", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", "type=aad&ver=1.0&sig="+aadToken(emulatortest.Key))
		}, http.StatusOK},
		{"aad token with another signature", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", "type=aad&ver=1.0&sig="+aadToken("not the key"))
		}, http.StatusUnauthorized},
		{"aad token with two segments", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", "type=aad&ver=1.0&sig="+b64url("{}")+"."+b64url("{}"))
		}, http.StatusUnauthorized},
		{"aad token that is the master signature", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", "type=aad&ver=1.0&sig="+sigFor(r))
		}, http.StatusUnauthorized},
		{"resource token type", func(c *rawClient, r *http.Request) {
			r.Header.Set("Authorization", url.QueryEscape("type=resource&ver=1.0&sig="+sigFor(r)))
		}, http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := f.rawFor(t)
			for _, target := range []struct{ method, path string }{
				{http.MethodGet, "/dbs"},
				{http.MethodGet, "/dbs/nodb"},
			} {
				r := c.req(target.method, target.path, nil)
				tc.modify(c, r)
				resp := c.send(r)
				want := tc.status
				if want == http.StatusOK && target.path == "/dbs/nodb" {
					want = http.StatusNotFound // authenticated, then not found
				}
				if resp.Status != want {
					t.Fatalf("%s %s: status %d, want %d; body %s", target.method, target.path, resp.Status, want, resp.Body)
				}
				if want == http.StatusUnauthorized {
					code, _ := errorBody(t, resp.Body)
					if code != "Unauthorized" {
						t.Fatalf("code = %q, want Unauthorized", code)
					}
					if sub := resp.Header.Get("x-ms-substatus"); sub != "" && sub != "0" {
						t.Errorf("x-ms-substatus = %q on 401", sub)
					}
				}
			}
		})
	}

	t.Run("sdk wrong key", func(t *testing.T) {
		t.Parallel()
		cred, err := azcosmos.NewKeyCredential(base64.StdEncoding.EncodeToString(otherKey))
		if err != nil {
			t.Fatal(err)
		}
		c, err := azcosmos.NewClientWithKey(f.e.Endpoint, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
			Transport: emulatortest.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1},
		}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "wrongkey"}, nil)
		sdkErrCode(t, err, http.StatusUnauthorized, "Unauthorized")
	})

	t.Run("sdk aad", func(t *testing.T) {
		t.Parallel()
		for i, tc := range []struct {
			sig    string
			status int
		}{{emulatortest.Key, 0}, {"wrong", http.StatusUnauthorized}} {
			c, err := azcosmos.NewClient(f.e.Endpoint, fakeAAD{token: aadToken(tc.sig)}, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{
				Transport: emulatortest.HTTPClient(), Retry: policy.RetryOptions{MaxRetries: -1},
			}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CreateDatabase(bg, azcosmos.DatabaseProperties{ID: "aad" + strconv.Itoa(i)}, nil)
			if tc.status == 0 {
				if err != nil {
					t.Fatalf("AAD client: %v", err)
				}
				continue
			}
			sdkErrCode(t, err, tc.status, "Unauthorized")
		}
	})
}

// fakeAAD is a token credential handing out a fixed token.
type fakeAAD struct{ token string }

func (a fakeAAD) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: a.token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// TestAccountReadVerifiesAPresentSignature: GET / is served without an
// Authorization header, but one that is present is verified like on any
// request (the .NET SDK's EnsureUnauthorized tests expect a wrong key to
// fail on the account read): wrong key or stale date 401, right key 200.
func TestAccountReadVerifiesAPresentSignature(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	raw := f.raw
	wrongKey := []byte(strings.Repeat("w", 64))
	for _, tc := range []struct {
		name   string
		mutate func(r *http.Request)
		want   int
	}{
		{"unsigned", func(r *http.Request) { r.Header.Del("Authorization") }, http.StatusOK},
		{"signed", func(r *http.Request) {}, http.StatusOK},
		{"dotnet lower-case escapes", func(r *http.Request) { r.Header.Set("Authorization", lowerHexEscapes(r.Header.Get("Authorization"))) }, http.StatusOK},
		{"wrong key", func(r *http.Request) {
			r.Header.Set("Authorization", masterAuth(wrongKey, http.MethodGet, "/", r.Header.Get("x-ms-date")))
		}, http.StatusUnauthorized},
		{"stale date", func(r *http.Request) { raw.resign(r, rfc1123(time.Now().Add(-time.Hour))) }, http.StatusUnauthorized},
		{"garbage", func(r *http.Request) { r.Header.Set("Authorization", "garbage") }, http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := f.rawFor(t)
			r := raw.req(http.MethodGet, "/", nil)
			tc.mutate(r)
			resp := raw.send(r)
			if tc.want == http.StatusOK {
				wantStatus(t, resp, http.StatusOK)
				return
			}
			wantError(t, resp, tc.want, "Unauthorized")
		})
	}
}
