package project

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

// What scripts do to the multiplayer nodes in code: the loader reads the common, recognisable
// forms (see site and its values) and leaves a Gap, naming the file and line, for the rest.

// ErrNotRead is the sentinel of a GapError: the project sets something in code that the loader
// could not read, and the program has not supplied it from Go.
var ErrNotRead = errors.New("project: set in code the loader cannot read")

// Gap is one thing a project's scripts set in code that the loader could not read: a spawn
// function, a synchronizer's authority or visibility filter. The program supplies it from Go
// (Spawner.Custom, SyncConfig.Authority, SyncConfig.Visible) and removes the gap from
// Declarations.Gaps before Apply.
type Gap struct {
	// Where is the file and line of the code ("/path/world.gd:12").
	Where string
	// What says what the loader could not read and what to set from Go.
	What string
	// Scene is the res:// path of the spawnable scene the spawner or synchronizer is in, or ""
	// for one in the instanced scene.
	Scene string
	// Spawner is the spawner whose spawn function the loader could not read (set its Custom),
	// or nil.
	Spawner *multiplayer.Spawner
	// Sync is the synchronizer whose authority or visibility the loader could not read, or nil.
	Sync *multiplayer.SyncConfig
	// Scenes, for a spawn function that returns one of several scenes by its argument, are
	// those scenes laid out: each Spawn passes the one its argument picks as
	// SpawnOptions.Custom.
	Scenes []*multiplayer.Scene
}

func (g Gap) String() string { return g.Where + ": " + g.What }

// GapError is Apply's error while Declarations.Gaps is not empty. It matches ErrNotRead.
type GapError struct {
	Gaps []Gap
}

func (e *GapError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "project: the scripts set %d %s in code that the loader cannot read; supply %s from Go and remove %s from Declarations.Gaps:",
		len(e.Gaps), plural(len(e.Gaps), "thing", "things"), plural(len(e.Gaps), "it", "them"), plural(len(e.Gaps), "it", "them"))
	for _, g := range e.Gaps {
		b.WriteString("\n\t" + g.String())
	}
	return b.String()
}

// Is reports whether target is ErrNotRead.
func (e *GapError) Is(target error) bool { return target == ErrNotRead }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// site is a call or an assignment in a script that concerns a multiplayer node.
type site struct {
	line   int
	target string // the node path relative to the script's node ("." itself)
	known  bool   // false: the receiver is an expression the loader cannot resolve
	recv   string // the receiver as written, for messages
	what   string // a method name, or "name=" for an assignment
	args   []string
	// fn is the top-level function the site is in, or "var:NAME" for the setter of the
	// variable NAME, with param the setter's parameter.
	fn, param string
}

const recvPattern = `\$"[^"]*"|\$%?[\w/%]+|%[\w/]+|get_node(?:_or_null)?\(\s*"[^"]*"\s*\)|[A-Za-z_]\w*`

var (
	reSiteCall   = regexp.MustCompile(`(?:(` + recvPattern + `)\s*\.\s*)?\b(set_multiplayer_authority|add_visibility_filter|set_visibility_for|set_visibility_public|set_spawn_function)\s*\(`)
	reSiteAssign = regexp.MustCompile(`^(?:(` + recvPattern + `)\s*\.\s*)?(spawn_function|public_visibility|visibility_update_mode)\s*=([^=].*)$`)
	reNodeVar    = regexp.MustCompile(`^(?:@onready\s+)?var\s+([A-Za-z_]\w*)\s*(?::\s*[A-Za-z_]\w*\s*)?:?=\s*(\$"[^"]*"|\$%?[\w/]+|%[\w/]+|get_node(?:_or_null)?\(\s*"[^"]*"\s*\))\s*$`)
	reSceneConst = regexp.MustCompile(`^(?:const|var)\s+([A-Za-z_]\w*)\s*(?::\s*[A-Za-z_]\w*\s*)?:?=\s*(?:pre)?load\(\s*"([^"]+)"\s*\)\s*$`)
	reLoadScene  = regexp.MustCompile(`(?:pre)?load\(\s*"([^"]+\.tscn)"\s*\)`)
	reFuncHead   = regexp.MustCompile(`^(?:static\s+)?func\s+([A-Za-z_]\w*)\s*\(([^)]*)\)`)
	reVarBlock   = regexp.MustCompile(`^(?:@\w+(?:\([^)]*\))?\s+)*var\s+([A-Za-z_]\w*)\b[^#]*:\s*(?:set\s*=\s*([A-Za-z_]\w*)\s*)?$`)
	reSetter     = regexp.MustCompile(`^set\s*\(\s*([A-Za-z_]\w*)\s*(?::\s*\w+\s*)?\)\s*:`)
	reSetterFunc = regexp.MustCompile(`^set\s*=\s*([A-Za-z_]\w*)`)
)

