package gsfnet_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

type VersionReq struct{ ClientName string }
type VersionResp struct{ ClientVersionInfo string }
type CheckUsernameReq struct{ Username, Password string }

// The README's server and client: listen first (net.Listen), then Serve, then dial, so that the
// client never races the server's start.
func Example_readme() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	onNotify := func(m *gsf.Message) { fmt.Println("notify", m.Header.MsgType) }

	mux := gsfnet.NewMux()
	mux.Use(gsfnet.Logging(slog.Default()))
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo,
		func(ctx context.Context, s *gsfnet.Session, req *VersionReq) (*VersionResp, error) {
			if req.ClientName == "" {
				return nil, gsfnet.NewError(gsf.AppInput, "no client name") // → resultCode ERR, appCode, appString
			}
			return &VersionResp{ClientVersionInfo: "133852.true"}, nil
		})
	gsfnet.Handle(mux, gsf.SvcUserServer, 17, // CHECK_USERNAME
		func(ctx context.Context, s *gsfnet.Session, req *CheckUsernameReq) (*struct{}, error) {
			return &struct{}{}, nil
		})
	l, err := net.Listen("tcp", "127.0.0.1:0") // a real server: "127.0.0.1:7566"
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := &gsfnet.Server{Handler: mux}
	go srv.Serve(l)
	defer srv.Shutdown(ctx) // drains in-flight requests: no response is lost

	c, err := gsfnet.Dial(ctx, l.Addr().String(), &gsfnet.ClientOptions{NotifyHandler: onNotify})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var resp VersionResp
	err = c.Call(ctx, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, &VersionReq{"AmazingWorld"}, &resp) // safe from many goroutines at once
	fmt.Println(resp.ClientVersionInfo, err)

	// Pipelining from one goroutine: the requests go out in one write, the server answers the
	// batch with one write, and each Wait collects its response.
	a := c.Go(gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, &VersionReq{"AmazingWorld"}, &resp)
	b := c.Go(gsf.SvcUserServer, 17, &CheckUsernameReq{"newcomer", "secret"}, nil)
	errA, errB := a.Wait(ctx), b.Wait(ctx)
	fmt.Println(errA, errB)

	err = c.Call(ctx, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, &VersionReq{""}, &resp)
	fmt.Println(err)
	// Output:
	// 133852.true <nil>
	// <nil> <nil>
	// gsf error: result ERR, app INPUT: no client name
}
