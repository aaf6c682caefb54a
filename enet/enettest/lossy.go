// Package enettest helps test code that speaks ENet: a net.PacketConn that loses, duplicates
// and reorders datagrams, for reliability tests against any peer.
package enettest

import (
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// LossOptions say how a [LossyConn] mistreats datagrams, each a probability from 0 to 1, applied
// to every datagram written and every datagram read.
type LossOptions struct {
	// Loss drops the datagram.
	Loss float64
	// Duplicate delivers it twice.
	Duplicate float64
	// Reorder holds it back and delivers it after the next one (or after HoldTimeout).
	Reorder float64
	// HoldTimeout bounds how long a reordered datagram waits for the next (default 5 ms).
	HoldTimeout time.Duration
	// Seed makes the choices repeatable.
	Seed uint64
}

// LossyConn is a net.PacketConn that loses, duplicates and reorders what passes through it.
type LossyConn struct {
	net.PacketConn
	o    LossOptions
	mu   sync.Mutex
	rnd  *rand.Rand
	held *heldDatagram

	startOnce sync.Once
	inbox     chan readDatagram
	readErr   error

	// Counters of what was done, for the test's log.
	Written, Read, Dropped, Duplicated, Reordered int
}

type heldDatagram struct {
	b     []byte
	addr  net.Addr
	timer *time.Timer
}

type readDatagram struct {
	b    []byte
	addr net.Addr
}

// NewLossyConn wraps c.
func NewLossyConn(c net.PacketConn, o LossOptions) *LossyConn {
	if o.HoldTimeout == 0 {
		o.HoldTimeout = 5 * time.Millisecond
	}
	return &LossyConn{PacketConn: c, o: o, rnd: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9E3779B97F4A7C15))}
}

func (l *LossyConn) chance(p float64) bool { return p > 0 && l.rnd.Float64() < p }

// WriteTo sends b to addr, or not, or twice, or later.
func (l *LossyConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	l.mu.Lock()
	l.Written++
	if l.chance(l.o.Loss) {
		l.Dropped++
		l.mu.Unlock()
		return len(b), nil
	}
	dup := l.chance(l.o.Duplicate)
	if dup {
		l.Duplicated++
	}
	if l.held == nil && l.chance(l.o.Reorder) {
		l.Reordered++
		h := &heldDatagram{b: append([]byte(nil), b...), addr: addr}
		h.timer = time.AfterFunc(l.o.HoldTimeout, func() { l.release(h) })
		l.held = h
		l.mu.Unlock()
		if dup {
			l.PacketConn.WriteTo(b, addr)
		}
		return len(b), nil
	}
	h := l.held
	l.held = nil
	l.mu.Unlock()
	n, err := l.PacketConn.WriteTo(b, addr)
	if dup {
		l.PacketConn.WriteTo(b, addr)
	}
	if h != nil && h.timer.Stop() {
		l.PacketConn.WriteTo(h.b, h.addr)
	}
	return n, err
}

func (l *LossyConn) release(h *heldDatagram) {
	l.mu.Lock()
	if l.held != h {
		l.mu.Unlock()
		return
	}
	l.held = nil
	l.mu.Unlock()
	l.PacketConn.WriteTo(h.b, h.addr)
}

// ReadFrom returns the next datagram that survives: lost ones are skipped, duplicated ones
// returned twice, reordered ones after the next (or after HoldTimeout).
func (l *LossyConn) ReadFrom(b []byte) (int, net.Addr, error) {
	l.startOnce.Do(func() {
		l.inbox = make(chan readDatagram, 4096)
		go l.readLoop()
	})
	d, ok := <-l.inbox
	if !ok {
		return 0, nil, l.readErr
	}
	return copy(b, d.b), d.addr, nil
}

func (l *LossyConn) readLoop() {
	buf := make([]byte, 65536)
	var held *readDatagram
	var holdTimer *time.Timer
	var mu sync.Mutex
	push := func(d readDatagram) {
		select {
		case l.inbox <- d:
		default: // a full inbox loses the datagram, as a full socket buffer would
		}
	}
	for {
		n, addr, err := l.PacketConn.ReadFrom(buf)
		if err != nil {
			mu.Lock()
			if held != nil && holdTimer.Stop() {
				push(*held)
			}
			held = nil
			mu.Unlock()
			l.readErr = err
			close(l.inbox)
			return
		}
		d := readDatagram{append([]byte(nil), buf[:n]...), addr}
		l.mu.Lock()
		l.Read++
		lost := l.chance(l.o.Loss)
		dup := !lost && l.chance(l.o.Duplicate)
		reorder := !lost && l.chance(l.o.Reorder)
		switch {
		case lost:
			l.Dropped++
		case dup:
			l.Duplicated++
		}
		if reorder {
			l.Reordered++
		}
		l.mu.Unlock()
		if lost {
			continue
		}
		mu.Lock()
		if reorder && held == nil {
			h := d
			held = &h
			holdTimer = time.AfterFunc(l.o.HoldTimeout, func() {
				mu.Lock()
				defer mu.Unlock()
				if held == &h {
					held = nil
					push(h)
				}
			})
			if dup {
				push(d)
			}
			mu.Unlock()
			continue
		}
		push(d)
		if dup {
			push(d)
		}
		if held != nil && holdTimer.Stop() {
			push(*held)
			held = nil
		}
		mu.Unlock()
	}
}
