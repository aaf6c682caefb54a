package multiplayer

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// TraceRecord is one line of a JSON Lines packet trace, as TraceWriter writes it and
// `gamewire godot mp decode` reads it.
type TraceRecord struct {
	Time time.Time `json:"time"`
	Dir  string    `json:"dir"`  // "in" (received by the tracing side), "out", or "id" (the peer-id message)
	Peer int32     `json:"peer"` // the remote peer
	Hex  string    `json:"hex"`  // the packet
}

// TraceWriter returns a function for Server.Trace or ClientOptions.Trace that writes one
// TraceRecord per packet to w as a JSON line. Writes are serialized; errors are dropped.
func TraceWriter(w io.Writer) func(dir string, peer int32, pkt []byte) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(dir string, peer int32, pkt []byte) {
		rec := TraceRecord{Time: time.Now().UTC(), Dir: dir, Peer: peer, Hex: hex.EncodeToString(pkt)}
		mu.Lock()
		enc.Encode(rec)
		mu.Unlock()
	}
}
