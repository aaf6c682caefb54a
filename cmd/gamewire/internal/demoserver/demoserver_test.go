package demoserver

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

// syncBuffer is a bytes.Buffer for the server's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T) (string, *syncBuffer) {
	t.Helper()
	logs := new(syncBuffer)
	srv := NewServer("", slog.New(slog.NewTextHandler(logs, nil)), Options{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
		<-done
	})
	return l.Addr().String(), logs
}

// TestReferenceBytes sends the protocol documentation's example request and expects the bytes
// the live reference server answered with.
func TestReferenceBytes(t *testing.T) {
	addr, _ := start(t)
	req, _ := hex.DecodeString("1520c25c046d0c0c18416d617a696e67576f726c6400")
	want, _ := hex.DecodeString("1521c25c046d0c1030583133333835322e7472756500")
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
}

func TestMessages(t *testing.T) {
	addr, logs := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var v GetClientVersionInfoResponse
	if err := c.Call(ctx, gsf.SvcUserServer, GetClientVersionInfo, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, &v); err != nil || v.ClientVersionInfo != DefaultVersionInfo {
		t.Errorf("GetClientVersionInfo: %q, %v", v.ClientVersionInfo, err)
	}
	if err := c.Call(ctx, gsf.SvcUserServer, CheckUsername, &CheckUsernameRequest{Username: "alice"}, &CheckUsernameResponse{}); err != nil {
		t.Errorf("CheckUsername alice: %v", err)
	}
	err = c.Call(ctx, gsf.SvcUserServer, CheckUsername, &CheckUsernameRequest{Username: "Admin"}, nil)
	var ge *gsfnet.Error
	if !errors.As(err, &ge) || ge.ResultCode != gsf.ResultErr || ge.AppCode != gsf.AppDuplicateNickname || ge.AppString != `username "Admin" is already in use` {
		t.Errorf("CheckUsername admin: %v", err)
	}
	var e EchoBody
	if err := c.Call(ctx, gsf.SvcSyncServer, Echo, &EchoBody{Text: "ping"}, &e); err != nil || e.Text != "ping" {
		t.Errorf("Echo: %q, %v", e.Text, err)
	}
	if err := c.Call(ctx, gsf.SvcUserServer, 1, nil, nil); !errors.As(err, &ge) || ge.AppCode != gsf.AppNotImplemented {
		t.Errorf("an unknown message: %v", err)
	}
	c.Close()
	if !strings.Contains(logs.String(), "request USER_SERVER/GET_CLIENT_VERSION_INFO id=1") {
		t.Errorf("the requests are not logged:\n%s", logs.String())
	}
}

// TestFieldLists checks that the field lists of Messages describe the body structs.
func TestFieldLists(t *testing.T) {
	bodies := map[int32][2]any{
		GetClientVersionInfo: {&GetClientVersionInfoRequest{ClientName: "a"}, &GetClientVersionInfoResponse{ClientVersionInfo: "b"}},
		CheckUsername:        {&CheckUsernameRequest{Username: "a", Password: "b"}, &CheckUsernameResponse{}},
		Echo:                 {&EchoBody{Text: "a"}, &EchoBody{Text: "b"}},
		BindUser:             {&BindUserRequest{User: "a", Room: "b"}, &BindUserResponse{}},
		Chat:                 {&ChatRequest{Room: "a", Text: "b"}, &ChatResponse{Delivered: 7}},
	}
	values := map[string][]any{
		"clientName:string": {"a"}, "clientVersionInfo:string": {"b"}, "username:string,password:string": {"a", "b"},
		"text:string": {"a"}, "": nil, "user:string,room:string": {"a", "b"}, "room:string,text:string": {"a", "b"},
		"delivered:int32": {7},
	}
	for _, m := range Messages {
		if got, ok := Lookup(m.Class, m.Type); !ok || got.Type != m.Type {
			t.Errorf("Lookup(%v, %d)", m.Class, m.Type)
		}
		for i, list := range []string{m.Request, m.Response} {
			if m.Type == Echo && i == 1 {
				values["text:string"] = []any{"b"}
			}
			fields, err := bitproto.ParseFields(list)
			if list != "" && err != nil {
				t.Fatal(err)
			}
			var w bitstream.Writer
			if err := bitproto.EncodeFields(&w, fields, values[list]); err != nil {
				t.Fatal(err)
			}
			want, err := bitproto.Marshal(bodies[m.Type][i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.Bytes(), want) {
				t.Errorf("%d body %d: the field list %q gives % x, the struct % x", m.Type, i, list, w.Bytes(), want)
			}
		}
	}
	if _, ok := Lookup(gsf.SvcUserServer, 1); ok {
		t.Error("Lookup of a message the server does not answer")
	}
}