// funcDef is a top-level function of a script: its parameters and its body's lines.
type funcDef struct {
	line   int
	params []string
	body   []codeLine
}

type codeLine struct {
	no   int
	text string // trimmed, without comment
}

// readCode fills the script's sites, functions, node variables and scene constants.
func (s *Script) readCode(lines []string) {
	s.funcs = map[string]*funcDef{}
	s.nodeVars = map[string]string{}
	s.sceneConsts = map[string]string{}
	s.setterFuncs = map[string]string{}
	ambiguous := map[string]bool{}
	var cur *funcDef
	curName, curVar, setterParam := "", "", ""
	for i, raw := range lines {
		line := stripComment(raw)
		text := strings.TrimSpace(line)
		if text == "" {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if !indented {
			cur, curName, curVar, setterParam = nil, "", "", ""
			if m := reVarBlock.FindStringSubmatch(text); m != nil {
				curVar = m[1]
				if m[2] != "" {
					s.setterFuncs[m[2]] = m[1]
				}
			}
			if m := reFuncHead.FindStringSubmatch(text); m != nil {
				cur, curName = &funcDef{line: i + 1, params: params(m[2])}, m[1]
				s.funcs[m[1]] = cur
				// A one-line function: func f(x): return x == 1
				if _, after, ok := strings.Cut(text[len(m[0]):], ":"); ok && strings.TrimSpace(after) != "" {
					cur.body = append(cur.body, codeLine{i + 1, strings.TrimSpace(after)})
				}
			}
			if m := reSceneConst.FindStringSubmatch(text); m != nil {
				s.sceneConsts[m[1]] = m[2]
			}
		} else if cur != nil {
			cur.body = append(cur.body, codeLine{i + 1, text})
		} else if curVar != "" {
			if m := reSetter.FindStringSubmatch(text); m != nil {
				setterParam = m[1]
			} else if m := reSetterFunc.FindStringSubmatch(text); m != nil {
				s.setterFuncs[m[1]] = curVar
			}
		}
		fn, param := curName, ""
		if curVar != "" && setterParam != "" {
			fn, param = "var:"+curVar, setterParam
		}
		if m := reNodeVar.FindStringSubmatch(text); m != nil {
			path := nodeRef(m[2])
			if old, ok := s.nodeVars[m[1]]; ok && old != path {
				ambiguous[m[1]] = true
			}
			s.nodeVars[m[1]] = path
		}
		for _, m := range reSiteCall.FindAllStringSubmatchIndex(text, -1) {
			open := m[1] // just after '('
			args, ok := callArgs(text[open:])
			for j := i + 1; !ok && j < len(lines) && j <= i+20; j++ {
				// A call over several lines (a multi-line lambda): its lines joined.
				var b strings.Builder
				b.WriteString(text[open:])
				for _, l := range lines[i+1 : j+1] {
					b.WriteString("\n" + strings.TrimSpace(stripComment(l)))
				}
				args, ok = callArgs(b.String())
			}
			if !ok {
				// The arguments go on over more lines (a multi-line lambda): not read, so
				// that whatever it is becomes a gap rather than passing unseen.
				args = []string{"…"}
			}
			st := site{line: i + 1, what: text[m[4]:m[5]], args: args, fn: fn, param: param}
			recv := ""
			if m[2] >= 0 {
				recv = text[m[2]:m[3]]
			}
			chained := m[0] > 0 && (text[m[0]-1] == '.' || text[m[0]-1] == ')' || text[m[0]-1] == ']')
			st.recv = recv
			st.target, st.known = s.receiver(recv, chained)
			s.sites = append(s.sites, st)
		}
		if m := reSiteAssign.FindStringSubmatch(text); m != nil {
			st := site{line: i + 1, what: m[2] + "=", args: []string{strings.TrimSpace(m[3])}, recv: m[1], fn: fn, param: param}
			st.target, st.known = s.receiver(m[1], false)
			s.sites = append(s.sites, st)
		}
	}
	for name := range ambiguous {
		delete(s.nodeVars, name)
	}
}

// receiver resolves a call's receiver to a node path relative to the script's node.
func (s *Script) receiver(recv string, chained bool) (string, bool) {
	switch {
	case chained:
		return "", false
	case recv == "" || recv == "self":
		return ".", true
	case strings.HasPrefix(recv, "$"), strings.HasPrefix(recv, "%"), strings.HasPrefix(recv, "get_node"):
		return nodeRef(recv), true
	}
	if p, ok := s.nodeVars[recv]; ok {
		return p, true
	}
	return "", false
}

// nodeRef returns the path of $Path, $"Path" or get_node("Path"), or %Name for a scene-unique
// name ($%Name, %Name).
func nodeRef(v string) string {
	if strings.HasPrefix(v, "%") || strings.HasPrefix(v, "$%") {
		return "%" + strings.TrimLeft(v, "$%")
	}
	if strings.HasPrefix(v, "get_node") {
		_, args, _ := call(v)
		if len(args) == 1 {
			return args[0]
		}
		return ""
	}
	return strings.Trim(strings.TrimPrefix(v, "$"), `"`)
}

func params(list string) []string {
	var out []string
	for p := range strings.SplitSeq(list, ",") {
		p = strings.TrimSpace(p)
		if i := strings.IndexAny(p, ":="); i >= 0 {
			p = strings.TrimSpace(p[:i])
		}
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// callArgs splits the arguments of a call whose text starts after its '('; ok is false if the
// call does not close on the line.
func callArgs(s string) ([]string, bool) {
	depth, inStr := 0, byte(0)
	start := 0
	var out []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0:
			if c == '\\' {
				i++
			} else if c == inStr {
				inStr = 0
			}
		case c == '"' || c == '\'':
			inStr = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" {
					out = append(out, a)
				}
				return out, true
			}
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return nil, false
}

// ownerExprs are the ways a script writes "the peer id this node is named by".
var ownerExprs = map[string]bool{
	"str(name).to_int()": true, "String(name).to_int()": true, "name.to_int()": true,
	"int(str(name))": true, "int(String(name))": true, "str(self.name).to_int()": true,
	"self.name.to_int()": true, "int(name)": true, "String(self.name).to_int()": true,
}

func isOwnerExpr(v string) bool { return ownerExprs[strings.Join(strings.Fields(v), "")] }

// ---------------------------------------------------------------------------------------------
// what a scene's scripts do

// sceneCode is what the scripts of one scene's nodes set in code, by target node path
// (relative to the scene's root).
type sceneCode struct {
	auth     []authEffect
	vis      map[string]*visEffect
	spawnFns map[string]spawnFn
	gaps     []Gap             // sites whose node the loader could not resolve
	unique   map[string]string // %Name → the path of the node with unique_name_in_owner
}

type authEffect struct {
	target    string
	recursive bool
	owner     bool
	// prop is the property of the node at propNode whose value the authority is (set in its
	// setter: var player := 1: set(id): $Input.set_multiplayer_authority(id)).
	prop, propNode string
	peer           multiplayer.Authority // when !owner and !unread
	unread         string                // a reason, when the value is not read
	where          string
}

type visEffect struct {
	public       *bool
	ownerVisible bool
	filters      []filter
	update       *multiplayer.VisibilityUpdate
	unread       []string // file:line: what
}

type filter struct {
	owner bool // visible to the entity's owner only; else always visible
}

type spawnFn struct {
	res    string // the scene it instantiates; "" for nodes built in code
	unread string // why the loader cannot tell what it returns
	where  string
	scenes []string // the scenes it may return, when it names several
}

// codeOf reads what the scripts of a scene's nodes (paths relative to the scene's root) do to
// its multiplayer nodes. entity says whether the scene is spawned (its root named by a peer).
func (p *Project) codeOf(nodes []*SceneNode, entity bool) *sceneCode {
	c := &sceneCode{vis: map[string]*visEffect{}, spawnFns: map[string]spawnFn{}, unique: map[string]string{}}
	for _, n := range nodes {
		if n.Props["unique_name_in_owner"] == "true" {
			c.unique[n.Name] = n.Path
		}
	}
	for _, n := range nodes {
		for res, depth := n.Script, 0; res != "" && depth < 64; depth++ {
			s := p.Scripts[res]
			if s == nil {
				break
			}
			for _, st := range s.sites {
				c.add(p, s, n, st, entity)
			}
			res = p.base(s)
		}
	}
	return c
}

func (c *sceneCode) add(p *Project, s *Script, n *SceneNode, st site, entity bool) {
	where := fmt.Sprintf("%s:%d", s.file(), st.line)
	if !st.known {
		c.gaps = append(c.gaps, Gap{Where: where, What: fmt.Sprintf("%s on %s: the loader cannot tell which node %s is", strings.TrimSuffix(st.what, "="), st.recv, st.recv)})
		return
	}
	var target string
	if name, ok := strings.CutPrefix(st.target, "%"); ok {
		first, rest, _ := strings.Cut(name, "/")
		base, found := c.unique[first]
		if !found {
			c.gaps = append(c.gaps, Gap{Where: where, What: fmt.Sprintf("%s on %s: no node of the scene has the unique name %s", strings.TrimSuffix(st.what, "="), st.recv, first)})
			return
		}
		target = join(base, rest)
	} else {
		target = relPath(n.Path, st.target)
	}
	if target == "" {
		target = "."
	}
	// "The peer this node is named by" is the entity's owner only in a script of the entity's
	// root.
	ownerOK := entity && n.Path == "."
	arg := func(i int) string {
		if i < len(st.args) {
			return st.args[i]
		}
		return ""
	}
	vis := func() *visEffect {
		v := c.vis[target]
		if v == nil {
			v = &visEffect{}
			c.vis[target] = v
		}
		return v
	}
	switch st.what {
	case "set_multiplayer_authority":
		e := authEffect{target: target, recursive: arg(1) != "false", where: where}
		v := arg(0)
		prop := ""
		if strings.HasPrefix(st.fn, "var:") && v == st.param {
			prop = strings.TrimPrefix(st.fn, "var:")
		} else if f := s.funcs[st.fn]; f != nil && s.setterFuncs[st.fn] != "" && len(f.params) == 1 && v == f.params[0] {
			prop = s.setterFuncs[st.fn]
		}
		switch k, err := strconv.Atoi(v); {
		case prop != "" && entity:
			e.prop, e.propNode = prop, n.Path
		case isOwnerExpr(v) && ownerOK:
			e.owner = true
		case isOwnerExpr(v):
			e.unread = fmt.Sprintf("set_multiplayer_authority(%s) in a script of %s, which is not a spawned scene's root named by its owner", oneLine(v), n.Path)
		case err == nil && (k == 1 || k > 1 && k <= 1<<31-1):
			e.peer = multiplayer.Authority(k)
			if k == 1 {
				e.peer = multiplayer.AuthorityServer
			}
		default:
			e.unread = fmt.Sprintf("set_multiplayer_authority(%s): the loader reads the peer a node is named by (str(name).to_int()) and numbers", oneLine(v))
		}
		c.auth = append(c.auth, e)
	case "set_visibility_public", "public_visibility=":
		switch arg(0) {
		case "true", "false":
			b := arg(0) == "true"
			vis().public = &b
		default:
			vis().unread = append(vis().unread, fmt.Sprintf("%s: public visibility %s", where, oneLine(arg(0))))
		}
	case "set_visibility_for":
		if isOwnerExpr(arg(0)) && ownerOK && arg(1) == "true" {
			vis().ownerVisible = true
		} else {
			vis().unread = append(vis().unread, fmt.Sprintf("%s: set_visibility_for(%s)", where, oneLine(strings.Join(st.args, ", "))))
		}
	case "visibility_update_mode=":
		m, ok := updateMode(arg(0))
		if !ok {
			vis().unread = append(vis().unread, fmt.Sprintf("%s: visibility_update_mode = %s", where, oneLine(arg(0))))
			break
		}
		vis().update = &m
	case "add_visibility_filter":
		f, ok := s.filterOf(arg(0), ownerOK)
		if !ok {
			vis().unread = append(vis().unread, fmt.Sprintf("%s: add_visibility_filter(%s): the loader reads filters that return true or compare the peer with the one the entity is named by", where, oneLine(arg(0))))
			break
		}
		vis().filters = append(vis().filters, f)
	case "set_spawn_function", "spawn_function=":
		c.spawnFns[target] = p.spawnFnOf(s, arg(0), where)
	}
}

// oneLine puts code that spans lines on one line, for messages.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (s *Script) file() string {
	if s.src != "" {
		return s.src
	}
	return s.Path
}

