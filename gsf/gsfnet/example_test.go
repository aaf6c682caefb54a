package gsfnet_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

// GetClientVersionInfoRequest is the body of the first request the game client sends.
type GetClientVersionInfoRequest struct {
	ClientName string
}

// GetClientVersionInfoResponse is the reference server's answer: "<version>.<forceUpdate>".
type GetClientVersionInfoResponse struct {
	ClientVersionInfo string
}

// CheckUsernameRequest asks whether a name is free.
type CheckUsernameRequest struct {
	Username string
	Password string
}

// ChatNotify is a chat line the server sends to the clients in a room.
type ChatNotify struct {
	From, Text string
}

const (
	getClientVersionInfo = gsf.MsgGetClientVersionInfo // 566
	checkUsername        = gsf.MsgCheckUsername        // 17
	chat                 = gsf.ClientMsgChat           // 8
)

// start runs srv on a loopback port and returns its address.
func start(srv *gsfnet.Server) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(l)
	return l.Addr().String()
}

// A server and a client: the typed handler gets the decoded request and returns the response
// body; the client's Call sends the request and decodes the response.
func Example() {
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, getClientVersionInfo,
		func(ctx context.Context, s *gsfnet.Session, req *GetClientVersionInfoRequest) (*GetClientVersionInfoResponse, error) {
			return &GetClientVersionInfoResponse{ClientVersionInfo: "133852.true"}, nil
		})
	srv := &gsfnet.Server{Handler: mux}
	addr := start(srv)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var resp GetClientVersionInfoResponse
	err = c.Call(ctx, gsf.SvcUserServer, getClientVersionInfo, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, &resp)
	fmt.Println(resp.ClientVersionInfo, err)

	// The whole response message: the request's id, flags 1 (response), result OK.
	m, err := c.Do(ctx, gsf.NewRequest(gsf.SvcUserServer, getClientVersionInfo, 0), &GetClientVersionInfoRequest{ClientName: "AmazingWorld"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(&m.Header)

	fmt.Println(srv.Shutdown(ctx))
	// Output:
	// 133852.true <nil>
	// response USER_SERVER/GET_CLIENT_VERSION_INFO id=2
	// <nil>
}

// A handler's *Error becomes the response's result code, app code and app string; the client
// gets it back as an *Error.
func ExampleError() {
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, checkUsername,
		func(ctx context.Context, s *gsfnet.Session, req *CheckUsernameRequest) (*struct{}, error) {
			if req.Username == "admin" {
				return nil, gsfnet.Errorf(gsf.AppDuplicateNickname, "username %q is already in use", req.Username)
			}
			return &struct{}{}, nil
		})
	srv := &gsfnet.Server{Handler: mux}
	addr := start(srv)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	err = c.Call(ctx, gsf.SvcUserServer, checkUsername, &CheckUsernameRequest{Username: "admin"}, nil)
	var ge *gsfnet.Error
	if errors.As(err, &ge) {
		fmt.Println(ge.ResultCode, ge.AppCode, ge.AppString)
	}
	fmt.Println(c.Call(ctx, gsf.SvcUserServer, checkUsername, &CheckUsernameRequest{Username: "alice"}, nil))
	// Output:
	// ERR DUPLICATE_NICKNAME username "admin" is already in use
	// <nil>
}

// A Group sends a notify to many sessions; the clients get it in their notify handler.
func ExampleGroup() {
	var room gsfnet.Group
	joined := make(chan struct{}, 2)
	srv := &gsfnet.Server{
		Handler:   gsfnet.NewMux(),
		OnConnect: func(s *gsfnet.Session) { room.Add(s); joined <- struct{}{} },
	}
	addr := start(srv)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 2)
	for _, name := range []string{"alice", "bob"} {
		c, err := gsfnet.Dial(ctx, addr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
			var n ChatNotify
			if err := m.DecodeBody(&n); err == nil {
				got <- fmt.Sprintf("%s got %s/%s: %s: %s", name, m.Header.SvcClass, m.Header.MessageTypeName(), n.From, n.Text)
			}
		}})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
	}
	<-joined
	<-joined
	n, err := room.Notify(gsf.SvcClient, chat, &ChatNotify{From: "server", Text: "welcome"})
	fmt.Println(n, err)
	a, b := <-got, <-got
	if a > b {
		a, b = b, a
	}
	fmt.Println(a)
	fmt.Println(b)
	// Output:
	// 2 <nil>
	// alice got CLIENT/CHAT: server: welcome
	// bob got CLIENT/CHAT: server: welcome
}

