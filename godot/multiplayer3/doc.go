// Package multiplayer3 speaks Godot 3's high-level multiplayer over ENet: what a Godot 3.x game
// puts on the wire with a NetworkedMultiplayerENet peer and the default MultiplayerAPI (rpc(),
// rpc_id(), rset(), send_bytes()), byte for byte. It is the Godot 3 sibling of package
// multiplayer, which speaks Godot 4.
//
// The layers, from the bottom:
//
//   - the transport framing of NetworkedMultiplayerENet: three ENet channels (0 for the SYS
//     messages ADD_PEER and REMOVE_PEER, 1 reliable, 2 unreliable), and on channels 1 and up an
//     8-byte [u32 source][u32 target] header before every MultiplayerAPI packet
//     ([AppendHeader], [ParseHeader], [AppendSys], [ParseSys]);
//   - the MultiplayerAPI packets: REMOTE_CALL and REMOTE_SET by method or property name, with a
//     cached path id or the full node path at the offset the target field gives, SIMPLIFY_PATH,
//     CONFIRM_PATH and RAW, with Godot 3 Variant arguments through package godot
//     ([AppendRemoteCall], [Parse], …) and [Explain], which names every field as an
//     explain.Frame;
//   - [Node] and [RPC], which declare the nodes the GDScript side has, their functions and
//     properties with the Godot 3 rpc modes ([ModeRemote], [ModeMaster], [ModePuppet] and the
//     sync modes), and typed Go handlers;
//   - [Server], the peer 1 that unmodified Godot 3 clients connect to (client-chosen ids, relay,
//     the path cache, the mode checks), and [Client], a Go peer that connects like a Godot 3
//     client, both over package enet, in any of the five compression modes
//     ([CompressionMode]); package lobby is the example that `gamewire godot mp serve --godot 3`
//     runs.
//
// Everything here is checked against Godot 3.2.3 (Debian's godot3-server, which links the
// system's ENet 1.3.17): the tests replay sessions recorded from the real engine in testdata/
// and assert that the codec reads and writes the same bytes, and run the engine against the
// Server and the Client. docs/multiplayer3.md says what was tested against what.
package multiplayer3
