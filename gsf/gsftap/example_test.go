package gsftap_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf/gsftap"
	"github.com/gamewire/gamewire/gsf/messages"
)

// The GSF frames of a tcpdump capture, described as "gamewire gsf decode" describes them:
// bodies decoded with the message catalog.
func Example() {
	f, err := os.Open("../../capture/testdata/serve-call.pcap")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	pr := &gsftap.Printer{W: os.Stdout, Location: time.UTC, Explain: messages.ExplainOptions(messages.Options{Strict: true})}
	tap := gsftap.New(func(r *gsftap.Record) {
		if r.Kind == gsftap.RecordFrame && r.Conn.ID == 1 && r.Dir == capture.ServerToClient {
			pr.Print(r)
		}
	})
	if _, err := capture.ReadStreams(f, nil, tap.Handle); err != nil {
		log.Fatal(err)
	}
	fmt.Println(pr.Frames, "frame printed")
	// Output:
	// 19:02:52.533144 #1 server→client 127.0.0.1:40661 → 127.0.0.1:58832 frame 1, bytes 0–21
	//   15 21 c2 5c 04 6d 0c 10 30 58 31 33 33 38 35 32 2e 74 72 75 65 00
	//   frame 1 at byte 0: 22 bytes (length 21), response
	//     flags          1 (response)
	//     svcClass       18 (USER_SERVER)
	//     msgType        566 (GET_CLIENT_VERSION_INFO)
	//     requestId      1
	//     resultCode     0 (OK)
	//     appCode        0 (OK)
	//     body           GetClientVersionInfoResponse, 102 bits from bit 66
	//       ClientVersionInfo string "133852.true"  (bit 66, 102 bits)
	// 1 frame printed
}
