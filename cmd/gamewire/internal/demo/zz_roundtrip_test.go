package demo

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestRoundTripStep(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	if err := roundTripStep(&out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the round trip took %v", d)
	}
	for _, want := range []string{
		"15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00",
		"15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00",
		"byte for byte the one the live reference server gave",
		"appCode        115 (DUPLICATE_NICKNAME)",
		"shut down gracefully",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the step's output lacks %q:\n%s", want, out.String())
		}
	}
}

// pipeListener is a net.Listener whose connections are net.Pipes made by dial.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func (l *pipeListener) dial() (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, errors.New("listener closed")
	}
}

// TestRoundTripStepLeavesNothing: the same step over net.Pipe in a synctest bubble, which
// returns only when every goroutine the step started (server, sessions, client) has ended: a
// goroutine left blocked fails the test as a deadlock, without waiting on the clock.
func TestRoundTripStepLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out bytes.Buffer
		l := newPipeListener()
		if err := roundTrip(&out, l, l.dial); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "shut down gracefully") {
			t.Errorf("the step's output:\n%s", out.String())
		}
	})
}
