package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/cmd/gamewire/internal/demoserver"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/messages"
)

func init() {
	register(command{area: "serve", summary: "run a demo GSF server on loopback (GetClientVersionInfo and more)", run: serveCmd})
	register(command{area: "call", summary: "send one GSF request to a server and print the decoded response", run: callCmd})
}

// serveContext returns the context that stops "gamewire serve": canceled on SIGINT or SIGTERM.
// Tests replace it.
var serveContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// catalogRequest finds a request of the message catalog by its Go type name or by its message
// type name within class.
func catalogRequest(class gsf.ServiceClass, name string) (*messages.Entry, error) {
	e, ok := messages.ByName(name)
	if !ok && !strings.HasSuffix(name, "Request") {
		e, ok = messages.ByName(name + "Request") // the short name: GetRandomNames
	}
	if ok {
		if e.Kind != messages.Request && e.Kind != messages.Notify {
			return nil, fmt.Errorf("%s is a %s body, not a request", e.Name, e.Kind)
		}
		return e, nil
	}
	if t, ok := gsf.MessageTypeValue(class, name); ok {
		if e, ok := messages.Lookup(class, t, messages.Request); ok {
			return e, nil
		}
		return nil, fmt.Errorf("%s/%s has no request body in the catalog", class, strings.ToUpper(name))
	}
	return nil, fmt.Errorf("unknown message %q (a Go type such as LoginRequest or Login, or a message type of %s)", name, class)
}

// demoMessagesHelp lists the demo server's messages for the usage texts.
func demoMessagesHelp() string {
	var b strings.Builder
	for _, m := range demoserver.Messages {
		fmt.Fprintf(&b, "  %s/%s (%d/%d): %s\n", m.Class, gsf.MessageTypeName(m.Class, m.Type), m.Class, m.Type, m.About)
	}
	return strings.TrimRight(b.String(), "\n")
}

func serveCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("serve", "", "",
		"Runs a demo GSF server: the BitProtocol message layer of the game client over TCP. It answers\n"+
			"these messages and logs every message it gets (unknown ones get NOT_IMPLEMENTED):\n"+
			demoMessagesHelp()+"\n\n"+
			"It stops on Ctrl-C (SIGINT) or SIGTERM, after answering the requests it has read.\n\n"+
			"Example:\n  gamewire serve &\n  gamewire call --type GET_CLIENT_VERSION_INFO --values '[\"AmazingWorld\"]'", stderr)
	addr := fs.String("addr", gsfnet.DefaultAddr, "listen on this `host:port` (port 0 picks a free one)")
	version := fs.String("version-info", demoserver.DefaultVersionInfo, "the answer to GetClientVersionInfo: `version.forceUpdate`")
	maxConns := fs.Int("max-conns", 0, "the most connections at once (0: the default, 10000)")
	idle := fs.Duration("idle-timeout", 0, "disconnect clients silent for this long (0: the default, 5m)")
	perIP := fs.Int("max-conns-per-ip", 0, "the most connections at once from one IP address (0: no limit)")
	acceptRate := fs.Float64("accept-rate", 0, "the most new connections per second, in bursts of up to 2 seconds' worth (0: no limit)")
	handlerTimeout := fs.Duration("handler-timeout", 0, "the deadline of each handler's context (0: the default, 1m)")
	level := fs.String("log", "info", "log `level`: debug, info, warn or error")
	clusterURL := fs.String("cluster", "", "join a cluster of demo servers over the NATS server at this `url` (nats://host:port): rooms and user keys span every node")
	node := fs.String("node", "", "this node's `id` in the cluster (letters, digits, - and _; default: the host name and the port)")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return asUsage("log", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lv}))
	srv := demoserver.NewServer(*addr, logger, demoserver.Options{VersionInfo: *version})
	srv.MaxConns, srv.IdleTimeout = *maxConns, *idle
	srv.MaxConnsPerIP, srv.HandlerTimeout = *perIP, *handlerTimeout
	srv.AcceptRate, srv.AcceptBurst = *acceptRate, int(2**acceptRate)

	ctx, stop := serveContext()
	defer stop()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *clusterURL != "" {
		leave, err := joinCluster(srv, *clusterURL, *node, l.Addr(), logger)
		if err != nil {
			l.Close()
			return err
		}
		defer leave()
	} else if *node != "" {
		l.Close()
		return usagef("--node needs --cluster")
	}
	logger.Info("gamewire serve: listening", "addr", l.Addr().String())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("gamewire serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, gsfnet.ErrServerClosed) {
		return err
	}
	return nil
}

