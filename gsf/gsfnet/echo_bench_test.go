package gsfnet

import (
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// BenchmarkLoopbackEcho100Conns is the yardstick for BenchmarkGSFLoad100Conns: what this
// machine's loopback TCP does for a Go program that does nothing but move bytes of the same
// sizes in the same pattern, without gsfnet, GSF or bitproto. 100 connections; each client
// goroutine writes n request-sized blobs in one write and reads n response-sized blobs back
// (depth=1 is n=1, pipeline=N is n=N), and a server goroutine per connection answers whatever
// whole requests each read brought with one write. It reports what the load benchmarks do.
func BenchmarkLoopbackEcho100Conns(b *testing.B) {
	b.Run("depth=1", func(b *testing.B) { benchEcho(b, 100, 1) })
	b.Run("pipeline=2", func(b *testing.B) { benchEcho(b, 100, 2) })
	b.Run("pipeline=4", func(b *testing.B) { benchEcho(b, 100, 4) })
}

func benchEcho(b *testing.B, conns, n int) {
	reqLen := frameLen(gsf.NewRequest(gsf.SvcUserServer, msgLoad, 1000), &loadRequest{ClientName: "AmazingWorld", Seq: 100000})
	respLen := frameLen(gsf.Header{Flags: 1, SvcClass: gsf.SvcUserServer, MsgType: msgLoad, RequestID: 1000}, &loadResponse{ClientVersionInfo: "133852.true", Seq: 100000})
	b.SetBytes(int64(reqLen + respLen))
	b.ReportAllocs()
	if lim := raiseFileLimit(uint64(2*conns + 256)); lim < uint64(2*conns+64) {
		b.Skipf("%d connections need %d open files, the limit is %d", conns, 2*conns+64, lim)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var servers sync.WaitGroup
	var mu sync.Mutex
	var accepted []net.Conn
	servers.Add(1)
	go func() {
		defer servers.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
			servers.Add(1)
			go func() {
				defer servers.Done()
				echoServe(c, reqLen, respLen)
			}()
		}
	}()
	clients := make([]net.Conn, conns)
	for i := range clients {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		clients[i] = c
	}
	defer func() {
		l.Close()
		for _, c := range clients {
			c.Close()
		}
		mu.Lock()
		for _, c := range accepted {
			c.Close()
		}
		mu.Unlock()
		servers.Wait()
	}()

	total := int64(b.N)
	var next atomic.Int64
	lat := make([][]time.Duration, conns)
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	t0, cpu0 := time.Now(), cpuTime()
	for w, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := make([]byte, n*reqLen)
			resp := make([]byte, n*respLen)
			mine := make([]time.Duration, 0, int(total)/conns+n)
			for {
				k := int64(n)
				if last := next.Add(k); last > total {
					k -= min(last-total, k)
				}
				if k <= 0 {
					break
				}
				start := time.Now()
				if _, err := c.Write(req[:k*int64(reqLen)]); err != nil {
					failed.Add(1)
					break
				}
				if _, err := io.ReadFull(c, resp[:k*int64(respLen)]); err != nil {
					failed.Add(1)
					break
				}
				d := time.Since(start)
				for range k {
					mine = append(mine, d)
				}
			}
			lat[w] = mine
		}()
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0), cpuTime()-cpu0
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d connections failed", failed.Load())
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "req/s")
	b.ReportMetric(percentile(all, 0.50), "p50-ms")
	b.ReportMetric(percentile(all, 0.99), "p99-ms")
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(time.Microsecond)/float64(len(all)), "cpu-µs/req")
	}
}

// echoServe answers every whole request of reqLen bytes that a read brings with respLen bytes,
// all in one write, until the connection ends.
func echoServe(c net.Conn, reqLen, respLen int) {
	buf := make([]byte, 64<<10)
	out := make([]byte, len(buf)/reqLen*respLen)
	have := 0
	for {
		m, err := c.Read(buf[have:])
		if err != nil {
			return
		}
		have += m
		k := have / reqLen
		if k == 0 {
			continue
		}
		have = copy(buf, buf[k*reqLen:have])
		if _, err := c.Write(out[:k*respLen]); err != nil {
			return
		}
	}
}

// percentile returns the p-th percentile of sorted durations in milliseconds.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]) / float64(time.Millisecond)
}
