// Package project learns a Godot 4 game's multiplayer surface from its project folder, so that
// a Go server (package godot/multiplayer) mirrors the client without hand-written declarations:
// it parses the .tscn scenes (node paths, scripts, MultiplayerSpawner scene lists and spawn
// paths, nested spawners, spawn limits, MultiplayerSynchronizer replication configs, intervals and
// visibility) and the .gd scripts (@rpc methods with their modes, inheritance, rpc_config()
// calls, spawn functions, authorities and visibility filters set in code).
//
// Load reads a project; Project.Instance lays a scene out at its place under /root and returns
// the Declarations: nodes with their RPC tables (checksums as the engine computes them),
// spawners with their scenes' synchronizers, and synchronizers outside spawned scenes.
// Declarations.Handle attaches Go handlers; Declarations.Apply puts everything on a Server.
//
// What the loader does not understand (a malformed scene, an @rpc it cannot read) is an error
// naming the file and line. What scripts set in code (spawn functions, authority, visibility
// filters) is read in its common forms; the rest is a Gap naming the file and line, which the
// program supplies from Go before Apply.
package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

// Project is a loaded Godot 4 project.
type Project struct {
	// Dir is the project's folder (where project.godot is).
	Dir string
	// MainScene is run/main_scene from project.godot (a res:// path), if set.
	MainScene string
	// Scenes and Scripts are keyed by resource path ("res://world.tscn").
	Scenes  map[string]*Scene
	Scripts map[string]*Script

	uids    map[string]string // uid:// → res://
	classes map[string]string // class_name → res://
}

// Scene is a parsed .tscn file: its nodes in file order, the root first.
type Scene struct {
	Path  string
	Nodes []*SceneNode
}

// SceneNode is one node of a scene.
type SceneNode struct {
	// Name is the node's name, Path its path relative to the scene's root ("." for the root).
	Name, Path string
	// Type is the node's class (empty for an instanced scene or an override).
	Type string
	// Script is the res:// path of its script, if any; Instance the res:// path of the scene
	// it instances, if any.
	Script, Instance string
	// Props are the node's properties as written in the file.
	Props map[string]string
	// Line is where the node's section starts.
	Line int

	file   string
	config []multiplayer.Property // a synchronizer's replication config
}

