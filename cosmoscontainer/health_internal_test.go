package cosmoscontainer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestExpectedScheme: the scheme Run waits on first and names on failure
// follows the emulator's precedence over what the caller's customizers
// set: --protocol arguments, then COSMOS_EMULATOR_PROTOCOL, then PROTOCOL,
// then the image's http.
func TestExpectedScheme(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		cmd  []string
		want string
	}{
		{"image default", nil, nil, "http"},
		{"the Go module's arguments", nil, []string{"--enable-explorer", "false"}, "http"},
		{"PROTOCOL=https", map[string]string{"PROTOCOL": "https"}, nil, "https"},
		{"Microsoft's https-insecure", map[string]string{"PROTOCOL": "https-insecure"}, nil, "https"},
		{"WithProtocol beats PROTOCOL", map[string]string{"PROTOCOL": "https", "COSMOS_EMULATOR_PROTOCOL": "http"}, nil, "http"},
		{"--protocol https", nil, []string{"--enable-explorer", "false", "--protocol", "https"}, "https"},
		{"--protocol=https beats the variables", map[string]string{"COSMOS_EMULATOR_PROTOCOL": "http"}, []string{"--protocol=https"}, "https"},
		{"last --protocol wins", nil, []string{"-protocol", "https", "--protocol", "http"}, "http"},
		{"a value that only looks like the flag", nil, []string{"--key", "protocol", "https"}, "http"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := expectedScheme(tc.env, tc.cmd); got != tc.want {
				t.Errorf("expectedScheme(%v, %q) = %q, want %q", tc.env, tc.cmd, got, tc.want)
			}
		})
	}
}

// TestNotHealthyError: when the container never became healthy, the error
// names the URL of the scheme it was expected to serve (an http container
// is not reported through an https URL) with what the real probe got, and
// when nothing ever answered there it points at
// TESTCONTAINERS_HOST_OVERRIDE; an emulator that answered (503 while
// starting) gets no such hint.
func TestNotHealthyError(t *testing.T) {
	// A port nothing listens on: bound, then closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer starting.Close()

	tests := []struct {
		name     string
		scheme   string
		hostPort string
		hint     bool
	}{
		{"http container unreachable", "http", closed, true},
		{"https container unreachable", "https", closed, true},
		{"http container answering 503", "http", strings.TrimPrefix(starting.URL, "http://"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, perr := probe(context.Background(), tc.scheme, tc.hostPort)
			if perr == nil {
				t.Fatal("probe succeeded")
			}
			var se *statusError
			answered := errors.As(perr, &se)
			msg := notHealthyError(2*time.Minute, perr, answered, "").Error()
			t.Log(msg)
			wantURL := tc.scheme + "://" + tc.hostPort + HealthPath
			if !strings.Contains(msg, wantURL) {
				t.Errorf("error %q does not name %s", msg, wantURL)
			}
			other := map[string]string{"http": "https", "https": "http"}[tc.scheme] + "://"
			if strings.Contains(msg, other) {
				t.Errorf("error %q names a %s URL for a %s container", msg, other, tc.scheme)
			}
			if got := strings.Contains(msg, "TESTCONTAINERS_HOST_OVERRIDE"); got != tc.hint {
				t.Errorf("hint at TESTCONTAINERS_HOST_OVERRIDE: %v, want %v: %q", got, tc.hint, msg)
			}
		})
	}
}
