package enet

import (
	"bytes"
	"errors"
	"io"

	"compress/zlib"

	"github.com/klauspost/compress/zstd"
)

// The compressors of Godot's ENet peers (NetworkedMultiplayerENet.compression_mode in Godot 3,
// ENetConnection.compress in Godot 4): FastLZ, zlib and zstd through Godot's compressor
// callback, which hands the datagram's commands to core/io/compression.cpp and sends the result
// when it is shorter. ENet does not negotiate them: use the one the game uses. The range coder,
// Godot's COMPRESS_RANGE_CODER, is [RangeCoder].

// errGodotCompressed is a datagram that does not decompress.
var errGodotCompressed = errors.New("enet: compressed datagram does not decompress")

// Zlib returns Godot's COMPRESS_ZLIB: a zlib stream (RFC 1950) at zlib's default level.
func Zlib() Compressor { return &zlibCompressor{} }

type zlibCompressor struct {
	w   *zlib.Writer
	buf bytes.Buffer
	r   bytes.Reader
}

func (z *zlibCompressor) Compress(dst, src []byte) []byte {
	z.buf.Reset()
	if z.w == nil {
		z.w, _ = zlib.NewWriterLevel(&z.buf, zlib.DefaultCompression)
	} else {
		z.w.Reset(&z.buf)
	}
	z.w.Write(src)
	z.w.Close()
	if z.buf.Len() >= len(src) {
		return dst
	}
	return append(dst, z.buf.Bytes()...)
}

func (z *zlibCompressor) Decompress(dst, src []byte, limit int) ([]byte, error) {
	z.r.Reset(src)
	r, err := zlib.NewReader(&z.r)
	if err != nil {
		return dst, errGodotCompressed
	}
	start := len(dst)
	buf := bytes.NewBuffer(dst)
	n, err := io.Copy(buf, io.LimitReader(r, int64(limit)+1))
	if err != nil || n > int64(limit) {
		return dst[:start], errGodotCompressed
	}
	// Godot requires the stream's end (inflate returns Z_STREAM_END).
	if err := r.Close(); err != nil {
		return dst[:start], errGodotCompressed
	}
	return buf.Bytes(), nil
}

// Zstd returns Godot's COMPRESS_ZSTD: a zstd frame at level 3 (Godot's default zstd_level).
func Zstd() Compressor { return &zstdCompressor{} }

type zstdCompressor struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

func (z *zstdCompressor) Compress(dst, src []byte) []byte {
	if z.enc == nil {
		z.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true))
	}
	start := len(dst)
	out := z.enc.EncodeAll(src, dst)
	if len(out)-start >= len(src) {
		return dst[:start]
	}
	return out
}

func (z *zstdCompressor) Decompress(dst, src []byte, limit int) ([]byte, error) {
	if z.dec == nil {
		var err error
		z.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<20),
			zstd.WithDecoderMaxWindow(1<<20))
		if err != nil {
			return dst, err
		}
	}
	start := len(dst)
	out, err := z.dec.DecodeAll(src, dst)
	if err != nil || len(out)-start > limit {
		return dst[:start], errGodotCompressed
	}
	return out, nil
}

// FastLZ returns Godot's COMPRESS_FASTLZ: FastLZ level 1 (the level fastlz_compress picks for
// inputs under 64 KiB), inputs under 16 bytes padded with zeros to 16 as Godot pads them.
// It decompresses both FastLZ levels.
func FastLZ() Compressor { return &fastlzCompressor{} }

type fastlzCompressor struct {
	table [1 << 13]int32
}

const (
	fastlzMaxCopy     = 32
	fastlzMaxLen      = 264
	fastlzMaxDistance = 8192
)

func (f *fastlzCompressor) Compress(dst, src []byte) []byte {
	in := src
	if len(in) < 16 {
		var pad [16]byte
		copy(pad[:], in)
		in = pad[:]
	}
	start := len(dst)
	out := fastlz1(dst, in, &f.table)
	if len(out)-start >= len(src) {
		return dst[:start]
	}
	return out
}

// fastlz1 appends the FastLZ level 1 form of in to dst.
func fastlz1(dst, in []byte, table *[1 << 13]int32) []byte {
	clear(table[:])
	n := len(in)
	literals := func(from, to int) {
		for from < to {
			k := min(to-from, fastlzMaxCopy)
			dst = append(dst, byte(k-1))
			dst = append(dst, in[from:from+k]...)
			from += k
		}
	}
	anchor, ip := 0, 0
	limit := n - 12 // the last bytes stay literals, as FastLZ leaves them
	for ip < limit {
		seq := uint32(in[ip]) | uint32(in[ip+1])<<8 | uint32(in[ip+2])<<16
		h := (seq * 2654435769) >> (32 - 13)
		ref := int(table[h]) - 1
		table[h] = int32(ip + 1)
		dist := ip - ref - 1
		if ref < 0 || dist >= fastlzMaxDistance-1 || in[ref] != in[ip] || in[ref+1] != in[ip+1] || in[ref+2] != in[ip+2] {
			ip++
			continue
		}
		l := 3
		for ip+l < n-2 && l < fastlzMaxLen && in[ref+l] == in[ip+l] {
			l++
		}
		literals(anchor, ip)
		code := l - 2
		if code < 7 {
			dst = append(dst, byte(code<<5|dist>>8), byte(dist))
		} else {
			dst = append(dst, byte(7<<5|dist>>8), byte(code-7), byte(dist))
		}
		ip += l
		anchor = ip
	}
	literals(anchor, n)
	return dst
}

func (f *fastlzCompressor) Decompress(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	if len(src) == 0 {
		return dst, errGodotCompressed
	}
	level := src[0]>>5 + 1
	if level != 1 && level != 2 {
		return dst, errGodotCompressed
	}
	ip := 0
	ctrl := int(src[ip] & 31)
	ip++
	for {
		if ctrl >= 32 {
			l := ctrl>>5 - 1
			ofs := (ctrl & 31) << 8
			if l == 6 {
				if level == 1 {
					if ip >= len(src) {
						return dst[:start], errGodotCompressed
					}
					l += int(src[ip])
					ip++
				} else {
					for {
						if ip >= len(src) {
							return dst[:start], errGodotCompressed
						}
						c := int(src[ip])
						ip++
						l += c
						if c != 255 {
							break
						}
					}
				}
			}
			if ip >= len(src) {
				return dst[:start], errGodotCompressed
			}
			code := int(src[ip])
			ip++
			back := ofs + code + 1
			if level == 2 && code == 255 && ofs == 31<<8 {
				if ip+1 >= len(src) {
					return dst[:start], errGodotCompressed
				}
				back = (int(src[ip])<<8 | int(src[ip+1])) + 8191 + 1
				ip += 2
			}
			l += 3
			ref := len(dst) - back
			if ref < start || len(dst)-start+l > limit {
				return dst[:start], errGodotCompressed
			}
			for i := range l {
				dst = append(dst, dst[ref+i])
			}
		} else {
			k := ctrl + 1
			if ip+k > len(src) || len(dst)-start+k > limit {
				return dst[:start], errGodotCompressed
			}
			dst = append(dst, src[ip:ip+k]...)
			ip += k
		}
		if ip >= len(src) {
			return dst, nil
		}
		ctrl = int(src[ip])
		ip++
	}
}