// Load reads every .tscn and .gd file under dir (skipping .godot and hidden folders).
func Load(dir string) (*Project, error) {
	p := &Project{Dir: dir, Scenes: map[string]*Scene{}, Scripts: map[string]*Script{},
		uids: map[string]string{}, classes: map[string]string{}}
	if b, err := os.ReadFile(filepath.Join(dir, "project.godot")); err == nil {
		secs, err := parseSections(filepath.Join(dir, "project.godot"), b)
		if err != nil {
			return nil, err
		}
		for _, s := range secs {
			if s.kind == "application" {
				p.MainScene = unquote(s.props["run/main_scene"])
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if file != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, file)
		if err != nil {
			return err
		}
		res := "res://" + filepath.ToSlash(rel)
		switch path.Ext(d.Name()) {
		case ".tscn":
			b, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			return p.parseScene(res, file, b)
		case ".gd":
			b, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			s, err := ParseScript(file, b)
			if err != nil {
				return err
			}
			s.Path = res
			p.Scripts[res] = s
			if s.ClassName != "" {
				p.classes[s.ClassName] = res
			}
		case ".uid":
			b, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			p.uids[strings.TrimSpace(string(b))] = strings.TrimSuffix(res, ".uid")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Scene references written as uid:// resolve now that every file is read.
	for _, sc := range p.Scenes {
		for _, n := range sc.Nodes {
			n.Script, n.Instance = p.resolve(n.Script), p.resolve(n.Instance)
		}
	}
	if p.MainScene != "" {
		p.MainScene = p.resolve(p.MainScene)
	}
	return p, nil
}

func (p *Project) resolve(ref string) string {
	if r, ok := p.uids[ref]; ok {
		return r
	}
	return ref
}

func (p *Project) parseScene(res, file string, b []byte) error {
	secs, err := parseSections(file, b)
	if err != nil {
		return err
	}
	if len(secs) == 0 || secs[0].kind != "gd_scene" {
		return errAt(file, 1, "not a Godot scene (no [gd_scene] heading)")
	}
	if uid := unquote(secs[0].attrs["uid"]); uid != "" {
		p.uids[uid] = res
	}
	ext := map[string]string{} // ext_resource id → path (uid:// when the path is missing)
	sc := &Scene{Path: res}
	for _, s := range secs[1:] {
		switch s.kind {
		case "ext_resource":
			path := unquote(s.attrs["path"])
			if uid := unquote(s.attrs["uid"]); uid != "" {
				if path != "" {
					p.uids[uid] = path
				} else {
					path = uid
				}
			}
			ext[unquote(s.attrs["id"])] = path
		case "node":
			name := unquote(s.attrs["name"])
			if name == "" {
				return errAt(file, s.line, "a node without a name")
			}
			n := &SceneNode{Name: name, Type: unquote(s.attrs["type"]), Props: s.props, Line: s.line, file: file}
			parent, hasParent := s.attrs["parent"]
			switch {
			case !hasParent:
				if len(sc.Nodes) > 0 {
					return errAt(file, s.line, "a second root node %q", name)
				}
				n.Path = "."
			case unquote(parent) == ".":
				n.Path = name
			default:
				n.Path = unquote(parent) + "/" + name
			}
			if inst, ok := s.attrs["instance"]; ok {
				id, err := extID(inst)
				if err != nil {
					return wrapAt(file, s.line, "instance: %w", err)
				}
				n.Instance = ext[id]
			}
			if v, ok := s.props["script"]; ok {
				id, err := extID(v)
				if err != nil {
					return wrapAt(file, s.line, "script: %w", err)
				}
				n.Script = ext[id]
			}
			sc.Nodes = append(sc.Nodes, n)
		}
	}
	// Sub-resources are looked up by the nodes that use them (replication configs).
	subs := map[string]*section{}
	for _, s := range secs {
		if s.kind == "sub_resource" {
			subs[unquote(s.attrs["id"])] = s
		}
	}
	for _, n := range sc.Nodes {
		if v, ok := n.Props["replication_config"]; ok {
			name, args, ok := call(v)
			if !ok || name != "SubResource" || len(args) != 1 || subs[args[0]] == nil {
				return errAt(file, n.Line, "replication_config %s is not a SubResource of this scene", v)
			}
			n.Props["replication_config"] = "" // replaced by the parsed config below
			cfg, err := replicationConfig(file, subs[args[0]])
			if err != nil {
				return err
			}
			n.config = cfg
		}
	}
	if len(sc.Nodes) == 0 {
		return &SourceError{File: file, Err: kindf(ErrSyntax, "a scene without nodes")}
	}
	p.Scenes[res] = sc
	return nil
}

func extID(v string) (string, error) {
	name, args, ok := call(v)
	if !ok || name != "ExtResource" || len(args) != 1 {
		return "", kindf(ErrSyntax, "%s is not ExtResource(\"id\")", v)
	}
	return args[0], nil
}

// replicationConfig reads a SceneReplicationConfig: properties/N/path, /spawn,
// /replication_mode (and the deprecated /sync and /watch).
func replicationConfig(file string, s *section) ([]multiplayer.Property, error) {
	var props []multiplayer.Property
	for _, key := range s.order {
		rest, ok := strings.CutPrefix(key, "properties/")
		if !ok {
			continue
		}
		idxs, what, ok := strings.Cut(rest, "/")
		idx, err := strconv.Atoi(idxs)
		if !ok || err != nil || idx < 0 || idx > len(props) {
			return nil, errAt(file, s.line, "replication config key %q out of order", key)
		}
		v := s.props[key]
		if what == "path" {
			if idx != len(props) {
				return nil, errAt(file, s.line, "property %d listed twice", idx)
			}
			name, args, ok := call(v)
			if !ok || name != "NodePath" || len(args) != 1 || !strings.Contains(args[0], ":") {
				return nil, errAt(file, s.line, "%s = %s: want NodePath(\"node:property\")", key, v)
			}
			props = append(props, multiplayer.Property{Path: args[0], Spawn: true, Mode: multiplayer.ReplicateAlways})
			continue
		}
		if idx >= len(props) {
			return nil, errAt(file, s.line, "%s before its path", key)
		}
		pr := &props[idx]
		switch what {
		case "spawn":
			pr.Spawn = v == "true"
		case "replication_mode":
			m, err := strconv.Atoi(v)
			if err != nil || m < 0 || m > 2 {
				return nil, errAt(file, s.line, "%s = %s: want 0, 1 or 2", key, v)
			}
			pr.Mode = multiplayer.ReplicationMode(m)
		case "sync":
			if v == "true" {
				pr.Mode = multiplayer.ReplicateAlways
			} else if pr.Mode == multiplayer.ReplicateAlways {
				pr.Mode = multiplayer.ReplicateNever
			}
		case "watch":
			if v == "true" {
				pr.Mode = multiplayer.ReplicateOnChange
			} else if pr.Mode == multiplayer.ReplicateOnChange {
				pr.Mode = multiplayer.ReplicateNever
			}
		default:
			return nil, errAt(file, s.line, "replication config key %q not understood", key)
		}
	}
	return props, nil
}

// ---------------------------------------------------------------------------------------------
// scripts

// RPCs returns the RPC table entries of the script at res (with the inherited ones), sorted
// into the engine's table order by multiplayer.NewNode.
func (p *Project) RPCs(res string) ([]multiplayer.RPC, error) {
	var out []multiplayer.RPC
	seen := map[string]bool{}
	for depth := 0; res != ""; depth++ {
		if depth > 64 {
			return nil, kindf(ErrSyntax, "%s: the extends chain is too long (a cycle?)", res)
		}
		s := p.Scripts[res]
		if s == nil {
			if !strings.HasSuffix(res, ".gd") {
				return nil, kindf(ErrUnsupported, "script %s: only GDScript (.gd) is read", res)
			}
			return nil, kindf(ErrMissing, "script %s is not in the project", res)
		}
		for _, r := range s.RPCs {
			if !seen[r.Name] { // an override keeps the subclass's annotation
				seen[r.Name] = true
				out = append(out, r)
			}
		}
		res = p.base(s)
	}
	return out, nil
}

// base returns the res:// path of a script's base script, or "" for an engine class.
func (p *Project) base(s *Script) string {
	switch {
	case s.Extends == "":
		return ""
	case strings.HasPrefix(s.Extends, "res://"):
		return s.Extends
	}
	return p.classes[s.Extends]
}

// ---------------------------------------------------------------------------------------------
// declarations

// Declarations are what a Go server needs to mirror a scene: its nodes with RPCs, its spawners
// and its synchronizers outside spawned scenes. They are plain values: change them before
// Apply where the project does not say everything (handlers, and the Gaps).
type Declarations struct {
	// RPCs maps each node path (relative to /root) that has RPCs to its methods.
	RPCs map[string][]multiplayer.RPC
	// Spawners are the MultiplayerSpawners, with their scenes laid out.
	Spawners []*multiplayer.Spawner
	// Synchronizers are the MultiplayerSynchronizers not in a spawnable scene (path based).
	Synchronizers []*multiplayer.SyncConfig
	// Where maps every node path (relative to /root) to its file and line, for messages.
	Where map[string]string
	// Gaps are what the scripts set in code that the loader could not read (a spawn function,
	// an authority, a visibility filter), each naming its file and line and the spawner or
	// synchronizer it concerns. Apply refuses to run while there are any: supply each from Go
	// and remove it.
	Gaps []Gap
}

// layout is one Instance at work: the spawnable scenes laid out (each once: a scene may spawn
// itself further down) and the gaps found.
type layout struct {
	p       *Project
	scenes  map[string]*multiplayer.Scene
	gaps    []Gap
	roots   map[*multiplayer.SyncConfig]string // each synchronizer's root node, in its scene
	pending []pendingAuth                      // authorities from a property, for the scene to resolve
}

// pendingAuth is a synchronizer whose authority a script sets from a property of a node.
type pendingAuth struct {
	cfg    *multiplayer.SyncConfig
	effect *authEffect
}

// resolveAuth gives the pending synchronizers of the spawnable scene sc the owner's authority
// when a synchronizer of the server, earlier in the tree (so that the spawn state sets the
// property before they enter it), sends the property in the spawn state; that property is then
// OwnerID. The others are gaps.
func (l *layout) resolveAuth(sc *multiplayer.Scene, pending []pendingAuth) {
	for _, pa := range pending {
		e := pa.effect
		found := false
		for _, c := range sc.Synchronizers {
			if c == pa.cfg {
				break
			}
			if c.Authority != multiplayer.AuthorityServer {
				continue
			}
			for i, pr := range c.Properties {
				nodePart, name, _ := strings.Cut(pr.Path, ":")
				target := relPath(l.roots[c], nodePart)
				if target == "" {
					target = "."
				}
				if pr.Spawn && name == e.prop && target == e.propNode {
					c.Properties[i].OwnerID = true
					found = true
				}
			}
		}
		if found {
			pa.cfg.Authority = multiplayer.AuthorityOwner
			continue
		}
		l.gaps = append(l.gaps, Gap{Where: e.where, Scene: sc.Path, Sync: pa.cfg,
			What: fmt.Sprintf("set_multiplayer_authority from %s, which no synchronizer of the server before %s sends in the spawn state; set SyncConfig.Authority of %s", e.prop, pa.cfg.Path, pa.cfg.Path)})
	}
}

// Instance lays the scene res out as the clients' tree has it, with its root node at path at
// under /root ("World" for a main scene whose root is World; "" means the root node's name).
func (p *Project) Instance(res, at string) (*Declarations, error) {
	sc := p.Scenes[res]
	if sc == nil {
		return nil, kindf(ErrMissing, "project: scene %s is not in the project", res)
	}
	if at == "" {
		at = sc.Nodes[0].Name
	}
	d := &Declarations{RPCs: map[string][]multiplayer.RPC{}, Where: map[string]string{}}
	nodes, err := p.flatten(res, 0)
	if err != nil {
		return nil, err
	}
	l := &layout{p: p, scenes: map[string]*multiplayer.Scene{}, roots: map[*multiplayer.SyncConfig]string{}}
	code := p.codeOf(nodes, false)
	l.gaps = append(l.gaps, code.gaps...)
	for _, n := range nodes {
		full := join(at, n.Path)
		d.Where[full] = fmt.Sprintf("%s:%d", n.file, n.Line)
		if n.Script != "" {
			rpcs, err := p.RPCs(n.Script)
			if err != nil {
				return nil, wrapAt(n.file, n.Line, "node %s: %w", n.Path, err)
			}
			if len(rpcs) > 0 {
				d.RPCs[full] = rpcs
			}
		}
		switch n.Type {
		case "MultiplayerSpawner":
			spawnPath, err := nodePathProp(n, "spawn_path", "")
			if err != nil {
				return nil, err
			}
			sp, err := l.spawner(n, full, relPath(full, spawnPath), code, "")
			if err != nil {
				return nil, err
			}
			d.Spawners = append(d.Spawners, sp)
		case "MultiplayerSynchronizer":
			cfg, err := l.syncConfig(n, full, nodes, code, "")
			if err != nil {
				return nil, err
			}
			d.Synchronizers = append(d.Synchronizers, cfg)
		}
	}
	d.Gaps = l.gaps
	return d, nil
}

// flatten returns the scene's nodes with instanced scenes expanded (paths relative to res's
// root), later sections overriding earlier ones.
func (p *Project) flatten(res string, depth int) ([]*SceneNode, error) {
	if depth > 32 {
		return nil, kindf(ErrSyntax, "project: scene %s: instances nest too deep (a cycle?)", res)
	}
	sc := p.Scenes[res]
	if sc == nil {
		return nil, kindf(ErrMissing, "project: scene %s is not in the project", res)
	}
	var out []*SceneNode
	byPath := map[string]*SceneNode{}
	for _, n := range sc.Nodes {
		if old := byPath[n.Path]; old != nil && n.Instance == "" {
			merge(old, n) // an override of an instanced scene's node
			continue
		}
		c := *n
		out = append(out, &c)
		byPath[c.Path] = &c
		if n.Instance == "" {
			continue
		}
		inner, err := p.flatten(n.Instance, depth+1)
		if err != nil {
			return nil, wrapAt(n.file, n.Line, "%w", err)
		}
		for _, in := range inner {
			if in.Path == "." {
				merged := *in
				merged.Name, merged.Path, merged.Line, merged.file = c.Name, c.Path, c.Line, c.file
				merge(&merged, &c)
				*out[len(out)-1] = merged
				byPath[c.Path] = out[len(out)-1]
				continue
			}
			ic := *in
			ic.Path = join(c.Path, in.Path)
			out = append(out, &ic)
			byPath[ic.Path] = &ic
		}
	}
	return out, nil
}

// merge applies the override o to n: its script, type and properties.
func merge(n, o *SceneNode) {
	if o.Script != "" {
		n.Script = o.Script
	}
	if o.Type != "" {
		n.Type = o.Type
	}
	props := map[string]string{}
	for k, v := range n.Props {
		props[k] = v
	}
	for k, v := range o.Props {
		props[k] = v
	}
	n.Props = props
	if o.config != nil {
		n.config = o.config
	}
}

func join(a, b string) string {
	switch {
	case b == "" || b == ".":
		return a
	case a == "" || a == ".":
		return b
	}
	return a + "/" + b
}

// relPath resolves a NodePath written on the node at from (both relative to /root).
func relPath(from, rel string) string {
	if abs, ok := strings.CutPrefix(rel, "/root/"); ok {
		return relPath("", abs)
	}
	var parts []string
	if from != "" && from != "." {
		parts = strings.Split(from, "/")
	}
	for seg := range strings.SplitSeq(rel, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, seg)
		}
	}
	return strings.Join(parts, "/")
}

// relPathIn resolves rel written on the node at from, both relative to a scene's root; inside
// is false if the path leaves the scene.
func relPathIn(from, rel string) (path string, inside bool) {
	if strings.HasPrefix(rel, "/") {
		return "", false
	}
	parts := strings.Split(join(from, rel), "/")
	depth := 0
	for _, seg := range parts {
		switch seg {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", false
			}
		default:
			depth++
		}
	}
	return relPath(from, rel), true
}

