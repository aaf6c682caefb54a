package multiplayer

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"github.com/gamewire/gamewire/explain"

	"github.com/gamewire/gamewire/godot"
	"github.com/gamewire/gamewire/godot/gdjson"
)

// PacketInfo is a decoded SceneMultiplayer packet, for display: the fields that its command has
// are set. Its JSON form (encoding/json) writes Variants in gdjson's lossless form.
type PacketInfo struct {
	Command string      `json:"command"`
	Flags   byte        `json:"flags,omitempty"` // bits 3–7 of the first byte
	Sys     string      `json:"sys,omitempty"`
	Peer    *int32      `json:"peer,omitempty"`  // ADD_PEER, DEL_PEER, RELAY
	Inner   *PacketInfo `json:"inner,omitempty"` // RELAY
	// Path cache.
	Checksum string  `json:"checksum,omitempty"`
	CacheID  *uint32 `json:"cache_id,omitempty"`
	Valid    *bool   `json:"valid,omitempty"`
	Path     string  `json:"path,omitempty"`
	// REMOTE_CALL.
	NodeID   *uint32 `json:"node_id,omitempty"`
	MethodID *uint16 `json:"method_id,omitempty"`
	Args     Values  `json:"args,omitempty"`
	// RAW, AUTH: the payload, in hex.
	Data string `json:"data,omitempty"`
	// Replication.
	SceneID   *uint8      `json:"scene_id,omitempty"`
	NetID     *uint32     `json:"net_id,omitempty"`
	SyncIDs   []uint32    `json:"sync_ids,omitempty"`
	Name      string      `json:"name,omitempty"`
	SpawnArgs Values      `json:"spawn_args,omitempty"`
	State     Values      `json:"state,omitempty"`
	SyncTime  *uint16     `json:"sync_time,omitempty"`
	Entries   []SyncEntry `json:"entries,omitempty"`
}

// SyncEntry is one synchronizer's state in a SYNC packet.
type SyncEntry struct {
	NetID  uint32  `json:"net_id"`
	Mask   *uint64 `json:"changed_mask,omitempty"` // delta SYNC only
	Values Values  `json:"values"`
}

// Values are decoded Variants; their JSON form is gdjson's.
type Values []any

// MarshalJSON writes the values as a JSON array of gdjson values.
func (vs Values) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := gdjson.Encode(&b, v, godot.Godot4, ""); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return bytes.ReplaceAll(b.Bytes(), []byte("\n"), nil), nil
}

var _ json.Marshaler = Values(nil)

// Decode decodes a SceneMultiplayer packet for display (see Explain for the field-by-field
// form). Errors are *PacketErrors.
func Decode(p []byte) (*PacketInfo, error) {
	if _, err := Explain(p, explain.NewBudget(1)); err != nil { // one validation for both forms
		return nil, err
	}
	return decodeChecked(p)
}

func u32(b []byte) *uint32 { v := binary.LittleEndian.Uint32(b); return &v }

func decodeChecked(p []byte) (*PacketInfo, error) {
	cmd := Command(p[0] & cmdMask)
	info := &PacketInfo{Command: cmd.String(), Flags: p[0] &^ cmdMask}
	switch cmd {
	case CmdRemoteCall:
		rc, _ := ParseRemoteCall(p)
		info.Flags = 0
		if rc.HasPath {
			info.Path = rc.Path
		} else {
			info.NodeID = &rc.NodeID
		}
		info.MethodID = &rc.MethodID
		args, err := rc.Values()
		if err != nil {
			return nil, err
		}
		info.Args = args
	case CmdSimplifyPath:
		sp, _ := ParseSimplifyPath(p)
		info.Checksum, info.CacheID, info.Path = sp.Checksum, &sp.CacheID, sp.Path
	case CmdConfirmPath:
		valid, id, _ := ParseConfirmPath(p)
		info.Valid, info.CacheID = &valid, &id
	case CmdRaw:
		info.Data = hex.EncodeToString(p[1:])
	case CmdDespawn:
		info.NetID = u32(p[1:])
	case CmdSpawn:
		sid := p[1]
		info.SceneID = &sid
		info.CacheID, info.NetID = u32(p[2:]), u32(p[6:])
		s := int(binary.LittleEndian.Uint32(p[10:]))
		l := int(binary.LittleEndian.Uint32(p[14:]))
		off := 18
		for i := 0; i < s; i++ {
			info.SyncIDs = append(info.SyncIDs, binary.LittleEndian.Uint32(p[off:]))
			off += 4
		}
		info.Name = cstring(p[off : off+l])
		off += l
		if sid == 0xff {
			a := int(binary.LittleEndian.Uint32(p[off:]))
			info.SpawnArgs = decodeAll(p[off+4 : off+4+a])
			off += 4 + a
		}
		info.State = decodeAll(p[off:])
	case CmdSync:
		if p[0]&(1<<4) != 0 {
			for off := 1; off < len(p); {
				size := int(binary.LittleEndian.Uint32(p[off+12:]))
				mask := binary.LittleEndian.Uint64(p[off+4:])
				info.Entries = append(info.Entries, SyncEntry{NetID: binary.LittleEndian.Uint32(p[off:]), Mask: &mask,
					Values: decodeAll(p[off+16 : off+16+size])})
				off += 16 + size
			}
			break
		}
		t := binary.LittleEndian.Uint16(p[1:])
		info.SyncTime = &t
		for off := 3; off < len(p); {
			size := int(binary.LittleEndian.Uint32(p[off+4:]))
			info.Entries = append(info.Entries, SyncEntry{NetID: binary.LittleEndian.Uint32(p[off:]), Values: decodeAll(p[off+8 : off+8+size])})
			off += 8 + size
		}
	case CmdSys:
		sub := SysCommand(p[1])
		info.Sys = sub.String()
		if sub == SysAuth {
			info.Data = hex.EncodeToString(p[2:])
			break
		}
		id := int32(binary.LittleEndian.Uint32(p[2:]))
		info.Peer = &id
		if sub == SysRelay {
			inner, err := decodeChecked(p[6:])
			if err != nil {
				return nil, err
			}
			info.Inner = inner
		}
	}
	return info, nil
}

// decodeAll decodes concatenated compressed variants that Explain has validated.
func decodeAll(p []byte) Values {
	vs := Values{}
	for off := 0; off < len(p); {
		v, n, err := DecodeCompressed(p[off:])
		if err != nil {
			break
		}
		vs = append(vs, v)
		off += n
	}
	return vs
}
