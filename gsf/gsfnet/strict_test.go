package gsfnet_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

// TestHandleStrict: a body with bits left over is refused by a strict handler and accepted by
// a lenient one; a well-formed body passes both.
func TestHandleStrict(t *testing.T) {
	type name struct{ Name string }
	type twoNames struct{ Name, Extra string }
	type ok struct{ Got string }
	reply := func(ctx context.Context, s *gsfnet.Session, req *name) (*ok, error) { return &ok{Got: req.Name}, nil }
	mux := gsfnet.NewMux()
	gsfnet.HandleStrict(mux, gsf.SvcUserServer, gsf.MsgValidateName, reply)
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgSelectPlayerName, reply)
	srv := &gsfnet.Server{Handler: mux}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var got ok
	if err := c.Call(ctx, gsf.SvcUserServer, gsf.MsgValidateName, &name{"ada"}, &got); err != nil || got.Got != "ada" {
		t.Errorf("strict, well-formed: %v %q", err, got.Got)
	}
	var ge *gsfnet.Error
	err = c.Call(ctx, gsf.SvcUserServer, gsf.MsgValidateName, &twoNames{"ada", "more"}, &got)
	if !errors.As(err, &ge) || ge.ResultCode != gsf.ResultSerialize || ge.AppCode != gsf.AppInput {
		t.Errorf("strict, bits left over: %v", err)
	}
	got = ok{}
	if err := c.Call(ctx, gsf.SvcUserServer, gsf.MsgSelectPlayerName, &twoNames{"bo", "more"}, &got); err != nil || got.Got != "bo" {
		t.Errorf("lenient, bits left over: %v %q", err, got.Got)
	}
}
