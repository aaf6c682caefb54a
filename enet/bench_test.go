package enet

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/internal/harness/cenet"
)

// cENetBench runs testdata/cbench.c (C ENet 1.3.17, server and client hosts in one process
// and thread, as the Go benchmark holds both in one process) and returns its wall and CPU time
// per operation over ops operations.
func cENetBench(b *testing.B, ops int, args ...string) (wall, cpu float64) {
	b.Helper()
	out, err := exec.Command(cenet.Build(b, "testdata/cbench.c"), args...).Output()
	if err != nil {
		b.Fatalf("cbench %v: %v", args, err)
	}
	f := strings.Fields(string(out))
	w, _ := strconv.ParseFloat(f[0], 64)
	c, _ := strconv.ParseFloat(f[1], 64)
	return w / float64(ops), c / float64(ops)
}

// roundTrips runs b.N reliable round trips of size-byte packets over peers client peers (one
// packet in flight each) between two Go hosts in this process, beside C ENet doing the same.
// With handler, both hosts handle packets in a Handler (on their own goroutines, as C ENet's
// application handles events in the thread that services the host); without, the client's
// goroutines Send and ReceiveInto and the server echoes from a goroutine per peer.
func roundTrips(b *testing.B, peers, size int, handler bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msg := make([]byte, size)
	var st struct {
		left, done atomic.Int64
		total      int64
		fin        chan struct{}
	}
	so := &HostOptions{MaxConnsPerIP: NoLimit}
	var co *HostOptions
	if handler {
		so.Handler = HandlerFunc(func(p *Peer, pk Packet) { p.Send(pk.Channel, pk.Data, pk.Flags) })
		co = &HostOptions{Handler: HandlerFunc(func(p *Peer, pk Packet) {
			if st.left.Add(-1) >= 0 {
				if err := p.Send(0, msg, Reliable); err != nil {
					b.Error(err)
				}
			}
			if st.done.Add(1) == st.total {
				close(st.fin)
			}
		})}
	}
	srv, err := Listen("udp4", "127.0.0.1:0", so)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	if !handler {
		go echo(ctx, srv)
	}
	cli, err := Listen("udp4", "127.0.0.1:0", co)
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	ps := make([]*Peer, peers)
	for i := range ps {
		if ps[i], err = cli.Connect(ctx, srv.LocalAddr().String(), 2, 0); err != nil {
			b.Fatal(err)
		}
	}
	// run makes n round trips, spread over the peers.
	run := func(n int) {
		if handler {
			k := min(peers, n)
			st.total, st.fin = int64(n), make(chan struct{})
			st.done.Store(0)
			st.left.Store(int64(n - k))
			for _, p := range ps[:k] {
				if err := p.Send(0, msg, Reliable); err != nil {
					b.Fatal(err)
				}
			}
			<-st.fin
			return
		}
		st.left.Store(int64(n))
		var wg sync.WaitGroup
		for _, p := range ps {
			wg.Go(func() {
				buf := make([]byte, size)
				for st.left.Add(-1) >= 0 {
					if err := p.Send(0, msg, Reliable); err != nil {
						b.Error(err)
						return
					}
					if _, _, _, err := p.ReceiveInto(ctx, buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	// Warm up: every peer's round trip time settles, buffers and pools grow.
	run(20 * peers)
	b.SetBytes(int64(2 * size))
	b.ReportAllocs()
	c0 := cpuTime()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	cpu := float64(cpuTime()-c0) / float64(b.N)
	wall := float64(b.Elapsed()) / float64(b.N)
	const cOps = 20000
	cw, cc := cENetBench(b, cOps, "rt", fmt.Sprint(peers), fmt.Sprint(size), fmt.Sprint(cOps))
	b.ReportMetric(1e9/wall, "rt/s")
	b.ReportMetric(cpu, "cpu-ns/rt")
	b.ReportMetric(1e9/cw, "C-rt/s")
	b.ReportMetric(cc, "C-cpu-ns/rt")
	b.ReportMetric(cpu/cc, "cpu-vs-C")
	b.ReportMetric(wall/cw, "wall-vs-C")
}

// BenchmarkENetRoundTrip measures reliable round trips (a packet and its echo) on loopback
// between two Go hosts, beside C ENet 1.3.17 doing the same in the same run: rt/s and CPU per
// round trip (both hosts, this process) for each, and their ratios (below 1: Go is cheaper).
// Receive: the application's goroutines Send and ReceiveInto; Handler: the hosts hand packets
// to a Handler.
func BenchmarkENetRoundTrip(b *testing.B) {
	for _, api := range []string{"Receive", "Handler"} {
		for _, peers := range []int{1, 100} {
			for _, size := range []int{64, 1024} {
				b.Run(fmt.Sprintf("%s/%dPeers/%dB", api, peers, size), func(b *testing.B) {
					roundTrips(b, peers, size, api == "Handler")
				})
			}
		}
	}
}

// BenchmarkENetTransfer10MB sends 10 MiB reliably in 1 KiB packets from a Go client to a Go
// server on loopback, beside C ENet doing the same.
func BenchmarkENetTransfer10MB(b *testing.B) {
	const total, chunk = 10 << 20, 1024
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	msg := make([]byte, chunk)
	var cpu time.Duration
	b.ReportAllocs()
	b.SetBytes(total)
	for range b.N {
		b.StopTimer()
		srv, err := Listen("udp4", "127.0.0.1:0", nil)
		if err != nil {
			b.Fatal(err)
		}
		cli, err := Dial(ctx, "udp", srv.LocalAddr().String(), &DialOptions{Channels: 1})
		if err != nil {
			b.Fatal(err)
		}
		sp, err := srv.Accept(ctx)
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime()
		b.StartTimer()
		go func() {
			for range total / chunk {
				if err := cli.Send(0, msg, Reliable); err != nil {
					b.Error(err)
					return
				}
			}
		}()
		buf := make([]byte, chunk)
		for range total / chunk {
			if _, _, _, err := sp.ReceiveInto(ctx, buf); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		cli.Host().Close()
		srv.Close()
	}
	wall := float64(b.Elapsed()) / float64(b.N)
	cw, cc := cENetBench(b, 1, "xfer", fmt.Sprint(total), fmt.Sprint(chunk))
	b.ReportMetric(float64(total)/wall*1e9/1e6, "MB/s")
	b.ReportMetric(float64(total)/cw*1e9/1e6, "C-MB/s")
	b.ReportMetric(wall/cw, "time-vs-C")
	b.ReportMetric(float64(cpu)/float64(b.N)/cc, "cpu-vs-C")
}