// enumFlag parses a number or a name with lookup.
func enumFlag[T ~int32](s, what string, lookup func(string) (T, bool)) (T, error) {
	if v, err := strconv.ParseInt(s, 0, 32); err == nil {
		return T(v), nil
	}
	if v, ok := lookup(s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("unknown %s %q", what, s)
}

func callCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newCmdFlags("call", "", "",
		"Connects to a GSF server, sends one request, and prints the request and the response: their\n"+
			"bytes in hex, and the response's header with the names of its numbers and its body fields.\n"+
			"Notifies that arrive meanwhile are printed too. The exit status is 1 when the server\n"+
			"answers with an error (a result or app code that is not 0).\n\n"+
			"--class and --type take numbers or names; --message names a request of the message catalog\n"+
			"(package gsf/messages) instead, by its Go type (LoginRequest) or its message type (LOGIN).\n"+
			"For catalog messages --request gives the body as a JSON object with the Go field names\n"+
			"(OIDs as {\"Class\":..,\"Type\":..,\"Server\":..,\"Number\":..}, \"class-type-server-number\" or the packed\n"+
			"number; dates in RFC 3339), and the response is decoded with the catalog.\n\n"+
			"--body and --response-body take field lists, for messages outside the catalog:\n"+fieldTypesHelp+"\n\n"+
			"For the messages of \"gamewire serve\" the field lists are known, and --values is enough:\n"+
			demoMessagesHelp()+"\n\n"+
			"Examples:\n"+
			"  gamewire call --message GetClientVersionInfoRequest --request '{\"ClientName\":\"AmazingWorld\"}'\n"+
			"  gamewire call --addr 127.0.0.1:7566 --class USER_SERVER --type GET_CLIENT_VERSION_INFO \\\n"+
			"           --body clientName:string --values '[\"AmazingWorld\"]'", stderr)
	addr := fs.String("addr", gsfnet.DefaultAddr, "the server's `host:port`")
	classText := fs.String("class", "USER_SERVER", "the service `class`: a name or a number")
	typeText := fs.String("type", "", "the message `type`: a name within the class, or a number (or --message)")
	msgName := fs.String("message", "", "a request of the message catalog, by Go type `name` (LoginRequest) or message type (LOGIN, within --class)")
	request := fs.String("request", "", "the request body of a catalog message, a JSON `object` (- reads it from standard input)")
	strict := fs.Bool("strict", true, "fail when bits are left over after a catalog response body (--strict=false ignores them)")
	body := fs.String("body", "", "the request body's field `list` (default: the demo server's, for its messages)")
	values := fs.String("values", "", "the request body's values, a JSON `array` (- reads it from standard input); without it the body is null")
	respBody := fs.String("response-body", "", "the response body's field `list` (default: the demo server's, for its messages)")
	logCorrelator := fs.String("log-correlator", "", "the request header's log correlator")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long")
	asJSON := fs.Bool("json", false, "print the response as JSON (the explanation of gsf decode --json)")
	wait := fs.Duration("wait", 0, "after the response, stay connected this long and print the notifies that arrive (Ctrl-C ends it)")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	class, err := enumFlag(*classText, "service class", gsf.ServiceClassValue)
	if err != nil {
		return asUsage("class", err)
	}
	var msgType int32
	var entry *messages.Entry
	switch {
	case *msgName != "" && *typeText != "":
		return usagef("give --message or --type, not both")
	case *msgName != "":
		if entry, err = catalogRequest(class, *msgName); err != nil {
			return fmt.Errorf("--message: %w", err)
		}
		class, msgType = entry.Class, entry.Type
	case *typeText != "":
		if msgType, err = enumFlag(*typeText, "message type", func(s string) (int32, bool) { return gsf.MessageTypeValue(class, s) }); err != nil {
			return asUsage("type", err)
		}
		entry, _ = messages.Lookup(class, msgType, messages.Request)
	default:
		return usagef("--type or --message is required")
	}
	_, catalogResponse := messages.Lookup(class, msgType, messages.Response)
	if known, ok := demoserver.Lookup(class, msgType); ok {
		if *body == "" && *values != "" {
			*body = known.Request
		}
		if *respBody == "" && !catalogResponse {
			*respBody = known.Response
		}
	}

	var reqBody any
	if *request != "" {
		if entry == nil {
			return fmt.Errorf("--request: %s/%d is not a request of the message catalog: use --body and --values", class, msgType)
		}
		if *values != "" || *body != "" {
			return usagef("give --request, or --body and --values, not both")
		}
		text, err := textArg(*request, stdin)
		if err != nil {
			return fmt.Errorf("--request: %w", err)
		}
		v := entry.New()
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("--request: %s: %w", entry.Name, err)
		}
		reqBody = v
	} else if *values != "" {
		if *body == "" {
			return usagef("--values needs --body")
		}
		fields, err := bitproto.ParseFields(*body)
		if err != nil {
			return asUsage("body", err)
		}
		vals, err := valuesArg(*values, stdin)
		if err != nil {
			return err
		}
		reqBody = &fieldBody{fields: fields, values: vals}
	} else if *body != "" {
		return usagef("--body needs --values")
	}
	opts := messages.ExplainOptions(messages.Options{Strict: *strict})
	if *respBody != "" {
		opts.Describer = nil
		if opts.Body, err = bitproto.ParseFields(*respBody); err != nil {
			return asUsage("response-body", err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	notifies := make(chan []byte, 64)
	var late chan []byte // notifies after the response, with --wait
	var lateMu sync.Mutex
	c, err := gsfnet.Dial(ctx, *addr, &gsfnet.ClientOptions{NotifyHandler: func(m *gsf.Message) {
		b, err := m.Append(nil)
		if err != nil {
			return
		}
		lateMu.Lock()
		defer lateMu.Unlock()
		to := notifies
		if late != nil {
			to = late
		}
		select {
		case to <- b:
		default:
		}
	}})
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w: is a server listening on %s? \"gamewire serve\" starts the demo server there", err, *addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	h := gsf.NewRequest(class, msgType, 0)
	h.LogCorrelator = *logCorrelator
	start := time.Now()
	m, err := c.Do(ctx, h, reqBody)
	took := time.Since(start)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: no response after %s (a server that does not route a message, like the reference, never answers it)", err, *timeout)
	}
	var ee *bitproto.EncodeError
	if errors.As(err, &ee) && *values != "" {
		return fmt.Errorf("--values %s does not fit --body %s: %w", *values, *body, err)
	}
	if err != nil {
		return err
	}
	lateMu.Lock()
	if *wait > 0 {
		late = make(chan []byte, 1024)
	} else {
		c.Close()
	}
	close(notifies)
	lateMu.Unlock()

	// The request as it went out: the client chose the request id.
	h.RequestID = m.Header.RequestID
	reqFrame, err := gsf.AppendMessage(nil, &h, reqBody)
	if err != nil {
		return err
	}
	respFrame, err := m.Append(nil)
	if err != nil {
		return err
	}
	ex, xerr := gsf.Explain(respFrame, opts)
	if *asJSON {
		if err := writeJSON(stdout, ex); err != nil {
			return err
		}
	} else {
		var b strings.Builder
		fmt.Fprintf(&b, "→ %s to %s (%s)\n% x\n", &h, *addr, plural(len(reqFrame), "byte"), reqFrame)
		for n := range notifies {
			nm, _, err := gsf.ConsumeMessage(n)
			if err == nil {
				fmt.Fprintf(&b, "← %s (%s)\n% x\n", &nm.Header, plural(len(n), "byte"), n)
			}
		}
		fmt.Fprintf(&b, "← %s (%s, %s)\n% x\n", &m.Header, plural(len(respFrame), "byte"), took.Round(10*time.Microsecond), respFrame)
		if _, err := io.WriteString(stdout, b.String()); err != nil {
			return err
		}
		if err := ex.WriteSummary(stdout); err != nil {
			return err
		}
	}
	if xerr != nil {
		return xerr
	}
	if err := gsfnet.ResponseError(&m.Header); err != nil {
		return err
	}
	if *wait > 0 {
		return printNotifies(c, late, *wait, *asJSON, stdout)
	}
	return nil
}

// printNotifies prints the notifies that arrive for d, or until Ctrl-C, with their bodies
// decoded by the message catalog.
func printNotifies(c *gsfnet.Client, notifies <-chan []byte, d time.Duration, asJSON bool, stdout io.Writer) error {
	ctx, stop := serveContext()
	defer stop()
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			return nil
		case <-c.Done():
			return fmt.Errorf("the server closed the connection: %w", c.Err())
		case frame := <-notifies:
			opts := messages.ExplainOptions(messages.Options{Strict: true})
			ex, xerr := gsf.Explain(frame, opts)
			if asJSON {
				if err := writeJSON(stdout, ex); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(stdout, "← notify (%s)\n% x\n", plural(len(frame), "byte"), frame)
				if err := ex.WriteSummary(stdout); err != nil {
					return err
				}
			}
			if xerr != nil {
				return xerr
			}
		}
	}
}

// textArg returns arg, or standard input when arg is "-".
func textArg(arg string, stdin io.Reader) (string, error) {
	if arg != "-" {
		return arg, nil
	}
	b, err := io.ReadAll(stdin)
	return string(b), err
}
