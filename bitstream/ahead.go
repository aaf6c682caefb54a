package bitstream

import (
	"encoding/binary"
	"sync"
	"sync/atomic"

	"github.com/gamewire/gamewire/internal/bitwin"
)

// Decoding ahead: when a caller reads a long run of compressed integers of one width, one
// after another, and their forms change unpredictably (so that the branches of the plain fast
// path mispredict), the Reader decodes a batch of the integers that follow into an intAhead, and
// the next ReadIntN calls return from it while they read exactly where an entry starts. Each
// entry is a pure function of the input, the position and the width, so a hit returns what the
// plain path would return; any other read, a Seek or a read of another width simply misses.
//
// Why: without a correct guess from the branch predictor, each integer's position waits for the
// previous one's length (the load, the shift, the table: about 16 cycles), so one integer after
// another cannot go faster than that chain. A batch runs aheadLanes such chains side by side,
// each with its position in a register and without branches on the forms: lane 0 starts at the
// reader's position, lane k at a guess k·d bits further on. A guess is rarely a true start, but
// decoding from any position soon falls on the true starts (on random widths after 25 integers
// on average, rarely after 200), and from there on the lane is right: where a lane first reaches
// a start that the lane before it also reached, the two are stitched together; a lane that ends
// before that is extended until it does.
//
// The reader only decodes ahead when it sees it pay. From aheadFirst bits on, at a ReadIntN it
// looks at the forms of the next aheadTrial integers (a trial, on the stack); if they barely
// change or repeat with a short period (the branches predict them), it goes on plainly and looks
// again aheadRecheck bits later. Otherwise it watches: only if the caller reads exactly those
// integers, one after another, does it take an intAhead (about 34 KB, from a pool) and decode a
// batch. A caller that leaves a batch or a trial unread makes the next trial come later, twice
// as late each time. Only the fast path's forms are decoded ahead: anything else (the end of the
// input, a form longer than 57 bits) ends the batch, and the plain path reads it, errors
// included.
const (
	aheadLanes    = 4
	aheadSteps    = 512 // integers per lane
	aheadCap      = aheadLanes * aheadSteps
	aheadMask     = aheadCap - 1 // aheadCap is a power of 2: entry indexes masked with it need no bounds check
	aheadTrial    = 16           // integers in a trial
	aheadSample   = 64           // integers of a batch whose forms tell whether they are predictable
	aheadPeriod   = 8            // the longest period of forms taken as predictable
	aheadFirst    = 4096         // bits read before the first trial
	aheadRecheck  = 1 << 20      // bits to the next trial when the forms were predictable
	aheadBackoff  = 1 << 12      // bits to the next trial when the caller diverged; doubles each time
	aheadMaxShift = 12           // backoff up to aheadBackoff<<12 bits
	aheadOverlap  = 24           // integers by which a lane should overlap the next (see stitch)
	aheadExt      = 128          // most integers a lane is extended by to meet the next
	aheadExtRun   = 16           // integers decoded at a time to extend a lane
)

// intAhead holds integers decoded ahead: entry j starts at bit ends[j], ends at ends[j+1] and is
// vals[j]. Entries i..n-1 have not been read yet. They were decoded from owner's input; key is
// unique to the time owner took the intAhead, and a Reader reads from it only while its own key
// is the same: a Reset sets the key to 0, and an old copy of the Reader assigned back to it
// has an old key. A copy of owner (at another address: its self field is not itself) never
// looks into the intAhead, so copies of a Reader can be used independently, also at the same
// time in several goroutines.
type intAhead struct {
	owner       *Reader
	key         uint64 // a multiple of 16
	tag         uint64 // key | width, checked on every hit
	i, n        int
	width       uint // width in bytes of the entries
	predictable bool // the forms of the batch barely changed: do not decode further ahead
	ends        [aheadLanes * (aheadSteps + 1)]uint
	vals        [aheadCap]int64
	ext         [aheadExt + 1]uint // a lane's extension (see stitch)
	extVals     [aheadExt]int64
}

// aheadPool keeps the intAhead of Readers that reached the end of their input, were Reset, or
// left off reading integers, for the next Reader that needs one: a decoder that uses a new
// Reader for each long message does not allocate one each time.
var aheadPool = sync.Pool{New: func() any { return new(intAhead) }}

// aheadKeys counts the intAhead keys handed out.
var aheadKeys atomic.Uint64