func nodePathProp(n *SceneNode, key, def string) (string, error) {
	v, ok := n.Props[key]
	if !ok {
		return def, nil
	}
	name, args, ok := call(v)
	if !ok || name != "NodePath" || len(args) != 1 {
		return "", errAt(n.file, n.Line, "%s = %s: want NodePath(\"…\")", key, v)
	}
	return args[0], nil
}

// spawner reads the MultiplayerSpawner n declared at path full whose spawn_path resolves to
// spawnPath, with the spawn function its scene's code gives it (scene: the spawnable scene it
// is in, "" for the instanced one).
func (l *layout) spawner(n *SceneNode, full, spawnPath string, code *sceneCode, scene string) (*multiplayer.Spawner, error) {
	if v, _ := nodePathProp(n, "spawn_path", ""); v == "" {
		return nil, errAt(n.file, n.Line, "spawner %s has no spawn_path", n.Path)
	}
	sp := &multiplayer.Spawner{Path: full, SpawnPath: spawnPath}
	if v, ok := n.Props["spawn_limit"]; ok {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 {
			return nil, errAt(n.file, n.Line, "spawn_limit = %s: want a count", v)
		}
		sp.SpawnLimit = k
	}
	if v, ok := n.Props["_spawnable_scenes"]; ok {
		name, args, ok := call(v)
		if !ok || name != "PackedStringArray" {
			return nil, errAt(n.file, n.Line, "_spawnable_scenes = %s: want PackedStringArray(…)", v)
		}
		for _, a := range args {
			res := l.p.resolve(a)
			sc, err := l.spawnable(res)
			if err != nil {
				return nil, wrapAt(n.file, n.Line, "spawner %s: %w", n.Path, err)
			}
			sp.Scenes = append(sp.Scenes, sc)
		}
	}
	if fn, ok := code.spawnFns[n.Path]; ok {
		switch {
		case fn.unread != "" && len(fn.scenes) > 0:
			g := Gap{Where: fn.where, What: fn.unread + " for " + full, Scene: scene, Spawner: sp}
			for _, res := range fn.scenes {
				sc, err := l.spawnable(res)
				if err != nil {
					return nil, fmt.Errorf("%s: spawn function of %s: %w", fn.where, n.Path, err)
				}
				g.Scenes = append(g.Scenes, sc)
			}
			l.gaps = append(l.gaps, g)
		case fn.unread != "":
			l.gaps = append(l.gaps, Gap{Where: fn.where, What: fn.unread + "; set Spawner.Custom of " + full, Scene: scene, Spawner: sp})
		case fn.res == "":
			sp.Custom = &multiplayer.Scene{} // plain nodes: nothing to replicate, no RPCs
		default:
			sc, err := l.spawnable(fn.res)
			if err != nil {
				return nil, fmt.Errorf("%s: spawn function of %s: %w", fn.where, n.Path, err)
			}
			sp.Custom = sc
		}
	}
	return sp, nil
}

