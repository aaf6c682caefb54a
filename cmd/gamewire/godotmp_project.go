package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/multiplayer"
	"github.com/gamewire/gamewire/godot/multiplayer/project"
)

// hasProjectFlag reports whether "godot mp serve" was given --project (served by
// godotMPServeProject rather than the lobby).
func hasProjectFlag(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		return a == "--project" || a == "-project" || strings.HasPrefix(a, "--project=") || strings.HasPrefix(a, "-project=")
	})
}

// godotMPServeProject is "godot mp serve --project DIR": a server that mirrors the game in DIR
// (its nodes, RPCs, spawners and synchronizers) without Go declarations.
func godotMPServeProject(args []string, stdout, stderr io.Writer) error {
	fs := newCmdFlags("godot", "mp serve", "--project DIR",
		"Serves the Godot 4 game in DIR as its server (peer 1) would: the clients' RPCs are accepted\n"+
			"(and relayed between clients), with every node, @rpc method, spawner and synchronizer read\n"+
			"from the project; --spawn-players spawns a player scene for every peer. Ctrl-C stops it.", stderr)
	dir := fs.String("project", "", "serve the Godot 4 project in `DIR` (its .tscn and .gd files)")
	scene := fs.String("scene", "", "the `res://` scene the clients run (default: the project's main scene)")
	at := fs.String("at", "", "the scene root's `path` under /root (default: the root node's name)")
	players := fs.String("spawn-players", "", "spawn the first scene of the spawner at `PATH` for every peer, named by its id")
	addr := fs.String("addr", "127.0.0.1:8910", "listen `address` (host:port; port 0 picks a free one)")
	trace := fs.String("trace", "", "write every packet to `FILE` as JSON Lines (for \"godot mp decode|explain\")")
	explain := fs.Bool("explain", false, "print every packet on stdout, explained with the project's names")
	origins := fs.String("origins", "*", "accepted browser Origin host `patterns`, comma-separated")
	if err := parseCmdFlags(fs, args, 0); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--project: the project folder is empty")
	}
	p, err := project.Load(*dir)
	if err != nil {
		return err
	}
	res := *scene
	if res == "" {
		res = p.MainScene
	}
	if res == "" {
		return fmt.Errorf("gamewire godot mp serve: %s has no main scene: give --scene", *dir)
	}
	d, err := p.Instance(res, *at)
	if err != nil {
		return err
	}
	// What the scripts set in code that the loader cannot read is served as the scenes say
	// (server authority, public visibility, no custom spawns) and named here.
	for _, g := range d.Gaps {
		fmt.Fprintf(stderr, "gamewire godot mp serve: not served as the game does: %s\n", g)
	}
	d.Gaps = nil
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	srv := &multiplayer.Server{Logger: logger, OriginPatterns: strings.Split(*origins, ",")}
	if err := d.Apply(srv); err != nil {
		return err
	}
	// Synchronizers outside spawned scenes (Apply adds them) send their state, the project's
	// defaults, to every peer that confirmed their path.
	var playerSpawner *multiplayer.Spawner
	if *players != "" {
		i := slices.IndexFunc(d.Spawners, func(s *multiplayer.Spawner) bool { return s.Path == *players })
		if i < 0 {
			var have []string
			for _, s := range d.Spawners {
				have = append(have, s.Path)
			}
			return fmt.Errorf("gamewire godot mp serve: no spawner %q in %s (spawners: %s)", *players, res, strings.Join(have, ", "))
		}
		playerSpawner = d.Spawners[i]
		if len(playerSpawner.Scenes) == 0 {
			if playerSpawner.Custom != nil {
				return fmt.Errorf("gamewire godot mp serve: spawner %q spawns only through its spawn function, whose argument the command cannot make up: serve the game from Go (SpawnOptions.Arg)", *players)
			}
			return fmt.Errorf("gamewire godot mp serve: spawner %q has no spawnable scene", *players)
		}
		playerSpawner.DespawnOnDisconnect = true
		srv.OnConnect = func(peer *multiplayer.Peer) {
			if _, err := srv.Spawn(playerSpawner, playerSpawner.Scenes[0].Path, fmt.Sprint(peer.ID()), &multiplayer.SpawnOptions{Owner: peer.ID()}); err != nil {
				logger.Warn("godot mp: spawn", "peer", peer.ID(), "err", err)
			}
		}
	}
	var traces []func(dir string, peer int32, pkt []byte)
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return err
		}
		defer f.Close()
		traces = append(traces, multiplayer.TraceWriter(f))
	}
	if *explain {
		traces = append(traces, newNamer(d, stdout).trace)
	}
	if len(traces) > 0 {
		srv.Trace = func(dir string, peer int32, pkt []byte) {
			for _, t := range traces {
				t(dir, peer, pkt)
			}
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "godot mp: serving %s (%s: %d nodes with RPCs, %d spawners, %d synchronizers) on ws://%s\n",
		*dir, res, len(d.RPCs), len(d.Spawners), len(d.Synchronizers), ln.Addr())
	return serveMP(ln.Addr(), srv.Shutdown, multiplayer.ErrServerClosed, func() error { return srv.Serve(ln) })
}

