package gsfnet

import (
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// TestClientFlushAfterWriteDeadline: a client whose writer goroutine wrote once (setting the
// connection's write deadline, WriteTimeout and a quarter ahead) and which then only sends with
// Go and Wait (whose flush writes without blocking) keeps working after that deadline has
// passed.
func TestClientFlushAfterWriteDeadline(t *testing.T) {
	checkLeaks(t)
	e := newEnv(t, nil)
	c := e.dial(&ClientOptions{WriteTimeout: 40 * time.Millisecond})
	// A blocking write, as the writer goroutine makes, sets the deadline.
	h := gsf.NewNotify(gsf.SvcUserServer, msgRecord)
	b, err := encodeFrame(&c.bufs, &h, &Echo{Text: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.enqueue(*b, sendNow); err != nil {
		t.Fatal(err)
	}
	e.echo(c, "first")
	time.Sleep(120 * time.Millisecond) // past the deadline the writer set
	var resp Echo
	if err := c.Go(gsf.SvcUserServer, msgEcho, &Echo{Text: "later"}, &resp).Wait(ctxTimeout(t, 10*time.Second)); err != nil || resp.Text != "later" {
		t.Fatalf("a call after the write deadline: %v %q (client: %v)", err, resp.Text, c.Err())
	}
}
