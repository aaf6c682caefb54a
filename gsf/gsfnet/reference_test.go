package gsfnet_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

type refText struct{ Text string }

// refServer serves srv on a loopback listener and returns its address.
func refServer(t *testing.T, srv *gsfnet.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, gsfnet.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// pipelinedOrder sends requests for msgTypes in one write on a raw connection and returns the
// request ids of the responses in the order they came (request i has id i+1).
func pipelinedOrder(t *testing.T, addr string, msgTypes []int32, firstRead chan struct{}) []int32 {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out []byte
	for i, mt := range msgTypes {
		h := gsf.Header{SvcClass: gsf.SvcUserServer, MsgType: mt, RequestID: int32(i + 1)}
		if out, err = gsf.AppendMessage(out, &h, &refText{"x"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Write(out); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	fr := gsf.NewFrameReader(conn)
	var ids []int32
	for range msgTypes {
		payload, err := fr.ReadFrame()
		if err != nil {
			t.Fatalf("after %v: %v", ids, err)
		}
		if firstRead != nil && len(ids) == 0 {
			close(firstRead)
		}
		frame, err := gsf.AppendFrame(nil, payload)
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := gsf.ConsumeMessage(frame)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.Header.RequestID)
	}
	return ids
}

// TestInOrderByDefault: a connection's pipelined requests are answered in the order they came
// even when the first one's handler is slow, as the reference does; with OutOfOrder the quick
// ones are answered first.
func TestInOrderByDefault(t *testing.T) {
	const slow, quick = 3000, 3001
	// newMux's slow handler takes 20 ms (a database query, say: a slow handler, not a wait for
	// an event) or, given a channel, until the client has read a first response, so that with
	// OutOfOrder a quick one comes first however the machine schedules the handlers.
	newMux := func(firstRead chan struct{}) *gsfnet.Mux {
		mux := gsfnet.NewMux()
		gsfnet.Handle(mux, gsf.SvcUserServer, slow, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
			if firstRead == nil {
				time.Sleep(20 * time.Millisecond)
				return req, nil
			}
			select {
			case <-firstRead:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return req, nil
		})
		gsfnet.Handle(mux, gsf.SvcUserServer, quick, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
			return req, nil
		})
		return mux
	}
	reqs := []int32{slow, quick, quick, slow, quick}
	addr := refServer(t, &gsfnet.Server{Handler: newMux(nil)})
	if got := fmt.Sprint(pipelinedOrder(t, addr, reqs, nil)); got != "[1 2 3 4 5]" {
		t.Errorf("default: responses to ids %s, want [1 2 3 4 5]", got)
	}
	firstRead := make(chan struct{})
	addr = refServer(t, &gsfnet.Server{Handler: newMux(firstRead), OutOfOrder: true})
	if got := pipelinedOrder(t, addr, reqs, firstRead); got[0] == 1 {
		t.Errorf("OutOfOrder: responses to ids %v, want the quick ones before the slow first one", got)
	}
}

// TestCloseOnError: with CloseOnError, a handler's plain error, a panic and a body that does
// not decode close the connection without a response, after the responses to the requests
// before; an *Error is answered (with its cause's text when it has no app string) and the
// connection stays open. Without it, all are answered and the connection stays open.
func TestCloseOnError(t *testing.T) {
	const (
		echo, plain, panics, strict, gsfErr, bare = 3100, 3101, 3102, 3103, 3104, 3105
	)
	errDB := errors.New("database is gone")
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, echo, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
		return req, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, plain, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
		return nil, errDB
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, panics, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
		panic("boom")
	})
	gsfnet.HandleStrict(mux, gsf.SvcUserServer, strict, func(ctx context.Context, s *gsfnet.Session, req *struct{}) (*refText, error) {
		return &refText{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, gsfErr, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
		return nil, gsfnet.Errorf(gsf.AppAuth, "wrong password for %s", req.Text)
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, bare, func(ctx context.Context, s *gsfnet.Session, req *refText) (*refText, error) {
		return nil, &gsfnet.Error{ResultCode: gsf.ResultErr, AppCode: gsf.AppInternalError, Err: errDB}
	})
	closed := make(chan error, 10)
	addr := refServer(t, &gsfnet.Server{Handler: mux, CloseOnError: true,
		OnDisconnect: func(s *gsfnet.Session, err error) { closed <- err }})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	for _, tc := range []struct {
		name    string
		msgType int32
		cause   error
	}{
		{"plain error", plain, errDB},
		{"panic", panics, gsfnet.ErrHandlerPanic},
		{"bad body", strict, gsfnet.ErrBadBody},
	} {
		c, err := gsfnet.Dial(ctx, addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		var before refText
		first := c.Go(gsf.SvcUserServer, echo, &refText{"first"}, &before)
		failing := c.Go(gsf.SvcUserServer, tc.msgType, &refText{"x"}, nil)
		after := c.Go(gsf.SvcUserServer, echo, &refText{"after"}, nil)
		if err := first.Wait(ctx); err != nil || before.Text != "first" {
			t.Errorf("%s: the request before: %v %q", tc.name, err, before.Text)
		}
		if err := failing.Wait(ctx); !errors.Is(err, gsfnet.ErrClosed) {
			t.Errorf("%s: the failing request: %v, want ErrClosed (no response)", tc.name, err)
		}
		if err := after.Wait(ctx); !errors.Is(err, gsfnet.ErrClosed) {
			t.Errorf("%s: the request after: %v, want ErrClosed", tc.name, err)
		}
		if cause := <-closed; !errors.Is(cause, tc.cause) {
			t.Errorf("%s: the session closed with %v, want %v", tc.name, cause, tc.cause)
		}
		c.Close()
	}

	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ge *gsfnet.Error
	if err := c.Call(ctx, gsf.SvcUserServer, gsfErr, &refText{"ada"}, nil); !errors.As(err, &ge) || ge.AppCode != gsf.AppAuth || ge.AppString != "wrong password for ada" {
		t.Errorf("*Error: %v", err)
	}
	if err := c.Call(ctx, gsf.SvcUserServer, bare, &refText{}, nil); !errors.As(err, &ge) || ge.AppString != errDB.Error() {
		t.Errorf("*Error without an app string: %v, want the cause's text %q", err, errDB)
	}
	var resp refText
	if err := c.Call(ctx, gsf.SvcUserServer, echo, &refText{"still open"}, &resp); err != nil || resp.Text != "still open" {
		t.Errorf("after *Errors: %v %q", err, resp.Text)
	}

	// The default answers every failure and keeps the connection.
	addr = refServer(t, &gsfnet.Server{Handler: mux})
	c2, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, mt := range []int32{plain, panics, strict} {
		if err := c2.Call(ctx, gsf.SvcUserServer, mt, &refText{"x"}, nil); !errors.As(err, &ge) {
			t.Errorf("default, %d: %v, want an error response", mt, err)
		}
	}
	if err := c2.Call(ctx, gsf.SvcUserServer, bare, &refText{}, nil); !errors.As(err, &ge) || ge.AppString != "" {
		t.Errorf("default, *Error without an app string: %v, want it sent as it is", err)
	}
}

// TestClientStrict: a response body with bits left over fails a call of a strict client and
// passes a lenient one.
func TestClientStrict(t *testing.T) {
	type twoTexts struct{ Text, Extra string }
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, 3200, func(ctx context.Context, s *gsfnet.Session, req *refText) (*twoTexts, error) {
		return &twoTexts{req.Text, "more than the client expects"}, nil
	})
	addr := refServer(t, &gsfnet.Server{Handler: mux})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, strict := range []bool{false, true} {
		c, err := gsfnet.Dial(ctx, addr, &gsfnet.ClientOptions{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		var resp refText
		err = c.Call(ctx, gsf.SvcUserServer, 3200, &refText{"a"}, &resp)
		if strict && !errors.Is(err, gsf.ErrTrailingBits) {
			t.Errorf("strict: %v, want ErrTrailingBits", err)
		}
		if !strict && (err != nil || resp.Text != "a") {
			t.Errorf("lenient: %v %q", err, resp.Text)
		}
		c.Close()
	}
}

// TestDialRefusesBadLimits: a limit below NoLimit is refused; NoLimit is taken.
func TestDialRefusesBadLimits(t *testing.T) {
	addr := refServer(t, &gsfnet.Server{Handler: gsfnet.NewMux()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := gsfnet.Dial(ctx, addr, &gsfnet.ClientOptions{CallTimeout: -2}); err == nil {
		t.Error("CallTimeout -2 was taken")
	}
	c, err := gsfnet.Dial(ctx, addr, &gsfnet.ClientOptions{CallTimeout: gsfnet.NoLimit, MaxMessageBytes: gsfnet.NoLimit})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
