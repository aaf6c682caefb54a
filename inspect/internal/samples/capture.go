package samples

import (
	"bytes"
	"encoding/hex"
	"strconv"

	"github.com/gamewire/gamewire/capture"
	"github.com/gamewire/gamewire/gsf"
	"github.com/gamewire/gamewire/gsf/gsftap"
)

// CaptureFrame is a GSF frame that "gamewire gsf decode" finds in a capture.
type CaptureFrame struct {
	Stream      string // the connection and direction, as the inspector's stream option names it: "1/c2s"
	Off, Len    int    // the frame's place in its stream
	Hex, Header string // its bytes, and its header as gsf.Header.String prints it
}

// CaptureFrames returns the GSF frames that "gamewire gsf decode" finds in a pcap or pcapng
// capture (package gsftap over capture.ReadStreams, which the command prints), in capture
// order, and the number of problems it reports. all is gsftap.Tap.All: the streams without a
// GSF frame too.
func CaptureFrames(data []byte, all bool) (frames []CaptureFrame, problems int, err error) {
	var explainErr error
	tap := gsftap.New(func(r *gsftap.Record) {
		switch r.Kind {
		case gsftap.RecordProblem:
			problems++
		case gsftap.RecordFrame:
			gx, err := gsf.Explain(r.Frame, gsf.ExplainOptions{})
			if err != nil {
				explainErr = err
				return
			}
			d, _ := r.Dir.MarshalText()
			frames = append(frames, CaptureFrame{Stream: strconv.FormatUint(r.Conn.ID, 10) + "/" + string(d),
				Off: int(r.Offset), Len: int(r.Size), Hex: hex.EncodeToString(r.Frame), Header: gx.Frames[0].Header.String()})
		}
	})
	tap.All = all
	if _, err := capture.ReadStreams(bytes.NewReader(data), nil, tap.Handle); err != nil {
		return frames, problems, err
	}
	return frames, problems, explainErr
}
