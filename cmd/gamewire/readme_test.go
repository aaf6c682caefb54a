//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The documentation's examples are tests (the README's Development section describes the
// convention for those who add examples):
//
//   - Every ```console block of README.md and docs/*.md runs: each "$ " line (with the lines after
//     it while a line ends in "\") is a bash command, run in the repository's root (as a user of
//     a fresh clone runs it; an example that writes a file writes it under /tmp) with the
//     gamewire built for these tests first on PATH. What it prints, stdout and stderr
//     together as a terminal shows them, must equal the lines after it up to the next "$ " line
//     or the end of the block. A "..." line matches any number of lines, a line ending in "..."
//     any line that starts with the text before it; a last line "[exit N]" expects that exit
//     status, otherwise it must be 0.
//   - "<!-- readme-test: skip -->" (or "<!-- readme-test: skip (why) -->") on the line before a
//     console block skips it (it needs a server or the network); ```sh blocks show commands
//     without output and never run.
//   - A ```go block after "<!-- readme-test: excerpt of FILE -->" must be an excerpt of FILE, a
//     test file whose Example functions go test runs: its lines, trimmed, appear in FILE in the
//     same order (import lines aside).

// docExample is one command of a console block and the output it must print.
type docExample struct {
	file    string
	line    int
	command string
	want    []string
	exit    int
}

// docBlock is a fenced block of a Markdown file.
type docBlock struct {
	file, lang, marker string
	line               int // of the first line inside the fence
	lines              []string
}

var excerptMarker = regexp.MustCompile(`^<!-- readme-test: excerpt of (\S+) -->$`)

func docFiles(t *testing.T) []string {
	root := filepath.Join("..", "..")
	files := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// docBlocks returns the fenced blocks of a Markdown file, each with the marker comment on the
// line before its fence (if any). Fences may be indented (inside list items); the indent is
// removed from the block's lines.
func docBlocks(t *testing.T, file string) []docBlock {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	var cur *docBlock
	var indent, prev string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			cur = &docBlock{file: file, lang: strings.TrimSpace(trimmed[3:]), line: n + 1, marker: strings.TrimSpace(prev)}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, strings.TrimPrefix(line, indent))
		}
		prev = line
	}
	if cur != nil {
		t.Fatalf("%s:%d: a fenced block does not end", file, cur.line)
	}
	return blocks
}

