package project

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

// Script is what the loader reads from a GDScript file: its base, its class name, its @rpc
// methods (with Node.rpc_config() calls found in it), which of its nodes it hands to the peer a
// node is named after, and (unexported, applied by Project.Instance to the nodes the script is
// on) the spawn functions, authorities and visibility it sets in code.
type Script struct {
	// Path is the script's resource path ("res://player.gd").
	Path string
	// Extends is the base as written: a resource path, a class name, or an engine class.
	Extends string
	// ClassName is the script's class_name, if any.
	ClassName string
	// RPCs are the script's own @rpc methods (not the inherited ones), without handlers, and
	// the rpc_config() entries (NodeConfig set).
	RPCs []multiplayer.RPC
	// OwnerAuthority lists the node paths (relative to the script's node, "." for the node
	// itself) whose multiplayer authority the script sets to the peer id the node is named by:
	// set_multiplayer_authority(str(name).to_int()).
	OwnerAuthority []string

	vars        map[string]any // the defaults of its top-level variables
	src         string         // the file, for messages
	sites       []site         // what it does to multiplayer nodes in code
	funcs       map[string]*funcDef
	nodeVars    map[string]string // variables holding a node: name → path ($Path)
	sceneConsts map[string]string // constants holding a loaded resource: name → path
	setterFuncs map[string]string // functions that are a variable's setter: function → variable
}

var (
	reExtends   = regexp.MustCompile(`^extends\s+(.+?)\s*$`)
	reClassName = regexp.MustCompile(`^class_name\s+([A-Za-z_]\w*)`)
	reFunc      = regexp.MustCompile(`^(?:static\s+)?func\s+([A-Za-z_]\w*)\s*\(`)
	reRPCConfig = regexp.MustCompile(`rpc_config\(\s*&?"([^"]+)"\s*,\s*(.*)\)`)
)

// ParseScript parses GDScript source. path names the file in errors ("res://player.gd").
func ParseScript(path string, src []byte) (*Script, error) {
	s := &Script{Path: path, src: path, vars: scriptVars(src)}
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	s.readCode(lines)
	for _, st := range s.sites {
		if st.what == "set_multiplayer_authority" && st.known && len(st.args) > 0 && isOwnerExpr(st.args[0]) {
			s.OwnerAuthority = append(s.OwnerAuthority, st.target)
		}
	}
	var pending *multiplayer.RPC // an @rpc waiting for its func
	pendingLine := 0
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := stripComment(lines[i])
		if strings.TrimSpace(line) == "" {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		text := strings.TrimSpace(line)
		if m := reRPCConfig.FindStringSubmatch(text); m != nil {
			r := multiplayer.RPC{Name: m[1], NodeConfig: true}
			if strings.Contains(m[2], "RPC_MODE_ANY_PEER") {
				r.Mode = multiplayer.ModeAnyPeer
			} else if strings.Contains(m[2], "RPC_MODE_DISABLED") {
				r.Mode = multiplayer.ModeDisabled
			}
			r.CallLocal = strings.Contains(m[2], `"call_local": true`)
			s.RPCs = append(s.RPCs, r)
		}
		if indented {
			continue // function bodies and inner classes
		}
		if m := reExtends.FindStringSubmatch(text); m != nil && s.Extends == "" {
			s.Extends = strings.Trim(m[1], `"`)
			continue
		}
		if m := reClassName.FindStringSubmatch(text); m != nil {
			s.ClassName = m[1]
			if rest := strings.TrimSpace(text[len(m[0]):]); strings.HasPrefix(rest, "extends") {
				s.Extends = strings.Trim(strings.TrimSpace(strings.TrimPrefix(rest, "extends")), `"`)
			}
			continue
		}
		for strings.HasPrefix(text, "@") {
			name, args, rest, consumed, err := annotation(lines, i, text)
			if err != nil {
				return nil, wrapAt(path, lineNo, "%w", err)
			}
			i += consumed
			if name == "rpc" {
				if pending != nil {
					return nil, errAt(path, lineNo, "@rpc twice before one func")
				}
				r, err := rpcArgs(args)
				if err != nil {
					return nil, wrapAt(path, lineNo, "%w", err)
				}
				pending, pendingLine = &r, lineNo
			}
			text = strings.TrimSpace(rest)
		}
		if text == "" {
			continue
		}
		if m := reFunc.FindStringSubmatch(text); m != nil {
			if pending != nil {
				pending.Name = m[1]
				s.RPCs = append(s.RPCs, *pending)
				pending = nil
			}
			continue
		}
		if pending != nil && !strings.HasPrefix(text, "@") {
			return nil, errAt(path, lineNo, "@rpc (line %d) is not followed by a func", pendingLine)
		}
	}
	if pending != nil {
		return nil, errAt(path, pendingLine, "@rpc is not followed by a func")
	}
	return s, nil
}