// aheadTabs returns, for each width w, the table that maps the top 10 bits of a compressed
// integer of width w to its prefix length (bits 0..7), 64 minus its value bits (bits 8..15) and
// its length (bits 16..23). A form longer than 57 bits (int64 only) does not fit the 64-bit
// window, so the fast path does not read it; its entry holds only the length, so that a lane
// still finds the next integer, and a batch ends before it (see fastRun).
var aheadTabs = sync.OnceValue(func() (tabs [9]*[1024]uint32) {
	for _, w := range []uint{2, 4, 8} {
		t := new([1024]uint32)
		for i := range t {
			hdr, vb := bitwin.FormOf(uint64(i)<<54, w)
			t[i] = uint32((hdr + vb) << 16)
			if hdr+vb <= 57 {
				t[i] |= uint32(hdr | (64-vb)<<8)
			}
		}
		tabs[w] = t
	}
	return tabs
})

// aheadMaxLen is the longest integer of each width.
var aheadMaxLen = [9]uint{2: 19, 4: 37, 8: 73}

// fastRun returns how many of the integers at positions ends the fast path reads: those of up
// to 57 bits before the first longer one.
func fastRun(ends []uint) int {
	for j := 1; j < len(ends); j++ {
		if ends[j]-ends[j-1] > 57 {
			return j - 1
		}
	}
	return len(ends) - 1
}

// release gives r's integers decoded ahead back to the pool.
func (r *Reader) release() {
	if c := r.ahead; c != nil {
		r.ahead = nil
		if r.self == r && c.owner == r && c.key == r.key {
			c.owner, c.key, c.tag, c.n, c.i = nil, 0, 0, 0, 0
			aheadPool.Put(c)
		}
		r.key, r.self = 0, nil
	}
}

// setProbe makes ReadIntN look at decoding ahead from bit p on: it reads plainly, with one
// comparison, before min(p, the last position with 8 bytes of input left).
func (r *Reader) setProbe(p uint) {
	r.probe = p
	r.lim = 0
	if len(r.buf) >= 8 {
		r.lim = min(p, uint(len(r.buf)-7)*8)
	}
}

// backoff moves the next trial further on each time the caller did not read on as a trial or a
// batch expected.
func (r *Reader) backoff() {
	r.setProbe(r.pos + aheadBackoff<<r.aheadShift)
	r.aheadShift = min(r.aheadShift+1, aheadMaxShift)
}

// aheadMiss is called when a ReadIntN of width bytes finds no entry at the current position
// while pos ≥ probe. It decides whether to decode ahead and, if it did, returns the integer at
// the current position and moves the reader past it.
func (r *Reader) aheadMiss(width uint) (int64, bool) {
	if c := r.ahead; c != nil && (r.self != r || c.owner != r || c.key != r.key) {
		// A copy's (not looked into), or from before a Reset: not r's to use or give back.
		r.ahead, r.key, r.self = nil, 0, nil
	}
	if c := r.ahead; c != nil {
		// A batch is active and the caller left it.
		seq := c.n > 0 && c.i == c.n && r.pos == c.ends[c.n] && c.width == width
		switch {
		case seq && !c.predictable:
			r.aheadShift = 0
			if r.fill(c, width) {
				return r.first(c)
			}
			r.release()
			r.backoff()
		case seq:
			r.release()
			r.setProbe(r.pos + aheadRecheck)
		default:
			r.release()
			r.backoff()
		}
		return 0, false
	}
	if r.watchWidth != 0 {
		// A trial found the integers that follow unpredictable. Did the caller read them all,
		// one after another?
		seq := r.pos == r.watch && uint(r.watchWidth) == width
		r.watchWidth = 0
		if !seq {
			r.backoff()
			return 0, false
		}
		c := aheadPool.Get().(*intAhead)
		r.key = aheadKeys.Add(1) << 4
		c.owner, c.key = r, r.key
		r.ahead, r.self = c, r
		if r.fill(c, width) {
			return r.first(c)
		}
		r.release()
		r.backoff()
		return 0, false
	}
	if r.pos < aheadFirst {
		r.setProbe(aheadFirst) // the zero Reader
		return 0, false
	}
	// A trial: are the forms of the next integers unpredictable? The plain path reads them;
	// if the caller reads all of them, one after another, the reader decodes ahead from there.
	if r.end < r.pos+64 {
		r.setProbe(r.end + 1)
		return 0, false
	}
	var ends [aheadTrial + 1]uint
	var vals [aheadTrial]int64
	tab := aheadTabs()[width]
	n := decodeLane(r.buf, tab, r.pos, ends[:min(aheadTrial, (r.end-r.pos-64)/aheadMaxLen[width])+1], vals[:])
	if n < aheadTrial || predictable(ends[:n+1]) {
		r.setProbe(r.pos + aheadRecheck)
		return 0, false
	}
	r.watch, r.watchWidth = ends[n], uint8(width)
	r.avgBits = uint16(min((ends[n]-ends[0])/uint(n), 64))
	r.setProbe(r.watch)
	return 0, false
}

