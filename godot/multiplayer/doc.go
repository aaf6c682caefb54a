// Package multiplayer speaks Godot 4's high-level multiplayer protocol: a Go server that
// unmodified Godot clients connect to with a WebSocketMultiplayerPeer and the default
// SceneMultiplayer, and call with rpc(), as they would call a Godot server; and a matching Go
// client.
//
// The layers, from the bottom:
//
//   - packet functions (AppendRemoteCall, ParseRemoteCall, AppendSimplifyPath, AppendCompressed,
//     DecodeCompressed …) that build and parse SceneMultiplayer packets byte for byte as the
//     engine does, and Explain, which names every field, replication packets included;
//   - Node and RPC, which declare the nodes the GDScript side has and their @rpc methods, with
//     typed Go handlers whose arguments are decoded with godot.Unmarshal;
//   - Server, peer 1 (the WebSocket handshake, peer ids, SYS messages, relay, authentication,
//     the path cache, RPCs both ways, RAW packets), which serves as net/http does and is an
//     http.Handler, and Client, a Go peer that connects like a Godot client;
//   - the same Server and Client over ENet (ServeENet, DialENet) for desktop games with an
//     ENetMultiplayerPeer, with its channel map and connect-data peer ids;
//   - replication: Spawner, Scene and SyncConfig declare the clients' MultiplayerSpawners and
//     MultiplayerSynchronizers; Server.Spawn spawns entities (SPAWN, DESPAWN, net ids, late
//     joiners, visibility filters run every tick or on request, spawners nested in spawned
//     scenes), SyncState sets what the server replicates (SYNC and delta SYNC every
//     tick) and receives what clients replicate (SyncState.Unmarshal); nodes can be added,
//     removed and templated while the server runs. Package project reads all of it from a
//     game's project folder;
//   - VarConn, for games that skip the high-level API and put_var Variants on a WebSocketPeer.
//
// Hostile peers: every limit holds by default (see Server's fields and docs/multiplayer.md for
// the worst cases in bytes): per-peer byte budgets that charge relay and broadcasts to their
// sender, relay that waits on a busy queue rather than dropping its reader, ping liveness,
// per-address and rate limits on connections, a deadline and a wire-byte budget per message,
// and a log that grows no faster than its input.
//
// What the engine does is the reference: Godot 4.6's modules/multiplayer and modules/websocket
// (see the README's section for what is and is not supported per version). The tests run the
// official Godot 4.6 web build as the client.
package multiplayer
