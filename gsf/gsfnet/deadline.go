package gsfnet

import (
	"context"
	"time"
)

// A handler's context has the deadline of Server.HandlerTimeout. A context.WithDeadline for
// every message would cost a timer and a registration with the session's context even for the
// handlers that never look at their context; reqContext instead computes Err from the clock,
// and makes the channel of Done, with its timer, only for a handler that asks for it.

// deadlineState is the Done channel of a reqContext with a deadline, and what closes it.
type deadlineState struct {
	done       chan struct{}
	err        error       // set when done is closed
	timer      *time.Timer // closes done at the deadline
	stopParent func() bool // unregisters the closing of done with the session's context
}

// Deadline returns the handler's deadline.
func (c *reqContext) Deadline() (time.Time, bool) {
	if c.deadline.IsZero() {
		return c.Context.Deadline()
	}
	return c.deadline, true
}

// Done returns a channel that is closed at the deadline or when the session's context ends.
func (c *reqContext) Done() <-chan struct{} {
	if c.deadline.IsZero() {
		return c.Context.Done()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dl == nil {
		dl := &deadlineState{done: make(chan struct{})}
		c.dl = dl
		if err := c.errLocked(); err != nil {
			dl.err = err
			close(dl.done)
		} else {
			dl.timer = time.AfterFunc(time.Until(c.deadline), func() { c.end(context.DeadlineExceeded) })
			dl.stopParent = context.AfterFunc(c.Context, func() { c.end(c.Context.Err()) })
		}
	}
	return c.dl.done
}

// Err returns context.DeadlineExceeded once the deadline has passed, the session context's
// error once it has ended, and nil before; once Done has been called, as Done's channel says.
func (c *reqContext) Err() error {
	if c.deadline.IsZero() {
		return c.Context.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dl != nil {
		return c.dl.err
	}
	return c.errLocked()
}

// errLocked is Err computed from the session's context and the clock. c.mu is held.
func (c *reqContext) errLocked() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// end closes Done's channel with err, unless it is closed.
func (c *reqContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dl.err == nil {
		c.dl.err = err
		close(c.dl.done)
	}
}

// release stops the timer and the registration of Done's channel once the handler has
// returned, and closes the channel (context.Canceled) for whatever still waits on it.
func (c *reqContext) release() {
	if c.deadline.IsZero() {
		return
	}
	c.mu.Lock()
	dl := c.dl
	c.mu.Unlock()
	if dl != nil && dl.timer != nil {
		dl.timer.Stop()
		dl.stopParent()
		c.end(context.Canceled)
	}
}
