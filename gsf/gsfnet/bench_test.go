package gsfnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// The load benchmarks run a server and N clients in this process, over loopback TCP: the
// 1, 100 and 1 000 connections of BenchmarkGSFLoad{1,100,1000}Conns. Every connection runs
// either depth concurrent goroutines making Calls (depth=D in the sub-benchmark's name), or one
// goroutine that starts P calls with Client.Go and then waits for them (pipeline=P); each call
// sends a GetClientVersionInfo-like request with a sequence number, which the handler echoes.
// They report requests per
// second (req/s), the 50th and 99th percentile latency of a call (p50-ms, p99-ms), the CPU time
// of the process per request (cpu-µs/req, clients and server together), and the write calls
// per request (writes/req, of which cwrites/req by the clients), and fail on any lost (timed
// out), failed or mismatched response.
//
//	go test -run '^$' -bench GSFLoad -benchtime 3s -count 3 ./gsf/gsfnet

type loadRequest struct {
	ClientName string
	Seq        int64
}

type loadResponse struct {
	ClientVersionInfo string
	Seq               int64
}

const msgLoad int32 = 566 // GET_CLIENT_VERSION_INFO

func BenchmarkGSFLoad1Conns(b *testing.B) {
	b.Run("depth=1", func(b *testing.B) { benchLoad(b, loadShape{conns: 1, depth: 1}) })
	b.Run("depth=16", func(b *testing.B) { benchLoad(b, loadShape{conns: 1, depth: 16}) })
	b.Run("pipeline=16", func(b *testing.B) { benchLoad(b, loadShape{conns: 1, pipeline: 16}) })
}

func BenchmarkGSFLoad100Conns(b *testing.B) {
	b.Run("depth=1", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, depth: 1}) })
	b.Run("depth=2", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, depth: 2}) })
	b.Run("depth=4", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, depth: 4}) })
	b.Run("pipeline=2", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, pipeline: 2}) })
	b.Run("pipeline=3", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, pipeline: 3}) })
	b.Run("pipeline=4", func(b *testing.B) { benchLoad(b, loadShape{conns: 100, pipeline: 4}) })
}

func BenchmarkGSFLoad1000Conns(b *testing.B) {
	b.Run("depth=1", func(b *testing.B) { benchLoad(b, loadShape{conns: 1000, depth: 1}) })
	b.Run("pipeline=2", func(b *testing.B) { benchLoad(b, loadShape{conns: 1000, pipeline: 2}) })
}

// loadShape is the load of runLoad: conns connections, each with depth goroutines making
// Calls, or, if pipeline > 0, one goroutine starting pipeline calls with Go and then waiting.
type loadShape struct{ conns, depth, pipeline int }

func (s loadShape) String() string {
	if s.pipeline > 0 {
		return fmt.Sprintf("%d conns × pipeline %d", s.conns, s.pipeline)
	}
	return fmt.Sprintf("%d conns × %d callers", s.conns, s.depth)
}

func benchLoad(b *testing.B, shape loadShape) {
	reqFrame := frameLen(gsf.NewRequest(gsf.SvcUserServer, msgLoad, 1000), &loadRequest{ClientName: "AmazingWorld", Seq: 100000})
	respFrame := frameLen(gsf.Header{Flags: 1, SvcClass: gsf.SvcUserServer, MsgType: msgLoad, RequestID: 1000}, &loadResponse{ClientVersionInfo: "133852.true", Seq: 100000})
	b.SetBytes(int64(reqFrame + respFrame))
	b.ReportAllocs()
	r := runLoad(b, shape, int64(b.N), b.ResetTimer)
	b.StopTimer()
	b.ReportMetric(float64(r.calls)/r.elapsed.Seconds(), "req/s")
	b.ReportMetric(r.p50, "p50-ms")
	b.ReportMetric(r.p99, "p99-ms")
	b.ReportMetric(float64(r.writes)/float64(r.calls), "writes/req")
	b.ReportMetric(float64(r.clientWrites)/float64(r.calls), "cwrites/req")
	if r.cpu > 0 {
		b.ReportMetric(float64(r.cpu)/float64(time.Microsecond)/float64(r.calls), "cpu-µs/req")
	}
}

// loadResult is the outcome of runLoad.
type loadResult struct {
	calls        int64
	writes       int64         // write calls of clients and server
	cpu          time.Duration // CPU time of the process (clients and server)
	clientWrites int64
	elapsed      time.Duration
	p50, p99     float64 // milliseconds
}

