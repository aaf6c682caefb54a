package gsfnet

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// fuzzInputs are the seeds of both fuzz targets: valid messages of every kind, and broken ones.
func fuzzInputs(t testing.TB) [][]byte {
	req := func(mt, id int32, body any) []byte { return frame(t, gsf.NewRequest(gsf.SvcUserServer, mt, id), body) }
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	notify := frame(t, gsf.NewNotify(gsf.SvcUserServer, msgPoke), &Echo{Text: "poke"})
	resp := func(id int32, h gsf.Header, body any) []byte {
		h.Flags |= gsf.FlagResponse
		h.SvcClass, h.MsgType, h.RequestID = gsf.SvcUserServer, msgEcho, id
		return frame(t, h, body)
	}
	return [][]byte{
		req(msgEcho, 1, &Echo{Text: "AmazingWorld"}),
		cat(req(msgEcho, 1, &Echo{Text: "a"}), req(msgFail, 2, &Echo{Text: "b"}), req(msgPanic, 3, nil), notify),
		cat(req(msgUnknown, 1, nil), req(1600, 2, nil), req(msgEcho, 3, &struct{ N int64 }{-1})),
		cat(resp(1, gsf.Header{}, &Echo{Text: "x"}), resp(2, gsf.Header{ResultCode: 10, AppCode: 17, AppString: "m", AppCodes: []gsf.AppCodeEntry{{Code: 1, String: "a"}}}, nil), notify),
		cat(resp(3, gsf.Header{}, nil), resp(99, gsf.Header{}, &Echo{})),
		{0x00},
		{0xff, 0xff, 0xff, 0x7f},
		{0x02, 0x80, 0x00},
		[]byte("GET / HTTP/1.1\r\n\r\n"),
		req(msgEcho, 1, &Echo{Text: "cut"})[:7],
	}
}

// FuzzServerConn sends arbitrary bytes to a server on loopback and reads what it answers until
// it closes the connection: no panic, every answer is a well-formed response to a request of
// the input (or the reply to a notify), and the server serves the next connection.
func FuzzServerConn(f *testing.F) {
	for _, in := range fuzzInputs(f) {
		f.Add(in)
	}
	srv := &Server{Handler: newFuzzMux(), Logger: slog.New(slog.DiscardHandler), MaxMessageBytes: 4096, ReadTimeout: 5 * time.Second}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Close()

	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := net.DialTimeout("tcp", l.Addr().String(), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		go func() {
			c.Write(data)
			c.(*net.TCPConn).CloseWrite()
		}()
		out, err := io.ReadAll(c)
		if err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Fatalf("reading the answers: %v", err)
		}
		// The requests and notifies of the input, up to the first broken frame.
		ids := map[int32]bool{}
		notifies := 0
		for in := data; len(in) > 0; {
			m, n, err := gsf.ConsumeMessage(in)
			if err != nil {
				break
			}
			in = in[n:]
			switch {
			case m.Header.IsRequest():
				ids[m.Header.RequestID] = true
			case m.Header.IsNotify():
				notifies++
			}
		}
		for len(out) > 0 {
			m, n, err := gsf.ConsumeMessage(out)
			if err != nil {
				t.Fatalf("the server wrote a broken frame: %v\n% x", err, out)
			}
			out = out[n:]
			switch h := m.Header; {
			case h.IsResponse():
				if !ids[h.RequestID] {
					t.Fatalf("a response to request %d, which the input does not have", h.RequestID)
				}
			case h.IsNotify() && h.Flags&gsf.FlagResponse != 0:
				if notifies == 0 {
					t.Fatalf("a reply to a notify, which the input does not have")
				}
			default:
				t.Fatalf("the server sent %v", &h)
			}
		}
	})
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne)
}

// newFuzzMux is the test server's mux (see newEnv) for the fuzz target, plus a handler that
// echoes the raw body.
func newFuzzMux() *Mux {
	mux := NewMux()
	Handle(mux, gsf.SvcUserServer, msgEcho, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) { return req, nil })
	Handle(mux, gsf.SvcUserServer, msgFail, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) {
		return nil, NewError(gsf.AppAuth, req.Text)
	})
	mux.HandleFunc(gsf.SvcUserServer, msgPanic, func(ctx context.Context, r *Request) (any, error) { panic("fuzz") })
	Handle(mux, gsf.SvcUserServer, msgPoke, func(ctx context.Context, s *Session, req *Echo) (*Echo, error) { return req, nil })
	mux.HandleFunc(gsf.SvcUserServer, 1600, func(ctx context.Context, r *Request) (any, error) { return r.Body, nil })
	return mux
}

// FuzzClientConn feeds arbitrary bytes from a "server" to a client with calls in flight: no
// panic, every call returns, and Close returns.
func FuzzClientConn(f *testing.F) {
	for _, in := range fuzzInputs(f) {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cc, sc := net.Pipe()
		requests := make(chan struct{})
		go func() { // the client's requests
			fr := gsf.NewFrameReader(sc)
			for range 3 {
				if _, err := fr.ReadFrame(); err != nil {
					break
				}
			}
			close(requests)
			io.Copy(io.Discard, sc)
		}()
		c := NewClient(cc, &ClientOptions{MaxMessageBytes: 4096, Logger: slog.New(slog.DiscardHandler), NotifyHandler: func(m *gsf.Message) {
			var e Echo
			m.DecodeBody(&e)
		}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Any outcome will do (a response, an *Error, a body that does not decode,
				// ErrClosed), as long as the call returns.
				var resp Echo
				c.Call(ctx, gsf.SvcUserServer, msgEcho, &Echo{Text: "x"}, &resp)
			}()
		}
		// Let the calls get their ids (1, 2, 3) before the "server" answers: it has read their
		// three requests.
		select {
		case <-requests:
		case <-ctx.Done():
		}
		sc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		sc.Write(data)
		sc.Close()
		wg.Wait()
		if ctx.Err() != nil {
			t.Fatal("a call did not return when the connection closed")
		}
		c.Close()
	})
}
