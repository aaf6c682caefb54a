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
// during a silence gets a whole timeout. A frame's read timeout runs from the second read of
// the frame, microseconds after the first brought its first bytes. Times are monoNow readings.
type clientReader struct {
	c                        *Client
	readTimeout, idleTimeout time.Duration
	inFrame                  bool          // a read has brought bytes of the frame being read
	frameStart               time.Duration // when the frame went on past a read; 0: not yet
	deadline                 time.Duration // the read deadline set last; 0: none
	armedBusy                bool          // calls waited when the idle deadline was set
}

func (r *clientReader) Read(p []byte) (int, error) {
	c := r.c
	for {
		inFrame := r.inFrame
		var deadline time.Duration
		set := false
		switch {
		case inFrame:
			if r.readTimeout > 0 {
				if r.frameStart == 0 {
					r.frameStart = monoNow()
				}
				deadline = r.frameStart + r.readTimeout
			}
			set = deadline != r.deadline
		case r.idleTimeout > 0:
			now := monoNow()
			if least := now + r.idleTimeout; r.deadline == 0 || r.deadline < least || r.deadline-least > r.idleTimeout/4 {
				deadline, set = least+r.idleTimeout/4, true
				r.armedBusy = c.calls.Load() > 0
			}
		default:
			set = r.deadline != 0
		}
		if set {
			var t time.Time
			if deadline != 0 {
				t = wallAt(deadline)
			}
			if err := c.conn.SetReadDeadline(t); err != nil {
				return 0, err
			}
			r.deadline = deadline
		}
		n, err := c.conn.Read(p)
		if n > 0 {
			r.inFrame = true
		}
		if n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && !inFrame {
			if r.armedBusy && c.calls.Load() > 0 {
				return 0, ErrIdleTimeout
			}
			r.deadline = 0 // set a new one
			continue
		}
		return n, err
	}
}

// frameDone tells the reader that a frame has been read, and whether the next one has begun
// in the same read: then its read timeout runs from now.
func (r *clientReader) frameDone(next bool) {
	r.inFrame, r.frameStart = next, 0
	if next {
		r.frameStart = monoNow()
	}
}

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
