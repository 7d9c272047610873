package pgstore

import "github.com/cosmos-emulator/cosmos-emulator/emulator"

// pointRange is the EPK range that holds exactly epk: no other hex string
// lies in [epk, epk+"0").
func pointRange(epk string) *emulator.EPKRange {
	return &emulator.EPKRange{Min: epk, Max: epk + "0"}
}