// Middleware wraps every route: here, a login check that keeps state in the session.
func ExampleMux_Use() {
	type playerKey struct{}
	mux := gsfnet.NewMux()
	mux.Use(func(next gsfnet.Handler) gsfnet.Handler {
		return gsfnet.HandlerFunc(func(ctx context.Context, r *gsfnet.Request) (any, error) {
			if r.Header.MsgType != 15 && r.Session.Get(playerKey{}) == nil { // all but LOGIN
				return nil, gsfnet.NewError(gsf.AppNotLogIn, "log in first")
			}
			return next.ServeGSF(ctx, r)
		})
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, 15, func(ctx context.Context, s *gsfnet.Session, req *struct{ LoginID string }) (*struct{}, error) {
		s.Set(playerKey{}, req.LoginID)
		return &struct{}{}, nil
	})
	gsfnet.Handle(mux, gsf.SvcUserServer, getClientVersionInfo, func(ctx context.Context, s *gsfnet.Session, req *GetClientVersionInfoRequest) (*GetClientVersionInfoResponse, error) {
		return &GetClientVersionInfoResponse{ClientVersionInfo: fmt.Sprintf("hello %s", s.Get(playerKey{}))}, nil
	})
	srv := &gsfnet.Server{Handler: mux, Logger: slog.New(slog.DiscardHandler)}
	addr := start(srv)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var resp GetClientVersionInfoResponse
	fmt.Println(c.Call(ctx, gsf.SvcUserServer, getClientVersionInfo, &GetClientVersionInfoRequest{}, &resp))
	fmt.Println(c.Call(ctx, gsf.SvcUserServer, 15, &struct{ LoginID string }{"alice"}, nil))
	fmt.Println(c.Call(ctx, gsf.SvcUserServer, getClientVersionInfo, &GetClientVersionInfoRequest{}, &resp), resp.ClientVersionInfo)
	// Output:
	// gsf error: result ERR, app NOT_LOG_IN: log in first
	// <nil>
	// <nil> hello alice
}

// Pipelining: Go starts calls without waiting for their responses. Requests started in a row
// go out in one write and the server answers them together; Wait collects each response.
func ExampleClient_Go() {
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, getClientVersionInfo,
		func(ctx context.Context, s *gsfnet.Session, req *GetClientVersionInfoRequest) (*GetClientVersionInfoResponse, error) {
			return &GetClientVersionInfoResponse{ClientVersionInfo: "133852.true"}, nil
		})
	gsfnet.Handle(mux, gsf.SvcUserServer, checkUsername,
		func(ctx context.Context, s *gsfnet.Session, req *CheckUsernameRequest) (*struct{}, error) {
			if req.Username == "taken" {
				return nil, gsfnet.NewError(gsf.AppDuplicateNickname, "in use")
			}
			return &struct{}{}, nil
		})
	srv := &gsfnet.Server{Handler: mux}
	addr := start(srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, addr, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	var version GetClientVersionInfoResponse
	v := c.Go(gsf.SvcUserServer, getClientVersionInfo, &GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, &version)
	free := c.Go(gsf.SvcUserServer, checkUsername, &CheckUsernameRequest{Username: "newcomer"}, nil)
	taken := c.Go(gsf.SvcUserServer, checkUsername, &CheckUsernameRequest{Username: "taken"}, nil)

	fmt.Println(v.Wait(ctx), version.ClientVersionInfo)
	fmt.Println(free.Wait(ctx))
	var ge *gsfnet.Error
	if err := taken.Wait(ctx); errors.As(err, &ge) {
		fmt.Println(ge.AppCode)
	}
	fmt.Println(srv.Shutdown(ctx))
	// Output:
	// <nil> 133852.true
	// <nil>
	// DUPLICATE_NICKNAME
	// <nil>
}

// Limits for a server on the Internet, and a client's call timeout: a call to a message the
// server ignores (as the reference server does) fails after the call timeout instead of
// waiting forever.
func ExampleClientOptions() {
	srv := &gsfnet.Server{
		Handler:          gsfnet.NewMux(),
		MaxConnsPerIP:    50,                   // off by default: players behind one NAT share an address
		AcceptRate:       200,                  // new connections per second, off by default
		AcceptBurst:      1000,                 //
		MaxBufferedBytes: 32 << 20,             // partial frames of all connections, beyond 4 KiB each
		HandlerTimeout:   5 * time.Second,      // the deadline of each handler's context
		UnknownPolicy:    gsfnet.UnknownIgnore, // send nothing for unknown messages
	}
	addr := start(srv)
	defer srv.Close()

	c, err := gsfnet.Dial(context.Background(), addr, &gsfnet.ClientOptions{CallTimeout: 50 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	err = c.Call(context.Background(), gsf.SvcUserServer, 9999, nil, nil)
	fmt.Println(errors.Is(err, gsfnet.ErrCallTimeout), errors.Is(err, context.DeadlineExceeded))
	fmt.Println("refused so far:", srv.Refusals().MaxConns+srv.Refusals().PerIP+srv.Refusals().AcceptRate)
	// Output:
	// true true
	// refused so far: 0
}
