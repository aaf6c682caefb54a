package bitproto_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
)

type OID struct {
	Class, Type, Server int32
	Number              int64
}

type Player struct {
	OID      OID       // a struct field: null bit, then its fields
	Name     string    // compressed length, aligned bytes
	Seq      uint8     // 8 raw bits
	Initial  rune      `bits:"char"` // rune is an int32; the tag makes it a char
	Friends  []string  // count, then the strings (no null bits)
	Created  time.Time // null bit, then seconds since 0000-02-29
	Guild    *OID      // null bit (1 = nil)
	internal int       // unexported: skipped
}

func Example() {
	p := Player{
		OID:      OID{Class: 1, Number: 42},
		Name:     "Ann",
		Seq:      7,
		Initial:  'A',
		Friends:  []string{"Bob"},
		Created:  time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		internal: 99, // not encoded
	}
	b, err := bitproto.Marshal(&p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", b)

	var back Player
	if err := bitproto.Unmarshal(b, &back); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Name, back.OID.Number, string(back.Initial), back.Friends, back.Created.Format(time.DateOnly), back.Guild == nil)
	// Output:
	// 43 04 18 aa 30 41 6e 6e 07 c8 30 c6 42 6f 62 00 00 00 07 70 4d 9c 80 40
	// Ann 42 A [Bob] 2025-01-01 true
}

func ExampleUnmarshal_errors() {
	var p Player
	// The first 6 bytes of the message above: the name is cut short.
	err := bitproto.Unmarshal([]byte{0x43, 0x04, 0x18, 0xaa, 0x30, 'A'}, &p)
	var e *bitproto.DecodeError
	if errors.As(err, &e) {
		fmt.Println(e.Path, e.BitOffset, errors.Is(err, bitstream.ErrTooLong))
	}
	fmt.Println(err)
	// Output:
	// Name 30 true
	// bitproto: Name at bit 30: reading a string or byte array: length exceeds the remaining input: 3 bytes, 1 left
}

func ExampleParseFields() {
	// The payload of the protocol documentation's GetClientVersionInfo request.
	payload := []byte{0x20, 0xc2, 0x5c, 0x04, 0x6d, 0x0c, 0x0c, 0x18, 'A', 'm', 'a', 'z', 'i', 'n', 'g', 'W', 'o', 'r', 'l', 'd'}
	fields, err := bitproto.ParseFields("message:null,header:null,flags:int32,svcClass:int32,msgType:int32,requestId:int32,logCorrelator:string,body:null,clientName:string")
	if err != nil {
		fmt.Println(err)
		return
	}
	vals, err := bitproto.DecodeFields(bitstream.NewReader(payload), fields)
	for _, v := range vals {
		fmt.Printf("bit %3d %3d bits  %-13s %s\n", v.Bit, v.Len, v.Field.Name, v.Text())
	}
	fmt.Println(err)
	// Output:
	// bit   0   1 bits  message       present
	// bit   1   1 bits  header        present
	// bit   2   6 bits  flags         0
	// bit   8  11 bits  svcClass      18
	// bit  19  20 bits  msgType       566
	// bit  39   6 bits  requestId     1
	// bit  45   6 bits  logCorrelator ""
	// bit  51   1 bits  body          present
	// bit  52 108 bits  clientName    "AmazingWorld"
	// <nil>
}