// consoleExamples cuts a console block into its commands.
func consoleExamples(t *testing.T, b docBlock) []docExample {
	var exs []docExample
	for i := 0; i < len(b.lines); {
		line := b.lines[i]
		if !strings.HasPrefix(line, "$ ") {
			if strings.TrimSpace(line) != "" {
				t.Errorf("%s:%d: output without a command before it: %q", b.file, b.line+i, line)
			}
			i++
			continue
		}
		ex := docExample{file: b.file, line: b.line + i, command: line[2:]}
		i++
		for strings.HasSuffix(ex.command, `\`) && i < len(b.lines) {
			ex.command += "\n" + b.lines[i]
			i++
		}
		for i < len(b.lines) && !strings.HasPrefix(b.lines[i], "$ ") {
			ex.want = append(ex.want, b.lines[i])
			i++
		}
		for len(ex.want) > 0 && strings.TrimSpace(ex.want[len(ex.want)-1]) == "" {
			ex.want = ex.want[:len(ex.want)-1]
		}
		if n := len(ex.want); n > 0 && strings.HasPrefix(ex.want[n-1], "[exit ") {
			code, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(ex.want[n-1], "[exit "), "]"))
			if err != nil {
				t.Errorf("%s:%d: bad exit line %q", b.file, ex.line, ex.want[n-1])
			}
			ex.exit, ex.want = code, ex.want[:n-1]
		}
		exs = append(exs, ex)
	}
	return exs
}

// matchLines compares output lines with the expected ones, where "..." matches any lines.
func matchLines(got, want []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(got[i:], want[1:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(got[0], want[0]) && matchLines(got[1:], want[1:])
}

// lineMatches compares one line; an expected line that ends in "..." matches any line that starts
// with what comes before it (for times and other figures that change from run to run).
func lineMatches(got, want string) bool {
	got, want = strings.TrimRight(got, " "), strings.TrimRight(want, " ")
	if prefix, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(got, prefix)
	}
	return got == want
}

func TestMatchLines(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		ok        bool
	}{
		{"a\nb", "a\nb", true}, {"a\nb", "a\n...", true}, {"a\nb\nc\nd", "a\n...\nd", true}, {"a", "a\n...", true},
		{"a\nb", "a", false}, {"a\nb", "a\nc", false}, {"took 3.2ms", "took ...", true}, {"took 3.2ms", "gave ...", false},
	} {
		if matchLines(strings.Split(tc.got, "\n"), strings.Split(tc.want, "\n")) != tc.ok {
			t.Errorf("%q against %q: want %v", tc.got, tc.want, tc.ok)
		}
	}
}

func TestREADME(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the examples")
	}
	path := filepath.Dir(gwBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, file := range docFiles(t) {
		for _, b := range docBlocks(t, file) {
			if b.lang != "console" || strings.HasPrefix(b.marker, "<!-- readme-test: skip") {
				continue
			}
			for _, ex := range consoleExamples(t, b) {
				ran++
				name := fmt.Sprintf("%s:%d", filepath.Base(ex.file), ex.line)
				t.Run(name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					cmd := exec.CommandContext(ctx, bash, "-c", ex.command)
					cmd.Dir = root
					cmd.Env = append(os.Environ(), "PATH="+path)
					// The example runs in its own process group, so that a timeout kills all of it,
					// and so does a process it leaves behind (which fails the example: a block that
					// needs a server in the background is marked skip).
					cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
					cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
					cmd.WaitDelay = 2 * time.Second
					out, err := cmd.CombinedOutput()
					if cmd.Process != nil && syscall.Kill(-cmd.Process.Pid, 0) == nil {
						syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
						t.Errorf("%s:%d: $ %s\nleft a process running (a console block that needs a server is marked <!-- readme-test: skip (why) -->)", ex.file, ex.line, ex.command)
					}
					if ctx.Err() != nil {
						t.Fatalf("%s:%d: $ %s\ndid not end within 30 s", ex.file, ex.line, ex.command)
					}
					code := 0
					var ee *exec.ExitError
					if errors.As(err, &ee) {
						code = ee.ExitCode()
					} else if err != nil {
						t.Fatal(err)
					}
					got := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
					if len(out) == 0 {
						got = nil
					}
					if code != ex.exit || !matchLines(got, ex.want) {
						t.Errorf("%s:%d: $ %s\nexit %d (want %d); it printed:\n%s\nthe document says:\n%s",
							ex.file, ex.line, ex.command, code, ex.exit, out, strings.Join(ex.want, "\n"))
					}
				})
			}
		}
	}
	if ran < 10 {
		t.Errorf("only %d shell examples found", ran)
	}
}

// TestREADMEGoExcerpts: the Go blocks marked as excerpts are still in the files they come from.
func TestREADMEGoExcerpts(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range docBlocks(t, file) {
			m := excerptMarker.FindStringSubmatch(b.marker)
			if b.lang != "go" || m == nil {
				continue
			}
			n++
			src, err := os.ReadFile(filepath.Join(root, m[1]))
			if err != nil {
				t.Errorf("%s:%d: %v", file, b.line, err)
				continue
			}
			var srcLines []string
			for _, l := range strings.Split(string(src), "\n") {
				srcLines = append(srcLines, strings.TrimSpace(l))
			}
			at := 0
			for i, l := range b.lines {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "import ") {
					continue
				}
				for at < len(srcLines) && srcLines[at] != l {
					at++
				}
				if at == len(srcLines) {
					t.Errorf("%s:%d: %q is not in %s (after the lines before it)", file, b.line+i, l, m[1])
					break
				}
				at++
			}
		}
	}
	if n == 0 {
		t.Error("no Go excerpts found")
	}
}
