package demo

// This file's name sorts after the other steps' files, so that its step, registered by init,
// comes last: it builds on the GSF message layer that the earlier steps show.

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/cmd/gamewire/internal/demoserver"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
)

func init() {
	addStep("GSF over TCP: a real round trip with the demo server (gamewire serve, gamewire call)", roundTripStep)
}

// referenceAnswer is what the live reference server answered to the protocol documentation's
// GetClientVersionInfo request (spec/bitprotocol.md §9).
const referenceAnswer = "1521c25c046d0c1030583133333835322e7472756500"

func roundTripStep(w io.Writer) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	return roundTrip(w, l, func() (net.Conn, error) { return net.Dial("tcp", l.Addr().String()) })
}

// roundTrip is the step with the server on l and the client's connection from dial (a test
// runs it over net.Pipe, in a synctest bubble).
func roundTrip(w io.Writer, l net.Listener, dial func() (net.Conn, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := demoserver.NewServer("", slog.New(slog.DiscardHandler), demoserver.Options{})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	defer func() {
		srv.Close()
		<-served
	}()
	fmt.Fprintf(w, "$ gamewire serve        (here: in this process, on a free loopback port)\n")
	conn, err := dial()
	if err != nil {
		return err
	}
	c := gsfnet.NewClient(conn, nil)
	defer c.Close()

	type call struct {
		cmd      string
		class    gsf.ServiceClass
		msgType  int32
		body     any
		respBody string
	}
	for i, cl := range []call{
		{`gamewire call --type GET_CLIENT_VERSION_INFO --values '["AmazingWorld"]'`, gsf.SvcUserServer, demoserver.GetClientVersionInfo,
			&demoserver.GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, "clientVersionInfo:string"},
		{`gamewire call --type CHECK_USERNAME --values '["admin", "secret"]'`, gsf.SvcUserServer, demoserver.CheckUsername,
			&demoserver.CheckUsernameRequest{Username: "admin", Password: "secret"}, ""},
	} {
		h := gsf.NewRequest(cl.class, cl.msgType, 0)
		m, err := c.Do(ctx, h, cl.body)
		if err != nil {
			return err
		}
		h.RequestID = m.Header.RequestID
		req, err := gsf.AppendMessage(nil, &h, cl.body)
		if err != nil {
			return err
		}
		resp, err := m.Append(nil)
		if err != nil {
			return err
		}
		var opts gsf.ExplainOptions
		if cl.respBody != "" {
			if opts.Body, err = bitproto.ParseFields(cl.respBody); err != nil {
				return err
			}
		}
		ex, err := gsf.Explain(resp, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n$ %s\n", cl.cmd)
		fmt.Fprintf(w, "→ %s (%d bytes)\n% x\n", &h, len(req), req)
		fmt.Fprintf(w, "← %s (%d bytes)\n% x\n", &m.Header, len(resp), resp)
		if err := ex.WriteSummary(w); err != nil {
			return err
		}
		if i == 0 {
			want, _ := hex.DecodeString(referenceAnswer)
			if !bytes.Equal(resp, want) {
				return fmt.Errorf("the answer differs from the reference server's:\n% x\n% x", resp, want)
			}
			fmt.Fprintln(w, "The answer is byte for byte the one the live reference server gave.")
		}
	}
	if err := srv.Shutdown(ctx); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nServer shut down gracefully.")
	return nil
}
