package explain

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
)

// WriteJSON writes each frame as one line of JSON (JSON Lines), in the schema of the struct
// tags of [Frame] (docs/explain.md): the bytes encoding/json writes for it with HTML escaping
// off, but in time and memory linear in the frame however deep its fields nest. A float Value
// that JSON cannot hold (NaN, ±Inf) is written as its text ("NaN", "+Inf", "-Inf"); the
// formats put such values in the model as text already.
func WriteJSON(w io.Writer, frames ...*Frame) error {
	bw := bufio.NewWriter(w)
	for _, fr := range frames {
		if err := writeFrameJSON(bw, fr); err != nil {
			return err
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func writeFrameJSON(w *bufio.Writer, fr *Frame) error {
	w.WriteString(`{"format":`)
	jsonString(w, fr.Format)
	fmt.Fprintf(w, `,"index":%d,"bit":%d,"bits":%d`, fr.Index, fr.Bit, fr.Bits)
	if fr.Summary != "" {
		w.WriteString(`,"summary":`)
		jsonString(w, fr.Summary)
	}
	if len(fr.Context) > 0 {
		keys := make([]string, 0, len(fr.Context))
		for k := range fr.Context {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w.WriteString(`,"context":{`)
		for i, k := range keys {
			if i > 0 {
				w.WriteByte(',')
			}
			jsonString(w, k)
			w.WriteByte(':')
			jsonString(w, fr.Context[k])
		}
		w.WriteByte('}')
	}
	w.WriteString(`,"fields":`)
	if fr.Fields == nil {
		w.WriteString("null")
	} else if err := writeFieldsJSON(w, fr.Fields); err != nil {
		return err
	}
	if fr.Err != nil {
		w.WriteString(`,"error":`)
		writeErrorJSON(w, fr.Err)
	}
	if fr.Truncated {
		w.WriteString(`,"truncated":true`)
	}
	w.WriteByte('}')
	return nil
}

func writeFieldsJSON(w *bufio.Writer, fs []*Field) error {
	w.WriteByte('[')
	for i, f := range fs {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString(`{"name":`)
		jsonString(w, f.Name)
		w.WriteString(`,"type":`)
		jsonString(w, f.Type)
		if f.Value != nil {
			w.WriteString(`,"value":`)
			if err := jsonValue(w, f.Value); err != nil {
				return err
			}
		}
		if f.Text != "" {
			w.WriteString(`,"text":`)
			jsonString(w, f.Text)
		}
		fmt.Fprintf(w, `,"bit":%d,"bits":%d`, f.Bit, f.Bits)
		if f.Note != "" {
			w.WriteString(`,"note":`)
			jsonString(w, f.Note)
		}
		if len(f.Children) > 0 {
			w.WriteString(`,"children":`)
			if err := writeFieldsJSON(w, f.Children); err != nil {
				return err
			}
		}
		if f.Err != nil {
			w.WriteString(`,"error":`)
			writeErrorJSON(w, f.Err)
		}
		w.WriteByte('}')
	}
	w.WriteByte(']')
	return nil
}

func writeErrorJSON(w *bufio.Writer, e *Error) {
	fmt.Fprintf(w, `{"bit":%d`, e.Bit)
	if e.Bits != 0 {
		fmt.Fprintf(w, `,"bits":%d`, e.Bits)
	}
	w.WriteString(`,"msg":`)
	jsonString(w, e.Msg)
	w.WriteByte('}')
}

// jsonValue writes a Value: a JSON scalar.
func jsonValue(w *bufio.Writer, v any) error {
	switch x := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		w.WriteString(strconv.FormatUint(x, 10))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			jsonString(w, strconv.FormatFloat(x, 'g', -1, 64))
			return nil
		}
		b, _ := json.Marshal(x) // encoding/json's form of a float
		w.Write(b)
	case string:
		jsonString(w, x)
	default:
		return jsonValue(w, Scalar(v))
	}
	return nil
}

// jsonString writes s as a JSON string, as encoding/json does with HTML escaping off.
func jsonString(w *bufio.Writer, s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
