package wire

import (
	"net/http"

	"github.com/cosmos-emulator/cosmos-emulator/emulator"
)

// explorerDisabled answers the paths under /_explorer/ (but the
// certificate) when no data explorer is served (Config.Explorer nil,
// ENABLE_EXPLORER=false): 404.
func (h *handler) explorerDisabled(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, r, emulator.Errorf(emulator.KindNotFound, "The data explorer is turned off (--enable-explorer false, ENABLE_EXPLORER=false)."))
}