// spawnable lays out a spawnable scene: its nodes with RPCs, its synchronizers and its nested
// spawners, relative to its root, with the authority, visibility and spawn functions its
// scripts give them.
func (l *layout) spawnable(res string) (*multiplayer.Scene, error) {
	if sc := l.scenes[res]; sc != nil {
		return sc, nil
	}
	p := l.p
	nodes, err := p.flatten(res, 0)
	if err != nil {
		return nil, err
	}
	sc := &multiplayer.Scene{Path: res}
	l.scenes[res] = sc
	outer := l.pending
	l.pending = nil
	defer func() { l.pending = outer }()
	code := p.codeOf(nodes, true)
	for _, g := range code.gaps {
		g.Scene = res
		l.gaps = append(l.gaps, g)
	}
	for _, n := range nodes {
		if n.Script != "" {
			rpcs, err := p.RPCs(n.Script)
			if err != nil {
				return nil, wrapAt(n.file, n.Line, "node %s: %w", n.Path, err)
			}
			if len(rpcs) > 0 {
				node, err := multiplayer.NewNode(n.Path, rpcs...)
				if err != nil {
					return nil, wrapAt(n.file, n.Line, "%w", err)
				}
				sc.Nodes = append(sc.Nodes, node)
			}
		}
		switch n.Type {
		case "MultiplayerSynchronizer":
			cfg, err := l.syncConfig(n, n.Path, nodes, code, res)
			if err != nil {
				return nil, err
			}
			sc.Synchronizers = append(sc.Synchronizers, cfg)
		case "MultiplayerSpawner":
			rel, err := nodePathProp(n, "spawn_path", "")
			if err != nil {
				return nil, err
			}
			spawnPath, inside := relPathIn(n.Path, rel)
			if !inside {
				return nil, errAt(n.file, n.Line, "spawner %s: spawn_path %q leaves the spawned scene %s (a nested spawner spawns under its entity)", n.Path, rel, res)
			}
			sp, err := l.spawner(n, n.Path, spawnPath, code, res)
			if err != nil {
				return nil, err
			}
			sc.Spawners = append(sc.Spawners, sp)
		}
	}
	l.resolveAuth(sc, l.pending)
	return sc, nil
}

