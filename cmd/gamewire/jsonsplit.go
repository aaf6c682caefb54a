package main

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonSplitter cuts a text holding several concatenated JSON values into the values' texts.
type jsonSplitter struct {
	dec  *json.Decoder
	text []byte
}

func newJSONSplitter(text []byte) *jsonSplitter {
	return &jsonSplitter{dec: json.NewDecoder(bytes.NewReader(text)), text: text}
}

func (s *jsonSplitter) next() ([]byte, bool, error) {
	var raw json.RawMessage
	if !s.dec.More() {
		return nil, false, nil
	}
	if err := s.dec.Decode(&raw); err != nil {
		return nil, false, fmt.Errorf("JSON input: %w", err)
	}
	return raw, true, nil
}
