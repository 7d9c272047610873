package wire

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// The data explorer's paths, all under /_explorer/ and served unsigned:
// the emulator's certificate (/_explorer/emulator.pem, answered here) and
// everything else, given to Config.Explorer (the page and its own small
// API, package server/explorer, a client of the REST API like any other).
// Without an explorer those paths answer 404 through the one error map of
// this package (errors.go).

// registerExplorer adds the /_explorer/ routes to r: the certificate, then
// explorer for the rest, or explorerDisabled when explorer is nil.
func (h *handler) registerExplorer(r *mux.Router, explorer http.Handler) {
	r.HandleFunc("/_explorer/emulator.pem", h.certificate).Methods(http.MethodGet)
	if explorer != nil {
		// "/_explorer/" arrives as "/_explorer" (normalizeRequest)
		r.Handle("/_explorer", explorer)
		r.PathPrefix("/_explorer/").Handler(explorer)
		return
	}
	r.HandleFunc("/_explorer", h.explorerDisabled)
	r.PathPrefix("/_explorer/").HandlerFunc(h.explorerDisabled)
}

// certificate answers GET /_explorer/emulator.pem with the certificate the
// emulator serves (PEM), or 404 when it serves plain HTTP.
func (h *handler) certificate(w http.ResponseWriter, r *http.Request) {
	if len(h.certPEM) == 0 {
		h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "This emulator serves plain HTTP; it has no certificate."))
		return
	}
	w.Header().Set("Content-Type", "application/x-pem-file")
	writeBody(w, http.StatusOK, h.certPEM)
}

// explorerDisabled answers the paths under /_explorer/ (but the
// certificate) when no data explorer is served (Config.Explorer nil,
// ENABLE_EXPLORER=false): 404.
func (h *handler) explorerDisabled(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "The data explorer is turned off (--enable-explorer false, ENABLE_EXPLORER=false)."))
}