// runLoad runs total calls in the given shape, and fails tb on any lost, failed or mismatched
// response. It calls start just before the first call.
func runLoad(b testing.TB, shape loadShape, total int64, start func()) loadResult {
	conns := shape.conns
	if lim := raiseFileLimit(uint64(2*conns + 256)); lim < uint64(2*conns+64) {
		b.Skipf("%d connections need %d open files, the limit is %d", conns, 2*conns+64, lim)
	}
	var handled atomic.Int64
	mux := NewMux()
	Handle(mux, gsf.SvcUserServer, msgLoad, func(ctx context.Context, s *Session, req *loadRequest) (*loadResponse, error) {
		handled.Add(1)
		return &loadResponse{ClientVersionInfo: "133852.true", Seq: req.Seq}, nil
	})
	srv := &Server{Handler: mux, Logger: slog.New(slog.DiscardHandler), MaxConns: conns + 10}
	var writes, cwrites atomic.Int64
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	l := &countingListener{tl, &writes}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			b.Error(err)
		}
		<-served
	}()

	clients := make([]*Client, conns)
	var dials sync.WaitGroup
	for i := range clients {
		dials.Add(1)
		go func() {
			defer dials.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var d net.Dialer
			conn, err := d.DialContext(ctx, "tcp", l.Addr().String())
			if err != nil {
				b.Error(err)
				return
			}
			clients[i] = NewClient(&countingConn{conn, &cwrites}, nil)
		}()
	}
	dials.Wait()
	defer func() {
		for _, c := range clients {
			if c != nil {
				c.Close()
			}
		}
	}()
	if b.Failed() {
		return loadResult{}
	}
	// One call per connection, so that every session exists before the clock starts.
	for _, c := range clients {
		var resp loadResponse
		if err := c.Call(context.Background(), gsf.SvcUserServer, msgLoad, &loadRequest{ClientName: "AmazingWorld", Seq: -1}, &resp); err != nil {
			b.Fatal(err)
		}
	}
	handled.Store(0)
	writes.Store(0)
	cwrites.Store(0)

	// A call that takes longer than this is counted as lost.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	workers := conns * max(shape.depth, 1)
	if shape.pipeline > 0 {
		workers = conns
	}
	var next, failed, mismatched atomic.Int64
	var firstErr atomic.Value
	check := func(err error, seq int64, resp *loadResponse) {
		switch {
		case err != nil:
			failed.Add(1)
			firstErr.CompareAndSwap(nil, err)
		case resp.Seq != seq || resp.ClientVersionInfo != "133852.true":
			mismatched.Add(1)
		}
	}
	lat := make([][]time.Duration, workers)
	var wg sync.WaitGroup
	start()
	t0, cpu0 := time.Now(), cpuTime()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%conns]
			mine := make([]time.Duration, 0, int(total)/workers+1)
			if shape.pipeline > 0 {
				lat[w] = pipelineCalls(ctx, c, shape.pipeline, total, &next, mine, check)
				return
			}
			req := loadRequest{ClientName: "AmazingWorld"}
			var resp loadResponse
			for {
				seq := next.Add(1)
				if seq > total {
					break
				}
				req.Seq = seq
				t0 := time.Now()
				err := c.Call(ctx, gsf.SvcUserServer, msgLoad, &req, &resp)
				mine = append(mine, time.Since(t0))
				check(err, seq, &resp)
			}
			lat[w] = mine
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuTime()-cpu0
	nwrites, ncwrites := writes.Load(), cwrites.Load()

	all := slices.Concat(lat...)
	slices.Sort(all)
	if n := handled.Load(); n != total {
		b.Errorf("the server handled %d requests, the clients sent %d", n, total)
	}
	if f, m := failed.Load(), mismatched.Load(); f > 0 || m > 0 {
		b.Fatalf("%d of %d calls failed or were lost, %d got a mismatched response; first error: %v", f, total, m, firstErr.Load())
	}
	return loadResult{calls: total, writes: nwrites + ncwrites, clientWrites: ncwrites, cpu: cpu, elapsed: elapsed, p50: percentile(all, 0.50), p99: percentile(all, 0.99)}
}

// pipelineCalls makes calls on c until next passes total, n at a time: it starts n calls
// with Go, then waits for each in turn. A call's latency runs from its Go to the return of its
// Wait. It returns lat with the latencies appended.
func pipelineCalls(ctx context.Context, c *Client, n int, total int64, next *atomic.Int64, lat []time.Duration, check func(error, int64, *loadResponse)) []time.Duration {
	reqs := make([]loadRequest, n)
	resps := make([]loadResponse, n)
	calls := make([]*Pending, n)
	starts := make([]time.Time, n)
	for {
		k := 0
		for ; k < n; k++ {
			seq := next.Add(1)
			if seq > total {
				break
			}
			reqs[k] = loadRequest{ClientName: "AmazingWorld", Seq: seq}
			resps[k] = loadResponse{}
			starts[k] = time.Now()
			calls[k] = c.Go(gsf.SvcUserServer, msgLoad, &reqs[k], &resps[k])
		}
		for i := range k {
			err := calls[i].Wait(ctx)
			lat = append(lat, time.Since(starts[i]))
			check(err, reqs[i].Seq, &resps[i])
		}
		if k < n {
			return lat
		}
	}
}

func frameLen(h gsf.Header, body any) int {
	b, err := gsf.AppendMessage(nil, &h, body)
	if err != nil {
		panic(err)
	}
	return len(b)
}

// TestLoadSmall runs the load benchmark's code briefly in the normal test suite, so that it
// cannot rot: many connections, pipelined calls, no lost or mismatched responses.
func TestLoadSmall(t *testing.T) {
	checkLeaks(t)
	for _, shape := range []loadShape{{conns: 1, depth: 16}, {conns: 50, depth: 2}, {conns: 20, pipeline: 3}} {
		t.Run(shape.String(), func(t *testing.T) {
			r := runLoad(t, shape, 2000, func() {})
			t.Logf("%s: %.0f req/s, p50 %.2f ms, p99 %.2f ms", shape, float64(r.calls)/r.elapsed.Seconds(), r.p50, r.p99)
		})
	}
}

// countingConn counts the Write calls on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// SyscallConn gives the client's flush the connection's syscall.RawConn, as the client gets
// it from an unwrapped *net.TCPConn, with its writes counted too.
func (c *countingConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return countingRawConn{rc, c.writes}, nil
}

// countingRawConn counts the Write calls on a syscall.RawConn.
type countingRawConn struct {
	syscall.RawConn
	writes *atomic.Int64
}

func (r countingRawConn) Write(f func(fd uintptr) bool) error {
	r.writes.Add(1)
	return r.RawConn.Write(f)
}

// countingListener wraps the connections it accepts in countingConn.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{c, l.writes}, nil
}
