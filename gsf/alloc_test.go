package gsf

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/bitstream"
)

// A message's header allocates at most copies of its strings (the payload's length) and
// MaxAppCodes app code entries of 24 bytes.
const (
	headerAllocFactor = 1
	headerAllocSlack  = MaxAppCodes*24 + 1024 // and the error
)

// TestHeaderAllocationBound decodes adversarial headers (long app code lists of empty
// entries, long strings, cut short or with a bit flipped) and checks that none allocates more
// than its payload's length and MaxAppCodes entries (main allocated 16 times the payload).
func TestHeaderAllocationBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases, worst := 0, 0.0
	for _, n := range []int{0, 1, 10, 1000, 100_000, 1_000_000} {
		for _, strLen := range []int{0, 1, 17, 300} {
			for _, claim := range []int{0, 1, 2} { // the count as it is, doubled, or huge
				var w bitstream.Writer
				w.WriteNull(false)
				w.WriteNull(false)
				w.WriteInt32(FlagResponse)
				w.WriteInt32(int32(SvcUserServer))
				w.WriteInt32(566)
				w.WriteInt32(1)
				w.WriteInt32(int32(ResultErr))
				w.WriteInt32(int32(AppMultErrs))
				w.WriteString(strings.Repeat("s", strLen))
				count := []int{n, 2 * n, 1 << 30}[claim]
				w.WriteInt32(int32(count))
				for range n {
					w.WriteInt32(0)
					w.WriteString(strings.Repeat("e", strLen/16))
				}
				w.WriteNull(true)
				payload := w.Bytes()
				inputs := [][]byte{payload, payload[:rng.IntN(len(payload))]}
				flipped := append([]byte(nil), payload...)
				flipped[rng.IntN(len(flipped))] ^= 1 << rng.IntN(8)
				inputs = append(inputs, flipped)
				for _, in := range inputs {
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					m, err := DecodePayload(in)
					runtime.ReadMemStats(&after)
					runtime.KeepAlive(m)
					got := after.TotalAlloc - before.TotalAlloc
					cases++
					if limit := headerAllocFactor*len(in) + headerAllocSlack; int(got) > limit {
						t.Errorf("%d entries (count %d), strings of %d, %d bytes: %d bytes allocated (%v), the limit is %d", n, count, strLen, len(in), got, err, limit)
					}
					if r := float64(got) / float64(len(in)); len(in) > 1000 && r > worst {
						worst = r
					}
				}
			}
		}
	}
	t.Logf("%d headers; the most per payload byte: %.1f×", cases, worst)
}
