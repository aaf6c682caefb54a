package multiplayer

import (
	"context"
	"encoding/binary"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
)

// burstReader is a well-behaved client that counts the relayed RAW packets of one sender and
// checks that they arrive in order, without a gap.
type burstReader struct {
	c    *Client
	want uint32
	done chan struct{} // closed when all arrived, one is out of order, or the server dropped us
	once sync.Once
	mu   sync.Mutex
	next uint32 // the sequence number expected next
	bad  string
	gone bool
}

func (r *burstReader) onBytes(p *Peer, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(b) != 4 {
		r.bad = "a packet of the wrong size"
	} else if seq := binary.LittleEndian.Uint32(b); seq != r.next && r.bad == "" {
		r.bad = "out of order or lost"
	}
	r.next++
	if r.bad != "" || r.next == r.want {
		r.once.Do(func() { close(r.done) })
	}
}

func (r *burstReader) onDisconnect(p *Peer) {
	if p.ID() == 1 {
		r.mu.Lock()
		r.gone = true
		r.mu.Unlock()
		r.once.Do(func() { close(r.done) })
	}
}

// TestRelayBurstDropsNobody (issue 21 item 1): one peer relays a burst of 50 000 small
// well-formed packets to everyone; the 20 clients that read normally are not dropped and lose
// nothing: each gets every packet the server took from the sender, in order, and their own
// calls go through meanwhile.
func TestRelayBurstDropsNobody(t *testing.T) {
	const readers = 20
	burst := 50000
	if raceEnabled {
		burst = 5000
	}
	calls := make(chan int32, readers*4)
	n := MustNode("Main", RPC{Name: "hello", Mode: ModeAnyPeer, Handler: func(p *Peer) { calls <- p.ID() }})
	s := &Server{Nodes: []*Node{n}, PeerBytesPerSecond: NoLimit, OnError: func(*Peer, error) {}}
	url := testServer(t, s)
	rs := make([]*burstReader, readers)
	for i := range rs {
		r := &burstReader{want: uint32(burst), done: make(chan struct{})}
		r.c = dial(t, url, &ClientOptions{Nodes: []*Node{n}, OnBytes: r.onBytes, OnDisconnect: r.onDisconnect})
		rs[i] = r
	}
	attacker := dialRaw(t, url)
	go func() { // the attacker reads what it is sent (ADD_PEER), so that only the burst counts
		for {
			if _, _, err := attacker.c.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seq [4]byte
	for i := range burst {
		binary.LittleEndian.PutUint32(seq[:], uint32(i))
		if err := attacker.c.Write(ctx, websocket.MessageBinary, AppendSys(nil, SysRelay, 0, AppendRaw(nil, seq[:]))); err != nil {
			t.Fatalf("burst packet %d: %v", i, err)
		}
		if i%10000 == 0 {
			for _, r := range rs {
				if err := r.c.RPCID(1, n, "hello"); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for range readers * ((burst-1)/10000 + 1) {
		wait(t, calls)
	}
	for i, r := range rs {
		select {
		case <-r.done:
		case <-ctx.Done():
		}
		r.mu.Lock()
		got, bad, gone := r.next, r.bad, r.gone
		r.mu.Unlock()
		if bad != "" || gone || got != uint32(burst) {
			t.Fatalf("reader %d: %d of %d packets, %q, dropped %v", i, got, burst, bad, gone)
		}
	}
}

// TestPeerBudget: a peer that sends faster than PeerBytesPerSecond is slowed down to it, not
// dropped, and loses nothing.
func TestPeerBudget(t *testing.T) {
	const rate, burst, packets, size = 200 << 10, 16 << 10, 500, 200
	got := make(chan int, packets)
	s := &Server{PeerBytesPerSecond: rate, PeerBurstBytes: burst, OnBytes: func(p *Peer, b []byte) { got <- len(b) }}
	url := testServer(t, s)
	c := dialRaw(t, url)
	start := time.Now()
	for range packets {
		c.send(t, AppendRaw(nil, make([]byte, size-1)))
	}
	for range packets {
		if n := wait(t, got); n != size-1 {
			t.Fatal(n)
		}
	}
	// The first burst goes at once; the rest at the rate.
	if min := time.Duration(float64(packets*size-burst) / rate * float64(time.Second)); time.Since(start) < min*9/10 {
		t.Fatalf("%d bytes in %v, the budget allows them in %v at the earliest", packets*size, time.Since(start), min)
	}
}

func TestBudgetTake(t *testing.T) {
	b := newBudget(1000, 100)
	t0 := time.Unix(0, 0)
	if d := b.take(t0, 100); d != 0 {
		t.Fatal(d)
	}
	if d := b.take(t0, 50); d != 50*time.Millisecond {
		t.Fatal(d)
	}
	if d := b.take(t0.Add(time.Second), 10); d != 0 { // refilled to the burst, not beyond
		t.Fatal(d)
	}
	if d := b.take(t0.Add(time.Second), 100); d != 10*time.Millisecond {
		t.Fatal(d)
	}
	if d := newBudget(0, 0).take(t0, 1<<30); d != 0 {
		t.Fatal("no limit waits", d)
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct {
	mu sync.Mutex
	n  int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.n += len(p)
	w.mu.Unlock()
	return len(p), nil
}

func (w *countingWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// TestRefusalLogBudget (issue 21 item 6): refused packets are logged within a budget that the
// input pays for: a peer that sends nothing but packets the server refuses, some of them naming
// long node paths, makes the log grow by no more than the bytes it sent (plus a few KiB).
func TestRefusalLogBudget(t *testing.T) {
	var log countingWriter
	const packets = 3000
	refused := make(chan struct{}, packets)
	s := &Server{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnError: func(*Peer, error) { refused <- struct{}{} }}
	url := testServer(t, s)
	c := dialRaw(t, url)
	long := mustRC(AppendRemoteCall(nil, 0, true, 0, strings.Repeat("p", 1000), nil))
	in := 0
	for i := range packets {
		pkt := []byte{0xff, 0xfe, 0xfd}
		if i%2 == 0 {
			pkt = long
		}
		c.send(t, pkt)
		in += len(pkt) + 6 // a masked client frame's header
	}
	for range packets {
		wait(t, refused)
	}
	if got := log.count(); got > in+8<<10 {
		t.Fatalf("%d bytes in, %d bytes of log", in, got)
	} else {
		t.Logf("%d bytes in, %d bytes of log", in, got)
	}
}

// TestRefusalLogSummary: refusals that were not logged are summarised a second after they
// stop (in a synctest bubble: the second passes at once).
func TestRefusalLogSummary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf syncBuffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		r := newRefusalLog()
		r.income(1 << 20)
		for range 100 {
			r.refused(log, slog.LevelInfo, 7, ErrTruncated)
		}
		if strings.Contains(buf.String(), "notLogged") {
			t.Fatalf("a summary before the second:\n%s", buf.String())
		}
		time.Sleep(summaryDelay)
		synctest.Wait()
		if !strings.Contains(buf.String(), "notLogged=90") {
			t.Fatalf("no summary of the 90 refusals not logged:\n%s", buf.String())
		}
	})
}

// syncBuffer is a strings.Builder for a logger written from other goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
