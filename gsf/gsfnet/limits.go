package gsfnet

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Refusals counts the connections a Server refused at once or closed for what their client
// did, by reason, since the server started. Each reason is logged at level Warn at most once a
// second, with the number of connections since the last line, so that an attack cannot flood
// the log; Shutdown and Close log what is left.
type Refusals struct {
	// MaxConns counts connections closed at once because MaxConns were open.
	MaxConns int64
	// PerIP counts connections closed at once because MaxConnsPerIP were open from their IP.
	PerIP int64
	// AcceptRate counts connections closed at once because they came faster than AcceptRate.
	AcceptRate int64
	// ProtocolErrors counts connections closed because their client broke the protocol:
	// framing errors other than a cut connection, messages that do not decode.
	ProtocolErrors int64
	// BufferBudget counts connections closed because a frame they were sending needed more
	// buffer than MaxBufferedBytes had left.
	BufferBudget int64
}

// The reasons of refusals, as indexes of Server.refusals.
const (
	refuseMaxConns = iota
	refusePerIP
	refuseAcceptRate
	refuseProtocol
	refuseBudget
	numRefusals
)

var refusalMessages = [numRefusals]string{
	refuseMaxConns:   "gsfnet: MaxConns reached, refusing connections",
	refusePerIP:      "gsfnet: MaxConnsPerIP reached, refusing connections",
	refuseAcceptRate: "gsfnet: AcceptRate exceeded, refusing connections",
	refuseProtocol:   "gsfnet: protocol error, closing the connection",
	refuseBudget:     "gsfnet: MaxBufferedBytes reached, closing the connection",
}

// refusalLog counts the refusals of one reason and logs them at most once a second.
type refusalLog struct {
	total   atomic.Int64
	pending atomic.Int64 // since the last line
	last    atomic.Int64 // time of the last line, in Unix nanoseconds
}

// refuse counts a refusal and logs it, with the refusals since the last line, unless a line
// was logged less than a second ago. attrs describe this refusal.
func (srv *Server) refuse(reason int, attrs ...any) {
	l := &srv.refusals[reason]
	l.total.Add(1)
	stateChanged()
	n := l.pending.Add(1)
	now := time.Now().UnixNano()
	last := l.last.Load()
	if now-last < int64(time.Second) || !l.last.CompareAndSwap(last, now) {
		return
	}
	l.pending.Add(-n)
	srv.logRefusals(reason, n, attrs...)
}

func (srv *Server) logRefusals(reason int, n int64, attrs ...any) {
	args := append([]any{"count", n}, attrs...)
	switch reason {
	case refuseMaxConns:
		args = append(args, "maxConns", limit(srv.MaxConns, DefaultMaxConns))
	case refusePerIP:
		args = append(args, "maxConnsPerIP", srv.MaxConnsPerIP)
	case refuseAcceptRate:
		args = append(args, "acceptRate", srv.AcceptRate)
	case refuseBudget:
		args = append(args, "maxBufferedBytes", limit(srv.MaxBufferedBytes, DefaultMaxBufferedBytes))
	}
	srv.logger().Log(context.Background(), slog.LevelWarn, refusalMessages[reason], args...)
}

// flushRefusals logs the refusals not logged yet.
func (srv *Server) flushRefusals() {
	for reason := range srv.refusals {
		if n := srv.refusals[reason].pending.Swap(0); n > 0 {
			srv.logRefusals(reason, n)
		}
	}
}

// Refusals returns the refusals so far.
func (srv *Server) Refusals() Refusals {
	r := &srv.refusals
	return Refusals{
		MaxConns:       r[refuseMaxConns].total.Load(),
		PerIP:          r[refusePerIP].total.Load(),
		AcceptRate:     r[refuseAcceptRate].total.Load(),
		ProtocolErrors: r[refuseProtocol].total.Load(),
		BufferBudget:   r[refuseBudget].total.Load(),
	}
}

// admission holds the state of the per-IP and accept-rate limits.
type admission struct {
	perIP  map[string]int // open connections by IP; srv.mu
	mu     sync.Mutex     // the token bucket
	tokens float64
	last   time.Time
}

// ipOf returns the IP of a connection's remote address (the whole address for other than
// TCP and UDP addresses).
func ipOf(c net.Conn) string {
	switch a := c.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	case nil:
		return ""
	default:
		if host, _, err := net.SplitHostPort(a.String()); err == nil {
			return host
		}
		return a.String()
	}
}

// acceptRateOK takes a token from the accept-rate bucket, if AcceptRate is set, and reports
// whether there was one.
func (srv *Server) acceptRateOK() bool {
	if srv.AcceptRate <= 0 {
		return true
	}
	burst := float64(max(srv.AcceptBurst, 1))
	a := &srv.admission
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.last.IsZero() {
		a.tokens = burst
	} else {
		a.tokens = min(burst, a.tokens+now.Sub(a.last).Seconds()*srv.AcceptRate)
	}
	a.last = now
	if a.tokens < 1 {
		return false
	}
	a.tokens--
	return true
}