// updateMode reads a visibility_update_mode value.
func updateMode(v string) (multiplayer.VisibilityUpdate, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "MultiplayerSynchronizer.")
	switch v {
	case "0", "VISIBILITY_PROCESS_IDLE":
		return multiplayer.VisibilityIdle, true
	case "1", "VISIBILITY_PROCESS_PHYSICS":
		return multiplayer.VisibilityPhysics, true
	case "2", "VISIBILITY_PROCESS_NONE":
		return multiplayer.VisibilityManual, true
	}
	return 0, false
}

// callee returns the name of the script's own method a Callable refers to: name,
// self.name, Callable(self, "name").
func callee(v string) string {
	v = strings.TrimSpace(v)
	if name, args, ok := call(v); ok && name == "Callable" && len(args) == 2 && args[0] == "self" {
		return args[1]
	}
	v = strings.TrimPrefix(v, "self.")
	for _, c := range v {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return ""
		}
	}
	return v
}

var reLambda = regexp.MustCompile(`^func\s*\(\s*([A-Za-z_]\w*)\s*(?::\s*int\s*)?\)\s*(?:->\s*bool\s*)?:\s*(.+)$`)

// filterOf reads a visibility filter: a method of the script or a one-line lambda whose body is
// `return true` or compares its parameter with the peer the entity is named by.
func (s *Script) filterOf(v string, ownerOK bool) (filter, bool) {
	var param string
	var body []codeLine
	head, rest, multiline := strings.Cut(strings.TrimSpace(v), "\n")
	if m := reLambda.FindStringSubmatch(head + " …"); multiline && m != nil && strings.TrimSpace(m[2]) == "…" {
		param = m[1] // func(peer): with its body on the lines below
		for l := range strings.SplitSeq(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				body = append(body, codeLine{text: l})
			}
		}
	} else if m := reLambda.FindStringSubmatch(head); !multiline && m != nil {
		param, body = m[1], []codeLine{{text: m[2]}}
	} else if f := s.funcs[callee(v)]; f != nil && len(f.params) == 1 {
		param, body = f.params[0], f.body
	} else {
		return filter{}, false
	}
	if len(body) != 1 {
		return filter{}, false
	}
	expr, ok := strings.CutPrefix(body[0].text, "return ")
	if !ok {
		return filter{}, false
	}
	expr = strings.TrimSpace(expr)
	if expr == "true" {
		return filter{}, true
	}
	a, b, ok := strings.Cut(expr, "==")
	if !ok || !ownerOK {
		return filter{}, false
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == param && isOwnerExpr(b) || b == param && isOwnerExpr(a) {
		return filter{owner: true}, true
	}
	return filter{}, false
}

