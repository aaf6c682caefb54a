package messages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsfnet"
	"github.com/gamewire/gamewire/gsf/messages"
)

// A server and a client written with the catalog's types: no hand-written structs and no
// message numbers.
func Example_gsfnet() {
	mux := gsfnet.NewMux()
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo,
		func(ctx context.Context, s *gsfnet.Session, req *messages.GetClientVersionInfoRequest) (*messages.GetClientVersionInfoResponse, error) {
			return &messages.GetClientVersionInfoResponse{ClientVersionInfo: "133852.true"}, nil
		})
	gsfnet.Handle(mux, gsf.SvcUserServer, gsf.MsgGetRandomNames,
		func(ctx context.Context, s *gsfnet.Session, req *messages.GetRandomNamesRequest) (*messages.GetRandomNamesResponse, error) {
			names := []string{"Ada", "Bo", "Cy", "Di"}
			return &messages.GetRandomNamesResponse{Names: names[:min(int(req.Amount), len(names))]}, nil
		})
	srv := &gsfnet.Server{Handler: mux}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	go srv.Serve(ln)
	defer srv.Close()

	// A server that does not answer a message leaves Call waiting: give it a deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := gsfnet.Dial(ctx, ln.Addr().String(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var version messages.GetClientVersionInfoResponse
	if err := c.Call(ctx, gsf.SvcUserServer, gsf.MsgGetClientVersionInfo, &messages.GetClientVersionInfoRequest{ClientName: "AmazingWorld"}, &version); err != nil {
		fmt.Println(err)
		return
	}
	var names messages.GetRandomNamesResponse
	if err := c.Call(ctx, gsf.SvcUserServer, gsf.MsgGetRandomNames, &messages.GetRandomNamesRequest{Amount: 3, NamePartType: "First"}, &names); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(version.ClientVersionInfo, names.Names)
	// Output: 133852.true [Ada Bo Cy]
}

// Decoding any message of the catalog, and describing it field by field.
func ExampleDecode() {
	h := gsf.NewRequest(gsf.SvcUserServer, gsf.MsgLogin, 1)
	frame, _ := gsf.AppendMessage(nil, &h, &messages.LoginRequest{
		LoginID: "ada", Password: "pw", SitePIN: 1234,
		LanguageLocalePairOID: messages.OIDFromInt64(293578400718237473),
	})
	m, _, _ := gsf.ConsumeMessage(frame)
	strict, err := messages.DecodeOptions{Strict: true}.DecodeMode() // and fail if bits are left over
	if err != nil {
		fmt.Println(err)
		return
	}
	body, entry, err := strict.Decode(&m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(entry)
	fmt.Println(body.(*messages.LoginRequest).LanguageLocalePairOID)

	ex, _ := messages.Explain(frame, messages.Options{Strict: true})
	_ = ex.WriteSummary(os.Stdout)
	// Output:
	// USER_SERVER/LOGIN request (LoginRequest)
	// 4-19-0-9023265
	// frame 1 at byte 0: 33 bytes (length 32), request
	//   flags          0 (request)
	//   svcClass       18 (USER_SERVER)
	//   msgType        15 (LOGIN)
	//   requestId      1
	//   logCorrelator  ""
	//   body           LoginRequest, 205 bits from bit 51
	//     LoginID               string                "ada"  (bit 51, 37 bits)
	//     Password              string                "pw"  (bit 88, 24 bits)
	//     SitePIN               int32                 1234  (bit 112, 20 bits)
	//     LanguageLocalePairOID OID                   4-19-0-9023265 (packed 293578400718237473)  (bit 132, 62 bits)
	//       Class               int32                 4  (bit 133, 6 bits)
	//       Type                int32                 19  (bit 139, 11 bits)
	//       Server              int32                 0  (bit 150, 6 bits)
	//       Number              int64                 9023265  (bit 156, 38 bits)
	//     UserQueueingToken     string                ""  (bit 194, 6 bits)
	//     ClientEnvInfo         ClientEnvironmentData (bit 200, 38 bits)
	//       UnityVersion        string                ""  (bit 201, 6 bits)
	//       UserAgent           string                ""  (bit 207, 6 bits)
	//       ScreenResolution    string                ""  (bit 213, 6 bits)
	//       MachineOS           string                ""  (bit 219, 6 bits)
	//       UserTime            date                  null  (bit 225, 1 bit)
	//       UtcOffsetInMinutes  int32                 0  (bit 226, 6 bits)
	//       IpAddress           string                ""  (bit 232, 6 bits)
	//     Token                 string                ""  (bit 238, 6 bits)
	//     LoginType             int32                 0  (bit 244, 6 bits)
	//     CNL                   string                ""  (bit 250, 6 bits)
}

// An OID in its forms: the packed 64-bit number a database column holds, the JSON of a
// service, and the CDN id of asset URLs.
func ExampleOID_CDNID() {
	o := messages.OID{Class: 4, Type: 1, Server: 0, Number: 123456}
	b, _ := json.Marshal(o)
	back, _ := messages.OIDFromCDNID(o.CDNID())
	fmt.Println(o.Int64(), string(b), o.CDNID(), back == o)
	// Output:
	// 288511851128545856 "288511851128545856" Mjg4NTExODUxMTI4NTQ1ODU2 true
}

// A body left at its zero value encodes as the reference's does: the zero SessionStatus travels
// as IN_PROGRESS.
func ExampleSessionStatus() {
	var st struct{ Status messages.SessionStatus }
	b, _ := bitproto.Marshal(&st)
	var name struct{ Status string }
	_ = bitproto.Unmarshal(b, &name)
	fmt.Println(name.Status)
	// Output:
	// IN_PROGRESS
}
