package gsfnet

import (
	"context"
	"sync"
	"time"
)

// A handler's context has the deadline of Server.HandlerTimeout. A context.WithDeadline for
// every message would cost a timer and a registration with the session's context even for the
// handlers that never look at their context; reqContext instead computes Err from the clock,
// and makes the channel of Done, with its timer, only for a handler that asks for it.

// clockBase is the origin of the package's monotonic clock readings (monoNow). Deadlines are
// kept as such readings: reading the monotonic clock alone costs half of what time.Now
// costs, which reads the wall clock too, and the server reads the clock for every message.
var clockBase = time.Now()

// monoNow returns the time since clockBase by the monotonic clock: always positive.
func monoNow() time.Duration { return time.Since(clockBase) }

// wallAt returns the time of monotonic clock reading d, for APIs that take a time.Time.
func wallAt(d time.Duration) time.Time { return clockBase.Add(d) }

// deadlineState is the Done channel of a reqContext with a deadline, and what closes it.
type deadlineState struct {
	mu         sync.Mutex
	done       chan struct{}
	err        error       // set when done is closed
	timer      *time.Timer // closes done at the deadline
	stopParent func() bool // unregisters the closing of done with the session's context
}

// Deadline returns the handler's deadline.
func (c *reqContext) Deadline() (time.Time, bool) {
	if c.deadline == 0 {
		return c.sess.ctx.Deadline()
	}
	return wallAt(c.deadline), true
}

// Done returns a channel that is closed at the deadline or when the session's context ends.
func (c *reqContext) Done() <-chan struct{} {
	if c.deadline == 0 {
		return c.sess.ctx.Done()
	}
	if dl := c.dl.Load(); dl != nil {
		return dl.done
	}
	dl := &deadlineState{done: make(chan struct{})}
	dl.mu.Lock()
	defer dl.mu.Unlock()
	if !c.dl.CompareAndSwap(nil, dl) {
		return c.dl.Load().done // made by another goroutine meanwhile
	}
	if err := c.clockErr(); err != nil {
		dl.err = err
		close(dl.done)
		return dl.done
	}
	dl.timer = time.AfterFunc(c.deadline-monoNow(), func() { dl.end(context.DeadlineExceeded) })
	dl.stopParent = context.AfterFunc(c.sess.ctx, func() { dl.end(c.sess.ctx.Err()) })
	return dl.done
}

// Err returns context.DeadlineExceeded once the deadline has passed, the session context's
// error once it has ended, and nil before; once Done has been called, as Done's channel says.
func (c *reqContext) Err() error {
	if c.deadline == 0 {
		return c.sess.ctx.Err()
	}
	if dl := c.dl.Load(); dl != nil {
		dl.mu.Lock()
		defer dl.mu.Unlock()
		return dl.err
	}
	return c.clockErr()
}

// clockErr is Err computed from the session's context and the clock.
func (c *reqContext) clockErr() error {
	if err := c.sess.ctx.Err(); err != nil {
		return err
	}
	if monoNow() >= c.deadline {
		return context.DeadlineExceeded
	}
	return nil
}

// end closes the channel with err, unless it is closed.
func (dl *deadlineState) end(err error) {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	if dl.err == nil {
		dl.err = err
		close(dl.done)
	}
}

// release stops the timer and the registration of Done's channel once the handler has
// returned, and closes the channel (context.Canceled) for whatever still waits on it.
func (c *reqContext) release() {
	if c.deadline == 0 {
		return
	}
	if dl := c.dl.Load(); dl != nil {
		dl.mu.Lock()
		timer, stop := dl.timer, dl.stopParent
		dl.mu.Unlock()
		if timer != nil {
			timer.Stop()
			stop()
		}
		dl.end(context.Canceled)
	}
}
