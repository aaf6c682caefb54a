package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gamewire/gamewire/godot/multiplayer"
)

func addGameSeeds(f *testing.F, ext string) {
	for _, dir := range testGames {
		files, _ := filepath.Glob(filepath.Join(dir, "*"+ext))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
}

// FuzzParseScript: the GDScript reader never panics, and its errors name the file.
func FuzzParseScript(f *testing.F) {
	addGameSeeds(f, ".gd")
	f.Add([]byte("@rpc(\"any_peer\"\n"))
	f.Add([]byte("@rpc @rpc func f():"))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := ParseScript("fuzz.gd", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.gd:") {
				t.Fatalf("error without the file and line: %v", err)
			}
			return
		}
		for _, r := range s.RPCs {
			if r.Name == "" {
				t.Fatalf("an RPC without a name from %q", src)
			}
		}
		// What the script does in code, read for its node at a spawned scene's root: every
		// site it found is applied to a synchronizer and a spawner at its target.
		s.Path = "res://fuzz.gd"
		p := &Project{Scripts: map[string]*Script{s.Path: s}, uids: map[string]string{}, classes: map[string]string{}}
		root := &SceneNode{Name: "E", Path: ".", Script: s.Path, Props: map[string]string{}}
		for _, entity := range []bool{true, false} {
			c := p.codeOf([]*SceneNode{root}, entity)
			for _, st := range s.sites {
				target := relPath(".", st.target)
				c.authority(target)
				cfg := &multiplayer.SyncConfig{Path: target}
				c.visibility(&SceneNode{Path: target, Props: map[string]string{}}, target, cfg)
				if cfg.Visible != nil {
					cfg.Visible(2, nil)
				}
			}
		}
	})
}

// FuzzParseScene: the scene reader never panics, and its errors name the file.
func FuzzParseScene(f *testing.F) {
	addGameSeeds(f, ".tscn")
	f.Add([]byte("[gd_scene format=3]\n[node name=\"A\" type=\"Node\"]\nx = \"a\nb\"\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := &Project{Scenes: map[string]*Scene{}, Scripts: map[string]*Script{}, uids: map[string]string{}, classes: map[string]string{}}
		err := p.parseScene("res://fuzz.tscn", "fuzz.tscn", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.tscn") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if _, err := p.Instance("res://fuzz.tscn", ""); err != nil && !strings.Contains(err.Error(), "fuzz.tscn") && !strings.Contains(err.Error(), "not in the project") {
			t.Fatalf("Instance error without the file: %v", err)
		}
	})
}