// syncConfig reads the synchronizer n at path (see Project.syncConfig) and applies the
// authority and visibility its scene's code gives it.
func (l *layout) syncConfig(n *SceneNode, path string, nodes []*SceneNode, code *sceneCode, scene string) (*multiplayer.SyncConfig, error) {
	cfg, err := l.p.syncConfig(n, path, nodes)
	if err != nil {
		return nil, err
	}
	rootRel, err := nodePathProp(n, "root_path", "..")
	if err != nil {
		return nil, err
	}
	l.roots[cfg] = relPath(n.Path, rootRel)
	switch e := code.authority(n.Path); {
	case e == nil:
	case e.unread != "":
		l.gaps = append(l.gaps, Gap{Where: e.where, What: e.unread + "; set SyncConfig.Authority of " + path, Scene: scene, Sync: cfg})
	case e.prop != "":
		l.pending = append(l.pending, pendingAuth{cfg: cfg, effect: e})
	case e.owner && scene == "":
		l.gaps = append(l.gaps, Gap{Where: e.where, What: "the authority of " + path + " is set to a peer a node is named by, outside a spawned scene; set SyncConfig.Authority", Sync: cfg})
	case e.owner:
		cfg.Authority = multiplayer.AuthorityOwner
	default:
		cfg.Authority = e.peer
	}
	for _, u := range code.visibility(n, n.Path, cfg) {
		where, what, _ := strings.Cut(u, ": ")
		l.gaps = append(l.gaps, Gap{Where: where, What: what + "; set SyncConfig.Visible of " + path, Scene: scene, Sync: cfg})
	}
	return cfg, nil
}

