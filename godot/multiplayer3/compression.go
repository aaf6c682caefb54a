package multiplayer3

import (
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/enet"
)

// CompressionMode is NetworkedMultiplayerENet's compression_mode, with the engine's numbers.
// ENet does not negotiate it: the server and its clients must be set alike (the Server's and the
// ClientOptions' HostOptions.Compressor).
type CompressionMode int

// The compression modes.
const (
	CompressNone       CompressionMode = iota // COMPRESS_NONE, the default
	CompressRangeCoder                        // COMPRESS_RANGE_CODER: ENet's own range coder
	CompressFastLZ                            // COMPRESS_FASTLZ
	CompressZlib                              // COMPRESS_ZLIB
	CompressZstd                              // COMPRESS_ZSTD
)

var compressionNames = []string{"none", "range-coder", "fastlz", "zlib", "zstd"}

// String returns the mode's name as ParseCompressionMode reads it.
func (m CompressionMode) String() string {
	if m >= 0 && int(m) < len(compressionNames) {
		return compressionNames[m]
	}
	return fmt.Sprintf("CompressionMode(%d)", int(m))
}

// Compressor returns the enet Compressor of the mode: nil for CompressNone (and for an unknown
// mode).
func (m CompressionMode) Compressor() enet.Compressor {
	switch m {
	case CompressRangeCoder:
		return enet.RangeCoder()
	case CompressFastLZ:
		return enet.FastLZ()
	case CompressZlib:
		return enet.Zlib()
	case CompressZstd:
		return enet.Zstd()
	}
	return nil
}

// ParseCompressionMode reads a mode by its name ("none", "range-coder", "fastlz", "zlib",
// "zstd", case-insensitive) or its number (0–4).
func ParseCompressionMode(s string) (CompressionMode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, n := range compressionNames {
		if t == n || t == fmt.Sprint(i) || (i == 1 && t == "rangecoder") {
			return CompressionMode(i), nil
		}
	}
	return 0, fmt.Errorf("multiplayer3: unknown compression mode %q (none, range-coder, fastlz, zlib, zstd)", s)
}