// spawnFnOf reads a spawn function: a method of the script that instantiates one scene
// (preload/load of a .tscn, directly or through a constant), or that builds plain nodes.
func (p *Project) spawnFnOf(s *Script, v, where string) spawnFn {
	name := callee(v)
	f := s.funcs[name]
	if f == nil {
		return spawnFn{where: where, unread: fmt.Sprintf("spawn_function = %s: the loader reads a method of the script, not a lambda or another object's method", oneLine(v))}
	}
	fwhere := fmt.Sprintf("%s:%d", s.file(), f.line)
	scenes := map[string]bool{}
	instantiates, builds := 0, false
	for _, l := range f.body {
		for _, m := range reLoadScene.FindAllStringSubmatch(l.text, -1) {
			scenes[p.resolve(m[1])] = true
		}
		instantiates += strings.Count(l.text, ".instantiate(")
		for name, res := range s.sceneConsts {
			if strings.Contains(l.text, name+".instantiate(") && strings.HasSuffix(res, ".tscn") {
				scenes[p.resolve(res)] = true
			}
		}
		if strings.Contains(l.text, "MultiplayerSynchronizer.new(") || strings.Contains(l.text, "MultiplayerSpawner.new(") ||
			strings.Contains(l.text, "set_script(") || strings.Contains(l.text, ".rpc_config(") {
			builds = true
		}
	}
	switch {
	case builds:
		return spawnFn{where: fwhere, unread: fmt.Sprintf("spawn function %s builds multiplayer nodes or scripts in code", name)}
	case len(scenes) == 1 && instantiates > 0:
		for res := range scenes {
			return spawnFn{res: res, where: fwhere}
		}
	case len(scenes) == 0 && instantiates == 0:
		return spawnFn{where: fwhere} // plain nodes made with .new(): nothing to replicate
	}
	if len(scenes) > 1 {
		list := keys(scenes)
		slices.Sort(list)
		return spawnFn{where: fwhere, scenes: list, unread: fmt.Sprintf("spawn function %s returns one of %s by its argument; pass the one each Spawn's argument picks as SpawnOptions.Custom (Gap.Scenes)", name, strings.Join(list, ", "))}
	}
	return spawnFn{where: fwhere, unread: fmt.Sprintf("spawn function %s: the loader cannot tell which scene it returns (%d instantiate calls, scenes %v)", name, instantiates, keys(scenes))}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// authority returns the last of the scene code's authority effects on the synchronizer at
// path, or nil.
func (c *sceneCode) authority(path string) *authEffect {
	var last *authEffect
	for i, e := range c.auth {
		if path == e.target || e.recursive && (e.target == "." || strings.HasPrefix(path, e.target+"/")) {
			last = &c.auth[i]
		}
	}
	return last
}

// visibility applies the scene's code and the synchronizer's properties to cfg: its filter
// and update mode. It returns what it could not read.
func (c *sceneCode) visibility(n *SceneNode, path string, cfg *multiplayer.SyncConfig) []string {
	public := n.Props["public_visibility"] != "false"
	if v, ok := n.Props["visibility_update_mode"]; ok {
		if m, ok := updateMode(v); ok {
			cfg.VisibilityUpdate = m
		}
	}
	v := c.vis[path]
	var filters []filter
	ownerVisible := false
	var unread []string
	if v != nil {
		if v.public != nil {
			public = *v.public
		}
		if v.update != nil {
			cfg.VisibilityUpdate = *v.update
		}
		filters, ownerVisible, unread = v.filters, v.ownerVisible, v.unread
	}
	ownerOnly := false
	for _, f := range filters {
		ownerOnly = ownerOnly || f.owner
	}
	switch {
	case public && !ownerOnly:
		cfg.Visible = nil
	case !public && !ownerVisible:
		cfg.Visible = func(int32, *multiplayer.Entity) bool { return false }
	default: // visible to the owner only: a filter, or not public but visible for the owner
		cfg.Visible = func(peer int32, e *multiplayer.Entity) bool { return e != nil && peer == e.Owner() }
	}
	return unread
}