// syncConfig reads the synchronizer n (one of nodes, whose paths share a base) as declared at
// path, with each property's default: the value its node has in the scene, else its script's
// initial value, else the engine's default for common properties.
func (p *Project) syncConfig(n *SceneNode, path string, nodes []*SceneNode) (*multiplayer.SyncConfig, error) {
	cfg := &multiplayer.SyncConfig{Path: path, Properties: slices.Clone(n.config)}
	rootRel, err := nodePathProp(n, "root_path", "..")
	if err != nil {
		return nil, err
	}
	root := relPath(n.Path, rootRel)
	for i := range cfg.Properties {
		pr := &cfg.Properties[i]
		nodePart, prop, _ := strings.Cut(pr.Path, ":")
		if strings.Contains(prop, ":") {
			continue // a sub-property: no default known
		}
		target := relPath(root, nodePart)
		if target == "" {
			target = "."
		}
		for _, t := range nodes {
			if t.Path == target {
				pr.Default = p.defaultOf(t, prop)
				break
			}
		}
	}
	for _, k := range []struct {
		key string
		dst *time.Duration
	}{{"replication_interval", &cfg.Interval}, {"delta_interval", &cfg.DeltaInterval}} {
		if v, ok := n.Props[k.key]; ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return nil, errAt(n.file, n.Line, "%s = %s: want seconds", k.key, v)
			}
			*k.dst = time.Duration(f * float64(time.Second))
		}
	}
	return cfg, nil
}

