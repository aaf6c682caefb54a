package gsfnet

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamewire/gamewire/gsf"
)

// The server-CPU benchmark runs the server in a process of its own (this test binary, run
// again with serverProcessEnv set), so that the CPU time it reads from /proc is the server's
// alone, and the same raw-byte load generator drives both servers: gsfnet with a typed handler
// (in-order responses, the default), and the yardstick, echoServe, which moves bytes of the
// same sizes and nothing else (one write per read).
const serverProcessEnv = "GAMEWIRE_BENCH_SERVER"

// serverProfileEnv, when set, names the CPU profiles that the server processes write (the
// server's kind is appended).
const serverProfileEnv = "GAMEWIRE_BENCH_SERVER_PROFILE"

// TestServerProcess is the server process of BenchmarkServerCPU; without serverProcessEnv it
// does nothing. It prints its address and serves until its standard input closes.
func TestServerProcess(t *testing.T) {
	kind := os.Getenv(serverProcessEnv)
	if kind == "" {
		return
	}
	reqLen, respLen := loadFrameLens()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "echo":
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go echoServe(c, reqLen, respLen)
			}
		}()
	case "gsfnet":
		mux := NewMux()
		Handle(mux, gsf.SvcUserServer, msgLoad, func(ctx context.Context, s *Session, req *loadRequest) (*loadResponse, error) {
			return &loadResponse{ClientVersionInfo: "133852.true", Seq: req.Seq}, nil
		})
		srv := &Server{Handler: mux, Logger: slog.New(slog.DiscardHandler)}
		go srv.Serve(l)
	default:
		t.Fatalf("unknown server %q", kind)
	}
	if path := os.Getenv(serverProfileEnv); path != "" {
		f, err := os.Create(path + "." + kind)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			t.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Println("addr", l.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// loadFrameLens returns the lengths of the load's request and response frames (request id
// 1000, as every request of the benchmark has).
func loadFrameLens() (req, resp int) {
	return frameLen(gsf.NewRequest(gsf.SvcUserServer, msgLoad, 1000), &loadRequest{ClientName: "AmazingWorld", Seq: 100000}),
		frameLen(gsf.Header{Flags: 1, SvcClass: gsf.SvcUserServer, MsgType: msgLoad, RequestID: 1000}, &loadResponse{ClientVersionInfo: "133852.true", Seq: 100000})
}

// serverProc is a server process.
type serverProc struct {
	cmd   *exec.Cmd
	stdin io.Closer
	addr  string
}

func startServerProc(b *testing.B, kind string) *serverProc {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerProcess$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), serverProcessEnv+"="+kind)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "addr ") {
		b.Fatalf("server process: %q %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	return &serverProc{cmd: cmd, stdin: stdin, addr: strings.TrimSpace(line[5:])}
}

// cpu returns the CPU time (user and system) the process has used, from /proc.
func (p *serverProc) cpu(b *testing.B) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	// The fields after the command's name, which is in parentheses: utime and stime are the
	// 12th and 13th of them, in clock ticks (100 a second).
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func (p *serverProc) stop() {
	p.stdin.Close()
	_ = p.cmd.Wait()
}

// serverCPU drives a server with conns connections, each writing pipeline requests in one
// write and reading their responses before the next write (pipeline 1 is a closed loop), for
// total requests, and returns the server's CPU time per request.
func serverCPU(b *testing.B, kind string, conns, pipeline int, total int64) time.Duration {
	p := startServerProc(b, kind)
	defer p.stop()
	reqLen, respLen := loadFrameLens()
	req, err := gsf.AppendMessage(nil, ptr(gsf.NewRequest(gsf.SvcUserServer, msgLoad, 1000)), &loadRequest{ClientName: "AmazingWorld", Seq: 100000})
	if err != nil {
		b.Fatal(err)
	}
	batch := []byte(strings.Repeat(string(req), pipeline))
	clients := make([]net.Conn, conns)
	for i := range clients {
		if clients[i], err = net.Dial("tcp", p.addr); err != nil {
			b.Fatal(err)
		}
		defer clients[i].Close()
	}
	run := func(total int64) {
		var next atomic.Int64
		var failed atomic.Int64
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp := make([]byte, pipeline*respLen)
				for {
					k := int64(pipeline)
					if last := next.Add(k); last > total {
						k -= min(last-total, k)
					}
					if k <= 0 {
						return
					}
					if _, err := c.Write(batch[:k*int64(reqLen)]); err != nil {
						failed.Add(1)
						return
					}
					if _, err := io.ReadFull(c, resp[:k*int64(respLen)]); err != nil {
						failed.Add(1)
						return
					}
				}
			}()
		}
		wg.Wait()
		if failed.Load() > 0 {
			b.Fatalf("%s: %d connections failed", kind, failed.Load())
		}
	}
	run(int64(conns * pipeline * 10)) // warm up
	cpu0 := p.cpu(b)
	run(total)
	return (p.cpu(b) - cpu0) / time.Duration(total)
}

func ptr[T any](v T) *T { return &v }

// BenchmarkServerCPUPerRequest measures the CPU time of the server per request, with 100
// connections, closed loop (one request in flight per connection) and pipelined (32 in flight,
// sent in one write), for gsfnet (in-order responses) and beside it, on the same load, the
// byte-moving yardstick. ratio is gsfnet's CPU per request over the yardstick's. The CPU time
// comes from /proc in 10 ms ticks: run it long enough (-benchtime 200000x or more).
func BenchmarkServerCPUPerRequest(b *testing.B) {
	for _, pipeline := range []int{1, 32} {
		name := "closed"
		if pipeline > 1 {
			name = fmt.Sprintf("pipeline=%d", pipeline)
		}
		b.Run(name, func(b *testing.B) {
			total := max(int64(b.N), 100*int64(pipeline))
			b.ResetTimer()
			echo := serverCPU(b, "echo", 100, pipeline, total)
			ours := serverCPU(b, "gsfnet", 100, pipeline, total)
			b.StopTimer()
			b.ReportMetric(float64(ours)/float64(time.Microsecond), "gsfnet-cpu-µs/req")
			b.ReportMetric(float64(echo)/float64(time.Microsecond), "yardstick-cpu-µs/req")
			if echo > 0 {
				b.ReportMetric(float64(ours)/float64(echo), "ratio")
			}
		})
	}
}
