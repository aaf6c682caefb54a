package multiplayer

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gamewire/gamewire/godot"
)

const (
	benchEntities = 100
	benchPeers    = 8
)

// replBench is the set-up of the replication benchmarks: benchPeers WebSocket clients that
// read and count whole messages, signalling each time they have had a tick's worth.
type replBench struct {
	conns []*websocket.Conn
	done  chan struct{}
	mu    sync.Mutex
	per   int   // messages per tick per client
	bytes int64 // bytes read by all clients
	cond  *sync.Cond
}

func (rb *replBench) dial(b *testing.B, url string) {
	rb.done = make(chan struct{}, benchPeers*4)
	rb.cond = sync.NewCond(&rb.mu)
	for range benchPeers {
		c, _, err := websocket.Dial(context.Background(), url, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		rb.conns = append(rb.conns, c)
		go func() {
			n := 0
			for {
				_, msg, err := c.Read(context.Background())
				if err != nil {
					return
				}
				rb.mu.Lock()
				per := rb.per
				rb.bytes += int64(len(msg))
				rb.cond.Broadcast()
				rb.mu.Unlock()
				if per == 0 {
					continue
				}
				if n++; n == per {
					n = 0
					rb.done <- struct{}{}
				}
			}
		}()
	}
}

func (rb *replBench) close() {
	for _, c := range rb.conns {
		c.CloseNow()
	}
}

// wait waits until every client has had one tick's messages.
func (rb *replBench) wait(b *testing.B) {
	for range benchPeers {
		select {
		case <-rb.done:
		case <-time.After(10 * time.Second):
			b.Fatal("a client did not get its tick")
		}
	}
}

// benchServer is a server with benchEntities entities, each with a synchronizer of a position
// (always) and hp (on change), and benchPeers connected clients; it has ticked until the deltas
// are sent, and returns the packets one tick sends to one peer. visible, when set, is every
// synchronizer's visibility filter.
func benchServer(b *testing.B, visible func(int32, *Entity) bool) (*Server, []*Entity, *replBench, [][]byte) {
	var capMu sync.Mutex
	var captured [][]byte
	var sent int64 // every byte the server sent
	capturing := false
	connected := make(chan struct{}, benchPeers)
	s := &Server{Replication: Replication{TickInterval: NoLimit}, MaxConnsPerIP: NoLimit,
		OnConnect: func(*Peer) { connected <- struct{}{} },
		Trace: func(dir string, peer int32, pkt []byte) {
			capMu.Lock()
			sent += int64(len(pkt))
			if capturing && dir == "out" && peer == 2 {
				captured = append(captured, bytes.Clone(pkt))
			}
			capMu.Unlock()
		}}
	var next int32 = 1
	s.NewPeerID = func(*http.Request) int32 { next++; return next }
	sp := &Spawner{Path: "World/Spawner", SpawnPath: "World/Things", Scenes: []*Scene{{Path: "res://thing.tscn",
		Synchronizers: []*SyncConfig{{Path: "Sync", Visible: visible, Properties: []Property{
			{Path: ".:position", Spawn: true, Mode: ReplicateAlways, Default: godot.Vector2{}},
			{Path: ".:hp", Spawn: true, Mode: ReplicateOnChange, Default: 100},
		}}}}}}
	s.Spawners = []*Spawner{sp}
	url := testServer(b, s)
	rb := &replBench{}
	rb.dial(b, url)
	for range benchPeers {
		<-connected
	}
	ents := make([]*Entity, benchEntities)
	for i := range ents {
		e, err := s.Spawn(sp, "res://thing.tscn", "T"+strconv.Itoa(i), nil)
		if err != nil {
			b.Fatal(err)
		}
		ents[i] = e
	}
	s.Tick() // the deltas of hp
	s.Tick()
	capMu.Lock()
	capturing = true
	capMu.Unlock()
	move(ents, 1)
	s.Tick()
	capMu.Lock()
	capturing = false
	pkts, total := captured, sent
	capMu.Unlock()
	// Let the warm-up traffic drain: from now on every client counts ticks.
	rb.mu.Lock()
	for rb.bytes < total {
		rb.cond.Wait()
	}
	rb.per = len(pkts)
	rb.mu.Unlock()
	return s, ents, rb, pkts
}

func move(ents []*Entity, k int) {
	for i, e := range ents {
		e.syncs[0].Set("position", godot.Vector2{X: float32(i + k), Y: float32(k)})
	}
}

// BenchmarkReplicationTick: 100 entities synced to 8 peers; one op is one tick of the server
// (every entity's position set, then SYNC built and sent to every peer) until every client has
// read its packets. The yardstick is BenchmarkReplicationYardstick.
func BenchmarkReplicationTick(b *testing.B) { benchTick(b, nil) }

// BenchmarkReplicationTickFiltered is BenchmarkReplicationTick with a visibility filter on every
// synchronizer (one that lets every peer see it: the same packets), which the server runs again
// every tick for every peer (VisibilityIdle, the engine's default): its cost beside
// BenchmarkReplicationTick is the filters'.
func BenchmarkReplicationTickFiltered(b *testing.B) {
	benchTick(b, func(peer int32, e *Entity) bool { return peer > 0 })
}

func benchTick(b *testing.B, visible func(int32, *Entity) bool) {
	s, ents, rb, pkts := benchServer(b, visible)
	defer rb.close()
	perTick := 0
	for _, p := range pkts {
		perTick += len(p)
	}
	b.SetBytes(int64(perTick * benchPeers))
	b.ReportAllocs()
	cpu := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		move(ents, i)
		s.Tick()
		rb.wait(b)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(perTick*benchPeers), "bytes/tick")
	b.ReportMetric(float64(len(pkts)*benchPeers), "msgs/tick")
}

// BenchmarkReplicationYardstick writes the bytes of one tick (as the server sent them) to the
// same number of WebSocket connections, from one goroutine per connection, without building
// them, until every client has read them.
func BenchmarkReplicationYardstick(b *testing.B) {
	_, _, _, pkts := benchServer(b, nil) // the packets of one tick
	var mu sync.Mutex
	var srvConns []*websocket.Conn
	ready := make(chan struct{}, benchPeers)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		mu.Lock()
		srvConns = append(srvConns, c)
		mu.Unlock()
		ready <- struct{}{}
		c.Read(context.Background()) // until the client goes
	}))
	defer hs.Close()
	rb := &replBench{}
	rb.dial(b, "ws"+strings.TrimPrefix(hs.URL, "http"))
	defer rb.close()
	for range benchPeers {
		<-ready
	}
	rb.mu.Lock()
	rb.per = len(pkts)
	rb.mu.Unlock()
	perTick := 0
	for _, p := range pkts {
		perTick += len(p)
	}
	b.SetBytes(int64(perTick * benchPeers))
	b.ReportAllocs()
	cpu := cpuTime()
	b.ResetTimer()
	var wg sync.WaitGroup
	for b.Loop() {
		for _, c := range srvConns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, p := range pkts {
					c.Write(context.Background(), websocket.MessageBinary, p)
				}
			}()
		}
		wg.Wait()
		rb.wait(b)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(perTick*benchPeers), "bytes/tick")
}
