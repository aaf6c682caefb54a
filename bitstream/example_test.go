package bitstream_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gamewire/gamewire/bitstream"
)

func ExampleWriter() {
	var w bitstream.Writer
	w.Reset(make([]byte, 0, 64)) // appends to a caller-owned buffer, without allocating
	w.WriteBool(false)           // a message's null bit
	w.WriteInt32(566)            // compressed: 1 110 + 2 bytes = 20 bits
	w.WriteString("AmazingWorld")
	w.WriteDate(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Printf("%d bits: % x\n", w.Len(), w.Bytes())
	// Output:
	// 193 bits: 70 11 b6 0c 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00 00 00 07 70 4d 9c 80 00
}

func ExampleReader() {
	data := []byte{0x70, 0x11, 0xb6, 0x0c, 'A', 'm', 'a', 'z', 'i', 'n', 'g', 'W', 'o', 'r', 'l', 'd'}
	r := bitstream.NewReader(data)
	null, _ := r.ReadNull()
	msgType, _ := r.ReadInt32()
	name, _ := r.ReadString()
	fmt.Println(null, msgType, name)

	// Reading past the end is an error with the bit offset, never a panic.
	_, err := r.ReadInt64()
	var e *bitstream.DecodeError
	fmt.Println(errors.Is(err, bitstream.ErrTruncated), errors.As(err, &e) && e.BitOffset == 128)
	// Output:
	// false 566 AmazingWorld
	// true true
}

// Hand-written decoders can use the TryX methods and check the sticky error once.
func ExampleReader_TryInt32() {
	r := bitstream.NewReader([]byte{0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c})
	r.TryNull() // message
	r.TryNull() // header
	flags, svcClass, msgType, requestID := r.TryInt32(), r.TryInt32(), r.TryInt32(), r.TryInt32()
	logCorrelator := r.TryString()
	if err := r.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(flags, svcClass, msgType, requestID, logCorrelator == "", r.Offset())
	// Output: 0 18 566 1 true 51
}
