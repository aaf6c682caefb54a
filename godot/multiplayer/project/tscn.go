package project

import (
	"fmt"
	"strconv"
	"strings"
)

// section is one [heading] of a .tscn file with its key = value lines, values as written.
type section struct {
	kind  string            // gd_scene, ext_resource, sub_resource, node, connection, editable
	attrs map[string]string // heading attributes, values as written (strings quoted)
	props map[string]string
	order []string // prop keys in file order
	line  int
}

// parseSections splits a text resource into sections. It understands values that span lines
// (strings, arrays, dictionaries and constructor calls).
func parseSections(path string, src []byte) ([]*section, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	var out []*section
	line := 1
	pos := 0
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text) - pos
		}
		l := strings.TrimSpace(text[pos : pos+end])
		switch {
		case l == "" || strings.HasPrefix(l, ";"):
			pos += end + 1
			line++
		case strings.HasPrefix(l, "["):
			if !strings.HasSuffix(l, "]") {
				return nil, errAt(path, line, "a section heading without its closing bracket")
			}
			sec, err := parseHeading(l[1 : len(l)-1])
			if err != nil {
				return nil, wrapAt(path, line, "%w", err)
			}
			sec.line = line
			out = append(out, sec)
			pos += end + 1
			line++
		default:
			eq := strings.IndexByte(l, '=')
			if eq < 0 {
				return nil, errAt(path, line, "expected key = value, found %q", l)
			}
			if len(out) == 0 { // project.godot's global keys (config_version)
				out = append(out, &section{attrs: map[string]string{}, props: map[string]string{}, line: line})
			}
			key := strings.TrimSpace(l[:eq])
			// The value runs from after '=' to the end of a balanced expression.
			vstart := pos + strings.IndexByte(text[pos:], '=') + 1
			n, err := valueLen(text[vstart:])
			if err != nil {
				return nil, wrapAt(path, line, "property %s: %w", key, err)
			}
			val := strings.TrimSpace(text[vstart : vstart+n])
			sec := out[len(out)-1]
			sec.props[key] = val
			sec.order = append(sec.order, key)
			consumed := text[pos : vstart+n]
			line += strings.Count(consumed, "\n")
			pos = vstart + n
			if nl := strings.IndexByte(text[pos:], '\n'); nl >= 0 {
				if rest := strings.TrimSpace(text[pos : pos+nl]); rest != "" {
					return nil, errAt(path, line, "unexpected %q after the value of %s", rest, key)
				}
				pos += nl + 1
				line++
			} else {
				pos = len(text)
			}
		}
	}
	return out, nil
}

// valueLen returns the length of the value at the start of s: up to the end of the line once
// every bracket and string is closed.
func valueLen(s string) (int, error) {
	depth := 0
	var inStr byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0:
			if c == '\\' {
				i++
			} else if c == inStr {
				inStr = 0
			}
		case c == '"':
			inStr = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth < 0 {
				return 0, kindf(ErrSyntax, "unbalanced %q", c)
			}
		case c == '\n' && depth == 0:
			return i, nil
		}
	}
	if depth != 0 || inStr != 0 {
		return 0, kindf(ErrSyntax, "the value does not end before the end of the file")
	}
	return len(s), nil
}

func parseHeading(h string) (*section, error) {
	sec := &section{attrs: map[string]string{}, props: map[string]string{}}
	h = strings.TrimSpace(h)
	sp := strings.IndexAny(h, " \t")
	if sp < 0 {
		sec.kind = h
		return sec, nil
	}
	sec.kind, h = h[:sp], strings.TrimSpace(h[sp:])
	for h != "" {
		eq := strings.IndexByte(h, '=')
		if eq < 0 {
			return nil, kindf(ErrSyntax, "heading attribute %q without a value", h)
		}
		key := strings.TrimSpace(h[:eq])
		h = strings.TrimSpace(h[eq+1:])
		n, err := attrLen(h)
		if err != nil {
			return nil, fmt.Errorf("heading attribute %s: %w", key, err)
		}
		sec.attrs[key] = h[:n]
		h = strings.TrimSpace(h[n:])
	}
	return sec, nil
}

// attrLen is the length of a heading attribute's value: a string, or a token with balanced
// parentheses (ExtResource("1"), PackedStringArray(…)).
func attrLen(s string) (int, error) {
	depth := 0
	var inStr byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0:
			if c == '\\' {
				i++
			} else if c == inStr {
				inStr = 0
				if depth == 0 {
					return i + 1, nil
				}
			}
		case c == '"':
			inStr = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case (c == ' ' || c == '\t') && depth == 0:
			return i, nil
		}
	}
	if inStr != 0 || depth != 0 {
		return 0, kindf(ErrSyntax, "unterminated value %q", s)
	}
	return len(s), nil
}

// unquote returns the string a quoted value holds ("abc" → abc); other values unchanged.
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	}
	return v
}

// call splits a constructor call `Name(args)` into the name and its comma-separated arguments
// (strings unquoted). ok is false if v is not such a call.
func call(v string) (name string, args []string, ok bool) {
	open := strings.IndexByte(v, '(')
	if open <= 0 || !strings.HasSuffix(v, ")") {
		return "", nil, false
	}
	name = strings.TrimSpace(v[:open])
	inner := v[open+1 : len(v)-1]
	var cur strings.Builder
	var inStr byte
	depth := 0
	flush := func() {
		a := strings.TrimSpace(cur.String())
		if a != "" {
			args = append(args, unquote(a))
		}
		cur.Reset()
	}
	for i := 0; i < len(inner); i++ {
		c := inner[i]
		switch {
		case inStr != 0:
			if c == '\\' && i+1 < len(inner) {
				cur.WriteByte(c)
				i++
				c = inner[i]
			} else if c == inStr {
				inStr = 0
			}
		case c == '"':
			inStr = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return name, args, true
}
