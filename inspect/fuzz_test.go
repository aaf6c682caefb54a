package inspect

import (
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// FuzzExplain explains arbitrary bytes as every format: no panic, and every field and error
// lies inside the input.
func FuzzExplain(f *testing.F) {
	seed, _ := hex.DecodeString(strings.ReplaceAll(seedGSF, " ", ""))
	f.Add(seed, uint8(0))
	f.Add([]byte("\x1c\x00\x01\x00\x02\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00"), uint8(1))
	f.Add([]byte("\x08\x00\x00\x00\x04\x00\x00\x00\x01\x00\x00\x00a\x00\x00\x00"), uint8(3))
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x01}, uint8(0))
	f.Add([]byte("\x1b\x00\x00\x00\xff\xff\xff\x7f"), uint8(2))
	// Real captures (capture/testdata): tcpdump's pcap and dumpcap's pcapng.
	for _, name := range []string{tcpdumpCapture, dumpcapCapture} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(6))
		f.Add(b, uint8(7))
		f.Add(b, uint8(8))
		f.Add(b[:len(b)-30], uint8(7))
	}
	formats := []Request{
		{Format: "gsf"},
		{Format: "gsf", Options: map[string]string{"body": "a:string,b:int64,c:date,d:bytes,e:float64"}},
		{Format: "godot4"},
		{Format: "godot3", Options: map[string]string{"framing": "streampeer"}},
		{Format: "godot4", Options: map[string]string{"framing": "packetpeerstream"}},
		{Format: "bits", Options: map[string]string{"fields": "null,bool,int16,int32,int64,char,string,bytes,date,align,float32", "offset": "3"}},
		{Format: Auto},
		{Format: "capture"},
		{Format: "capture", Options: map[string]string{"stream": "1/s2c", "as": "godot4", "framing": "streampeer"}},
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		req := formats[int(which)%len(formats)]
		req.Input, req.Encoding = string(data), "raw"
		ex, err := Explain(req)
		if len(data) == 0 {
			if err == nil {
				t.Fatal("no error for no input")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkInside(t, ex, ex.Nodes)
		if ex.Size != len(ex.Data) || ex.Size > len(data) {
			t.Fatalf("%d bytes explained (size %d) of %d bytes of input", len(ex.Data), ex.Size, len(data))
		}
		for _, e := range ex.Errors {
			if e.Bit < 0 || e.Bit > 8*ex.Size || e.Off != e.Bit/8 || e.Len < 0 || e.Off+e.Len > ex.Size {
				t.Fatalf("error at bit %d, byte %d of %d bytes", e.Bit, e.Off, ex.Size)
			}
		}
		if ex.Fields > MaxNodes {
			t.Fatalf("%d fields, more than MaxNodes", ex.Fields)
		}
	})
}

func checkInside(t *testing.T, ex *Explanation, nodes []*Node) {
	for _, n := range nodes {
		if n.Bit < 0 || n.Bits < 0 || n.Bit+n.Bits > 8*ex.Size || n.Off != n.Bit/8 || n.Off+n.Len > ex.Size {
			t.Fatalf("%q at bits %d+%d, bytes %d+%d, outside %d bytes", n.Name, n.Bit, n.Bits, n.Off, n.Len, ex.Size)
		}
		checkInside(t, ex, n.Children)
	}
}

// FuzzReadInput reads arbitrary text as input: no panic.
func FuzzReadInput(f *testing.F) {
	f.Add("00000000: 1520 c25c  . .\\")
	f.Add("00000000  15 20 c2 5c  |. .\\|\n*\n00000010  00 00\n")
	f.Add("0000   15 20\n0002   c2\n")
	f.Add("FSDCXARtDAwYQW1hemluZ1dvcmxkAA==")
	f.Add("00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\nfffffff0  00\n")
	f.Fuzz(func(t *testing.T, text string) {
		b, how, err := ReadInput(text, "auto")
		if err == nil && how == "" {
			t.Fatalf("read %d bytes with no encoding named", len(b))
		}
		if len(b) > max(len(text), MaxInputBytes+64) {
			t.Fatalf("%d bytes from %d characters", len(b), len(text))
		}
	})
}