// first returns the first integer of the batch just decoded.
func (r *Reader) first(c *intAhead) (int64, bool) {
	r.setProbe(0) // look at the batch on every read
	r.pos = c.ends[1]
	c.i = 1
	return c.vals[0], true
}

// predictable reports whether the plain path's branches would predict the forms of the integers
// whose positions are ends: whether their lengths seldom change, or repeat with a short period
// (a processor's branch predictor learns such patterns).
func predictable(ends []uint) bool {
	n := len(ends) - 1 // integers
	for period := 1; period <= aheadPeriod && 2*period <= n; period++ {
		misses := 0
		for j := period; j < n && misses <= n/8; j++ {
			if ends[j+1]-ends[j] != ends[j+1-period]-ends[j-period] {
				misses++
			}
		}
		if misses <= n/8 {
			return true
		}
	}
	return false
}

// fill decodes a batch of integers of width bytes from the current position into c. It reports
// whether the batch holds at least one integer.
func (r *Reader) fill(c *intAhead, width uint) bool {
	tab := aheadTabs()[width]
	maxLen := aheadMaxLen[width]
	pos := r.pos
	if r.end < pos+64 {
		return false
	}
	room := (r.end - pos - 64) / maxLen // integers that surely lie within the input
	n := 0
	d := uint(r.avgBits) * (aheadSteps - aheadOverlap) // lane spacing: lane k-1 should pass lane k's start
	base := pos >> 3
	if d == 0 || room < aheadSteps+aheadLanes*(d/maxLen+1) || d > aheadSteps*57 || uint(len(r.buf))-base < aheadSpan+8 {
		n = decodeLane(r.buf, tab, pos, c.ends[:min(aheadCap, room)+1], c.vals[:])
	} else {
		decodeLanes((*[aheadSpan + 8]byte)(r.buf[base:base+aheadSpan+8]), base, tab, pos, d, &c.ends, &c.vals)
		n = c.stitch(r.buf, tab, r.end-64, maxLen)
	}
	if width == 8 {
		n = fastRun(c.ends[:n+1])
	}
	if n == 0 {
		return false
	}
	c.n, c.i, c.width, c.tag = n, 0, width, r.key|uint64(width)
	// Would the plain path's branches predict these forms? A batch cut short by a form the
	// fast path does not read is not worth its set-up either.
	c.predictable = n < aheadCap/8 || predictable(c.ends[:min(n, aheadSample)+1])
	r.avgBits = uint16(max(min((c.ends[n]-c.ends[0])/uint(n), 64), 1))
	return true
}

// decodeLane decodes up to len(ends)-1 integers from pos, branch-free, into ends (ends[0] = pos)
// and vals, and returns how many it decoded: it stops before a form the table does not hold.
// The caller has checked that they lie within the input, 8 bytes before its end.
func decodeLane(buf []byte, tab *[1024]uint32, pos uint, ends []uint, vals []int64) int {
	ends[0] = pos
	steps := len(ends) - 1
	vals = vals[:steps]
	for t := range vals {
		x := binary.BigEndian.Uint64(buf[pos>>3:]) << (pos & 7)
		f := tab[x>>54]
		if f>>16 > 57 {
			return t // a form the fast path does not read
		}
		vals[t] = int64(x<<(f&63)) >> ((f >> 8) & 63)
		pos += uint(f >> 16)
		ends[t+1] = pos
	}
	return steps
}

// aheadSpan is the most bytes the lanes of a batch read from: aheadLanes lanes of aheadSteps
// integers of up to 73 bits, started at most aheadSteps·57 bits apart, and 8 bytes more.
const aheadSpan = 1 << 14

