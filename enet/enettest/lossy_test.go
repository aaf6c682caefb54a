package enettest

import (
	"errors"
	"net"
	"testing"
	"time"
)

// TestLossyConn: with 30 % loss on what is written, about 30 % of 2000 datagrams are lost; a
// duplicate arrives twice; every datagram that arrives is one that was sent; Close ends ReadFrom.
func TestLossyConn(t *testing.T) {
	// An in-memory pipe underneath: what the kernel would drop from a full socket buffer is not
	// what this test is about.
	ch := make(chan []byte, 10000)
	a, b := &pipeEnd{out: ch, closed: make(chan struct{})}, &pipeEnd{in: ch, closed: make(chan struct{})}
	la := NewLossyConn(a, LossOptions{Loss: 0.3, Duplicate: 0.1, Reorder: 0.1, Seed: 9})
	lb := NewLossyConn(b, LossOptions{})
	const n = 2000
	got := make(chan int, 2*n)
	go func() {
		buf := make([]byte, 16)
		for {
			k, _, err := lb.ReadFrom(buf)
			if err != nil {
				close(got)
				return
			}
			got <- int(buf[0])<<8 | int(buf[1])
			_ = k
		}
	}()
	for i := range n {
		la.WriteTo([]byte{byte(i >> 8), byte(i)}, pipeAddr)
	}
	c := la.Counts()
	if c.Written != n || c.Dropped < n*25/100 || c.Dropped > n*35/100 || c.Duplicated == 0 || c.Reordered == 0 {
		t.Fatalf("counts %+v", c)
	}
	want := n - c.Dropped + c.Duplicated
	seen := map[int]int{}
	timeout := time.After(10 * time.Second)
	for range want {
		select {
		case v := <-got:
			if v >= n {
				t.Fatalf("datagram %d was never sent", v)
			}
			seen[v]++
		case <-timeout:
			t.Fatalf("%d of %d datagrams arrived", len(seen), want)
		}
	}
	lb.Close()
	for range got {
	}
	buf := make([]byte, 4)
	if _, _, err := lb.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadFrom after Close: %v", err)
	}
}

// pipeEnd is one end of an in-memory datagram pipe.
type pipeEnd struct {
	in, out chan []byte
	closed  chan struct{}
}

var pipeAddr = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}

func (p *pipeEnd) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case d := <-p.in:
		return copy(b, d), pipeAddr, nil
	case <-p.closed:
		return 0, nil, net.ErrClosed
	}
}

func (p *pipeEnd) WriteTo(b []byte, _ net.Addr) (int, error) {
	p.out <- append([]byte(nil), b...)
	return len(b), nil
}

func (p *pipeEnd) Close() error                     { close(p.closed); return nil }
func (p *pipeEnd) LocalAddr() net.Addr              { return pipeAddr }
func (p *pipeEnd) SetDeadline(time.Time) error      { return nil }
func (p *pipeEnd) SetReadDeadline(time.Time) error  { return nil }
func (p *pipeEnd) SetWriteDeadline(time.Time) error { return nil }