// namer explains traced packets with the project's names: node paths for path cache ids,
// method names for method ids, entity paths and property names for net ids.
type namer struct {
	mu      sync.Mutex
	w       io.Writer
	methods map[string]map[uint16]string // node path → method id → name
	scenes  map[string]*multiplayer.Spawner
	ours    map[uint32]string                 // our cache id → path
	theirs  map[int32]map[uint32]string       // a peer's cache id → path
	nets    map[uint32]netName                // our net ids
	props   map[string][]multiplayer.Property // a spawned synchronizer's path → its config
}

type netName struct {
	path  string
	props []multiplayer.Property // a synchronizer's config
}

func newNamer(d *project.Declarations, w io.Writer) *namer {
	n := &namer{w: w, methods: map[string]map[uint16]string{}, scenes: map[string]*multiplayer.Spawner{},
		ours: map[uint32]string{}, theirs: map[int32]map[uint32]string{}, nets: map[uint32]netName{},
		props: map[string][]multiplayer.Property{}}
	if nodes, err := d.Nodes(); err == nil {
		for _, nd := range nodes {
			n.addMethods(nd.Path(), nd)
		}
	}
	for _, sp := range d.Spawners {
		n.scenes[sp.Path] = sp
	}
	for _, c := range d.Synchronizers {
		n.props[c.Path] = c.Properties
	}
	return n
}

func (n *namer) addMethods(path string, nd *multiplayer.Node) {
	ids := map[uint16]string{}
	for _, m := range nd.Methods() {
		id, _ := nd.MethodID(m)
		ids[id] = m
	}
	n.methods[path] = ids
}

func (n *namer) trace(dir string, peer int32, pkt []byte) {
	if dir == "id" {
		fmt.Fprintf(n.w, "%-3s %d peer id %d\n", dir, peer, int32(binary.LittleEndian.Uint32(pkt)))
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.w, "%-3s %d %s\n", dir, peer, n.describe(dir, peer, pkt))
}

func (n *namer) cache(dir string, peer int32) map[uint32]string {
	if dir == "out" {
		return n.ours
	}
	m := n.theirs[peer]
	if m == nil {
		m = map[uint32]string{}
		n.theirs[peer] = m
	}
	return m
}

