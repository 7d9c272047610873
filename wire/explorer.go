package wire

import (
	"net/http"
	"strconv"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// explorerPage is the placeholder served at /_explorer/index.html, where
// Microsoft's emulators serve their data explorer. Tools probe that path
// for readiness (testcontainers-python waits for a 2xx there), so it must
// answer 200; it holds no key and no data.
const explorerPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Cosmos DB emulator</title></head>
<body>
<main>
<h1>Cosmos DB emulator</h1>
<p>The emulator is running. A data explorer is not part of this version.</p>
<p>Connect with the endpoint of this page's origin and the emulator's key.
The TLS certificate, when the emulator serves HTTPS, is at <a href="emulator.pem">emulator.pem</a>.</p>
</main>
</body>
</html>
`

// explorerPlaceholder serves explorerPage.
func explorerPlaceholder(w http.ResponseWriter, _ *http.Request) {
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(explorerPage)))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(explorerPage))
}

// explorerDisabled answers /_explorer/index.html when the explorer is
// turned off (ENABLE_EXPLORER=false): 404.
func (h *handler) explorerDisabled(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "The data explorer is turned off (--enable-explorer false, ENABLE_EXPLORER=false)."))
}
