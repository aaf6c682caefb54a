// Package cliio reads the byte input of gamewire's commands: hex (with any whitespace, colons or
// "0x" prefixes), base64, or raw bytes, from a file or standard input.
package cliio

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Format names an input encoding.
type Format string

// The input formats. Auto guesses: input that is entirely hex digits (after removing white space,
// "0x" prefixes, colons and commas) is hex; otherwise input that is valid base64 is base64;
// anything else is raw bytes.
const (
	Auto   Format = "auto"
	Hex    Format = "hex"
	Base64 Format = "base64"
	Raw    Format = "raw"
)

// ParseFormat checks a --format flag value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Auto, Hex, Base64, Raw:
		return f, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("unknown input format %q (want auto, hex, base64 or raw)", s)
}

// ReadAll reads the whole input: the file named by path, or stdin when path is "" or "-".
func ReadAll(path string, stdin io.Reader) ([]byte, error) {
	if path == "" || path == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(path)
}

// Read reads the input named by path (stdin for "" or "-") and decodes it from format f.
func Read(path string, stdin io.Reader, f Format) ([]byte, error) {
	data, err := ReadAll(path, stdin)
	if err != nil {
		return nil, err
	}
	return Decode(data, f)
}

// Decode turns the text or bytes of an input into the bytes it stands for.
func Decode(data []byte, f Format) ([]byte, error) {
	switch f {
	case Raw:
		return data, nil
	case Hex:
		return decodeHex(data)
	case Base64:
		return decodeBase64(data)
	case Auto, "":
		if b, err := decodeHex(data); err == nil {
			return b, nil
		}
		if utf8.Valid(data) {
			if b, err := decodeBase64(data); err == nil {
				return b, nil
			}
		}
		return data, nil
	}
	return nil, fmt.Errorf("unknown input format %q", f)
}

// ErrEmpty reports hex or base64 input that holds no bytes at all.
var ErrEmpty = errors.New("empty input")

func decodeHex(data []byte) ([]byte, error) {
	s := string(data)
	s = strings.ReplaceAll(s, "0x", "")
	s = strings.ReplaceAll(s, "0X", "")
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', ':', ',', '-':
			return -1
		}
		return r
	}, s)
	if s == "" {
		return nil, ErrEmpty
	}
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("hex input has an odd number of digits (%d)", len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("hex input: %w", err)
	}
	return b, nil
}

func decodeBase64(data []byte) ([]byte, error) {
	s := string(bytes.Join(bytes.Fields(data), nil))
	if s == "" {
		return nil, ErrEmpty
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("base64 input: not valid base64")
}
