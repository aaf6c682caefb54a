package gsfnet

import (
	"errors"
	"os"
	"sync"
	"time"
)

// clientReader is the io.Reader of a client's FrameReader: it applies the read timeout within
// a frame and the idle timeout while calls wait for their responses.
//
// The idle deadline is moved only when it leaves less than the idle timeout, and then to the
// timeout and a quarter, since setting a deadline costs about as much as reading a small frame.
// When it passes while no call waited at the time it was set, or none waits now, the reader
// sets a new one and reads on: a client without calls may stay idle, and a call that started
// during a silence gets a whole timeout.
type clientReader struct {
	c                        *Client
	readTimeout, idleTimeout time.Duration
	frameStart               time.Time // the first byte of the frame being read; zero between frames
	deadline                 time.Time // the read deadline set last
	armedBusy                bool      // calls waited when the idle deadline was set
}

func (r *clientReader) Read(p []byte) (int, error) {
	c := r.c
	for {
		now := time.Now()
		inFrame := !r.frameStart.IsZero()
		var deadline time.Time
		set := false
		switch {
		case inFrame:
			if r.readTimeout > 0 {
				deadline = r.frameStart.Add(r.readTimeout)
			}
			set = !deadline.Equal(r.deadline)
		case r.idleTimeout > 0:
			if least := now.Add(r.idleTimeout); r.deadline.IsZero() || r.deadline.Before(least) || r.deadline.Sub(least) > r.idleTimeout/4 {
				deadline, set = now.Add(r.idleTimeout+r.idleTimeout/4), true
				r.armedBusy = c.calls.Load() > 0
			}
		default:
			set = !r.deadline.IsZero()
		}
		if set {
			if err := c.conn.SetReadDeadline(deadline); err != nil {
				return 0, err
			}
			r.deadline = deadline
		}
		n, err := c.conn.Read(p)
		if n > 0 && r.frameStart.IsZero() {
			r.frameStart = now
		}
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && !inFrame {
			if r.armedBusy && c.calls.Load() > 0 {
				return 0, ErrIdleTimeout
			}
			r.deadline = time.Time{} // set a new one
			continue
		}
		return n, err
	}
}

// frameDone tells the reader that a frame has been read.
func (r *clientReader) frameDone() { r.frameStart = time.Time{} }

// timerPool holds stopped timers for the call timeout.
var timerPool sync.Pool

func getTimer(d time.Duration) *time.Timer {
	if t, ok := timerPool.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

func putTimer(t *time.Timer) {
	t.Stop()
	timerPool.Put(t)
}
