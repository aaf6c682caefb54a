package inspect_test

import (
	"fmt"
	"os"

	"github.com/gamewire/gamewire/inspect"
)

// Explaining the protocol documentation's GSF request: the fields of the frame with their bit
// ranges, as the inspector page shows them.
func ExampleExplain() {
	ex, err := inspect.Explain(inspect.Request{
		Format:  "gsf",
		Input:   "15 20 c2 5c 04 6d 0c 0c 18 41 6d 61 7a 69 6e 67 57 6f 72 6c 64 00",
		Options: map[string]string{"body": "clientName:string"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range ex.Nodes[0].Children {
		fmt.Printf("bits %3d+%-3d %-15s %s\n", n.Bit, n.Bits, n.Name, n.Value)
	}
	// Output:
	// bits   0+8   length prefix   21: 20 payload bytes + the 0x00 terminator
	// bits   8+1   message         present
	// bits   9+1   header          present
	// bits  10+6   flags           0 (request)
	// bits  16+11  svcClass        18 (USER_SERVER)
	// bits  27+20  msgType         566 (GET_CLIENT_VERSION_INFO)
	// bits  47+6   requestId       1
	// bits  53+6   logCorrelator   ""
	// bits  59+1   body            present
	// bits  60+108 clientName      "AmazingWorld"
	// bits 168+8   terminator      0x00
}

// Explaining a packet capture (tcpdump's pcap of "gamewire call" against "gamewire serve"): the
// capture is recognised by its magic number, its TCP streams are reassembled, and the one
// chosen (server to client of the second connection) is explained as GSF frames. The
// explanation's Data is that stream, and its offsets count from the stream's first byte.
func ExampleExplain_capture() {
	pcap, err := os.ReadFile("../capture/testdata/serve-call.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	ex, err := inspect.Explain(inspect.Request{Input: string(pcap), Encoding: "raw",
		Options: map[string]string{"stream": "2/s2c"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ex.Title, "·", ex.Part)
	for _, o := range ex.Options[0].Choices {
		fmt.Println("  stream", o.Label)
	}
	for _, n := range ex.Nodes {
		fmt.Printf("bytes %d+%d: %s %s\n", n.Off, n.Len, n.Name, n.Value)
	}
	// Output:
	// Packet capture (pcap/pcapng) · stream 2 server→client 127.0.0.1:40661 → 127.0.0.1:58848 as GSF frames
	//   stream 1 client→server 127.0.0.1:58832 → 127.0.0.1:40661 (22 bytes)
	//   stream 1 server→client 127.0.0.1:40661 → 127.0.0.1:58832 (22 bytes)
	//   stream 2 client→server 127.0.0.1:58848 → 127.0.0.1:40661 (13 bytes)
	//   stream 2 server→client 127.0.0.1:40661 → 127.0.0.1:58848 (13 bytes)
	// bytes 0+13: frame 1 response SYNC_SERVER/ECHO id=1
}

// A format of one's own joins the page's list with Register, from an init function.
func ExampleRegister() {
	inspect.Register(inspect.Format{
		Name:  "u8s",
		Title: "unsigned bytes",
		Explain: func(data []byte, opts map[string]string) (*inspect.Explanation, error) {
			ex := &inspect.Explanation{}
			for i, b := range data {
				ex.Nodes = append(ex.Nodes, &inspect.Node{Name: fmt.Sprintf("[%d]", i), Type: "u8",
					Value: fmt.Sprint(b), Off: i, Len: 1, Bit: 8 * i, Bits: 8})
			}
			return ex, nil
		},
	})
	ex, _ := inspect.Explain(inspect.Request{Format: "u8s", Input: "ff01"})
	fmt.Println(ex.Title, ex.Nodes[0].Value, ex.Nodes[1].Value)
	// Output: unsigned bytes 255 1
}
