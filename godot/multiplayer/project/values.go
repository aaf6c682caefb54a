package project

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot"
)

// parseValue reads a value as .tscn files and GDScript literals write it: null, bools,
// numbers, strings, &"StringName", ^"NodePath", and the constructors of the vector, color and
// NodePath types. ok is false for what it does not read (an expression, a resource).
func parseValue(v string) (any, bool) {
	v = strings.TrimSpace(v)
	switch v {
	case "null":
		return nil, true
	case "true":
		return true, true
	case "false":
		return false, true
	case "":
		return nil, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, true
	}
	if strings.HasPrefix(v, `"`) {
		if s, err := strconv.Unquote(v); err == nil {
			return s, true
		}
		if len(v) >= 2 && strings.HasSuffix(v, `"`) { // a .tscn string with raw newlines
			return v[1 : len(v)-1], true
		}
		return nil, false
	}
	if strings.HasPrefix(v, `&"`) {
		s, err := strconv.Unquote(v[1:])
		return godot.StringName(s), err == nil
	}
	if strings.HasPrefix(v, `^"`) {
		s, err := strconv.Unquote(v[1:])
		return godot.ParseNodePath(s), err == nil
	}
	name, args, ok := call(v)
	if !ok {
		return nil, false
	}
	f := make([]float32, len(args))
	in := make([]int32, len(args))
	for i, a := range args {
		x, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err != nil && name != "NodePath" && name != "StringName" {
			return nil, false
		}
		f[i], in[i] = float32(x), int32(x)
	}
	n := len(args)
	switch {
	case name == "NodePath" && n == 1:
		return godot.ParseNodePath(args[0]), true
	case name == "StringName" && n == 1:
		return godot.StringName(args[0]), true
	case name == "Vector2" && (n == 0 || n == 2):
		if n == 0 {
			return godot.Vector2{}, true
		}
		return godot.Vector2{X: f[0], Y: f[1]}, true
	case name == "Vector2i" && (n == 0 || n == 2):
		if n == 0 {
			return godot.Vector2i{}, true
		}
		return godot.Vector2i{X: in[0], Y: in[1]}, true
	case name == "Vector3" && (n == 0 || n == 3):
		if n == 0 {
			return godot.Vector3{}, true
		}
		return godot.Vector3{X: f[0], Y: f[1], Z: f[2]}, true
	case name == "Vector3i" && (n == 0 || n == 3):
		if n == 0 {
			return godot.Vector3i{}, true
		}
		return godot.Vector3i{X: in[0], Y: in[1], Z: in[2]}, true
	case name == "Vector4" && (n == 0 || n == 4):
		if n == 0 {
			return godot.Vector4{}, true
		}
		return godot.Vector4{X: f[0], Y: f[1], Z: f[2], W: f[3]}, true
	case name == "Color" && (n == 3 || n == 4):
		c := godot.Color{R: f[0], G: f[1], B: f[2], A: 1}
		if n == 4 {
			c.A = f[3]
		}
		return c, true
	}
	return nil, false
}

// typeDefault is the value of a GDScript variable of a built-in type that has no initialiser.
func typeDefault(typ string) (any, bool) {
	switch strings.TrimSpace(typ) {
	case "int":
		return int64(0), true
	case "float":
		return 0.0, true
	case "bool":
		return false, true
	case "String":
		return "", true
	case "StringName":
		return godot.StringName(""), true
	case "Vector2":
		return godot.Vector2{}, true
	case "Vector2i":
		return godot.Vector2i{}, true
	case "Vector3":
		return godot.Vector3{}, true
	case "Vector3i":
		return godot.Vector3i{}, true
	case "Vector4":
		return godot.Vector4{}, true
	case "Color":
		return godot.Color{}, true
	}
	return nil, false
}

// builtinDefaults are the defaults of common engine properties that replication configs name.
var builtinDefaults = map[string]any{
	"position": godot.Vector2{}, "rotation": 0.0, "scale": godot.Vector2{X: 1, Y: 1}, "skew": 0.0,
	"visible": true, "modulate": godot.Color{R: 1, G: 1, B: 1, A: 1}, "self_modulate": godot.Color{R: 1, G: 1, B: 1, A: 1},
	"z_index": int64(0), "editor_description": "", "velocity": godot.Vector2{}, "text": "", "frame": int64(0),
	"process_mode": int64(0), "name": godot.StringName(""),
}

// builtins3D are the defaults of the same names on Node3D, by node type.
var builtins3D = map[string]any{
	"position": godot.Vector3{}, "rotation": godot.Vector3{}, "scale": godot.Vector3{X: 1, Y: 1, Z: 1}, "velocity": godot.Vector3{},
}

var reAccessors = regexp.MustCompile(`\s*:\s*(?:(?:set|get)\s*=\s*\w+\s*,?\s*)*$`)

var reVar = regexp.MustCompile(`^(?:@\w+(?:\([^)]*\))?\s+)*var\s+([A-Za-z_]\w*)\s*(?::\s*([A-Za-z_]\w*)\s*)?(?::?=\s*(.+))?$`)

// scriptVars returns the defaults of a script's top-level variables that it can read.
func scriptVars(src []byte) map[string]any {
	out := map[string]any{}
	for _, line := range strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		// A variable with a setter or getter block: var player := 1: (set(id): … below) or
		// var player := 1: set = _set_player.
		text := reAccessors.ReplaceAllString(stripComment(line), "")
		m := reVar.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		if m[3] != "" {
			if v, ok := parseValue(m[3]); ok {
				if m[2] == "float" {
					if n, isInt := v.(int64); isInt {
						v = float64(n)
					}
				}
				out[m[1]] = v
			}
			continue
		}
		if v, ok := typeDefault(m[2]); ok {
			out[m[1]] = v
		}
	}
	return out
}