func (n *namer) describe(dir string, peer int32, pkt []byte) string {
	info, err := multiplayer.Decode(pkt)
	if err != nil {
		return "malformed: " + err.Error()
	}
	switch info.Command {
	case "SIMPLIFY_PATH":
		n.cache(dir, peer)[*info.CacheID] = info.Path
		return fmt.Sprintf("SIMPLIFY_PATH %s = cache id %d", info.Path, *info.CacheID)
	case "CONFIRM_PATH":
		// A confirmation names the other side's id.
		other := "out"
		if dir == "out" {
			other = "in"
		}
		return fmt.Sprintf("CONFIRM_PATH %s valid=%t", n.cache(other, peer)[*info.CacheID], *info.Valid)
	case "REMOTE_CALL":
		path := info.Path
		if info.NodeID != nil {
			path = n.cache(dir, peer)[*info.NodeID]
		}
		method := fmt.Sprintf("method %d", *info.MethodID)
		if m, ok := n.methods[path][*info.MethodID]; ok {
			method = m
		}
		return fmt.Sprintf("REMOTE_CALL %s.%s(%s)", path, method, values(info.Args))
	case "SPAWN":
		spPath := n.cache(dir, peer)[*info.CacheID]
		text := fmt.Sprintf("SPAWN by %s: %q net id %d", spPath, info.Name, *info.NetID)
		var sc *multiplayer.Scene
		sp := n.scenes[spPath]
		switch {
		case sp == nil:
		case int(*info.SceneID) < len(sp.Scenes):
			sc = sp.Scenes[*info.SceneID]
		case *info.SceneID == multiplayer.CustomScene:
			sc = sp.Custom
		}
		if sc != nil {
			ent := sp.SpawnPath + "/" + info.Name
			if *info.SceneID == multiplayer.CustomScene {
				text += " custom (spawn_function)"
				if sc.Path != "" {
					text += " " + sc.Path
				}
			} else {
				text += " scene " + sc.Path
			}
			n.nets[*info.NetID] = netName{path: ent}
			for _, t := range sc.Spawners { // its nested spawners, at the entity
				n.scenes[ent+"/"+t.Path] = &multiplayer.Spawner{Path: ent + "/" + t.Path, SpawnPath: ent + "/" + t.SpawnPath, Scenes: t.Scenes, Custom: t.Custom}
			}
			for _, nd := range sc.Nodes {
				path := ent
				if nd.Path() != "." {
					path += "/" + nd.Path()
				}
				n.addMethods(path, nd)
			}
			k := 0
			var state []string
			vi := 0
			for _, c := range sc.Synchronizers {
				n.props[ent+"/"+c.Path] = c.Properties
				if c.Authority != multiplayer.AuthorityServer {
					continue
				}
				if k < len(info.SyncIDs) {
					n.nets[info.SyncIDs[k]] = netName{path: ent + "/" + c.Path, props: c.Properties}
					k++
				}
				for _, p := range c.Properties {
					if p.Spawn && vi < len(info.State) {
						state = append(state, p.Name()+"="+values(info.State[vi:vi+1]))
						vi++
					}
				}
			}
			text += " state " + strings.Join(state, " ")
		}
		return text
	case "DESPAWN":
		return fmt.Sprintf("DESPAWN %s (net id %d)", n.nets[*info.NetID].path, *info.NetID)
	case "SYNC":
		var parts []string
		for _, e := range info.Entries {
			name := n.nets[e.NetID]
			if e.NetID&0x80000000 != 0 {
				name.path = n.cache(dir, peer)[e.NetID&^0x80000000]
				name.props = n.props[name.path]
			}
			var names []string // the properties the entry carries, in order
			w := 0
			for _, p := range name.props {
				switch {
				case e.Mask == nil && p.Mode == multiplayer.ReplicateAlways:
					names = append(names, p.Name())
				case e.Mask != nil && p.Mode == multiplayer.ReplicateOnChange:
					if *e.Mask&(1<<w) != 0 {
						names = append(names, p.Name())
					}
					w++
				}
			}
			var props []string
			for i, v := range e.Values {
				if i < len(names) {
					props = append(props, names[i]+"="+values(multiplayer.Values{v}))
				}
			}
			if len(props) == 0 {
				props = []string{values(e.Values)}
			}
			parts = append(parts, name.path+" "+strings.Join(props, " "))
		}
		kind := "delta SYNC"
		if info.SyncTime != nil {
			kind = fmt.Sprintf("SYNC t=%d", *info.SyncTime)
		}
		return kind + " " + strings.Join(parts, "; ")
	case "SYS":
		if info.Inner != nil {
			return fmt.Sprintf("SYS %s %d: %s", info.Sys, *info.Peer, info.Inner.Command)
		}
		if info.Peer != nil {
			return fmt.Sprintf("SYS %s %d", info.Sys, *info.Peer)
		}
		return "SYS " + info.Sys
	}
	return info.Command
}

// values writes decoded Variants as GDScript's var_to_str does, comma-separated.
func values(vs multiplayer.Values) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = godot.VarToStr(v)
	}
	return strings.Join(parts, ", ")
}
