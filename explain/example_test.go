package explain_test

import (
	"os"

	"github.com/gamewire/gamewire/explain"
)

// A format explains its input as frames of fields; the renderers print them.
func Example() {
	data := []byte{0x02, 0x07, 0x09}
	budget := explain.NewBudget(0)
	fr := &explain.Frame{Format: "u8list", Bits: 8 * int64(len(data)), Summary: "2 bytes"}
	budget.AddTo(fr, &explain.Field{Name: "count", Type: "u8", Value: uint64(data[0]), Bit: 0, Bits: 8})
	items := &explain.Field{Name: "items", Type: "list", Bit: 8, Bits: 16}
	for i, b := range data[1:] {
		budget.Add(items, &explain.Field{Name: "[" + string(rune('0'+i)) + "]", Type: "u8", Value: uint64(b), Bit: int64(8 + 8*i), Bits: 8})
	}
	budget.AddTo(fr, items)
	explain.WriteText(os.Stdout, data, fr)
	explain.WriteJSON(os.Stdout, fr)
	// Output:
	// u8list frame 0 at byte 0, 3 bytes: 2 bytes
	//  offset   len  type                   name: meaning
	//       0     1  u8                     count: 2
	//       1     2  list                   items
	//       1     1    u8                   [0]: 7
	//       2     1    u8                   [1]: 9
	// {"format":"u8list","index":0,"bit":0,"bits":24,"summary":"2 bytes","fields":[{"name":"count","type":"u8","value":2,"bit":0,"bits":8},{"name":"items","type":"list","bit":8,"bits":16,"children":[{"name":"[0]","type":"u8","value":7,"bit":8,"bits":8},{"name":"[1]","type":"u8","value":9,"bit":16,"bits":8}]}]}
}
