package wire

import (
	"net/http"
	"strconv"
	"time"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// PlainHTTPOnTLSResponse returns the whole HTTP/1.1 response (status line,
// headers, body) for a plain-HTTP request that reached a port serving
// HTTPS: 400 with the service's error body {"code":"BadRequest",
// "message":...} saying to use https, and Connection: close. host is the
// request's Host header (empty when the request could not be read); it
// only shapes the URL the message suggests.
//
// Go's own answer to such a request is a text body, which the SDKs fail to
// parse as JSON and report as a parse error instead of the cause.
func PlainHTTPOnTLSResponse(host string) []byte {
	endpoint := "an https:// endpoint"
	if host != "" {
		endpoint = "https://" + host + "/"
	}
	msg := "This port serves HTTPS and the request came over plain HTTP. Use " + endpoint +
		" (the emulator's certificate is served at /_explorer/emulator.pem), or start the emulator with --protocol http (PROTOCOL=http) to serve plain HTTP."
	body := []byte(`{"code":"BadRequest","message":`)
	body = emulator.AppendJSONString(body, msg)
	body = append(body, '}')
	b := make([]byte, 0, 256+len(body))
	b = append(b, "HTTP/1.1 400 Bad Request\r\n"...)
	b = append(b, "Content-Type: application/json\r\n"...)
	b = append(b, "Content-Length: "+strconv.Itoa(len(body))+"\r\n"...)
	b = append(b, "X-Ms-Substatus: 0\r\n"...)
	b = append(b, "Connection: close\r\n"...)
	b = append(b, "Date: "+time.Now().UTC().Format(http.TimeFormat)+"\r\n"...)
	b = append(b, "\r\n"...)
	return append(b, body...)
}