// annotation reads an annotation at the start of text (line i of lines), with arguments that
// may span lines. It returns the name, the arguments, the rest of the line after it and how
// many more lines it took.
func annotation(lines []string, i int, text string) (name string, args []string, rest string, consumed int, err error) {
	j := 1
	for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9') {
		j++
	}
	name = text[1:j]
	if name == "" {
		return "", nil, "", 0, kindf(ErrSyntax, "an annotation without a name: %q", text)
	}
	text = text[j:]
	if !strings.HasPrefix(text, "(") {
		return name, nil, text, 0, nil
	}
	// Collect the argument list up to its closing parenthesis.
	var b strings.Builder
	depth, inStr := 0, byte(0)
	for {
		for k := 0; k < len(text); k++ {
			c := text[k]
			switch {
			case inStr != 0:
				if c == '\\' {
					b.WriteByte(c)
					k++
					if k < len(text) {
						b.WriteByte(text[k])
					}
					continue
				}
				if c == inStr {
					inStr = 0
				}
			case c == '"' || c == '\'':
				inStr = c
			case c == '(':
				depth++
				if depth == 1 {
					continue
				}
			case c == ')':
				depth--
				if depth == 0 {
					args, err := splitArgs(b.String())
					return name, args, text[k+1:], consumed, err
				}
			}
			b.WriteByte(c)
		}
		consumed++
		if i+consumed >= len(lines) {
			return "", nil, "", 0, kindf(ErrSyntax, "@%s: unclosed argument list", name)
		}
		text = stripComment(lines[i+consumed])
		b.WriteByte(' ')
	}
}

func splitArgs(s string) ([]string, error) {
	var out []string
	for a := range strings.SplitSeq(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// rpcArgs applies @rpc's arguments as the GDScript parser does: up to three keyword strings in
// any order (only the given ones change the defaults), then an integer channel as the fourth.
func rpcArgs(args []string) (multiplayer.RPC, error) {
	var r multiplayer.RPC
	if len(args) > 4 {
		return r, kindf(ErrSyntax, "@rpc takes at most 4 arguments, has %d", len(args))
	}
	for i, a := range args {
		if uq, err := strconv.Unquote(a); err == nil {
			if i == 3 {
				return r, kindf(ErrSyntax, "@rpc argument 4 (the channel) should be an int, is %s", a)
			}
			switch uq {
			case "any_peer":
				r.Mode = multiplayer.ModeAnyPeer
			case "authority":
				r.Mode = multiplayer.ModeAuthority
			case "call_local":
				r.CallLocal = true
			case "call_remote":
				r.CallLocal = false
			case "reliable":
				r.Transfer = multiplayer.TransferReliable
			case "unreliable":
				r.Transfer = multiplayer.TransferUnreliable
			case "unreliable_ordered":
				r.Transfer = multiplayer.TransferUnreliableOrdered
			default:
				return r, kindf(ErrSyntax, "@rpc argument %s is not one of \"any_peer\", \"authority\", \"call_local\", \"call_remote\", \"reliable\", \"unreliable\", \"unreliable_ordered\"", a)
			}
			continue
		}
		if i < 3 {
			return r, kindf(ErrSyntax, "@rpc argument %d should be a String (\"any_peer\", \"call_local\", \"reliable\" …), is %s", i+1, a)
		}
		n, err := strconv.Atoi(a)
		if err != nil {
			return r, kindf(ErrSyntax, "@rpc argument %s is not understood (a keyword string or a channel number)", a)
		}
		r.Channel = n
	}
	return r, nil
}

// stripComment removes a # comment that is not inside a string.
func stripComment(line string) string {
	var inStr byte
	for k := 0; k < len(line); k++ {
		c := line[k]
		switch {
		case inStr != 0:
			if c == '\\' {
				k++
			} else if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '#':
			return strings.TrimRight(line[:k], " \t")
		}
	}
	return strings.TrimRight(line, " \t")
}