// defaultOf returns the value property prop of node n starts with, or nil if unknown.
func (p *Project) defaultOf(n *SceneNode, prop string) any {
	if v, ok := n.Props[prop]; ok {
		if x, ok := parseValue(v); ok {
			return x
		}
		return nil
	}
	for res, depth := n.Script, 0; res != "" && depth < 64; depth++ {
		s := p.Scripts[res]
		if s == nil {
			break
		}
		if v, ok := s.vars[prop]; ok {
			return v
		}
		res = p.base(s)
	}
	if strings.Contains(n.Type, "3D") {
		if v, ok := builtins3D[prop]; ok {
			return v
		}
	}
	return builtinDefaults[prop]
}

// Handle attaches a Go handler (see multiplayer.RPC) to the method of the node at path.
func (d *Declarations) Handle(path, method string, handler any) error {
	rpcs := d.RPCs[path]
	for i := range rpcs {
		if rpcs[i].Name == method {
			rpcs[i].Handler = handler
			return nil
		}
	}
	return kindf(ErrMissing, "project: node %s has no RPC %s", path, method)
}

// Nodes builds the nodes with RPCs, sorted by path.
func (d *Declarations) Nodes() ([]*multiplayer.Node, error) {
	paths := make([]string, 0, len(d.RPCs))
	for p := range d.RPCs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []*multiplayer.Node
	for _, p := range paths {
		n, err := multiplayer.NewNode(p, d.RPCs[p]...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Where[p], err)
		}
		out = append(out, n)
	}
	return out, nil
}

// Apply adds the declarations to a Server that has not started serving: the nodes to Nodes,
// the spawners to Spawners and the synchronizers outside spawned scenes to Synchronizers (the
// server sends the state of those whose authority it is, from each property's Default until
// Server.Synchronizer(path).Set changes it, as the game's server would).
func (d *Declarations) Apply(s *multiplayer.Server) error {
	if len(d.Gaps) > 0 {
		return &GapError{Gaps: d.Gaps}
	}
	nodes, err := d.Nodes()
	if err != nil {
		return err
	}
	s.Nodes = append(s.Nodes, nodes...)
	s.Spawners = append(s.Spawners, d.Spawners...)
	s.Synchronizers = append(s.Synchronizers, d.Synchronizers...)
	return nil
}
