package multiplayer

import (
	"encoding/hex"
	"errors"
	"github.com/gamewire/gamewire/explain"
	"io"
	"testing"

	"github.com/gamewire/gamewire/godot"
)

// fuzzSeeds are packets of every command, from the engine tests and the spec's examples.
var fuzzSeeds = []string{
	"013334633230336462353235643233646261383061326563656461386630383433000100000" + "04d61696e00",
	"20080000800801814d61696e00", "020101000000", "0001080101", "00010801c2ffffffffffffff7f",
	"000108011b0005000400000002000000010000000400000001000000610000000200000001000000",
	"0001090202011d0000000200000001020000", "800108090807", "800108", "07030000000003010203", "030405",
	"07000102", "0700", "070109000000", "070209000000", "0703d1070000010000000000000000000000000000000000000000000000000000000000000000000000020000004d61696e00",
	"040002000000050000000100000002000000070000005000020381", "0505000000", "060700030000800200000002010",
	"1605000000020000000000000001000000" + "81", "40010000", "a0060000800100",
	// SYNC and delta SYNC of a MultiplayerSynchronizer, as the engine sent them.
	"06030001000080020000000207", "160100008001000000000000001000000004000000070000006368616e67656400",
	"0400020000000100000000000000060000005468696e6700", "0501000000",
}

func seedCorpus(f *testing.F) {
	for _, h := range fuzzSeeds {
		if b, err := hex.DecodeString(h); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte{})
	f.Add([]byte{0xff})
}

// FuzzExplain: Explain and Decode never panic, agree on validity, and return *PacketErrors.
func FuzzExplain(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		fr, err := Explain(p, explain.NewBudget(1000))
		info, derr := Decode(p)
		if (err == nil) != (derr == nil) {
			t.Fatalf("Explain %v, Decode %v", err, derr)
		}
		if err != nil {
			var pe *PacketError
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > int64(len(p)) {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		if info == nil || len(fr.Fields) == 0 {
			t.Fatal("no result")
		}
		end := int64(0)
		fr.Walk(func(f *explain.Field, _ int) bool {
			if f.Bit < 0 || f.Bit+f.Bits > int64(8*len(p)) {
				t.Fatalf("field %+v outside the %d-byte packet", f, len(p))
			}
			for _, c := range f.Children {
				if c.Bit < f.Bit || c.Bit+c.Bits > f.Bit+f.Bits {
					t.Fatalf("field %+v outside its parent %+v", c, f)
				}
			}
			if len(f.Children) == 0 {
				if f.Bit < end {
					t.Fatalf("field %+v overlaps the one before", f)
				}
				end = f.Bit + f.Bits
			}
			return true
		})
		if err := fr.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := explain.WriteJSON(io.Discard, fr); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzRemoteCall: a REMOTE_CALL that parses re-encodes to the same bytes when its arguments
// decode (the arguments' Variant bytes are canonical up to what the engine writes).
func FuzzRemoteCall(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		rc, err := ParseRemoteCall(p)
		if err != nil {
			var pe *PacketError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T", err)
			}
			return
		}
		vals, err := rc.Values()
		if err != nil {
			return
		}
		if len(vals) > 255 {
			t.Fatalf("%d values", len(vals))
		}
		for _, v := range vals {
			if _, err := AppendCompressed(nil, v); err != nil && !errors.Is(err, godot.ErrUnsupported) {
				t.Fatalf("re-encoding %#v: %v", v, err)
			}
		}
	})
}

// nullTransport drops what is sent to it.
type nullTransport struct{ n int }

func (t *nullTransport) send(pkt []byte) bool { t.n++; return true }
func (t *nullTransport) close(int, string)    {}
func (t *nullTransport) sendWait(pkt []byte, stop <-chan struct{}) bool {
	t.n++
	return true
}
func (t *nullTransport) stopped() <-chan struct{} { return nil }
func (t *nullTransport) sendLazy(pkt []byte) bool { t.n++; return true }
func newFuzzScene(tb testing.TB) (*scene, *Peer) {
	n := MustNode("Main",
		RPC{Name: "a", Mode: ModeAnyPeer, Handler: func(p *Peer, x any) {}},
		RPC{Name: "b", Mode: ModeAnyPeer, Handler: func(p *Peer, s string, v godot.Vector2, m map[string]any) {}},
		RPC{Name: "c", Handler: func(p *Peer) {}},
		RPC{Name: "d", Mode: ModeAnyPeer, Handler: func(p *Peer, b []byte) error { return nil }},
	)
	sc, err := newScene(1, true, []*Node{n}, hooks{onError: func(*Peer, error) {}, onBytes: func(*Peer, []byte) {}}, 0, Encoding{})
	if err != nil {
		tb.Fatal(err)
	}
	p := sc.newPeer(2, &nullTransport{})
	q := sc.newPeer(3, &nullTransport{})
	sc.mu.Lock()
	sc.admit(p)
	sc.admit(q)
	sc.mu.Unlock()
	return sc, p
}

// FuzzServerReceive: any sequence of packets from a peer is processed without a panic, and
// the server's per-peer state stays bounded.
func FuzzServerReceive(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, p []byte) {
		sc, peer := newFuzzScene(t)
		var errs []error
		sc.onError = func(_ *Peer, err error) { errs = append(errs, err) }
		// The input, then its halves as two packets.
		sc.receive(peer, p)
		sc.receive(peer, p[:len(p)/2])
		sc.receive(peer, p[len(p)/2:])
		for _, err := range errs {
			var pe *PacketError
			if !errors.As(err, &pe) && !errors.Is(err, ErrArgs) {
				t.Fatalf("error %v (%T) is not typed", err, err)
			}
		}
		if len(peer.remote) > maxCachePerPeer {
			t.Fatal("cache unbounded")
		}
	})
}