// decodeLanes runs aheadLanes lanes of aheadSteps integers side by side, lane k from bit
// pos + k·d of in, which holds the input from byte base on. Lane k's positions go to
// ends[k·(aheadSteps+1):], its integers to vals[k·aheadSteps:] (garbage for a form longer than
// 57 bits). Positions are kept within in, so that no load needs a bounds check; the caller has
// checked that the lanes stay within it.
func decodeLanes(in *[aheadSpan + 8]byte, base uint, tab *[1024]uint32, pos, d uint, ends *[aheadLanes * (aheadSteps + 1)]uint, vals *[aheadCap]int64) {
	const s = aheadSteps
	const mask = aheadSpan - 1 // masks byte offsets so that the compiler sees them within in
	e0, e1, e2, e3 := ends[0:s+1], ends[s+1:2*s+2], ends[2*s+2:3*s+3], ends[3*s+3:4*s+4]
	v0, v1, v2, v3 := vals[0:s], vals[s:2*s], vals[2*s:3*s], vals[3*s:4*s]
	e0[0], e1[0], e2[0], e3[0] = pos, pos+d, pos+2*d, pos+3*d
	b := base * 8
	p0, p1, p2, p3 := pos-b, pos+d-b, pos+2*d-b, pos+3*d-b // bit positions in in
	for t := range s {
		x0 := binary.BigEndian.Uint64(in[(p0>>3)&mask:]) << (p0 & 7)
		x1 := binary.BigEndian.Uint64(in[(p1>>3)&mask:]) << (p1 & 7)
		x2 := binary.BigEndian.Uint64(in[(p2>>3)&mask:]) << (p2 & 7)
		x3 := binary.BigEndian.Uint64(in[(p3>>3)&mask:]) << (p3 & 7)
		f0, f1, f2, f3 := tab[x0>>54], tab[x1>>54], tab[x2>>54], tab[x3>>54]
		v0[t] = int64(x0<<(f0&63)) >> ((f0 >> 8) & 63)
		v1[t] = int64(x1<<(f1&63)) >> ((f1 >> 8) & 63)
		v2[t] = int64(x2<<(f2&63)) >> ((f2 >> 8) & 63)
		v3[t] = int64(x3<<(f3&63)) >> ((f3 >> 8) & 63)
		p0 += uint(f0 >> 16)
		p1 += uint(f1 >> 16)
		p2 += uint(f2 >> 16)
		p3 += uint(f3 >> 16)
		e0[t+1], e1[t+1], e2[t+1], e3[t+1] = p0+b, p1+b, p2+b, p3+b
	}
}

// meet returns the first index t ≥ from of a's positions a[:la+1] that is also one of b's
// positions b[:lb+1], and that index m in b.
func meet(a []uint, from, la int, b []uint, lb int) (t, m int, ok bool) {
	// Skip a's positions before b's first with a binary search.
	lo, hi := from, la+1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if a[mid] < b[0] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	// Then walk both without branches on which is behind: the two sequences are random.
	t = lo
	a, b = a[:la+1], b[:lb+1]
	for t < len(a) && m < len(b) {
		x, y := a[t], b[m]
		if x == y {
			return t, m, true
		}
		lt := 0
		if x < y {
			lt = 1
		}
		t += lt
		m += 1 - lt
	}
	return 0, 0, false
}

// stitch joins the lanes decodeLanes left in c.ends and c.vals into one run of entries from
// lane 0's start, moved to the front of c.ends and c.vals, and returns the number of entries.
// Where a lane ends before it meets the next one's positions, it is extended one short run at a
// time (reading no further than limit) until it does.
func (c *intAhead) stitch(buf []byte, tab *[1024]uint32, limit, maxLen uint) int {
	const s = aheadSteps
	lane := func(k int) []uint { return c.ends[k*(s+1) : (k+1)*(s+1)] }
	a := lane(0)
	la := s
	n := 0    // entries moved to the front so far
	from := 0 // lane k's first right entry
	for k := 0; k < aheadLanes-1; k++ {
		b := lane(k + 1)
		lb := s
		t, m, ok := meet(a, from, la, b, lb)
		if ok {
			n += c.moveEntries(k, from, t, n)
			a, la, from = b, lb, m
			continue
		}
		n += c.moveEntries(k, from, la, n)
		// Extend lane k until it meets lane k+1.
		ext := c.ext[:1]
		ext[0] = a[la]
		for !ok && len(ext)+aheadExtRun <= len(c.ext) && ext[len(ext)-1]+aheadExtRun*maxLen <= limit {
			e := len(ext) - 1
			got := decodeLane(buf, tab, ext[e], c.ext[e:e+aheadExtRun+1], c.extVals[e:])
			ext = c.ext[:e+got+1]
			if got < aheadExtRun {
				break
			}
			t, m, ok = meet(ext, e, len(ext)-1, b, lb)
		}
		if !ok {
			t = len(ext) - 1
		}
		// The extension goes to the front, unless it would overwrite lane k+1's entries
		// from m on.
		if n+t > (k+1)*s+m {
			return n
		}
		copy(c.vals[n:], c.extVals[:t])
		copy(c.ends[n+1:], ext[1:t+1])
		n += t
		if !ok {
			return n
		}
		a, la, from = b, lb, m
	}
	// The last lane is right from its entry from to its end.
	return n + c.moveEntries(aheadLanes-1, from, la, n)
}

// moveEntries moves entries from..to-1 of lane k to entry n on, and returns their number.
func (c *intAhead) moveEntries(k, from, to, n int) int {
	const s = aheadSteps
	if k > 0 {
		copy(c.vals[n:], c.vals[k*s+from:k*s+to])
		copy(c.ends[n:], c.ends[k*(s+1)+from:k*(s+1)+to+1])
	}
	return to - from
}
